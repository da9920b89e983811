#!/usr/bin/env bash
# Quick start, command 1: install aqmlab into .venv and run the main job (the PIE paper's
# base scenario): prints the summary and writes results, plots and report.html to out/.
# About 3.5 min on a fresh clone (the Rust build), 10-40 s after that.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
echo "aqmlab: simulating the PIE paper's base scenario (pie-base: 100 s of 5 TCP flows, a few seconds) ..."
aqmlab run pie-base -o out/pie-base
echo "open out/pie-base/report.html (summary, plots, flows, scenario); plots also in out/pie-base/plots/"
