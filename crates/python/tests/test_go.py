"""kifu.go.positions: dtypes, shapes, symmetries, planes, options, errors."""
import numpy as np
import pytest

import kifu
from kifu import go

GAME = b"(;SZ[9]RE[B+R];B[ee];W[cc](;B[gc];W[dd])(;B[cg]))"


def test_keys_dtypes_and_shapes():
    r = go.positions(GAME)
    n = 5
    expect = {"boards": (np.uint8, (n, 9, 9)), "to_play": (np.uint8, (n,)),
              "moves": (np.int16, (n, 2)), "move_number": (np.int32, (n,)),
              "game": (np.int32, (n,)), "file": (np.int32, (n,)),
              "variation": (np.int32, (n,)), "hash": (np.uint64, (n,)),
              "symmetry": (np.uint8, (n,)), "transform": (np.uint8, (n,)),
              "result": (np.int8, (n,))}
    for key, (dtype, shape) in expect.items():
        assert r[key].dtype == dtype and r[key].shape == shape, key
    assert r["size"] == 9 and r["errors"] == [] and r["files"] == ["<bytes 0>"]
    assert r["to_play"].tolist() == [1, 2, 1, 2, 1]
    assert r["move_number"].tolist() == [0, 1, 2, 3, 4]
    assert r["moves"].tolist() == [[4, 4], [2, 2], [2, 6], [3, 3], [go.RESIGN] * 2]
    assert r["boards"][2][4, 4] == go.BLACK and r["boards"][2][2, 2] == go.WHITE
    assert r["boards"][2].sum() == 3
    assert r["hash"][0] == 0 and len(set(r["hash"].tolist())) == 5
    assert (r["result"] == 1).all()


def test_variations_window_and_dedup():
    r = go.positions(GAME, variations=True)
    assert r["variation"].tolist() == [0, 0, 0, 0, 0, 1]
    assert r["moves"][2].tolist() == [2, 6]  # the first child's move
    assert r["moves"][-1].tolist() == [go.NO_MOVE] * 2
    w = go.positions(GAME, variations=True, move_window=(1, 3))
    assert w["move_number"].tolist() == [1, 2, 3, 3]
    twice = go.positions([GAME, GAME])
    assert twice["game"].tolist() == [0] * 5 + [1] * 5
    assert twice["file"].tolist() == [0] * 5 + [1] * 5
    once = go.positions([GAME, GAME], dedup=True)
    assert len(once["hash"]) == 5


def test_symmetries_turn_boards_and_moves():
    r = go.positions(GAME, symmetry="all")
    assert len(r["hash"]) == 40 and sorted(set(r["transform"].tolist())) == list(range(8))
    ident = r["transform"] == 0
    rot90 = r["transform"] == 1  # a quarter turn clockwise
    assert np.array_equal(r["boards"][rot90], np.rot90(r["boards"][ident], -1, axes=(1, 2)))
    flip = r["transform"] == 4  # left and right swap
    assert np.array_equal(r["boards"][flip], r["boards"][ident][:, :, ::-1])
    # The move follows its board: (row, col) -> (col, 8 - row) under a quarter turn.
    m0, m1 = r["moves"][ident][1], r["moves"][rot90][1]
    assert m1.tolist() == [m0[1], 8 - m0[0]]
    # Hashes are the canonical ones: the same for all 8.
    assert np.array_equal(r["hash"][ident], r["hash"][rot90])
    one = go.positions(GAME, symmetry=5)
    assert np.array_equal(one["boards"], r["boards"][r["transform"] == 5])
    with pytest.raises(ValueError):
        go.positions(GAME, symmetry=8)


