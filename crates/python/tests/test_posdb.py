"""kifu.posdb: position and scored files as structured arrays, indexes, lookups, searches."""
import json
import subprocess

import numpy as np
import pytest

import kifu
from kifu import posdb

from conftest import GAMES, need
from test_export import kifu_bin


@pytest.fixture(scope="module")
def nine_games():
    return sorted(need(GAMES / "fuego-regression").rglob("*.sgf"))[:200]


def test_extract_read_write_round_trip(nine_games, tmp_path):
    data = posdb.extract(nine_games, size=9, extra=True)
    assert isinstance(data, bytes) and len(data) % 100 == 0 and data
    recs = posdb.read_positions(data, 9)
    assert recs.dtype == posdb.position_dtype(9) and recs["board"].shape[1:] == (9, 9)
    assert recs["has_extra"].all() and (recs["file_id"] >= 1).all()
    assert set(np.unique(recs["to_play"])) <= {1, 2}
    assert set(np.unique(recs["board"])) <= {0, 1, 2}
    assert posdb.write_positions(None, recs) == data
    out = tmp_path / "positions.dat"
    assert posdb.write_positions(out, recs) == len(data)
    assert np.array_equal(posdb.read_positions(out), recs)
    # The hashes are the ones kifu.go gives for the same boards.
    r = kifu.go.positions(nine_games, size=9)
    assert set(recs["hash"].tolist()) <= set(r["hash"].tolist())


def test_torn_and_bad_records():
    recs = np.zeros(3, dtype=posdb.position_dtype(9))
    recs["to_play"] = 1
    recs["hash"] = [1, 2, 3]
    data = posdb.write_positions(None, recs)
    assert len(data) == 3 * 92
    with pytest.raises(kifu.PosdbError) as e:
        posdb.read_positions(data[:-5])
    assert e.value.record == 2 and e.value.offset == 184
    assert len(posdb.read_positions(data[:-5], allow_torn=True)) == 2
    bad = bytearray(data)
    bad[10] = ord("x")
    with pytest.raises(kifu.PosdbError) as e:
        posdb.read_positions(bytes(bad))
    assert e.value.record == 0


def test_scored_round_trip(tmp_path):
    s = np.zeros(4, dtype=posdb.SCORED_FIELDS)
    s["hash"] = [5, 6, 7, 2**63]
    s["to_play"] = [1, 2, 1, 2]
    s["score"] = [3, 8, 5, 6]
    s["confidence"] = [0, 100, 50, 66]
    data = posdb.write_scored(None, s)
    assert len(data) == 48
    back = posdb.read_scored(data)
    assert np.array_equal(back, s)
    s["score"][0] = 9
    with pytest.raises(ValueError):
        posdb.write_scored(None, s)
    with pytest.raises(kifu.PosdbError):
        posdb.read_scored(data[:-1])


def test_map_positions_is_the_files_bytes(nine_games, tmp_path):
    """map_positions views the file in place: the same records as read_positions, no copy."""
    for extra in (True, False):
        data = posdb.extract(nine_games, size=9, extra=extra)
        path = tmp_path / f"p{extra}.dat"
        path.write_bytes(data)
        mm = posdb.map_positions(path, 9)
        assert isinstance(mm, np.memmap) and mm.dtype == posdb.position_file_dtype(9, extra)
        recs = posdb.read_positions(data, 9)
        assert len(mm) == len(recs) and len(mm) * mm.dtype.itemsize == len(data)
        assert np.array_equal(mm["hash"], recs["hash"])
        assert np.array_equal(np.where(mm["to_play"] == b"B", 1, 2), recs["to_play"])
        decoded = (mm["board"] == posdb.CELL_BLACK) + 2 * (mm["board"] == posdb.CELL_WHITE)
        assert np.array_equal(decoded, recs["board"])
        if extra:
            assert np.array_equal(mm["file_id"], recs["file_id"])
            assert np.array_equal(mm["move"], recs["move"])
    # Torn, bad and mixed files.
    whole = path.read_bytes()
    torn = tmp_path / "torn.dat"
    torn.write_bytes(whole[:-5])
    with pytest.raises(kifu.PosdbError) as e:
        posdb.map_positions(torn)
    assert e.value.record == len(whole) // 92 - 1 and e.value.offset == e.value.record * 92
    assert len(posdb.map_positions(torn, allow_torn=True)) == len(whole) // 92 - 1
    bad = bytearray(whole)
    bad[92 + 12] = ord("x")
    (tmp_path / "bad.dat").write_bytes(bytes(bad))
    with pytest.raises(kifu.PosdbError) as e:
        posdb.map_positions(tmp_path / "bad.dat")
    assert e.value.record == 1 and e.value.offset == 92 and "cell" in str(e.value)
    recs = posdb.read_positions(whole, 9)[:3]
    recs["has_extra"][1] = True
    (tmp_path / "mixed.dat").write_bytes(posdb.write_positions(None, recs))
    with pytest.raises(ValueError, match="with and without extra"):
        posdb.map_positions(tmp_path / "mixed.dat")
    (tmp_path / "empty.dat").write_bytes(b"")
    assert len(posdb.map_positions(tmp_path / "empty.dat")) == 0


