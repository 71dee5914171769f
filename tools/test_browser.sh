#!/usr/bin/env bash
# Browser tests of `kifu serve` (tests/browser): Debian's chromium driven by playwright-core from
# npm, against a server on a test index of ../shared/corpus. Screenshots: target/browser/screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! [ -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
(cd tests/browser && npm ci --silent --no-audit --no-fund)
cargo build --release -p kifu --quiet
node --test tests/browser/
