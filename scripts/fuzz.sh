#!/usr/bin/env bash
# Fuzzes every AQM state machine for a bounded time (default 20 s each; FUZZ_SECONDS to change):
# arbitrary configurations drawn from the parameter schema and arbitrary traffic, checking the
# invariants of aqm::harness (no panic, p in [0, 1], queue within its limit, packets conserved).
# Needs cargo-fuzz and a nightly toolchain; installs cargo-fuzz from crates.io if missing.
# Inputs that once failed are kept in fuzz/regressions/TARGET and replayed on every run.
# Exit 0: no failure found; 1: a target failed, or the tools are missing and --required was
# given (scripts/test.sh passes it; by hand, missing tools are reported and skipped).
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${FUZZ_SECONDS:-20}"
missing=0
[ "${1:-}" = "--required" ] && missing=1
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzz.sh: no nightly toolchain (rustup toolchain install nightly); the proptest suite in crates/aqm/src/harness.rs still runs in cargo test" >&2
    exit $missing
fi
if ! command -v cargo-fuzz >/dev/null; then
    cargo install cargo-fuzz --locked --quiet || { echo "fuzz.sh: cargo-fuzz did not install" >&2; exit $missing; }
fi
mkdir -p target
status=0
for target in $(cargo +nightly fuzz list); do
    echo "fuzzing $target for ${seconds}s"
    # The corpus grows here (not committed); fuzz/regressions/TARGET holds inputs that once
    # failed, replayed first on every run.
    mkdir -p "corpus/$target"
    dirs=("corpus/$target")
    [ -d "regressions/$target" ] && dirs+=("regressions/$target")
    if ! cargo +nightly fuzz run "$target" "${dirs[@]}" -- -max_total_time="$seconds" -max_len=4096 -print_final_stats=0 >"target/$target.log" 2>&1; then
        echo "fuzz.sh: $target FAILED, see fuzz/target/$target.log and fuzz/artifacts/$target" >&2
        tail -20 "target/$target.log" >&2
        status=1
    fi
done
exit $status