def test_map_scored(tmp_path):
    s = np.zeros(3, dtype=posdb.SCORED_FIELDS)
    s["hash"] = [5, 2**63, 7]
    s["to_play"] = [1, 2, 1]
    s["score"] = [3, 8, 5]
    s["confidence"] = [0, 100, 50]
    path = tmp_path / "s.dat"
    posdb.write_scored(path, s)
    mm = posdb.map_scored(path)
    assert mm.dtype == posdb.SCORED_FILE_DTYPE and np.array_equal(mm["hash"], s["hash"])
    assert mm["to_play"].tolist() == [b"B", b"W", b"B"] and mm["score"].tolist() == [3, 8, 5]
    raw = bytearray(path.read_bytes())
    raw[12 + 10] = 9
    path.write_bytes(bytes(raw))
    with pytest.raises(kifu.PosdbError) as e:
        posdb.map_scored(path)
    assert e.value.record == 1 and e.value.offset == 12


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    games = need(GAMES / "computer-go-dataset")
    path = tmp_path_factory.mktemp("idx") / "games.kidx"
    summary = posdb.build_index([games], path, size=19)
    assert summary["games"] > 1000 and summary["entries"] > 0
    return posdb.Index(path)


def test_lookup(index):
    empty = "/".join(["." * 19] * 19)
    r = index.lookup(empty, "B", limit=3)
    assert set(r) == {"hash", "to_play", "occurrences", "games", "swapped", "continuations",
                      "matches"}
    assert r["hash"] == "0000000000000000" and len(r["matches"]) == 3
    assert sum(c["count"] for c in r["continuations"]) <= r["occurrences"]
    top = r["continuations"][0]
    assert top["move"] and 0 <= top["black_win_rate"] <= 1
    # A board as an array gives the same answer.
    assert index.lookup(np.zeros((19, 19), np.uint8), "B", limit=3) == r
    g = index.game(r["matches"][0]["game"])
    assert g["file"] == r["matches"][0]["file"]
    assert index.game_sgf(0).startswith("(;")


def test_lookups_of_an_index_cut_by_stones(index, tmp_path):
    """Full-board entries kept up to 12 stones (the default): lookups of fuller boards come from
    the pattern index, and equal those of an index that keeps every entry."""
    assert index.entry_stones == 12 and 0 < index.entries < index.positions / 4
    games = need(GAMES / "computer-go-dataset")
    full_path = tmp_path / "full.kidx"
    s = posdb.build_index([games], full_path, size=19, entry_stones="all")
    full = posdb.Index(full_path)
    assert full.entry_stones is None and full.entries == full.positions == s["positions"]
    assert index.positions == full.positions and index.games == full.games
    # Boards along games (a 2-D array of 0/1/2 each): up to 12 stones from the entries, the
    # others from the pattern index, with and without colours swapped.
    held = searched = 0
    for m in index.search("..../..#./..../....", corner=True, limit=20)["matches"][:5]:
        r = kifu.go.positions(index.game_sgf(m["game"]).encode(), size=19)
        for i in range(0, len(r["boards"]), 7):
            board, to_play = r["boards"][i], "B" if r["to_play"][i] == 1 else "W"
            stones = int((board != 0).sum())
            held += stones <= 12
            searched += stones > 12
            for swap in (False, True):
                got = index.lookup(board, to_play, swap_colors=swap, limit=5)
                assert got == full.lookup(board, to_play, swap_colors=swap, limit=5)
                assert got["occurrences"] >= 1
    assert held > 5 and searched > 20
    # The same JSON as `kifu pos lookup --json` (less its scores), for a board the pattern
    # index answers.
    rows = "/".join("".join(".#O"[c] for c in row) for row in board)
    assert int((board != 0).sum()) > 12
    out = subprocess.run([kifu_bin(), "pos", "lookup", str(index.path), "--board", rows,
                          "--to-play", to_play, "--swap-colors", "--limit", "7", "--json"],
                         capture_output=True, text=True, check=True)
    cli = json.loads(out.stdout)
    assert cli.pop("scores") == []
    assert index.lookup(rows, to_play, swap_colors=True, limit=7) == cli
    with pytest.raises(ValueError, match="entry_stones"):
        posdb.build_index([games], tmp_path / "x.kidx", size=19, variations=True, entry_stones=4)
    with pytest.raises(ValueError, match="entry_stones"):
        posdb.build_index([games], tmp_path / "x.kidx", size=19, entry_stones="some")


