#!/usr/bin/env python3
"""Replays the main line of SGF files with sgfmill, for kifu's replay differential test
(crates/go/tests/sgfmill_replay.rs). One JSON line per file:

  {"file", "status": "ok", "size", "moves", "rows": [...]}   rows from the top, '#' 'O' '.'
  {"file", "status": "occupied", "at": k}   move k (1-based) is onto a stone: sgfmill stops
  {"file", "status": "setup-after-root" | "setup-not-legal" | "refused", "error"}

Usage: sgfmill_replay.py FILE...   (or - to read file names from stdin)
It uses sgf_moves.get_setup_and_moves and boards.Board.play, as sgfmill's own programs do.
"""
import json
import sys

from sgfmill import boards, sgf, sgf_moves


def replay(path):
    out = {"file": path}
    try:
        with open(path, "rb") as f:
            game = sgf.Sgf_game.from_bytes(f.read())
        size = game.get_size()
    except Exception as e:  # sgfmill cannot read the file
        out.update(status="refused", error=str(e)[:200])
        return out
    try:
        board, plays = sgf_moves.get_setup_and_moves(game)
    except ValueError as e:
        msg = str(e)
        if "after the root" in msg:
            status = "setup-after-root"
        elif "setup position not legal" in msg:
            status = "setup-not-legal"
        else:
            status = "refused"
        out.update(status=status, error=msg[:200])
        return out
    except Exception as e:
        out.update(status="refused", error=str(e)[:200])
        return out
    for k, (colour, move) in enumerate(plays, 1):
        if move is None:
            continue
        row, col = move
        try:
            board.play(row, col, colour)
        except ValueError:
            out.update(status="occupied", at=k)
            return out
        except IndexError:
            out.update(status="refused", error="point off the board")
            return out
    rows = []
    for row in reversed(range(size)):  # sgfmill counts rows from the bottom
        rows.append("".join({"b": "#", "w": "O", None: "."}[board.get(row, col)]
                            for col in range(size)))
    out.update(status="ok", size=size, moves=len(plays), rows=rows)
    return out


def main():
    files = sys.argv[1:]
    if files == ["-"]:
        files = [l.rstrip("\n") for l in sys.stdin if l.strip()]
    for p in files:
        print(json.dumps(replay(p)))


if __name__ == "__main__":
    main()