def test_feature_planes():
    # White captures at bb; Black may not retake at once (ko at ba... any shape works).
    game = b"(;SZ[5];B[ba];W[ca];B[ab];W[bb];B[cb];W[da];B[db];W[aa])"
    r = go.positions(game, features=True, last_moves=3)
    f = r["features"]
    assert f.dtype == np.uint8 and f.shape == (9, 8 + 3, 5, 5)
    assert r["planes"][:7] == ["own", "opponent", "empty", "liberties_1", "liberties_2",
                               "liberties_3_plus", "ko"]
    assert (f[:, 0] + f[:, 1] + f[:, 2] == 1).all()
    for i in range(9):
        b, tp = r["boards"][i], r["to_play"][i]
        assert np.array_equal(f[i, 0], (b == tp).astype(np.uint8))
        assert np.array_equal(f[i, 2], (b == 0).astype(np.uint8))
        assert (f[i, 3] + f[i, 4] + f[i, 5] == (b != 0)).all()
        assert f[i, -1].all() == (tp == 1)
    # The last move plane marks the move that led to the position.
    assert f[1, 7, 0, 1] == 1 and f[2, 8, 0, 1] == 1 and f[2, 7, 0, 2] == 1
    # Liberties: after B[ba] W[ca], the white stone at ca has 2 liberties (da, cb).
    assert f[2, 4, 0, 2] == 1
    # W[aa] captures nothing illegal; the position after B[ba] has one black stone with 3.
    assert f[1, 5, 0, 1] == 1


def test_errors_are_reported_not_raised(tmp_path):
    bad = b"(;SZ[30];B[aa])"
    r = go.positions([GAME, bad])
    assert len(r["hash"]) == 5
    assert len(r["errors"]) == 1 and r["errors"][0]["game"] == 0
    assert r["errors"][0]["line"] == 1 and "game 1" in r["errors"][0]["message"]
    with pytest.raises(kifu.ReplayError) as e:
        go.positions([GAME, bad], strict=True)
    assert e.value.line == 1 and e.value.column == 2  # the root node's ";"
    p = tmp_path / "bad.sgf"
    p.write_bytes(b"\n\n  " + bad)
    with pytest.raises(kifu.ReplayError) as e:
        go.positions(p, strict=True)
    assert e.value.file == str(p) and e.value.line == 3 and e.value.column == 4
    missing = go.positions([tmp_path / "none.sgf"])
    assert missing["errors"][0]["file"].endswith("none.sgf")


def test_sizes_folders_and_threads(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.sgf").write_bytes(GAME)
    (tmp_path / "a" / "two.sgf").write_bytes(b"(;SZ[13];B[gg])")
    (tmp_path / "a" / "notes.txt").write_bytes(b"not a game")
    r = go.positions(tmp_path / "a")
    assert r["size"] == 9 and len(r["files"]) == 2 and len(r["hash"]) == 5
    assert any("13x13" in e["message"] for e in r["errors"])
    r13 = go.positions(str(tmp_path / "a"), size=13, threads=2)
    assert r13["boards"].shape == (2, 13, 13)


def test_same_arrays_for_any_thread_count(sgf_files):
    """One worker fills its own buffers; several count first and then write in place (or join,
    with dedup): every array and every error must be the same."""
    files = sgf_files[:300] + [b"(;SZ[13];B[gg];W[hh])", b"(;SZ[19];B[pd](;W[dd])(;W[dp]))",
                               b"(;SZ[19];B[zz])"]
    for kw in (dict(size=19), dict(), dict(variations=True, move_window=(10, 60)),
               dict(symmetry="all", features=True, last_moves=2, size=19),
               dict(dedup=True), dict(size=13)):
        a = go.positions(files, threads=1, **kw)
        for threads in (2, 3):
            b = go.positions(files, threads=threads, **kw)
            assert a.keys() == b.keys()
            for k, v in a.items():
                if isinstance(v, np.ndarray):
                    assert v.dtype == b[k].dtype and np.array_equal(v, b[k]), (kw, k, threads)
                else:
                    assert v == b[k], (kw, k, threads)
        assert len(a["hash"]) > 0, kw
