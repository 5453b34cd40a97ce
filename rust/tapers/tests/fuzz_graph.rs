//! A bounded run of the fuzz harness (`tests/harness/graph.rs`) under
//! `cargo test`: the committed regression inputs, then pseudo-random programs
//! from a fixed seed, so every run checks the same cases. The open-ended,
//! coverage-guided run is `scripts/fuzz.sh` (cargo-fuzz, nightly).

#[path = "harness/graph.rs"]
mod graph;

use std::panic::{catch_unwind, AssertUnwindSafe};

fn run_reporting(data: &[u8]) {
    if catch_unwind(AssertUnwindSafe(|| graph::run(data))).is_err() {
        let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
        panic!("fuzz input {hex} broke an invariant (see the panic above)");
    }
}

#[test]
fn regression_inputs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("regressions folder") {
        let path = entry.expect("readable").path();
        if path.extension().is_some_and(|e| e == "bin") {
            run_reporting(&std::fs::read(&path).expect("readable"));
            n += 1;
        }
    }
    assert!(n > 0, "no regression inputs found in {dir}");
}

#[test]
fn random_programs() {
    // SplitMix64: a fixed, dependency-free stream of inputs.
    let mut state: u64 = 0x7A9E_5EED;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let cases: usize = std::env::var("TAPERS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    for _ in 0..cases {
        let len = (next() % 160) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        run_reporting(&data);
    }
}
