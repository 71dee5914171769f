"""kifu.sgf: values typed like sgfmill's, round trips, diagnostics, errors."""
import pytest

import kifu
from kifu import sgf

SAMPLE = (b"(;FF[4]GM[1]SZ[9]KM[6.5]HA[0]PB[Honinbo Shusaku]PW[Gennan]RE[B+R]"
          b"C[Ear\\]reddening\nmove]AB[aa:bb]AW[cc]LB[dd:A]AR[aa:bb]AP[kifu:1.0]"
          b";B[ee];W[];B[tt](;W[cc]C[v1])(;W[dd]))")


def test_values_are_typed_like_sgfmill():
    c = sgf.parse(SAMPLE)
    assert len(c) == 1 and c.diagnostics == [] and c.charset == "UTF-8"
    g = c[0]
    root = g.root
    assert g.size == 9 and g.get_size() == 9
    assert root.get("KM") == 6.5 and isinstance(root.get("KM"), float)
    assert root.get("SZ") == 9 and root.get("HA") == 0
    assert root.get("PB") == "Honinbo Shusaku" == g.get_player_name("b")
    assert root.get("C") == "Ear]reddening\nmove"
    assert root.get("AB") == {(8, 0), (8, 1), (7, 0), (7, 1)}
    assert root.get("AW") == {(6, 2)}
    assert root.get("LB") == [((5, 3), "A")]
    assert root.get("AR") == [((8, 0), (7, 1))]
    assert root.get("AP") == ("kifu", "1.0")
    assert root.get_raw("C") == b"Ear\\]reddening\nmove"
    assert root.get_raw_list("AB") == [b"aa:bb"]
    assert g.get_winner() == "b" and g.get_komi() == 6.5
    seq = g.main_sequence()
    assert [n.get_move() for n in seq[1:]] == [("b", (4, 4)), ("w", None), ("b", None),
                                              ("w", (6, 2))]
    assert seq[1].get("B") == (4, 4)
    with pytest.raises(KeyError):
        root.get("B")
    assert root.get("B", None) is None
    assert "KM" in root and root.has_property("KM") and not root.has_property("XX")
    assert root.properties()[:3] == ["FF", "GM", "SZ"]
    black, white, empty = root.get_setup_stones()
    assert len(black) == 4 and white == {(6, 2)} and empty == set()


def test_navigation_and_variations():
    g = sgf.parse(SAMPLE)[0]
    nodes = g.nodes()
    assert len(nodes) == g.node_count == 6
    branch = nodes[3]
    assert len(branch) == 2 and [n.get("C", "") for n in branch.children] == ["v1", ""]
    assert branch[1].get("W") == (5, 3) and branch[-1] == branch[1]
    assert branch[0].parent == branch
    assert branch[1].path() == [0, 0, 0, 1]
    assert g.root.parent is None


def test_round_trip():
    c = sgf.parse(SAMPLE)
    text = c.write()
    again = sgf.parse(text.encode())
    assert again.write() == text
    assert sgf.write(again) == text
    assert c.to_bytes() == text.encode()
    assert c[0].write().startswith("(;FF[4]")


def test_convert_to_ff4():
    c = sgf.parse(b"(;FF[3]GaMe[1]SZ[19]KI[11];B[pd];W[tt])")
    converted = c.convert()
    assert converted.write() == "(;FF[4]CA[UTF-8]GM[1]SZ[19]KM[5.5];B[pd];W[])\n"
    assert [d.code for d in converted.diagnostics]
    assert sgf.convert(c).write() == converted.write()


def test_diagnostics_are_objects():
    c = sgf.parse(b"(;FF[4]SZ[9];B[ee];W[ee")
    assert c.has_errors
    d = c.diagnostics[0]
    assert isinstance(d, sgf.Diagnostic)
    assert d.code.startswith("S") and d.severity in ("warning", "error")
    assert d.line == 1 and d.column > 0 and d.message
    assert "1:" in str(d)
    found = sgf.check(b"(;SZ[9];B[ee];W[ee])")
    assert any(x.code == "S058" for x in found)


def test_strict_errors_name_file_line_column(tmp_path):
    p = tmp_path / "broken.sgf"
    p.write_bytes(b"(;FF[4]SZ[9]\n;B[ee]\n;W[dd")
    with pytest.raises(kifu.SgfError) as e:
        sgf.parse(p, strict=True)
    err = e.value
    assert err.file == str(p) and err.line == 3 and err.column >= 1 and err.code
    assert str(p) in str(err) and f":{err.line}:{err.column}:" in str(err)
    assert isinstance(err, ValueError) and isinstance(err, kifu.KifuError)
    # Not strict: read anyway, the problem is a diagnostic.
    assert sgf.parse(str(p)).diagnostics[0].line == 3


def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        sgf.parse(tmp_path / "nope.sgf")
    assert e.value.filename == str(tmp_path / "nope.sgf")
    with pytest.raises(TypeError):
        sgf.parse(12)


def test_bad_values_raise_valueerror():
    n = sgf.parse(b"(;SZ[9];B[zz]KM[abc])")[0].main_sequence()[1]
    with pytest.raises(ValueError):
        n.get("B")
    with pytest.raises(ValueError):
        n.get("KM")
    assert n.get_raw("B") == b"zz"


def test_charset_and_big_board():
    c = sgf.parse("(;CA[GB2312]SZ[21]PB[李昌镐];B[tt])".encode("gb2312"))
    assert c.charset.upper().startswith("GB") and c[0].root.get("PB") == "李昌镐"
    assert c[0].main_sequence()[1].get("B") == (1, 19)  # tt is a point above 19x19
