#!/usr/bin/env bash
# Coverage-guided fuzzing of the core crate's public API (cargo-fuzz, libFuzzer,
# AddressSanitizer). Not part of the test command: it needs a nightly toolchain
# and runs for as long as you give it.
#
#   scripts/fuzz.sh [seconds]        (default 600)
#
# Installs cargo-fuzz if missing. New corpus entries go to
# rust/tapers/fuzz/corpus/graph (ignored by git); a crash is written to
# rust/tapers/fuzz/artifacts/graph/. Copy a crash into
# rust/tapers/fuzz/regressions/NAME.bin (and fix it): `cargo test` replays
# every file there.
set -euo pipefail
secs="${1:-600}"
cd "$(dirname "$0")/../rust/tapers"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
mkdir -p fuzz/corpus/graph
# Huge requests must come back as errors (tapers checks allocations with
# try_reserve); ASan would otherwise abort on them before our check can see a
# refusal.
export ASAN_OPTIONS="allocator_may_return_null=1:${ASAN_OPTIONS:-}"
cargo +nightly fuzz run graph --fuzz-dir fuzz fuzz/corpus/graph fuzz/regressions -- \
    -max_total_time="$secs" -max_len=512 -print_final_stats=1
