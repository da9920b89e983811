#!/usr/bin/env bash
# Quick start, command 2: install aqmlab with its test tools into .venv and run the whole
# test suite: the Rust unit and integration tests, then the Python tests (the live tests
# need root and the Debian packages of scripts/live-setup.sh, which also brings tshark, tcptrace and
# chromium for the pcap and report tests). About 20 min on 2 cores, a third of it compiling.
set -euo pipefail
cd "$(dirname "$0")/.."
AQMLAB_EXTRAS=test source scripts/venv.sh
echo "aqmlab: Debian packages for the live, pcap and report tests (installed only when missing) ..."
bash scripts/live-setup.sh
echo "aqmlab: Rust tests (compiling them takes several minutes the first time) ..."
cargo test --workspace --exclude aqmlab-py --release
echo "aqmlab: fuzzing every AQM state machine (10 s each) ..."
# Every AQM state machine under libFuzzer for a bounded time (issue 16 item 8).
FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash scripts/fuzz.sh --required
echo "aqmlab: type checks ..."
python -m mypy
echo "aqmlab: Python tests ..."
python -m pytest
