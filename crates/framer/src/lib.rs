//! A sans-IO NDJSON framer.
