#!/usr/bin/env bash
# kifu's Python package vs sgfmill and python-chess, from Python, on ../shared/corpus.
# Builds and installs the package into the test venv first (tools/test_python.sh's venv).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${KIFU_PY_VENV:-/opt/kifu-py}"
bash tools/test_python.sh -x -q -k "not sgfmill and not fuzz" >/dev/null
"$VENV/bin/python" bench/python_bench.py "${KIFU_CORPUS:-../shared/corpus}"
