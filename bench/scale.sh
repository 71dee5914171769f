#!/usr/bin/env bash
# Scoring at scale: GNU Go (level 0, 1 playout) over the same distinct 9x9 positions of the shared
# corpus, in one run: one process with 1 and 2 engines, then `kifu slurm score` with 4 shards on
# the one-node cluster (tools/slurm_up.sh); prints positions/s, the sharded run's overhead against
# the one-process run with as many engines as the node has CPUs, and whether the bytes agree.
# Also kifu's own overhead per position: the fake engine (no search) scoring the same positions.
#
# usage: bench/scale.sh [POSITIONS, default 400]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-400}
export PATH="$PATH:/usr/games"
cargo build --release -q -p kifu
bash tools/slurm_up.sh >/dev/null
kifu=$PWD/target/release/kifu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$kifu" pos extract "$OLDPWD/../shared/corpus/sgf/games" --size 9 -o all.dat 2>/dev/null
head -c $((92 * n)) all.dat > p.dat
engine="gnugo --mode gtp --level 0"
now() { date +%s.%N; }
rate() { python3 -c "print(f'{$1 / ($3 - $2):8.1f}')"; }
for j in 1 2; do
  t0=$(now)
  "$kifu" pos score p.dat --engine "$engine" --rules chinese --playouts 1 -j "$j" -o "one$j.dat" 2>/dev/null
  t1=$(now)
  echo "one process, $j engine(s): $(rate "$n" "$t0" "$t1") positions/s ($(python3 -c "print(f'{$t1-$t0:.2f}')") s)"
  eval "t_one$j=$(python3 -c "print($t1-$t0)")"
done
"$kifu" pos merge --sort one2.dat -o one-sorted.dat 2>/dev/null
t0=$(now)
out=$("$kifu" slurm score p.dat --engine "$engine" --rules chinese --playouts 1 --shards 4 -o sl.dat --json)
merge=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['merge_job'])" "$out")
while squeue -h -j "$merge" 2>/dev/null | grep -q .; do sleep 0.2; done
t1=$(now)
same=$(cmp -s sl.dat one-sorted.dat && echo "byte-identical to the one-process run" || echo "DIFFERENT from the one-process run")
echo "slurm, 4 shards + merge on $(nproc) CPUs: $(rate "$n" "$t0" "$t1") positions/s ($(python3 -c "print(f'{$t1-$t0:.2f}')") s, $(python3 -c "print(f'{100*(($t1-$t0)/$t_one2-1):+.0f}')")% against one process with 2 engines); $same"
t0=$(now)
"$kifu" pos score p.dat --engine "'$kifu' fake-gtp-engine" --playouts 1 -j 1 -o fake.dat 2>/dev/null
t1=$(now)
echo "kifu's overhead (fake engine, 1 engine): $(python3 -c "print(f'{1000*($t1-$t0)/$n:.3f}')") ms per position"
