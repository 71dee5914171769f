"""``kifu pos export`` read with pyarrow against the Python package itself.

An index of the corpus's 9x9 games (main lines) is exported by the ``kifu`` binary; for every
game, its rows must be what ``kifu.go.positions`` gives for the same game: the same boards,
sides to move, next moves (``PASS``, ``RESIGN``, ``NO_MOVE`` alike), move numbers, canonical
hashes and symmetries, and results. ``positions`` has a row for every node; the index (and so
the export) has none for a node whose next node has no move (setup or a comment stands for
it), so those rows are left out of the comparison. A position file's export must equal
``kifu.posdb.read_positions`` of the same file.

The binary is ``$KIFU_BIN``, else the newer of ``target/release/kifu`` and ``target/debug/kifu``
(``tools/test.sh`` builds the release one before the Python tests).
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import GAMES, ROOT, need
from kifu import go, posdb


def kifu_bin():
    env = os.environ.get("KIFU_BIN")
    if env:
        return env
    built = [p for p in (ROOT / "target" / "release" / "kifu", ROOT / "target" / "debug" / "kifu")
             if p.is_file()]
    if not built:
        pytest.skip("no kifu binary: cargo build --release -p kifu, or set KIFU_BIN")
    return str(max(built, key=lambda p: p.stat().st_mtime))


def kifu(*args, cwd):
    out = subprocess.run([kifu_bin(), *map(str, args)], cwd=cwd, capture_output=True,
                         text=True, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if "--json" in args else out.stdout


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory):
    d = tmp_path_factory.mktemp("export")
    games = need(GAMES)
    index = kifu("pos", "index", games, "--size", "9", "-o", "c.kpx", "--json", cwd=d)
    summary = kifu("pos", "export", "c.kpx", "-o", "c.parquet", "--json", cwd=d)
    return index, summary, pq.read_table(d / "c.parquet")


def test_the_schema_is_the_python_packages(corpus_index):
    _, _, t = corpus_index
    s = t.schema
    assert s.field("board").type == pa.list_(pa.field("item", pa.uint8(), nullable=False), 81)
    assert s.field("to_play").type == pa.uint8()
    assert s.field("move_row").type == pa.int16() and s.field("move_col").type == pa.int16()
    assert s.field("hash").type == pa.uint64()
    assert s.field("result").type == pa.int8()
    assert s.metadata[b"kifu.kind"] == b"index" and s.metadata[b"kifu.size"] == b"9"


def test_every_game_of_the_index_has_the_python_packages_rows(corpus_index):
    index, summary, t = corpus_index
    assert t.num_rows == index["positions"] == summary["rows"]
    boards = np.asarray(t.column("board").combine_chunks().flatten()).reshape(-1, 9, 9)
    col = {name: t.column(name).to_numpy() for name in
           ("game", "game_in_file", "move_number", "to_play", "move_row", "move_col", "hash",
            "symmetry", "result", "variation")}
    files = t.column("file").to_pylist()
    assert (col["variation"] == 0).all()
    # The rows of each game are together: where each game starts and ends.
    starts = np.flatnonzero(np.r_[True, col["game"][1:] != col["game"][:-1]])
    ends = np.r_[starts[1:], t.num_rows]
    assert len(starts) == index["games"]
    by_file = {}
    for a, b in zip(starts, ends):
        by_file.setdefault(files[a], []).append((a, b))
    compared = 0
    for path, games in by_file.items():
        r = go.positions(path, size=9)
        for a, b in games:
            g = col["game_in_file"][a]
            rows = np.flatnonzero(r["game"] == g)
            moves = r["moves"][rows]
            # A node whose next node plays no move has no row in the index.
            keep = (moves[:, 0] != go.NO_MOVE) | (np.arange(len(rows)) == len(rows) - 1)
            rows = rows[keep]
            where = f"{path} game {g + 1}"
            assert len(rows) == b - a, where
            assert np.array_equal(r["boards"][rows], boards[a:b]), where
            assert np.array_equal(r["to_play"][rows], col["to_play"][a:b]), where
            assert np.array_equal(r["moves"][rows][:, 0], col["move_row"][a:b]), where
            assert np.array_equal(r["moves"][rows][:, 1], col["move_col"][a:b]), where
            assert np.array_equal(r["move_number"][rows], col["move_number"][a:b]), where
            assert np.array_equal(r["hash"][rows], col["hash"][a:b]), where
            assert np.array_equal(r["symmetry"][rows], col["symmetry"][a:b]), where
            assert np.array_equal(r["result"][rows], col["result"][a:b]), where
            compared += 1
    assert compared == index["games"] > 700


def test_a_position_file_export_equals_read_positions(tmp_path):
    folder = need(GAMES / "fuego-regression")
    kifu("pos", "extract", folder, "-o", "p.dat", "--extra", cwd=tmp_path)
    kifu("pos", "export", "p.dat", "-o", "p.parquet", "--json", cwd=tmp_path)
    t = pq.read_table(tmp_path / "p.parquet")
    want = posdb.read_positions(tmp_path / "p.dat")
    assert t.num_rows == len(want) > 5000
    assert np.array_equal(t.column("record").to_numpy(), np.arange(len(want)))
    for name in ("hash", "tiebreak", "to_play"):
        assert np.array_equal(t.column(name).to_numpy(), want[name]), name
    boards = np.asarray(t.column("board").combine_chunks().flatten()).reshape(-1, 9, 9)
    assert np.array_equal(boards, want["board"])
    has_extra = t.column("file_id").is_valid().to_numpy(zero_copy_only=False)
    assert np.array_equal(has_extra, want["has_extra"])
    for name, theirs in (("file_id", "file_id"), ("variation", "variation"),
                         ("move_number", "move")):
        mine = t.column(name).to_numpy(zero_copy_only=False)
        assert np.array_equal(mine[has_extra].astype(np.int64),
                              want[theirs][has_extra].astype(np.int64)), name
