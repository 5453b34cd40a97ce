//! libFuzzer entry point: each input is a program of ops for the harness.
#![no_main]

#[path = "../../tests/harness/graph.rs"]
mod graph;

libfuzzer_sys::fuzz_target!(|data: &[u8]| graph::run(data));
