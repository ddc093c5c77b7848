//! MCP over stdio in depth: the protocol's revisions as data, its official
//! JSON Schemas, and the reference server every MCP check must pass.

pub mod reference;
pub mod revision;

pub use revision::Revision;
