#!/usr/bin/env bash
# Regenerates docs/curves/*.png (`make plots`): renders every curve through paramd's engine with
# Benchmarks' CurveData tool (a real Renderer at 48 kHz; see Benchmarks/Sources/CurveData), then
# draws the CSV with scripts/plot-curves.py. The points are the engine's output, not formulas.
#
# Needs Swift and Python 3 with matplotlib (see below for where it is found or installed).
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
OUT=${OUT:-docs/curves}
TOOLS=.build-tools
mkdir -p "$TOOLS" "$OUT"

# A Python with matplotlib: the one on PATH, Debian's, a virtual environment with it from PyPI,
# or, failing all, Debian's python3-matplotlib installed with apt-get (through sudo when not root).
has_matplotlib() { command -v "$1" >/dev/null 2>&1 && "$1" -c 'import matplotlib' 2>/dev/null; }
python=""
venv="$TOOLS/plot-venv"
for candidate in python3 /usr/bin/python3 "$venv/bin/python"; do
    if has_matplotlib "$candidate"; then python=$candidate; break; fi
done
if [ -z "$python" ] && python3 -m venv "$venv" 2>/dev/null; then
    echo "Installing matplotlib into $venv"
    if "$venv/bin/python" -m pip install --quiet matplotlib; then python="$venv/bin/python"; fi
fi
if [ -z "$python" ] && command -v apt-get >/dev/null 2>&1; then
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if [ -t 0 ]; then sudo=(sudo); else sudo=(sudo -n); fi
    fi
    echo "Installing python3-matplotlib with apt-get"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update || true
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-matplotlib
    python=/usr/bin/python3
fi
if [ -z "$python" ]; then
    echo "error: no Python 3 with matplotlib, and none could be installed" >&2
    exit 1
fi

"$SWIFT" build -c release --package-path Benchmarks --product CurveData
bin="$("$SWIFT" build -c release --package-path Benchmarks --show-bin-path)"
"$bin/CurveData" > "$TOOLS/curves.csv"
"$python" scripts/plot-curves.py "$TOOLS/curves.csv" "$OUT"
