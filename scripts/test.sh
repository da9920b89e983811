#!/usr/bin/env bash
# Quick start, command 2: install aqmlab with its test tools into .venv and run the whole
# test suite: the Rust unit and integration tests, then the Python tests (the live tests
# need root and the Debian packages of scripts/live-setup.sh, which also brings tshark, tcptrace and
# chromium for the pcap and report tests). About 15 min on 2 cores on a fresh clone, 6-8 of
# them compiling (the wheel, then the Rust tests, which reuse the wheel's crates).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase says how long it took, so that the times the README quotes can be checked.
phase() {
    echo "aqmlab: ... done in $((SECONDS - phase_start)) s"
    phase_start=$SECONDS
    echo "aqmlab: $1"
}
AQMLAB_EXTRAS=test source scripts/venv.sh
phase_start=$SECONDS
echo "aqmlab: Debian packages for the live, pcap and report tests (installed only when missing) ..."
bash scripts/live-setup.sh
phase "Rust tests (compiling them takes a few minutes the first time) ..."
# One build for both: the same profile (release) and the same target directory as the wheel
# pip has just built, and the same features, because the extension's crate is in the selection
# (it has no tests of its own): so the simulator's crates compiled for the extension are reused
# as they are, and only the test harnesses and test-only crates are compiled here. The
# criterion benchmark crate stays out (its dependencies would change serde's features).
cargo test --workspace --exclude aqmlab-aqm-bench --release
# The benchmarks' cycle counters are a feature of their own (off in the wheel): their test,
# and the benchmark that prints them compiled with them.
cargo test -p aqmlab-sim --release --features event-cycles --lib cycles
cargo bench -p aqmlab-sim --features event-cycles --bench scenarios --no-run
# Lints as errors: a warning left in is a bug report nobody reads (clippy ships with rustup's
# default profile; about a minute on a fresh clone, seconds after the builds above).
cargo clippy --workspace --all-targets --release -- -D warnings
phase "fuzzing every AQM state machine (10 s each) ..."
# Every AQM state machine under libFuzzer for a bounded time (issue 16 item 8).
FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash scripts/fuzz.sh --required
phase "type checks ..."
python -m mypy
phase "Python tests ..."
python -m pytest
phase "the whole suite passed in $SECONDS s"
