#!/usr/bin/env bash
# Merges of sharded runs, against the one-process run of the same job, in one run: extraction
# (every occurrence of every variation of the shared corpus's games, so the parts are large),
# index and book (the corpus's PGN). For each: the one-process time, the time of each of N
# shards, the merge's time and its throughput in MB/s of parts read, and whether the merged
# bytes equal the one-process run's. Times are the best of 3 (farm-bench style, by hand: the
# page cache is warm after the first).
#
# usage: bench/merge.sh [N, default 4]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4}
cargo build --release -q -p kifu
kifu=$PWD/target/release/kifu
corpus=$PWD/../shared/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
best() { # best wall time of 3 runs of "$@", in seconds
  python3 - "$@" <<'EOF'
import subprocess, sys, time
ts = []
for _ in range(3):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t)
print(f"{min(ts):.3f}")
EOF
}
mb() { python3 -c "import os,sys; print(sum(os.path.getsize(p) for p in sys.argv[1:]) / 1e6)" "$@"; }
report() { # job one-time shard-times merge-time parts... -- merged one
  local job=$1 one=$2 shards=$3 merge=$4; shift 4
  local parts=() ; while [ "$1" != -- ]; do parts+=("$1"); shift; done; shift
  local size; size=$(mb "${parts[@]}")
  local same; same=$(cmp -s "$1" "$2" && echo "byte-identical" || echo "DIFFERENT")
  python3 -c "
one, shards, merge, size = $one, [$shards], $merge, $size
print(f'$job: one process {one:.2f} s; {len(shards)} shards {sum(shards):.2f} s in all (slowest {max(shards):.2f} s); '
      f'merge {merge:.3f} s = {size / merge:.0f} MB/s of {size:.1f} MB of parts; shards + merge on one machine '
      f'{100 * ((sum(shards) + merge) / one - 1):+.0f}% against one process; $same')"
}

games=$corpus/sgf/games
# Extraction.
one=$(best "$kifu" pos extract "$games" --size 19 --variations --all-occurrences -j 1 -o one.dat)
times=""
for i in $(seq 1 "$n"); do
  t=$(best "$kifu" pos extract "$games" --size 19 --variations --all-occurrences -j 1 --shard "$i/$n" -o "x$i.dat")
  times="$times$t,"
done
parts=$(for i in $(seq 1 "$n"); do echo "x$i.dat"; done)
merge=$(best "$kifu" pos merge --shards $parts -o merged.dat)
# shellcheck disable=SC2086
report "extract (19x19, variations, every occurrence)" "$one" "$times" "$merge" $parts $(for i in $(seq 1 "$n"); do echo "x$i.dat.order"; done) -- merged.dat one.dat

# Index.
one=$(best "$kifu" pos index "$games" --size 19 -j 1 -o one.idx)
times=""
for i in $(seq 1 "$n"); do
  t=$(best "$kifu" pos index "$games" --size 19 -j 1 --shard "$i/$n" -o "i$i.idx")
  times="$times$t,"
done
parts=$(for i in $(seq 1 "$n"); do echo "i$i.idx"; done)
merge=$(best "$kifu" pos merge --shards $parts -o merged.idx)
# shellcheck disable=SC2086
report "index (19x19; the merge includes the pattern index)" "$one" "$times" "$merge" $parts -- merged.idx one.idx

# Book.
pgn=$corpus/polyglot/pgn
one=$(best "$kifu" book make "$pgn"/*.pgn -j 1 -o one.bin)
times=""
for i in $(seq 1 "$n"); do
  t=$(best "$kifu" book make "$pgn"/*.pgn -j 1 --counts --shard "$i/$n" -o "b$i.counts")
  times="$times$t,"
done
parts=$(for i in $(seq 1 "$n"); do echo "b$i.counts"; done)
merge=$(best "$kifu" book make --from-counts $parts -o merged.bin)
# shellcheck disable=SC2086
report "book (the corpus PGN files)" "$one" "$times" "$merge" $parts -- merged.bin one.bin
