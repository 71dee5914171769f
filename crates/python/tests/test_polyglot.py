"""kifu.polyglot against python-chess: the same entries for the positions of real games."""
import itertools

import pytest

import kifu
from kifu import polyglot

from conftest import BOOKS, PGN, need

chess = pytest.importorskip("chess")
import chess.pgn  # noqa: E402
import chess.polyglot  # noqa: E402


def positions(limit_games=60, plies=14):
    boards = [chess.Board()]
    with open(need(PGN / "Fischer.pgn"), encoding="latin-1") as f:
        for _ in range(limit_games):
            game = chess.pgn.read_game(f)
            if game is None:
                break
            b = game.board()
            for mv in itertools.islice(game.mainline_moves(), plies):
                b.push(mv)
                boards.append(b.copy(stack=False))
    # Castling positions: the book encodes them as king takes rook.
    boards.append(chess.Board("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"))
    boards.append(chess.Board("rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"))
    return boards


@pytest.mark.parametrize("name", ["performance.bin", "gm2001.bin", "varied.bin",
                                  "lasker-trap.bin"])
def test_same_entries_as_python_chess(name):
    path = need(BOOKS / name)
    book = polyglot.Book(path)
    boards = positions()
    seen = castles = 0
    with chess.polyglot.open_reader(path) as reader:
        for b in boards:
            want = [(e.move.uci(), e.weight, e.learn) for e in reader.find_all(b)]
            got = [(e.move, e.weight, e.learn) for e in book.find_all(b)]
            assert got == want, b.fen()
            assert [(e.move, e.weight, e.learn) for e in book.find_all(b.fen())] == want
            for e in book.find_all(b):
                assert chess.Move.from_uci(e.move) in b.legal_moves
                castles += e.raw_move in ("e1h1", "e1a1", "e8h8", "e8a8")
            seen += len(want)
            assert polyglot.key(b) == chess.polyglot.zobrist_hash(b)
    if name != "lasker-trap.bin":
        assert seen > 100
    if name == "performance.bin":
        assert castles > 0


def test_boards_are_read_from_their_bitboards():
    """chess.Board lookups read the board's bitboards (no FEN); keys equal python-chess's."""
    boards = [
        # En passant possible; possible only for a pinned pawn (python-chess and Polyglot hash
        # it: a pawn stands beside; `board.fen()` leaves the square out, so the FEN differs).
        chess.Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w kq f6 0 3"),
        chess.Board("8/8/8/K2pP2q/8/8/8/7k w - d6 0 1"),
        # A double push nobody can take.
        chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
    ]
    unclean = chess.Board()
    unclean.remove_piece_at(chess.H1)
    unclean.castling_rights |= chess.BB_H1  # a right without its rook, which python-chess cleans
    boards.append(unclean)
    for b in boards:
        assert polyglot.key(b) == chess.polyglot.zobrist_hash(b), b.fen()
    pinned = boards[1]
    assert "d6" not in pinned.fen() and polyglot.key(pinned) != polyglot.key(pinned.fen())
    # Chess960 and variant boards, and anything else with .fen(), go through the FEN.
    c960 = chess.Board.from_chess960_pos(518)
    assert polyglot.key(c960) == chess.polyglot.zobrist_hash(c960)

    class OnlyFen:
        def fen(self):
            return chess.STARTING_FEN

    assert polyglot.key(OnlyFen()) == chess.polyglot.zobrist_hash(chess.Board())
    bad = chess.Board(None)
    bad.set_piece_at(chess.E1, chess.Piece.from_symbol("K"))
    with pytest.raises(ValueError, match="invalid position"):
        polyglot.key(bad)
    book = polyglot.Book(need(BOOKS / "performance.bin"))
    with pytest.raises(ValueError):
        book.find_all(bad)


def test_find_get_and_many():
    book = polyglot.Book(need(BOOKS / "performance.bin").read_bytes())
    start = chess.Board()
    best = book.find(start)
    assert best.weight == max(e.weight for e in book.find_all(start))
    with chess.polyglot.open_reader(BOOKS / "performance.bin") as reader:
        assert best.move == reader.find(start).move.uci()
    empty = chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1")
    with pytest.raises(IndexError):
        book.find(empty)
    assert book.get(empty) is None and book.get(empty, 7) == 7
    many = book.find_all_many([start, start.fen(), empty], threads=2)
    assert [len(x) for x in many] == [len(book.find_all(start))] * 2 + [0]
    raw = book.find_all(chess.polyglot.zobrist_hash(start))
    assert [e.raw_move for e in raw] == [e.move for e in raw]
    assert len(book) == 92954 and book.header is None


def test_find_all_arrays_are_find_all():
    """The array form of many lookups holds exactly find_all's entries, query by query."""
    np = pytest.importorskip("numpy")
    book = polyglot.Book(need(BOOKS / "performance.bin"))
    boards = positions(limit_games=30)
    queries = boards + [b.fen() for b in boards[:50]] + [chess.polyglot.zobrist_hash(boards[0]), 7]
    arrays = book.find_all_arrays(queries, threads=2)
    offsets = arrays["offsets"]
    assert offsets.dtype == np.int64 and len(offsets) == len(queries) + 1 and offsets[0] == 0
    assert arrays["move"].dtype == np.dtype("S5") and arrays["key"].dtype == np.uint64
    assert arrays["raw_move"].dtype == np.uint16 and arrays["learn"].dtype == np.uint32
    total = 0
    for i, q in enumerate(queries):
        want = book.find_all(q)
        lo, hi = offsets[i], offsets[i + 1]
        got = [(int(arrays["key"][j]), arrays["move"][j].decode(), int(arrays["weight"][j]),
                int(arrays["learn"][j])) for j in range(lo, hi)]
        assert got == [(e.key, e.move, e.weight, e.learn) for e in want], i
        total += len(want)
    assert total == offsets[-1] > 100
    # Castling comes out as the king's move; the raw encoding keeps king-takes-rook.
    moves = set(arrays["move"].tolist())
    assert b"e1g1" in moves or b"e8g8" in moves
    empty = book.find_all_arrays([])
    assert empty["offsets"].tolist() == [0] and len(empty["key"]) == 0


def test_bad_books_raise():
    with pytest.raises(kifu.BookError) as e:
        polyglot.Book(need(BOOKS / "not-a-book_komodo.bin"))
    assert e.value.file.endswith("not-a-book_komodo.bin")
    with pytest.raises(FileNotFoundError):
        polyglot.Book("/nonexistent/book.bin")
    with pytest.raises(ValueError):
        polyglot.Book(b"").find_all("not a fen")


def test_make_book_and_merge(tmp_path):
    pgn = need(PGN / "Fischer.pgn")
    out = tmp_path / "fischer.bin"
    made = polyglot.make_book([pgn], out, compat="polyglot")
    ref = need(PGN.parent / "reference")
    expected = sorted(ref.glob("*Fischer*polyglot2.0.4.bin"))
    if expected:
        assert out.read_bytes() == expected[0].read_bytes()
    assert made.report["games"] > 700 and len(made) == made.report["entries"]
    with_header = polyglot.make_book(pgn.read_bytes(), comment="test book")
    assert "test book" in with_header.header
    merged = polyglot.merge([made, polyglot.Book(BOOKS / "performance.bin")], strategy="sum")
    assert len(merged) >= 92954
    maxed = polyglot.merge([made, made], strategy=[2.0, 0.5])
    e1 = made.find_all(chess.Board())
    e2 = maxed.find_all(chess.Board())
    assert [x.weight for x in e2] == [min(65535, int(2.5 * x.weight + 0.5)) for x in e1]
