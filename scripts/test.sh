#!/usr/bin/env bash
# Quick start, command 2: install aqmlab with its test tools into .venv and run the whole
# test suite: the Rust unit and integration tests, then the Python tests (the live tests
# need root and the Debian packages of scripts/live-setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
AQMLAB_EXTRAS=test source scripts/venv.sh
bash scripts/live-setup.sh
cargo test --workspace --exclude aqmlab-py --release
# Every AQM state machine under libFuzzer for a bounded time (issue 16 item 8).
FUZZ_SECONDS="${FUZZ_SECONDS:-10}" bash scripts/fuzz.sh --required
python -m mypy
python -m pytest
