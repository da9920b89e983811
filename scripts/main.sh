#!/usr/bin/env bash
# Quick start, command 1: install aqmlab into .venv and run the main job (a representative
# dumbbell experiment): prints the summary and writes results and plots to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
aqmlab run dumbbell-droptail -o out/dumbbell-droptail
echo "plots: out/dumbbell-droptail/plots/overview.png"
