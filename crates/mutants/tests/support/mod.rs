//! Test fixtures shared by the self-tests.

#![allow(dead_code)]

pub mod clients;
pub mod http_fixture;
pub mod mutants;
