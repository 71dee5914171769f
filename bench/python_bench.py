#!/usr/bin/env python3
"""kifu's Python package against sgfmill and python-chess, from Python (bench/python.sh).

1. parse: every SGF file of the corpus (bytes already in memory), sgfmill vs kifu, one core;
2. parse + replay into board arrays (main line), sgfmill (get_setup_and_moves, Board.play,
   a NumPy board per move) vs kifu.go.positions(threads=1);
3. 20,000 Polyglot lookups of positions from real games, python-chess vs kifu (chess.Board per
   call, and one find_all_many call with FENs);
4. kifu.go.positions into board arrays and into feature planes, all cores, positions/s.
"""
import itertools
import pathlib
import sys
import time

import numpy as np

import chess
import chess.pgn
import chess.polyglot
from sgfmill import sgf as msgf, sgf_moves

import kifu

corpus = pathlib.Path(sys.argv[1])
files = sorted(p for p in (corpus / "sgf" / "games").rglob("*") if p.suffix.lower() == ".sgf")
datas = [f.read_bytes() for f in files]
mb = sum(map(len, datas)) / 1e6


def timed(f, runs=1):
    """The fastest of `runs` runs (kifu's calls are short, so one run is mostly noise; the
    40-second sgfmill replay runs once)."""
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        elapsed = time.perf_counter() - t
        best = elapsed if best is None else min(best, elapsed)
    return best, out


def sgfmill_parse():
    n = 0
    for d in datas:
        try:
            msgf.Sgf_game.from_bytes(d)
            n += 1
        except Exception:
            pass
    return n


def kifu_parse():
    return sum(len(kifu.sgf.parse(d)) for d in datas)


def sgfmill_replay():
    boards = 0
    for d in datas:
        try:
            g = msgf.Sgf_game.from_bytes(d)
            size = g.get_size()
            board, plays = sgf_moves.get_setup_and_moves(g)
        except Exception:
            continue
        arr = np.zeros((size, size), np.uint8)
        for colour, move in plays:
            if move is not None:
                try:
                    board.play(move[0], move[1], colour)
                except Exception:
                    break
            for (c, (r, col)) in board.list_occupied_points():
                arr[size - 1 - r, col] = 1 if c == "b" else 2
            boards += 1
    return boards


print(f"corpus: {len(files)} SGF files, {mb:.1f} MB")
ts, n1 = timed(sgfmill_parse, 3)
tk, n2 = timed(kifu_parse, 3)
print(f"parse: sgfmill {ts:.2f} s ({mb / ts:.1f} MB/s), kifu {tk:.2f} s ({mb / tk:.1f} MB/s), "
      f"{ts / tk:.0f}x")
ts, b1 = timed(sgfmill_replay)
tk, r = timed(lambda: kifu.go.positions(datas, threads=1, size=19), 3)
n19 = len(r["hash"])
tk9, r9 = timed(lambda: kifu.go.positions(datas, threads=1, size=9), 3)
print(f"parse + replay into board arrays, one core: sgfmill {ts:.2f} s ({mb / ts:.2f} MB/s, "
      f"{b1 / ts:,.0f} boards/s), kifu {tk + tk9:.2f} s ({mb / (tk + tk9):.1f} MB/s, "
      f"{(n19 + len(r9['hash'])) / (tk + tk9):,.0f} boards/s), {ts / (tk + tk9):.0f}x")

boards = [chess.Board()]
with open(corpus / "polyglot" / "pgn" / "human-clean.pgn", encoding="latin-1") as f:
    while len(boards) < 20000:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        b = game.board()
        for mv in itertools.islice(game.mainline_moves(), 20):
            b.push(mv)
            boards.append(b.copy(stack=False))
boards = boards[:20000]
fens = [b.fen() for b in boards]
book_path = corpus / "polyglot" / "books" / "performance.bin"
with chess.polyglot.open_reader(book_path) as reader:
    tp, hits_p = timed(lambda: sum(len(list(reader.find_all(b))) for b in boards), 3)
book = kifu.polyglot.Book(book_path)
tb, hits_k = timed(lambda: sum(len(book.find_all(b)) for b in boards), 3)
tf, hits_f = timed(lambda: sum(len(book.find_all(f)) for f in fens), 3)
tm, many = timed(lambda: book.find_all_many(fens), 3)
ta, arrays = timed(lambda: book.find_all_arrays(fens), 3)
assert hits_p == hits_k == hits_f == sum(map(len, many)) == int(arrays["offsets"][-1])
print(f"{len(boards)} book lookups ({hits_p} entries): python-chess {tp:.2f} s "
      f"({len(boards) / tp:,.0f}/s); kifu with chess.Board {tb:.2f} s ({len(boards) / tb:,.0f}/s, "
      f"{tp / tb:.0f}x); kifu with FENs {tf:.3f} s ({len(boards) / tf:,.0f}/s, {tp / tf:.0f}x); "
      f"find_all_many {tm:.3f} s ({len(boards) / tm:,.0f}/s, {tp / tm:.0f}x); "
      f"find_all_arrays {ta:.3f} s ({len(boards) / ta:,.0f}/s, {tp / ta:.0f}x)")

for label, kw in [("board arrays", {}), ("board arrays, 8 symmetries", {"symmetry": "all"}),
                  ("feature planes (16)", {"features": True})]:
    t, r = timed(lambda: kifu.go.positions(datas, size=19, **kw), 1 if kw else 3)
    n = len(r["hash"])
    size = sum(v.nbytes for v in r.values() if hasattr(v, "nbytes"))
    print(f"positions into {label}, all cores: {n:,} in {t:.2f} s = {n / t:,.0f} positions/s "
          f"({size / 1e6:,.0f} MB of arrays)")
    del r
