#!/usr/bin/env bash
# Long-running reliability checks, beyond the test command's time budget:
#   1. leaks: 100,000 record-and-gradient cycles per kind (RSS slope printed);
#   2. flakiness: the thread, stress and interrupt tests, 20 times in a row;
#   3. the Rust concurrency tests, 20 times;
#   4. the fuzz harness over 1,000,000 deterministic random programs;
#   5. the hypothesis properties with 2,000 randomized examples each.
# Run it from a checkout where `pip install ".[test]"` has been done.
#
#   scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== leaks: 100,000 cycles each"
TAPERS_SOAK_CYCLES=100000 python3 -m pytest -q -s tests/test_leaks.py
echo "== python concurrency and interrupts, 20 runs"
for i in $(seq 1 20); do
    python3 -m pytest -q -p no:randomly tests/test_threads.py tests/test_reliability.py >/dev/null \
        || { echo "run $i failed"; exit 1; }
done
echo "20/20 runs passed"
echo "== rust concurrency tests, 20 runs"
for i in $(seq 1 20); do
    cargo test -q -p tapers --test tape >/dev/null || { echo "run $i failed"; exit 1; }
done
echo "20/20 runs passed"
echo "== fuzz harness: 1,000,000 programs"
TAPERS_FUZZ_CASES=1000000 cargo test -q -p tapers --release --test fuzz_graph
echo "== hypothesis: 2,000 randomized examples per property"
TAPERS_HYPOTHESIS_EXAMPLES=2000 python3 -m pytest -q tests/test_properties.py
