#!/usr/bin/env bash
# SGF replay speed: kifu (decode + parse + replay + canonical Zobrist hash of every position, one
# core, files in memory) vs sgfmill (Sgf_game.from_bytes + sgf_moves.get_setup_and_moves +
# boards.Board.play along the main line, files in memory). Prints moves/s, MB/s and the ratio.
#
# usage: bench/replay.sh [FOLDER]   (default: ../shared/corpus/sgf/games)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/sgf/games}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release -q -p kifu-go --example replay_corpus
python3 -c 'import sgfmill' 2>/dev/null || python3 -m pip install -q sgfmill
find "$corpus" -type f -iname '*.sgf' | sort > "$work/files"

echo "kifu, all variations:"
target/release/examples/replay_corpus "$work/files" | tee "$work/kifu_all"
echo "kifu, main line only:"
target/release/examples/replay_corpus --main-line "$work/files" | tee "$work/kifu_main"
cores=$(nproc)
echo "kifu, main line only, $cores threads (files shared out):"
target/release/examples/replay_corpus --main-line --threads "$cores" "$work/files" | tee "$work/kifu_main_mt"

python3 bench/sgfmill_replay_timed.py "$work/files" > "$work/sgfmill"
read -r sm_ok sm_bytes sm_moves sm_pos sm_secs < "$work/sgfmill"
echo "sgfmill, main line (the $sm_ok files it replays to the end):"
python3 -c "print(f'{$sm_moves} moves {$sm_secs:.3f} s {$sm_moves/$sm_secs/1e6:.3f} M moves/s {$sm_bytes/$sm_secs/1e6:.2f} MB/s')"
python3 - "$work/kifu_main" "$work/kifu_all" "$sm_bytes" "$sm_moves" "$sm_secs" "$work/kifu_main_mt" <<'PY'
import sys, re
def parse(p):
    t = open(p).read()
    return float(re.search(r"([0-9.]+) M moves/s", t).group(1)), float(re.search(r"([0-9.]+) MB/s", t).group(1))
km, kmb = parse(sys.argv[1]); ka, kab = parse(sys.argv[2])
smb = int(sys.argv[3]) / float(sys.argv[5]) / 1e6
smm = int(sys.argv[4]) / float(sys.argv[5]) / 1e6
print(f"ratio kifu main line / sgfmill: {km/smm:.0f}x in moves/s, {kmb/smb:.0f}x in MB/s")
print(f"ratio kifu all variations / sgfmill main line: {ka/smm:.0f}x in moves/s, {kab/smb:.0f}x in MB/s")
kt, ktb = parse(sys.argv[6])
print(f"ratio kifu main line on every core / sgfmill (one core, as Python runs it): {kt/smm:.0f}x in moves/s, {ktb/smb:.0f}x in MB/s")
PY