def test_search(index):
    a = index.search("..../..#./..../....", corner=True, limit=2)
    assert {"games", "matches", "continuations", "games_searched", "failures"} <= set(a)
    assert a["games_searched"] == index.games and len(a["matches"]) <= 2
    q = index.search_query({"pattern": "..../..#./..../....",
                            "placement": {"kind": "at", "col": 0, "row": 0}}, limit=2)
    assert q == a
    with pytest.raises(ValueError):
        index.search("..#/.O")  # rows of different lengths
    with pytest.raises(ValueError):
        index.search("..", at="Z99")
    filtered = index.search("..../..#./..../....", corner=True, filters={"winner": "black"},
                            limit=0)
    assert filtered["games"] <= a["games"]
    with pytest.raises(kifu.PosdbError):
        posdb.Index(__file__)
    # Through 1 MiB of cache (the games read from the sidecar again and again): the same.
    small = posdb.Index(index.path, cache_mb=1)
    assert small.search("..../..#./..../....", corner=True, limit=2) == a
    with pytest.raises(ValueError, match="cache_mb"):
        posdb.Index(index.path, cache_mb=0)


def test_games_by_filters_alone(index):
    """Filters with no pattern: the games that pass them, as kifu pos search prints them."""
    everything = index.find_games({}, limit=0)
    assert everything["games"] == everything["games_searched"] == index.games
    some = index.find_games({"date_from": "2017", "date_to": "2017"}, limit=5)
    assert 0 < some["games"] < index.games
    assert all(m["date"].startswith("2017") for m in some["matches"]) and len(some["matches"]) == 5
    assert some["by_year"] == [{"year": 2017, "games": some["games"], "hits": some["games"]}]
    r = some["results"]
    assert r["count"] == some["games"] and r["black_wins"] + r["white_wins"] <= r["count"]
    page = index.find_games({"date_from": "2017", "date_to": "2017"}, limit=2, offset=3)
    assert [m["game"] for m in page["matches"]] == [m["game"] for m in some["matches"][3:5]]
    with pytest.raises(ValueError):
        index.find_games({"winner": "nobody"})
    # A misspelt filter is refused, not ignored.
    with pytest.raises(ValueError, match="playr"):
        index.find_games({"playr": "Lee"})


def test_build_index_writes_its_output_safely(tmp_path):
    """Streamed into a temporary file beside the output and renamed over it, as the CLI writes:
    an old file is replaced whole, a folder in the way is an OSError and leaves nothing."""
    games = need(GAMES / "fuego-regression")
    out = tmp_path / "db.kidx"
    out.write_bytes(b"old")
    s = posdb.build_index([games], out, size=9)
    assert out.read_bytes()[:8] == b"KIFUPIX4" and s["games"] > 100
    index = posdb.Index(out)  # opening builds the pattern index beside it
    assert index.games == s["games"]
    assert index.verify() == {
        "format": 4, "index_checked": True, "games": s["games"], "pattern_index_checked": True,
    }
    # A byte changed after opening: the read that meets it raises, naming the file and bytes.
    data = bytearray(out.read_bytes())
    data[5000] ^= 1
    out.write_bytes(bytes(data))
    with pytest.raises(kifu.PosdbError, match="damaged: bytes 4096 to 8192 of .*db.kidx"):
        index.verify()
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        posdb.build_index([games], tmp_path / "folder", size=9)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".kifu-")) == []


def test_a_pattern_index_changed_in_place_fails_the_search(tmp_path):
    """Changed since it was opened (its time stamp): a search would leave games out, so it
    raises naming the file instead of answering with the games it could still read."""
    import os

    games = need(GAMES / "fuego-regression")
    out = tmp_path / "db.kidx"
    posdb.build_index([games], out, size=9)
    index = posdb.Index(out)
    kpp = tmp_path / "db.kpp"
    os.utime(kpp, (7, 7))
    with pytest.raises(kifu.PosdbError, match="db.kpp: changed since it was opened"):
        index.search("#")
