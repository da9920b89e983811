#!/usr/bin/env bash
# Quick start, command 1: install aqmlab into .venv and run the main job (the PIE paper's
# base scenario): prints the summary and writes results and plots to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
aqmlab run pie-base -o out/pie-base
echo "plots: out/pie-base/plots/overview.png"
