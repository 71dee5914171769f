#!/usr/bin/env bash
# Every test of kifu: Rust (unit, integration, conformance, differential against the reference
# tools), the Python package's tests, then the browser tests of `kifu serve`. Installs what they
# need first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/games"
bash tools/setup_tests.sh
cargo test --workspace --release
bash tools/test_python.sh
bash tools/test_browser.sh
