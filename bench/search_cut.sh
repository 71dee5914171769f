#!/usr/bin/env bash
# Pattern search on queries as users make them: corners and sides cut from real positions
# (crates/search/examples/cut_queries.rs: 200 queries, half corners 5x5-8x8, half sides 7-11 wide
# and 4-5 deep, from the main line at a random move 10-120 of random games of the folder).
# kifu answers each with games and continuations (default counting) and again counting as
# Kombilo does, and Kombilo 0.8.4 answers the same queries on the same games (in process:
# tools/kombilo_search.py, its GameList.search alone); prints kifu's median, 90th percentile
# and slowest per kind, the sums, and the ratio Kombilo / kifu where the hit counts agree.
#
# usage: bench/search_cut.sh [FOLDER [COUNT]]   (default: ../shared/corpus/sgf/games, 200)
#        KIFU_CUT_NO_KOMBILO=1 leaves Kombilo out.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/sgf/games}
count=${2:-200}
python=${KIFU_KOMBILO_PYTHON:-/opt/kombilo/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release -q -p kifu
cargo build --release -q -p kifu-search --example search_timing --example cut_queries
target/release/kifu pos index "$corpus" -o "$work/db.kpx" >/dev/null 2>"$work/index.err"
target/release/examples/cut_queries "$corpus" "$count" 7 "$work/kombilo.jsonl" > "$work/kifu.jsonl"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
with open(f"{w}/kifu.jsonl") as f, open(f"{w}/placements.jsonl", "w") as out:
    for line in f:
        q = json.loads(line); q["counting"] = "placements"; out.write(json.dumps(q) + "\n")
PY
target/release/examples/search_timing "$work/db.kpx" "$work/kifu.jsonl" 3 > "$work/kifu.out" 2>/dev/null
target/release/examples/search_timing "$work/db.kpx" "$work/placements.jsonl" 3 > "$work/placements.out" 2>/dev/null
if [ -z "${KIFU_CUT_NO_KOMBILO:-}" ]; then
  [ -x "$python" ] || bash tools/install_kombilo.sh /opt/kombilo
  "$python" tools/kombilo_search.py "$work/kombilo-db" "$corpus" "$work/kombilo.jsonl" \
    > "$work/kombilo.out" 2> "$work/kombilo.err"
fi
python3 - "$work" <<'PY'
import json, os, re, statistics, sys
w = sys.argv[1]
load = lambda p: [json.loads(l) for l in open(p)]
qs, kifu, pl = load(f"{w}/kifu.jsonl"), load(f"{w}/kifu.out"), load(f"{w}/placements.out")
print(f"{len(qs)} queries cut from real positions; kifu fastest of 3, ms (default counting: games and continuations)")
for kind, name in (("at", "corners"), ("edge", "sides")):
    t = sorted(k["min_ms"] for k, q in zip(kifu, qs) if q["placement"]["kind"] == kind)
    g = sorted(k["games"] for k, q in zip(kifu, qs) if q["placement"]["kind"] == kind)
    if t:
        print(f"  {name:8} {len(t):4} queries: median {statistics.median(t):7.2f}  p90 {t[int(len(t) * 0.9)]:7.2f}"
              f"  slowest {t[-1]:8.2f}  under 5 ms: {sum(x < 5 for x in t):3}  games matched: median {statistics.median(g):.0f}, most {g[-1]}")
if os.path.exists(f"{w}/kombilo.out"):
    komb = load(f"{w}/kombilo.out")
    times = [float(x) * 1000 for x in re.findall(r"hits, ([0-9.]+)s$", open(f"{w}/kombilo.err").read(), re.M)]
    agree = [i for i in range(len(qs)) if pl[i]["hits"] == komb[i]["hits"]]
    print(f"Kombilo 0.8.4 on the same games: hits agree on {len(agree)} of {len(qs)} queries (kifu counting placements)")
    for kind, name in (("at", "corners"), ("edge", "sides")):
        idx = [i for i in agree if qs[i]["placement"]["kind"] == kind]
        ks, ms = sum(pl[i]["min_ms"] for i in idx), sum(times[i] for i in idx)
        if idx:
            print(f"  {name:8} summed: kifu {ks:9.1f} ms  Kombilo {ms:9.1f} ms  ratio {ms / ks:6.2f}")
    ks, ms = sum(pl[i]["min_ms"] for i in agree), sum(times[i] for i in agree)
    print(f"  all      summed: kifu {ks:9.1f} ms  Kombilo {ms:9.1f} ms  ratio {ms / ks:6.2f}")
    bad = [i for i in range(len(qs)) if i not in agree]
    for i in bad[:5]:
        print(f"  hits differ on query {i + 1}: kifu {pl[i]['hits']}, Kombilo {komb[i]['hits']}")
PY
