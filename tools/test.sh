#!/usr/bin/env bash
# Every test of kifu: Rust (unit, integration, conformance, differential against the reference
# tools), the Python package's tests, then the browser tests of `kifu serve`. Installs what they
# need first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/games"
# Tests want optimized code, not the shipped binary's link-time optimization: without LTO and with
# parallel code generation, the ~60 test binaries (and the Python extension, and the binary the
# browser tests drive) build in far less time. Benchmarks use the real release profile.
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
bash tools/setup_tests.sh
cargo test --workspace --release
bash tools/test_python.sh
bash tools/test_browser.sh
