"""kifu against sgfmill over ../shared/corpus/sgf/games: the same moves, property values and
boards after every move of the main line.

The files are compared in two fresh processes at once (sgfmill is pure Python and the corpus
has thousands of games); an assertion in a worker fails the test with its own message."""
import multiprocessing
import os

import numpy as np
import pytest

sgfmill = pytest.importorskip("sgfmill")
from sgfmill import sgf as msgf, sgf_moves  # noqa: E402

import kifu  # noqa: E402

IDS = ["B", "W", "AB", "AW", "AE", "KM", "SZ", "HA", "PL", "PB", "PW", "RE", "DT", "C", "GN",
       "EV", "LB", "TR", "SQ", "CR", "MA"]

TEXT = {"PB", "PW", "RE", "DT", "C", "GN", "EV", "LB"}


def sgfmill_game(data):
    try:
        return msgf.Sgf_game.from_bytes(data)
    except Exception:
        return None


def _property_values(path):
    """The number of property values of `path` compared."""
    compared = 0
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return 0  # charset detection differs by design for undeclared non-UTF-8 text
    mg = sgfmill_game(data)
    if mg is None:
        return 0
    kc = kifu.sgf.parse(data)
    if len(kc) == 0:
        return 0
    kg = kc[0]
    try:
        same_charset = (kc.charset.upper() == "UTF-8"
                        and mg.get_charset().lower().replace("_", "-") in ("utf-8", "utf8"))
    except Exception:
        same_charset = False
    mnodes = list(mg.get_main_sequence())
    knodes = kg.main_sequence()
    assert len(knodes) == len(mnodes), path
    for mn, kn in zip(mnodes, knodes):
        for ident in IDS:
            if not mn.has_property(ident):
                continue
            try:
                expected = mn.get(ident)
            except Exception:
                continue
            if ident in TEXT and not same_charset:
                continue
            got = kn.get(ident)
            if ident in ("C",) and expected.strip() != got.strip():
                # sgfmill keeps some whitespace kifu's Text decoding normalises
                assert " ".join(expected.split()) == " ".join(got.split()), (path, ident)
                continue
            if ident in ("C",):
                continue
            assert got == expected, (path, ident, got, expected)
            compared += 1
    return compared


def _in_two_processes(check, paths):
    """`check` of every path, in two spawned processes (not forked: the parent's thread pools
    do not survive a fork)."""
    workers = min(2, os.cpu_count() or 1)
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return pool.map(check, paths, chunksize=64)


def test_property_values(sgf_files):
    compared = sum(_in_two_processes(_property_values, sgf_files))
    assert compared > 10000


def _boards_and_moves(path):
    """(1, moves checked) for a game of `path` compared, (0, 0) for one sgfmill cannot read."""
    checked_moves = 0
    data = path.read_bytes()
    mg = sgfmill_game(data)
    if mg is None:
        return 0, 0
    try:
        size = mg.get_size()
        board, plays = sgf_moves.get_setup_and_moves(mg)
    except Exception:
        return 0, 0
    r = kifu.go.positions(data, size=size)
    if r["errors"] or len(r["game"]) == 0:
        return 0, 0
    first = r["game"] == 0
    boards, moves, numbers = r["boards"][first], r["moves"][first], r["move_number"][first]
    last_row = {}
    for i, k in enumerate(numbers):
        last_row[int(k)] = i
    for k, (colour, move) in enumerate(plays, 1):
        # The move played from the position before it.
        want = (-1, -1) if move is None else (size - 1 - move[0], move[1])
        assert tuple(moves[last_row[k - 1]]) == want, (path, k)
        if move is not None:
            try:
                board.play(move[0], move[1], colour)
            except (ValueError, IndexError):
                break  # sgfmill stops on a move onto a stone; kifu goes on
        # Every point sgfmill holds a stone on (all others empty).
        expect = np.zeros((size, size), np.uint8)
        for v, (row, col) in board.list_occupied_points():
            expect[size - 1 - row, col] = 1 if v == "b" else 2
        assert np.array_equal(boards[last_row[k]], expect), (path, k)
        checked_moves += 1
    return 1, checked_moves


def test_boards_and_moves_after_every_move(sgf_files):
    results = _in_two_processes(_boards_and_moves, sgf_files)
    checked_games = sum(g for g, _ in results)
    checked_moves = sum(m for _, m in results)
    assert checked_games > 1000 and checked_moves > 100000
