//! MCP over stdio in depth: the protocol's revisions as data, its official
//! JSON Schemas, and the reference server every MCP check must pass.

pub mod conn;
pub mod grade;
pub mod reference;
pub mod revision;
pub mod rules;
pub mod schema;
pub mod suite;

pub use revision::Revision;
