#!/usr/bin/env bash
# Builds kifu's Python package (crates/python, PyO3 + maturin, release) into a virtual
# environment and runs its pytest suite: round trips, differential tests against sgfmill and
# python-chess over ../shared/corpus, dtypes and shapes, errors, a hypothesis fuzz, and
# `kifu pos export`'s Parquet files read with pyarrow (the kifu binary: $KIFU_BIN, else the newer
# of target/release/kifu and target/debug/kifu, which tools/test.sh builds first).
#
# Usage: bash tools/test_python.sh [PYTEST ARGS...]
# The venv is $KIFU_PY_VENV (default /opt/kifu-py); it is created on first use, with maturin,
# numpy, pytest, hypothesis, sgfmill, chess and pyarrow from PyPI. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${KIFU_PY_VENV:-/opt/kifu-py}"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
  PYTHON="$(command -v python3 || true)"
  if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    # A bare Debian: Python's venv module comes in its own package.
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3 python3-venv python3-pip >/dev/null
    PYTHON="$(command -v python3)"
  fi
  "$PYTHON" -c 'import sys; assert sys.version_info >= (3, 9), "kifu needs CPython 3.9+"'
  "$PYTHON" -m venv "$VENV"
fi
if ! "$PY" -c 'import maturin, numpy, pytest, hypothesis, sgfmill, chess, pyarrow' >/dev/null 2>&1; then
  "$PY" -m pip install --quiet --disable-pip-version-check \
    maturin numpy pytest hypothesis sgfmill chess pyarrow
fi

# The extension: a release build (abi3, CPython 3.9+), installed over any earlier one. The
# crate has its own workspace and target folder (crates/python/target).
WHEELS=crates/python/target/wheels
rm -rf "$WHEELS"
nice -n 10 "$VENV/bin/maturin" build --release --quiet \
  --manifest-path crates/python/Cargo.toml --interpreter "$PY" --out "$WHEELS"
"$PY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
  "$WHEELS"/kifu-*.whl

# Run from outside the source tree so that `import kifu` is the installed package.
cd crates/python/tests
exec "$PY" -m pytest -q -p no:cacheprovider "$@" .
