"""sgfmill's parse + main-line replay of the files listed in argv[1], files read into memory first.

Prints: files replayed to the end, their bytes, moves, positions (moves + 1 a game), seconds.
Used by bench/replay.sh and bench/posdb.sh, so both compare against the same loop.
"""
import sys, time
from sgfmill import sgf, sgf_moves

paths = [l.rstrip("\n") for l in open(sys.argv[1])]
data = [open(p, "rb").read() for p in paths]
t = time.perf_counter(); ok = 0; nbytes = 0; moves = 0
for d in data:
    try:
        game = sgf.Sgf_game.from_bytes(d)
        board, plays = sgf_moves.get_setup_and_moves(game)
        for colour, move in plays:
            if move is not None:
                board.play(move[0], move[1], colour)
        ok += 1; nbytes += len(d); moves += len(plays)
    except Exception:
        pass
secs = time.perf_counter() - t
print(ok, nbytes, moves, moves + ok, secs)
