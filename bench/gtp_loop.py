#!/usr/bin/env python3
"""The plain sequential GTP loop kifu pos score is compared with: one engine process, for each
9x9 position record the same commands as kifu (boardsize, clear_board, komi 0, the stones of the
side to play then the opponent's, a pass if needed, set_random_seed, final_score), no ids, no
timeouts. Usage: gtp_loop.py POSITIONS PLAYOUTS ENGINE ARGS..."""
import subprocess, sys

COLS = "ABCDEFGHJ"
path, playouts, engine = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
data = open(path, "rb").read()
p = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)

def cmd(c):
    p.stdin.write(c + "\n")
    p.stdin.flush()
    lines = []
    while True:
        line = p.stdout.readline()
        if line == "":
            raise SystemExit("engine died")
        if line.strip() == "" and lines:
            return "\n".join(lines)
        if line.strip():
            lines.append(line.strip())

off = n = 0
while off + 92 <= len(data):
    rec = data[off:off + 92]
    extra = rec[91] == 1
    to_play = chr(rec[9])
    opp = "W" if to_play == "B" else "B"
    board = rec[10:91]
    cmd("boardsize 9"); cmd("clear_board"); cmd("komi 0")
    for colour, ch in ((to_play, "#" if to_play == "B" else "O"), (opp, "O" if to_play == "B" else "#")):
        for i, c in enumerate(board):
            if chr(c) == ch:
                cmd(f"play {colour} {COLS[i % 9]}{9 - i // 9}")
    if board.count(ord("O" if to_play == "B" else "#")) == 0:
        cmd(f"play {opp} pass")
    for k in range(playouts):
        cmd(f"set_random_seed {1 + 2 * k + (to_play == 'W')}")
        cmd("final_score")
    off += 100 if extra else 92
    n += 1
cmd("quit")
p.wait()
print(n)
