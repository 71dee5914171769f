#!/usr/bin/env bash
# kifu book vs polyglot 2.0.4 and python-chess on the same inputs; prints times and ratios.
# Usage: bench/polyglot.sh   (builds kifu in release; needs polyglot and python3 with chess;
# jja is run when installed: cargo install jja)
set -euo pipefail
cd "$(dirname "$0")/.."
C=../shared/corpus/polyglot
PG=$(command -v polyglot || echo /usr/games/polyglot)
cargo build --release -q -p kifu
K=target/release/kifu
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn $C/pgn/tcec/*.pgn > "$T/tcec.pgn"
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
best() { local b=999 x; for _ in 1 2 3; do x=$(t "$@"); b=$(echo "if ($x < $b) $x else $b" | bc); done; echo "$b"; }
ratio() { echo "scale=2; $1 / $2" | bc; }
for pgn in $C/pgn/human-clean.pgn "$T/tcec.pgn"; do
  size=$(du -m "$pgn" | cut -f1)
  p=$(best "$PG" make-book -pgn "$pgn" -bin "$T/p.bin")
  k1=$(best $K book make "$pgn" -o "$T/k.bin" --compat polyglot -j 1)
  kj=$(best $K book make "$pgn" -o "$T/k.bin" --compat polyglot)
  echo "make-book $(basename "$pgn") (${size} MB): polyglot ${p}s, kifu -j1 ${k1}s ($(ratio "$p" "$k1")x), kifu -j$(nproc) ${kj}s ($(ratio "$p" "$kj")x)"
  if command -v jja >/dev/null; then
    j=$(best jja make "$pgn" -o "$T/j.bin"); echo "  jja make ${j}s (kifu -j1 $(ratio "$j" "$k1")x faster)"
  fi
done
p=$(best "$PG" merge-book -in1 $C/books/performance.bin -in2 $C/books/varied.bin -out "$T/pm.bin")
k=$(best $K book merge $C/books/performance.bin $C/books/varied.bin -o "$T/km.bin")
echo "merge performance+varied: polyglot ${p}s, kifu ${k}s ($(ratio "$p" "$k")x)"
# Lookups: 20,000 FENs from human-clean positions, through `kifu book lookup` and python-chess.
python3 - "$C" "$T/fens.txt" <<'PY'
import sys, chess.pgn
c, out = sys.argv[1:]
fens = []
with open(c + "/pgn/Fischer.pgn") as f:
    while len(fens) < 20000:
        g = chess.pgn.read_game(f)
        if g is None: break
        b = g.board()
        for m in g.mainline_moves():
            b.push(m); fens.append(b.fen())
open(out, "w").write("\n".join(fens[:20000]) + "\n")
PY
n=$(wc -l < "$T/fens.txt")
k=$(best $K book lookup $C/books/performance.bin "$T/fens.txt")
py=$(best python3 -c "
import sys, chess, chess.polyglot
r = chess.polyglot.open_reader('$C/books/performance.bin')
for line in open('$T/fens.txt'):
    list(r.find_all(chess.Board(line.strip())))
")
echo "lookups ($n FENs, parse + lookup + SAN/UCI): kifu $(echo "$n / $k" | bc)/s, python-chess $(echo "$n / $py" | bc)/s ($(ratio "$py" "$k")x)"
