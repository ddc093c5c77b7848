//! JSON-RPC 2.0 message classification, rule checks and request/reply pairing.
