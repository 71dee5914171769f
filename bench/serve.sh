#!/usr/bin/env bash
# kifu serve under load on loopback: wrk (Debian) against full-board lookups and pattern searches
# on an index of the shared corpus's games, at 1, 16 and 64 connections; throughput and latency
# percentiles (wrk --latency). Then the page's first paint from a cold start of the server
# (bench/serve_paint.mjs: Chromium through playwright-core).
#
# usage: bench/serve.sh [SECONDS per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
command -v wrk >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
cargo build --release -q -p kifu
work=$(mktemp -d)
port=18080
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
target/release/kifu pos index ../shared/corpus/sgf/games -o "$work/corpus.kpx" >/dev/null 2>&1
target/release/kifu serve "$work/corpus.kpx" --bind "127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
for _ in $(seq 50); do grep -q serving "$work/serve.log" && break; sleep 0.1; done

# Lookups: positions of a common opening, one after another (each request its own position).
cat > "$work/lookup.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {
  '{"moves":[]}', '{"moves":["Q16"]}', '{"moves":["Q16","D4"]}', '{"moves":["Q16","D4","Q3"]}',
  '{"moves":["Q16","D4","Q3","D16"]}', '{"moves":["Q16","D4","Q3","D16","R5"]}',
  '{"moves":["D4","Q16","C16"]}', '{"moves":["R16","D4","Q3","C16"]}',
}
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, "/api/db/0/lookup", nil, bodies[(i % #bodies) + 1])
end
LUA
# Pattern searches: a 3-4 corner, a crowded corner and a side pattern, in turn.
cat > "$work/search.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {
  '{"query":{"pattern":"......./......./...#.../......./......./......./.......","placement":{"kind":"at","col":0,"row":0}},"limit":20}',
  '{"query":{"pattern":"**.../*..../*..#./*..../*.O..","placement":{"kind":"at","col":0,"row":0},"swap_colors":true},"limit":20}',
  '{"query":{"pattern":"........./........./....#..../........./.........","placement":{"kind":"edge","side":"top"}},"limit":20}',
}
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, "/api/db/0/search", nil, bodies[(i % #bodies) + 1])
end
LUA
games=$(curl -s "127.0.0.1:$port/api/info" | python3 -c 'import json,sys; print(json.load(sys.stdin)["databases"][0]["games"])')
echo "kifu serve on the shared corpus's $games 19x19 games, wrk ${secs}s per run, $(nproc) cores shared by server and wrk"
for kind in lookup search; do
  for c in 1 16 64; do
    t=$(( c < 2 ? 1 : 2 ))
    out=$(wrk -t"$t" -c"$c" -d"${secs}s" --latency -s "$work/$kind.lua" "http://127.0.0.1:$port" 2>&1)
    rps=$(awk '/Requests\/sec/ {print $2}' <<< "$out")
    p50=$(awk '/ 50% / {print $2}' <<< "$out")
    p99=$(awk '/ 99% / {print $2}' <<< "$out")
    errs=$(grep -E "Non-2xx|Socket errors" <<< "$out" | tr '\n' ' ' || true)
    printf '%-7s c=%-3s %10s req/s  p50 %-9s p99 %-9s %s\n' "$kind" "$c" "$rps" "$p50" "$p99" "$errs"
  done
done
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
# First paint from a cold start.
(cd tests/browser && npm ci --silent --no-audit --no-fund)
node bench/serve_paint.mjs target/release/kifu "$work/corpus.kpx"
