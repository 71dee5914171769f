#!/usr/bin/env python3
"""Random free patterns (placement anywhere) as `search_timing` reads them, one JSON query a
line: rectangles of 2x2 to 7x7 (a third of them 3x3), one to five stones, a third of them
with one to three wildcards, a quarter with colours swapped, some with a move window.
Seeded, so a run can be repeated: the set that chose `DensePrune::Auto`'s thresholds is
`python3 bench/free_queries.py 70 12` (bench/RESULTS.md, session 36).

usage: python3 bench/free_queries.py [COUNT] [SEED] > free.jsonl
"""
import json
import random
import sys


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 70
    random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
    for _ in range(count):
        w, h = random.randint(2, 7), random.randint(2, 7)
        if random.random() < 0.3:
            w = h = 3
        cells = [["."] * w for _ in range(h)]
        points = [(x, y) for x in range(w) for y in range(h)]
        random.shuffle(points)
        stones = random.randint(1, min(5, len(points) - 1))
        for k in range(stones):
            x, y = points[k]
            cells[y][x] = random.choice("#O")
        if random.random() < 0.35:
            for k in range(stones, min(len(points), stones + random.randint(1, 3))):
                x, y = points[k]
                cells[y][x] = random.choice("*xo")
        q = {"pattern": "\n".join("".join(r) for r in cells), "placement": {"kind": "anywhere"}}
        if random.random() < 0.25:
            q["swap_colors"] = True
        if random.random() < 0.15:
            q["moves"] = [random.randint(1, 60), random.randint(80, 250)]
        print(json.dumps(q))


if __name__ == "__main__":
    main()
