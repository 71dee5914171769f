#!/usr/bin/env bash
# kifu pos score against a plain sequential GTP loop (bench/gtp_loop.py), same positions, same
# commands: GNU Go level 0 with 1 engine and with -j on every core, and kifu's own overhead per
# position measured with the instant fake engine (`kifu fake-gtp-engine`).
# Usage: bench/score.sh [POSITIONS=60] [PLAYOUTS=1]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-60}
P=${2:-1}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
cargo build --release -q -p kifu -p kifu-posdb --examples --bins
KIFU=$PWD/target/release/kifu
GNUGO=$(command -v gnugo || echo /usr/games/gnugo)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
target/release/examples/random_positions "$N" "$T/p.dat" 1
FAKE_N=$((N * 50))
target/release/examples/random_positions "$FAKE_N" "$T/fake.dat" 2
CORES=$(nproc)
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
rate() { echo "scale=2; $1 / $2" | bc -l; }

loop=$(secs python3 bench/gtp_loop.py "$T/p.dat" "$P" "$GNUGO" --mode gtp --level 0 --chinese-rules)
one=$(secs "$KIFU" pos score "$T/p.dat" --engine "$GNUGO --mode gtp --level 0" --rules chinese --playouts "$P" -j 1 -o "$T/a.dat")
all=$(secs "$KIFU" pos score "$T/p.dat" --engine "$GNUGO --mode gtp --level 0" --rules chinese --playouts "$P" -j "$CORES" -o "$T/b.dat")
"$KIFU" pos compare "$T/a.dat" "$T/b.dat" >/dev/null && same=yes || same=no
echo "GNU Go 3.8 level 0, $N positions x $P playouts, $CORES cores"
echo "  plain GTP loop (python, 1 engine): $(rate "$N" "$loop") positions/s (${loop}s)"
echo "  kifu pos score -j 1:               $(rate "$N" "$one") positions/s (${one}s)  ratio $(rate "$loop" "$one")"
echo "  kifu pos score -j $CORES:               $(rate "$N" "$all") positions/s (${all}s)  ratio $(rate "$loop" "$all")"
echo "  -j 1 and -j $CORES files agree: $same"

floop=$(secs python3 bench/gtp_loop.py "$T/fake.dat" "$P" "$KIFU" fake-gtp-engine)
fone=$(secs "$KIFU" pos score "$T/fake.dat" --engine "$KIFU fake-gtp-engine" --playouts "$P" -j 1 -o "$T/f.dat")
echo "fake engine (instant answers), $FAKE_N positions x $P playouts"
echo "  plain GTP loop: $(echo "scale=1; $floop * 1000000 / $FAKE_N" | bc -l) us/position"
echo "  kifu -j 1:      $(echo "scale=1; $fone * 1000000 / $FAKE_N" | bc -l) us/position (engine round trips included)"
