#!/usr/bin/env bash
# Pattern search: kifu against Kombilo 0.8.4 on the same games and the same queries, both timed
# in process (kifu through crates/search/examples/search_timing.rs: `Database::open`, which reads
# the pattern index `kifu pos index` wrote beside the .kpx, then `Database::search_many`, fastest
# and median of 9 runs, timed before and after Kombilo's, the faster of the two; Kombilo through
# its Python module kombilo.libkombilo in tools/kombilo_search.py, which times GameList.search
# alone, the fastest of 5), in one run; prints each query's
# times and the ratio Kombilo / kifu fastest (above 1: kifu is faster), and the sums.
# Both count as Kombilo does (kifu's --count placements), and the hit counts are printed side by
# side so a ratio is only read where they agree.
# Building is compared in the same run too: `kifu pos index` (the whole command: the full-board
# .kpx and the pattern .kpp, wall time) against Kombilo's GameList build (processing and
# finalize, timed inside tools/kombilo_search.py), as games per second of each, the fastest of
# six builds on each side (kifu's three before Kombilo's and three after).
#
# usage: bench/search.sh [FOLDER]   (default: ../shared/corpus/sgf/games; 19x19 games are used)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/sgf/games}
python=${KIFU_KOMBILO_PYTHON:-/opt/kombilo/bin/python}
[ -x "$python" ] || bash tools/install_kombilo.sh /opt/kombilo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release -q -p kifu
cargo build --release -q -p kifu-search --example search_timing
# Each side builds 6 times; the fastest counts (as the searches: the fastest of several runs).
# kifu's builds are timed 3 before Kombilo's and 3 after: this machine's speed drifts within a
# run (by half, some minutes), and kifu's two threads feel a busy neighbour more than
# Kombilo's one, so builds timed only at one end of the run can all fall in a slow minute.
: > "$work/index.time"
kifu_builds() {
  for _ in 1 2 3; do
    t0=$(date +%s.%N)
    target/release/kifu pos index "$corpus" -o "$work/db.kpx" --json > "$work/index.json"
    t1=$(date +%s.%N)
    echo "$t0 $t1" >> "$work/index.time"
  done
}
kifu_builds
# name | kifu query | Kombilo query
queries=(
  "sparse 7x7 corner (3-4)|{\"pattern\":\".......\n.......\n...#...\n.......\n.......\n.......\n.......\",\"placement\":{\"kind\":\"at\",\"col\":0,\"row\":0},\"counting\":\"placements\"}|{\"pattern\":\".......\n.......\n...X...\n.......\n.......\n.......\n.......\",\"kind\":\"corner\",\"anchor\":[0,0]}"
  "crowded 5x5 corner|{\"pattern\":\"**...\n*....\n*..#.\n*....\n*.O..\",\"placement\":{\"kind\":\"at\",\"col\":0,\"row\":0},\"swap_colors\":true,\"counting\":\"placements\"}|{\"pattern\":\"**...\n*....\n*..X.\n*....\n*.O..\",\"kind\":\"corner\",\"anchor\":[0,0],\"swap_colors\":true}"
  "9x5 side|{\"pattern\":\".........\n.........\n....#....\n.........\n.........\",\"placement\":{\"kind\":\"edge\",\"side\":\"top\"},\"counting\":\"placements\"}|{\"pattern\":\".........\n.........\n....X....\n.........\n.........\",\"kind\":\"side\",\"anchor\":[5,0]}"
  "5x5 anywhere|{\"pattern\":\".....\n.#O..\n..#..\n.....\n.....\",\"placement\":{\"kind\":\"anywhere\"},\"counting\":\"placements\"}|{\"pattern\":\".....\n.XO..\n..X..\n.....\n.....\",\"kind\":\"center\"}"
)
: > "$work/kifu.jsonl"; : > "$work/kombilo.jsonl"
for q in "${queries[@]}"; do
  IFS='|' read -r _ k m <<< "$q"
  printf '%s\n' "$k" >> "$work/kifu.jsonl"; printf '%s\n' "$m" >> "$work/kombilo.jsonl"
done
target/release/examples/search_timing "$work/db.kpx" "$work/kifu.jsonl" 9 > "$work/kifu.out"
"$python" tools/kombilo_search.py --builds=6 --runs=5 "$work/kombilo-db" "$corpus" "$work/kombilo.jsonl" \
  > "$work/kombilo.out" 2> "$work/kombilo.err"
# kifu's searches timed again after Kombilo's: this machine's speed drifts over a run, and each
# side's fastest then comes from both ends of it.
target/release/examples/search_timing "$work/db.kpx" "$work/kifu.jsonl" 9 > "$work/kifu2.out"
kifu_builds
python3 - "$work" "${queries[@]}" <<'PY'
import json, re, sys
work, names = sys.argv[1], [q.split('|')[0] for q in sys.argv[2:]]
kifu = [json.loads(l) for l in open(f"{work}/kifu.out")]
for k, again in zip(kifu, [json.loads(l) for l in open(f"{work}/kifu2.out")]):
    assert k["hits"] == again["hits"]
    k["min_ms"] = min(k["min_ms"], again["min_ms"])
    k["median_ms"] = min(k["median_ms"], again["median_ms"])
komb = [json.loads(l) for l in open(f"{work}/kombilo.out")]
times = [float(x) for x in re.findall(r"hits, ([0-9.]+)s$", open(f"{work}/kombilo.err").read(), re.M)]
print(f"{'query':28} {'kifu hits':>10} {'Kombilo hits':>12} {'kifu ms':>9} {'kifu med':>9} {'Kombilo ms':>10} {'ratio':>7}")
ks = ms = 0.0
for i, n in enumerate(names):
    kt = kifu[i]["min_ms"]; km = kifu[i]["median_ms"]
    mt = times[i] * 1000 if i < len(times) else float('nan')
    ks += kt; ms += mt
    print(f"{n:28} {kifu[i]['hits']:>10} {komb[i]['hits']:>12} {kt:>9.1f} {km:>9.1f} {mt:>10.1f} {mt / kt:>7.2f}")
print(f"{'sum':28} {'':>10} {'':>12} {ks:>9.1f} {'':>9} {ms:>10.1f} {ms / ks:>7.2f}")
runs = [b - a for a, b in (map(float, l.split()) for l in open(f"{work}/index.time") if l.strip())]
games = json.load(open(f"{work}/index.json"))["games"]
built = re.findall(r"built .* in ([0-9.]+)s: (\{.*?\});", open(f"{work}/kombilo.err").read())
kruns = [float(t) for t, _ in built]
kg = json.loads(built[0][1])["games"]
ft, kt = min(runs), min(kruns)
print(f"building, fastest of {len(runs)} and {len(kruns)}: kifu {games} games in {ft:.2f} s "
      f"({games / ft:,.0f} games/s, both indexes; runs {', '.join(f'{r:.2f}' for r in runs)}); "
      f"Kombilo {kg} games in {kt:.2f} s ({kg / kt:,.0f} games/s; runs "
      f"{', '.join(f'{r:.2f}' for r in kruns)}); ratio {(games / ft) / (kg / kt):.2f}")
PY
