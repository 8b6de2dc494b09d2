#!/usr/bin/env bash
# Regenerates docs/curves/*.png (`make plots`): renders every curve through paramd's engine with
# Benchmarks' CurveData tool (a real Renderer at 48 kHz; see Benchmarks/Sources/CurveData), then
# draws the CSV with scripts/plot-curves.py. The points are the engine's output, not formulas.
#
# Needs Swift and Python 3 with matplotlib: an installed one is used, otherwise matplotlib is
# installed from PyPI into a virtual environment in .build-tools/plot-venv.
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
OUT=${OUT:-docs/curves}
TOOLS=.build-tools
mkdir -p "$TOOLS" "$OUT"

python=python3
if ! "$python" -c 'import matplotlib' 2>/dev/null; then
    venv="$TOOLS/plot-venv"
    if [ ! -x "$venv/bin/python" ]; then
        echo "Installing matplotlib into $venv"
        if ! python3 -m venv "$venv"; then
            echo "error: python3 -m venv failed; on Debian or Ubuntu: apt-get install python3-venv" >&2
            exit 1
        fi
    fi
    python="$venv/bin/python"
    "$python" -c 'import matplotlib' 2>/dev/null || "$python" -m pip install --quiet matplotlib
fi

"$SWIFT" build -c release --package-path Benchmarks --product CurveData
bin="$("$SWIFT" build -c release --package-path Benchmarks --show-bin-path)"
"$bin/CurveData" > "$TOOLS/curves.csv"
"$python" scripts/plot-curves.py "$TOOLS/curves.csv" "$OUT"
