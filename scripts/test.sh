#!/usr/bin/env bash
# Quick start, command 2: install aqmlab with its test tools into .venv and run the whole
# test suite: the Rust unit and integration tests, then the Python tests (the live tests
# need root and the Debian packages of scripts/live-setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
AQMLAB_EXTRAS=test source scripts/venv.sh
bash scripts/live-setup.sh
cargo test --workspace --exclude aqmlab-py --release
python -m mypy
python -m pytest
