#!/usr/bin/env python3
"""Turns a folder of SGF files into training arrays: feature planes, the move played (as a
policy target index) and the game's winner (as a value target), saved as one .npz file.

Usage: python sgf_to_arrays.py FOLDER OUT.npz [--size 19] [--augment] [--threads N]

Every position of the main lines is replayed by kifu (in parallel, without the GIL); positions
without a next move (the ends of games) are left out; with --augment each position is given in
all 8 symmetries. Games of another size and games that cannot be replayed are listed, not fatal.
"""
import argparse
import time

import numpy as np

import kifu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("out")
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--augment", action="store_true", help="all 8 symmetries")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--last-moves", type=int, default=8)
    a = ap.parse_args()

    start = time.perf_counter()
    r = kifu.go.positions(a.folder, size=a.size, features=True, last_moves=a.last_moves,
                          symmetry="all" if a.augment else None, threads=a.threads)
    seconds = time.perf_counter() - start

    moves = r["moves"]
    keep = moves[:, 0] != kifu.go.NO_MOVE
    keep &= moves[:, 0] != kifu.go.RESIGN
    n = r["size"]
    # Policy target: row * n + col for a play, n * n for a pass.
    policy = np.where(moves[:, 0] == kifu.go.PASS, n * n, moves[:, 0] * n + moves[:, 1])
    # Value target from the side to move: +1 if it won, -1 if it lost, 0 if unknown.
    won = r["result"] == r["to_play"].astype(np.int8)
    value = np.where(r["result"] == 0, 0, np.where(won, 1, -1)).astype(np.int8)

    np.savez(a.out, features=r["features"][keep], policy=policy[keep].astype(np.int16),
             value=value[keep], game=r["game"][keep], hash=r["hash"][keep],
             planes=np.array(r["planes"]))
    print(f"{keep.sum()} positions from {len(r['files'])} files "
          f"({len(r['hash'])} replayed in {seconds:.2f} s, "
          f"{len(r['hash']) / max(seconds, 1e-9):,.0f} positions/s) -> {a.out}")
    for e in r["errors"][:10]:
        print(f"skipped: {e['file']}: {e['message']}")
    if len(r["errors"]) > 10:
        print(f"... and {len(r['errors']) - 10} more")


if __name__ == "__main__":
    main()
