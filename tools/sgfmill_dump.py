#!/usr/bin/env python3
"""Dumps what sgfmill reads from SGF files, one JSON line per file, for kifu's
differential test (crates/sgf/tests/sgfmill.rs).

Usage: sgfmill_dump.py FILE...   (or file names on stdin, one per line, with -)

Each line: {"file", "ok", "charset", "nodes": [[[id, [raw...], decoded], ...], ...]}
for the first game tree (sgfmill reads only that one), nodes in pre-order.
Raw values are given as Latin-1 strings of the file's bytes (one char per byte)
so that the Rust side can decode them with its own charset choice.
"""
import json
import sys

from sgfmill import sgf

POINT_LISTS = {"AB", "AW", "AE", "TR", "SQ", "CR", "MA", "SL", "DD", "TB", "TW", "VW"}
TEXT = {"C", "GC"}
SIMPLE = {"PB", "PW", "N", "GN", "EV", "RE", "DT", "PC", "RO", "RU", "SO", "US",
          "WR", "BR", "BT", "WT", "AN", "CP", "ON", "OT"}


def decoded(node, ident):
    try:
        v = node.get(ident)
    except Exception:
        return None
    if ident in ("B", "W"):
        return None if v is None else list(v)
    if ident in POINT_LISTS:
        return sorted(list(p) for p in v)
    if ident == "LB":
        return sorted([list(p), t] for p, t in v)
    if ident in ("AR", "LN"):
        return sorted([list(a), list(b)] for a, b in v)
    if ident in TEXT or ident in SIMPLE:
        return v
    if ident in ("SZ", "HA", "MN", "OB", "OW", "FF", "GM", "ST", "PM"):
        return v if isinstance(v, int) else None
    if ident in ("KM", "BL", "WL", "TM", "V"):
        return float(v)
    if ident in ("DM", "GB", "GW", "HO", "UC", "BM", "TE"):
        return v
    if ident == "PL":
        return v
    return None


def dump(path):
    out = {"file": path, "ok": False}
    try:
        with open(path, "rb") as f:
            data = f.read()
        game = sgf.Sgf_game.from_bytes(data)
    except Exception as e:  # sgfmill refuses the file: nothing to compare
        out["error"] = str(e)[:200]
        return out
    try:
        out["charset"] = game.get_charset()
        out["size"] = game.get_size()
    except Exception as e:  # e.g. SZ with several values
        out["error"] = str(e)[:200]
        return out
    out["ok"] = True
    nodes = []
    stack = [game.get_root()]
    while stack:
        node = stack.pop()
        props = []
        for ident in node.properties():
            raw = [r.decode("latin-1") for r in node.get_raw_list(ident)]
            props.append([ident, raw, decoded(node, ident)])
        nodes.append(props)
        stack.extend(reversed(list(node)))
    out["nodes"] = nodes
    return out


def main():
    files = sys.argv[1:]
    if files == ["-"]:
        files = [l.rstrip("\n") for l in sys.stdin if l.strip()]
    for p in files:
        print(json.dumps(dump(p), ensure_ascii=True))


if __name__ == "__main__":
    main()
