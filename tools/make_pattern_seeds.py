#!/usr/bin/env python3
"""Remakes the seeds of the `search_pattern_index` fuzz target (fuzz/seeds/search_pattern_index)
with the kifu binary given: `small.kpp`, the sidecar of two short 9x9 games (a capture, a pass,
a variation), and `seventy-9x9-games.kpp`, that of 70 random 9x9 games of legal moves (captures
included, and one of 300 moves; several of the index's cache groups). Run it after a change of the sidecar's format,
so that the fuzzer starts from sidecars it accepts.

usage: tools/make_pattern_seeds.py target/release/kifu
"""
import random
import subprocess
import sys
import tempfile
from pathlib import Path

N = 9


def neighbours(p):
    x, y = p
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= x + dx < N and 0 <= y + dy < N:
            yield (x + dx, y + dy)


def group(board, p):
    colour, seen, todo, libs = board[p], {p}, [p], set()
    while todo:
        q = todo.pop()
        for r in neighbours(q):
            if r not in board:
                libs.add(r)
            elif board[r] == colour and r not in seen:
                seen.add(r)
                todo.append(r)
    return seen, libs


def play(board, p, colour):
    """Plays p for colour on board (a dict point -> 'B'/'W'); False if illegal (suicide)."""
    trial = dict(board)
    trial[p] = colour
    for q in neighbours(p):
        if trial.get(q) not in (None, colour):
            stones, libs = group(trial, q)
            if not libs:
                for s in stones:
                    del trial[s]
    if not group(trial, p)[1]:
        return False
    board.clear()
    board.update(trial)
    return True


def random_game(rng, i):
    board, moves, colour = {}, [], "B"
    # The first game is long enough for units of two nodes in the time tables.
    for _ in range(300 if i == 0 else rng.randrange(4, 60)):
        empty = [(x, y) for x in range(N) for y in range(N) if (x, y) not in board]
        rng.shuffle(empty)
        point = next((p for p in empty if play(board, p, colour)), None)
        if point is None:
            moves.append(f";{colour}[]")
        else:
            moves.append(f";{colour}[{chr(97 + point[0])}{chr(97 + point[1])}]")
        colour = "W" if colour == "B" else "B"
    result = "W+1.5" if i % 2 == 0 else "B+R"
    return f"(;GM[1]FF[4]SZ[9]PB[Black {i}]PW[White {i}]DT[{2000 + i}]RE[{result}]{''.join(moves)})\n"


def sidecar(kifu, name, text, out):
    with tempfile.TemporaryDirectory() as d:
        games = Path(d) / "games"
        games.mkdir()
        (games / name).write_text(text)
        subprocess.run([kifu, "pos", "index", str(games), "--size", "9", "-o", f"{d}/db.kpx"],
                       check=True,
                       stdout=subprocess.DEVNULL)
        out.write_bytes(Path(f"{d}/db.kpp").read_bytes())


def main():
    kifu = sys.argv[1]
    seeds = Path(__file__).resolve().parent.parent / "fuzz/seeds/search_pattern_index"
    small = ("(;GM[1]SZ[9]RE[B+R]DT[2001];B[cc];W[gg](;B[cg];W[gc];B[dd])(;B[gc]))\n"
             "(;GM[1]SZ[9]RE[W+1.5];B[ba];W[aa];B[ab];W[];B[ee])\n")
    sidecar(kifu, "small.sgf", small, seeds / "small.kpp")
    rng = random.Random(70)
    sidecar(kifu, "games.sgf", "".join(random_game(rng, i) for i in range(70)),
            seeds / "seventy-9x9-games.kpp")


if __name__ == "__main__":
    main()
