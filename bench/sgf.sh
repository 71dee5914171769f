#!/usr/bin/env bash
# SGF parsing speed and memory: kifu vs sgf-parse (Rust crate, 4.x) vs sgfmill
# (Python), in one run on the same files. Prints MB/s and ratios.
#
# usage: bench/sgf.sh [FOLDER]   (default: ../shared/corpus/sgf/games)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus/sgf/games}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release -q -p kifu
cargo build --release -q -p kifu-sgf --example parse_speed
(cd bench/sgf-parse-harness && cargo build --release -q)
python3 -c 'import sgfmill' 2>/dev/null || python3 -m pip install -q sgfmill

find "$corpus" -type f -iname '*.sgf' | sort > "$work/files"
nfiles=$(wc -l < "$work/files")
bytes=$(xargs -d '\n' cat < "$work/files" | wc -c)
# Warm the page cache so that every tool reads from memory.
xargs -d '\n' cat < "$work/files" > /dev/null

now() { date +%s.%N; }
mbps() { python3 -c "print(f'{$1/1e6/$2:.1f}')"; }

t0=$(now); target/release/kifu sgf stats -j 1 "$corpus" > "$work/kifu1"; t1=$(now)
kifu1=$(python3 -c "print($t1-$t0)")
t0=$(now); target/release/kifu sgf stats "$corpus" > "$work/kifuN"; t1=$(now)
kifuN=$(python3 -c "print($t1-$t0)")

# kifu parse only, in memory, one core (best of 5; the sgf-parse harness takes the best of 3).
kp=$(target/release/examples/parse_speed "$corpus" 5)
kp_secs=$(echo "$kp" | sed -E 's/.*best ([0-9.]+) s.*/\1/')

read -r sp_ok sp_bytes sp_nodes sp_secs < <(bench/sgf-parse-harness/target/release/sgf-parse-harness < "$work/files")

read -r sm_ok sm_bytes sm_secs < <(python3 - "$work/files" <<'PY'
import sys, time
from sgfmill import sgf
paths = [l.rstrip("\n") for l in open(sys.argv[1])]
data = [open(p, "rb").read() for p in paths]
t = time.perf_counter(); ok = 0; n = 0
for d in data:
    try:
        sgf.Sgf_game.from_bytes(d); ok += 1; n += len(d)
    except Exception:
        pass
print(ok, n, time.perf_counter() - t)
PY
)

echo "files: $nfiles, bytes: $bytes ($corpus)"
printf '%-34s %8s %10s\n' tool seconds MB/s
printf '%-34s %8.3f %10s\n' "kifu sgf stats -j 1 (whole run)" "$kifu1" "$(mbps "$bytes" "$kifu1")"
printf '%-34s %8.3f %10s\n' "kifu sgf stats -j $(nproc) (whole run)" "$kifuN" "$(mbps "$bytes" "$kifuN")"
printf '%-34s %8.3f %10s   (all files, parse only)\n' "kifu-sgf Collection::parse" "$kp_secs" "$(mbps "$bytes" "$kp_secs")"
printf '%-34s %8.3f %10s   (%s files it accepts, parse only)\n' "sgf-parse 4.x" "$sp_secs" "$(mbps "$sp_bytes" "$sp_secs")" "$sp_ok"
printf '%-34s %8.3f %10s   (%s files it accepts, parse only)\n' "sgfmill Sgf_game.from_bytes" "$sm_secs" "$(mbps "$sm_bytes" "$sm_secs")" "$sm_ok"
python3 - "$bytes" "$kifu1" "$kifuN" "$sp_bytes" "$sp_secs" "$sm_bytes" "$sm_secs" "$kp_secs" <<'PY'
import sys
b, k1, kn, spb, sps, smb, sms, kps = map(float, sys.argv[1:])
k1r, knr, spr, smr = b / k1, b / kn, spb / sps, smb / sms
print(f"ratio parse only, one core: kifu/sgf-parse {b/kps/spr:.1f}x, kifu/sgfmill {b/kps/smr:.0f}x")
print(f"ratio kifu(-j1)/sgf-parse: {k1r/spr:.1f}x   kifu(-jN)/sgf-parse: {knr/spr:.1f}x")
print(f"ratio kifu(-j1)/sgfmill:   {k1r/smr:.1f}x   kifu(-jN)/sgfmill:   {knr/smr:.1f}x")
PY

# Peak memory on one large file with deep variations (made here: 1.2 MB).
python3 - "$work/deep.sgf" <<'PY'
import sys, random
random.seed(7)
letters = "abcdefghijklmnopqrs"
out = ["(;FF[4]GM[1]SZ[19]"]
size = 0
n = 0
# A valid tree: a sequence of nodes, and at some nodes 2 or 3 variations,
# nested ever deeper (an explicit stack, so no recursion limit).
stack = [1]  # variations still to write at each open level
while True:
    for _ in range(random.randint(1, 6)):
        c = "BW"[n % 2]
        piece = f";{c}[{random.choice(letters)}{random.choice(letters)}]C[node {n}]"
        out.append(piece)
        size += len(piece)
        n += 1
    if size < 1_200_000 and random.random() < 0.5:
        out.append("(")
        stack.append(random.randint(2, 3))
        continue
    # close this variation; open its next sibling if any
    while stack:
        stack[-1] -= 1
        if len(stack) == 1 and stack[-1] <= 0:
            stack.pop()
            break
        if stack[-1] > 0 and size < 1_200_000:
            out.append(")(")
            break
        if len(stack) > 1:
            out.append(")")
        stack.pop()
    else:
        break
    if not stack:
        break
out.append(")")
open(sys.argv[1], "w").write("".join(out))
PY
size=$(wc -c < "$work/deep.sgf")
kmem=$(/usr/bin/time -f %M target/release/kifu sgf stats "$work/deep.sgf" 2>&1 >/dev/null | tail -1)
echo "$work/deep.sgf" > "$work/one"
smem=$(/usr/bin/time -f %M bench/sgf-parse-harness/target/release/sgf-parse-harness < "$work/one" 2>&1 >/dev/null | tail -1)
base=$(/usr/bin/time -f %M target/release/kifu sgf stats examples/sgf/ff4-variations.sgf 2>&1 >/dev/null | tail -1)
python3 - "$size" "$kmem" "$smem" "$base" <<'PY'
import sys
size, k, s, base = map(int, sys.argv[1:])
size_kb = size / 1024
print(f"deep-variation file: {size_kb:.0f} KiB; peak RSS kifu {k} KiB ({(k-base)/size_kb:.1f}x the file above the {base} KiB of an empty run), sgf-parse harness {s} KiB ({s/size_kb:.1f}x)")
PY
