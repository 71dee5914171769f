"""No crash on bad input: the bindings' entry points under hypothesis (random bytes and
mutated real files). Exceptions are fine; a crash of the interpreter is not."""
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import kifu  # noqa: E402

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SGF_ALPHABET = st.sampled_from(list(b"();[]\\:ABWCKMSZPLabcdefst0123456789 \n\t\xff\xe4"))
sgf_like = st.lists(SGF_ALPHABET, max_size=300).map(bytes)
seed = (b"(;FF[4]GM[1]SZ[9]KM[6.5]AB[aa:bb]LB[cc:x];B[ee]C[a\\]b];W[](;B[tt])(;W[cc]))")


def mutations():
    return st.tuples(st.integers(0, len(seed)), st.integers(0, 20), st.binary(max_size=20)).map(
        lambda t: seed[:t[0]] + t[2] + seed[t[0] + t[1]:])


@SETTINGS
@given(st.one_of(st.binary(max_size=400), sgf_like, mutations()))
def test_sgf(data):
    c = kifu.sgf.parse(data)
    for g in c:
        for n in g.nodes():
            for ident in n.properties():
                try:
                    n.get(ident)
                except ValueError:
                    pass
                n.get_raw_list(ident)
    c.convert().write()
    kifu.sgf.check(data)
    try:
        kifu.sgf.parse(data, strict=True)
    except kifu.SgfError as e:
        assert e.line is not None


@SETTINGS
@given(st.one_of(st.binary(max_size=400), sgf_like, mutations()),
       st.sampled_from([None, 0, 3, "all"]), st.booleans())
def test_positions(data, symmetry, features):
    r = kifu.go.positions([data], variations=True, symmetry=symmetry, features=features,
                          last_moves=2)
    assert len(r["boards"]) == len(r["hash"])


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from([9, 19]))
def test_position_files(data, size):
    for call in (lambda: kifu.posdb.read_positions(data, size, allow_torn=True),
                 lambda: kifu.posdb.read_scored(data, allow_torn=True)):
        try:
            call()
        except kifu.PosdbError:
            pass


@SETTINGS
@given(st.binary(max_size=320), st.text(max_size=80))
def test_books(data, fen):
    try:
        book = kifu.polyglot.Book(data)
    except kifu.BookError:
        return
    book.entries()
    for q in ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 0, fen):
        try:
            book.find_all(q)
        except ValueError:
            pass


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from([9, 19]), st.booleans())
def test_mapped_files(data, size, allow_torn):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = f"{d}/f.dat"
        with open(path, "wb") as f:
            f.write(data)
        for call in (lambda: kifu.posdb.map_positions(path, size, allow_torn=allow_torn),
                     lambda: kifu.posdb.map_scored(path, allow_torn=allow_torn)):
            try:
                mm = call()
                len(mm)
                del mm
            except ValueError:  # kifu.PosdbError is one
                pass


@SETTINGS
@given(st.lists(st.integers(0, 2**64 - 1), min_size=9, max_size=9), st.booleans(),
       st.one_of(st.none(), st.integers(0, 63)), st.integers(0, 2**64 - 1))
def test_board_bitboards(bits, turn, ep, castling):
    """A python-chess board with any bitboards: its key is read from the bitboards (a number
    or ValueError), never a crash."""
    chess = pytest.importorskip("chess")
    b = chess.Board()
    b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings = bits[:6]
    b.occupied_co = [bits[6], bits[7]]
    b.occupied = bits[6] | bits[7]
    b.turn, b.ep_square, b.castling_rights = turn, ep, castling
    b.halfmove_clock, b.fullmove_number = bits[8] % 1000, bits[8] % 5000
    try:
        assert isinstance(kifu.polyglot.key(b), int)
    except ValueError:
        pass
