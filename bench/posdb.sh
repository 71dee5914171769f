#!/usr/bin/env bash
# Position databases: `kifu pos extract` and `kifu pos index` speed (games/s, positions/s) on the
# SGF game corpus, lookup latency at ~10,000 and ~100,000 games (the corpus indexed once and ten
# times), against sgfmill replaying the same main lines (Kombilo is not installable here).
#
# usage: bench/posdb.sh [FOLDER]   (default: ../shared/corpus/sgf/games)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/sgf/games}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
cargo build --release -q -p kifu
cargo build --release -q -p kifu-posdb --example lookup_latency
kifu=target/release/kifu
python3 -c 'import sgfmill' 2>/dev/null || python3 -m pip install -q sgfmill
find "$corpus" -type f -iname '*.sgf' | sort > "$work/files"
echo "corpus: $(wc -l < "$work/files") SGF files in $corpus"

field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }
report() { # name json
  printf '%-44s %7s games %9s positions %6.2f s  %9.0f games/s  %11.0f positions/s\n' "$1" \
    "$(field "$2" games)" "$(field "$2" "${3:-occurrences}")" "$(field "$2" seconds)" \
    "$(field "$2" games_per_second)" "$(field "$2" positions_per_second)"
}

for j in 1 2; do
  $kifu pos extract "$corpus" -o "$work/p19.dat" --size 19 --json -j $j > "$work/e19_$j.json"
  report "extract 19x19, main lines, -j $j" "$work/e19_$j.json"
done
# The floor for 19x19 extraction: writing its output alone (dd of as many bytes, with and without
# fdatasync; kifu syncs its output before renaming it).
mb=$(( $(stat -c %s "$work/p19.dat") / 1048576 ))
for sync in "" "conv=fdatasync"; do
  t0=$(date +%s.%N); dd if=/dev/zero of="$work/dd" bs=1M count=$mb $sync status=none; t1=$(date +%s.%N)
  printf '%-44s %7s MB %35.2f s\n' "dd ${sync:-without sync} (19x19 output size)" "$mb" "$(echo "$t1 - $t0" | bc)"
done
rm -f "$work/dd"
$kifu pos extract "$corpus" -o "$work/p19v.dat" --size 19 --variations --json > "$work/e19v.json"
report "extract 19x19, all variations, -j 2" "$work/e19v.json"
$kifu pos extract "$corpus" -o "$work/p9.dat" --size 9 --variations --json > "$work/e9.json"
report "extract 9x9, all variations, -j 2" "$work/e9.json"
# 9x9, the size of the study: the corpus's 9x9 files (selected by SZ), 50 copies (symlinks).
{ tr '\n' '\0' < "$work/files" | xargs -0 grep -l 'SZ\[9\]' || true; } | sort > "$work/nine"
for c in $(seq -w 1 50); do
  mkdir -p "$work/nine_dir/$c"
  n=0; while read -r f; do n=$((n + 1)); ln -s "$(realpath "$f")" "$work/nine_dir/$c/$n.sgf"; done < "$work/nine"
done
# The first pass over fresh symlinks is slow (cold directory entries): a warm-up run first.
$kifu pos extract "$work/nine_dir" -o "$work/n.dat" --size 9 > /dev/null 2>&1
$kifu pos extract "$work/nine_dir" -o "$work/n.dat" --size 9 --json > "$work/e9x50.json"
report "extract 9x9, 9x9 files x50, first occurrences" "$work/e9x50.json"
$kifu pos extract "$work/nine_dir" -o "$work/n.dat" --size 9 --all-occurrences --json > "$work/e9x50a.json"
report "extract 9x9, 9x9 files x50, every occurrence" "$work/e9x50a.json"
$kifu pos extract "$corpus" -o "$work/p19s.dat" --size 19 --memory 4M --json > "$work/e19s.json"
report "extract 19x19, 4 MB sort memory (spilling)" "$work/e19s.json"
echo "  spilled runs: $(field "$work/e19s.json" spilled_runs); output identical: $(cmp -s "$work/p19.dat" "$work/p19s.dat" && echo yes || echo NO)"

for j in 1 2; do
  $kifu pos index "$corpus" -o "$work/i.idx" --size 19 --json -j $j > "$work/i_$j.json"
  report "index 19x19, -j $j" "$work/i_$j.json" positions
done
$kifu pos index "$corpus" -o "$work/iv.idx" --size 19 --variations --json > "$work/iv.json"
report "index 19x19, all variations, -j 2" "$work/iv.json" positions
args=(); for _ in 1 2 3 4 5 6 7 8 9 10; do args+=("$corpus"); done
$kifu pos index "${args[@]}" -o "$work/i10.idx" --size 19 --json > "$work/i10.json"
report "index 19x19, corpus x10, -j 2" "$work/i10.json" positions
ls -l "$work/i.idx" "$work/i10.idx" | awk '{print "  index size: " $5 " bytes " $9}'

echo "lookup latency (in process; what kifu pos lookup reads: counts, continuations, 20 games):"
target/release/examples/lookup_latency "$work/i.idx" "$work/files"
target/release/examples/lookup_latency "$work/i10.idx" "$work/files"
echo "full lookups (every matching entry read, IndexReader::lookup):"
target/release/examples/lookup_latency "$work/i10.idx" "$work/files" --full
first=$(head -1 "$work/files")
python3 - "$kifu" "$work/i10.idx" "$first" <<'PY'
import subprocess, sys, time
kifu, db, sgf = sys.argv[1:4]
ts = []
for m in range(0, 60, 3):
    t = time.perf_counter()
    subprocess.run([kifu, "pos", "lookup", db, "--sgf", sgf, "--move", str(m), "--limit", "5"], check=True, capture_output=True)
    ts.append(time.perf_counter() - t)
ts.sort()
print(f"kifu pos lookup, whole process at 10x corpus: median {ts[len(ts)//2]*1e3:.1f} ms, max {ts[-1]*1e3:.1f} ms")
PY

python3 bench/sgfmill_replay_timed.py "$work/files" > "$work/sgfmill"
read -r sm_games sm_bytes sm_moves sm_pos sm_secs < "$work/sgfmill"
python3 - "$sm_games" "$sm_pos" "$sm_secs" "$work/e19_2.json" "$work/i_2.json" <<'PY'
import sys, json
g, p, s = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
e = json.load(open(sys.argv[4])); i = json.load(open(sys.argv[5]))
print(f"sgfmill replay (main lines, all sizes, files in memory): {g} games, {p} positions, {s:.2f} s, {g/s:.0f} games/s, {p/s:.0f} positions/s")
print(f"ratio kifu extract -j 2 / sgfmill: {e['games_per_second']/(g/s):.0f}x games/s")
print(f"ratio kifu index -j 2 / sgfmill: {i['games_per_second']/(g/s):.0f}x games/s")
print(f"ratio kifu extract -j 2 / Kombilo 0.8.4 build (458 games/s, issue 6): {e['games_per_second']/458:.0f}x")
print(f"ratio kifu index -j 2 / Kombilo 0.8.4 build (458 games/s, issue 6): {i['games_per_second']/458:.0f}x")
PY
