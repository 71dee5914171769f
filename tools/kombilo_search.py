#!/usr/bin/env python3
"""Run kifu-style pattern queries through Kombilo 0.8.4 (libkombilo) and print JSON.

Usage:
    python kombilo_search.py [--game-hits] [--builds=N] [--runs=N] DBDIR SGF_FOLDER QUERIES.jsonl

``--builds=N``: the database built N times (each build's time logged), for the fastest.
``--runs=N``: each query searched N times, the fastest search's time logged (as
``bench/search.sh`` times kifu's searches: the fastest of several).

Needs the ``kombilo`` package built with Python 3 (see tools/install_kombilo.sh); run it with
that venv's python. Only the C++ extension ``kombilo.libkombilo`` is used; Kombilo's own
``kombiloNG.py`` is Python 2 code and is not imported.

Database
    DBDIR/kombilo.db (sqlite) + DBDIR/kombilo.da (search data) are built over every ``*.sgf``
    (case-insensitive, so ``*.SGF`` too) under SGF_FOLDER (recursively, sorted by relative
    path; symlinked folders are not followed) and reused on later runs as long
    as DBDIR/manifest.json matches the folder, its file list, sizes and mtimes.
    Processing options: main line only (``processVariations = false``), algorithms
    FINALPOS | MOVELIST | HASH_FULL | HASH_CORNER, no duplicate check (every game is kept),
    board size 19 (games of other sizes are rejected by Kombilo: UNACCEPTABLE_BOARDSIZE).
    Files are read as bytes and decoded as Latin-1 (every byte one character), so the SGF
    structure Kombilo parses is byte-for-byte that of the file; only non-ASCII text changes.
    A file holding a collection gives several games, numbered from 0 (Kombilo's ``pos``).

Queries (one JSON object per line)
    {"pattern": "...\\n...\\n..X", "kind": "corner"|"side"|"center", "anchor": [col, row],
     "swap_colors": false}
    Pattern rows: X black, O white, . empty, * anything, x empty-or-black, o empty-or-white
    (Kombilo uses the same letters). ``anchor`` = column,row of the pattern's top-left cell
    (0-based from the board's top-left), needed for corner and side.
    Mapping to Kombilo's anchor rectangle (left, right, top, bottom) = the allowed positions
    of the pattern's top-left cell, in the query's orientation (Kombilo then tries all 8
    symmetries of pattern and rectangle itself):
      corner: fixed at the anchor: (c, c, r, r)
      side:   slides along the edge(s) the pattern touches at the anchor, over the full edge
              *including the corners* (kifu's Placement::Edge): e.g. touching the top edge
              -> (0, 19-w, 0, 0).  NOTE Kombilo's own SIDE_*_PATTERN types exclude the
              corners (1 .. 19-1-w); set "kombilo_native": true to get those instead.
              If the pattern touches two edges at the anchor it is fixed there.
      center: anywhere it fits (0, 19-w, 0, 19-h) (kifu's Placement::Anywhere).  Kombilo's
              own CENTER_PATTERN excludes edge-touching places (1 .. 19-1-w);
              "kombilo_native": true gives that.
    Optional keys: "anchors": [left, right, top, bottom] overrides all of the above;
    "move_limit" (Kombilo moveLimit, default 10000); "next_move" 0/1 (B)/2 (W).
    swap_colors -> SearchOptions.fixedColor = 0 (also the colour-reversed pattern), else 1.
    Symmetries are always all 8 (Kombilo has no switch for that). Main line only
    (searchInVariations = false).

Output (one JSON line per query, on stdout):
    {"games": number of games with >= 1 hit,
     "hits": GameList.numHits() (sum over games of the hits listed below),
     "switched": hits that matched the colour-reversed pattern,
     "continuations": [{"x", "y", "color": "B"|"W", "count", "tenuki", "black_wins",
                        "black_losses"}, ...]   (sorted by y, x, colour),
     "game_files": sorted ["relpath:game_number", ...],
     "game_hits": {"relpath:game_number": [[move, swapped, [x, y] | null], ...]}}
    "game_hits" only with --game-hits: per game, each hit's node number, whether it matched
    the colour-reversed pattern, and the cell of its continuation (null: none followed).
    Kombilo does not report a hit's orientation or board position.
    Timing of the GameList.search call goes to stderr.

Kombilo's semantics (read from libkombilo's algos.cpp / pattern.cpp, 0.8.4):
  * A "hit" is per candidate placement: (top-left position, orientation of the pattern), where
    orientations that give the same pattern (symmetric patterns) are merged, and the
    colour-reversed pattern is a separate orientation when swap_colors is on (unless it equals
    a symmetric image). Each candidate is reported at most once per game, at the FIRST
    position (node number; 0 = the root node, n = after the n-th node of the main line) where
    it matches; later re-occurrences at the same placement are not counted. So the hits of a
    game = number of distinct placements/orientations at which the pattern ever appeared.
  * The continuation of a hit is the first later move played inside the pattern's region
    (not necessarily the very next move; "tenuki" counts those more than 2 moves later; hits
    where no such move follows have no continuation). It is mapped back to the pattern's own
    orientation (cell relative to the pattern's top-left) and, for colour-reversed hits, to
    the pattern's colours (a White move on a reversed hit counts as "B"). If the pattern
    has a colour-reversing symmetry (e.g. no stones at all) and next_move is 0, Kombilo
    reports all continuations as Black (via that symmetry).
  * black_wins/black_losses: Kombilo's wB/lB (resp. wW/lW): games the player with the
    pattern's Black won/lost, with colour reversal taken into account.
"""

import json
import os
import re
import sys
import time

try:
    from kombilo import libkombilo as lk
except ImportError:  # pragma: no cover
    sys.exit("kombilo_search.py: cannot import kombilo.libkombilo; run with the python of the "
             "venv made by tools/install_kombilo.sh")

BOARD = 19
SEP = "|,|"
FORMAT = "[[path]]" + SEP + "[[filename]]" + SEP + "[[pos]]" + SEP
ALGOS = lk.ALGO_FINALPOS | lk.ALGO_MOVELIST | lk.ALGO_HASH_FULL | lk.ALGO_HASH_CORNER


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sgf_files(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for f in files:
            if f.lower().endswith(".sgf"):
                out.append(os.path.relpath(os.path.join(root, f), folder))
    return sorted(out)


def manifest_for(folder, files):
    entries = []
    for rel in files:
        st = os.stat(os.path.join(folder, rel))
        entries.append([rel, st.st_size, int(st.st_mtime)])
    return {"kombilo_search": 1, "folder": os.path.abspath(folder), "files": entries}


def open_gamelist(dbdir, folder):
    os.makedirs(dbdir, exist_ok=True)
    dbname = os.path.join(dbdir, "kombilo.db")
    man_path = os.path.join(dbdir, "manifest.json")
    files = sgf_files(folder)
    manifest = manifest_for(folder, files)
    old = None
    if os.path.exists(man_path):
        try:
            with open(man_path) as f:
                old = json.load(f)
        except ValueError:
            old = None
    if old == manifest and os.path.exists(dbname) and os.path.exists(dbname[:-1] + "a"):
        gl = lk.GameList(dbname, "", FORMAT, lk.ProcessOptions(), BOARD, 500)
        log("kombilo: reusing database %s (%d games)" % (dbname, gl.size_all()))
        return gl

    for ext in ("db", "da", "db1", "db2", "dd"):
        p = dbname[:-2] + ext
        if os.path.exists(p):
            os.remove(p)
    if os.path.exists(man_path):
        os.remove(man_path)

    pop = lk.ProcessOptions()
    pop.rootNodeTags = "PW,PB,RE,DT,EV,SZ"
    pop.sgfInDB = False
    pop.processVariations = False
    pop.algos = ALGOS
    gl = lk.GameList(dbname, "", FORMAT, pop, BOARD, 500)
    t0 = time.perf_counter()
    gl.start_processing(0)  # 0 = do not process variations
    others = lk.vectorGL()  # no duplicate check against other databases
    stats = {"files": 0, "games": 0, "rejected_size": 0, "sgf_error": 0, "not_inserted": 0,
             "unparsable_files": 0}
    for rel in files:
        stats["files"] += 1
        with open(os.path.join(folder, rel), "rb") as f:
            sgf = f.read().decode("latin-1")
        path, fn = os.path.split(rel)
        try:
            n = gl.process(sgf, path, fn, others, "", 0)
        except Exception as e:  # SGFError etc.
            log("kombilo: %s: %r" % (rel, e))
            n = 0
        if n == 0:
            stats["unparsable_files"] += 1
            log("kombilo: %s: not parsed (SGF error), skipped" % rel)
            continue
        for i in range(n):
            r = gl.process_results(i)
            if r & lk.UNACCEPTABLE_BOARDSIZE:
                stats["rejected_size"] += 1
            if r & lk.SGF_ERROR:
                stats["sgf_error"] += 1
            if r & (lk.NOT_INSERTED_INTO_DB | lk.UNACCEPTABLE_BOARDSIZE):
                stats["not_inserted"] += 1
            else:
                stats["games"] += 1
    gl.finalize_processing()
    log("kombilo: built %s in %.3fs: %s; size_all=%d"
        % (dbname, time.perf_counter() - t0, json.dumps(stats), gl.size_all()))
    with open(man_path, "w") as f:
        json.dump(manifest, f)
    return gl


def anchors_for(q, w, h):
    if "anchors" in q:
        return tuple(int(v) for v in q["anchors"])
    kind = q.get("kind", "center")
    native = bool(q.get("kombilo_native", False))
    n = BOARD
    if kind == "center":
        return (1, n - 1 - w, 1, n - 1 - h) if native else (0, n - w, 0, n - h)
    c, r = (int(v) for v in q["anchor"])
    if kind == "corner":
        return (c, c, r, r)
    if kind == "side":
        left, top = c == 0, r == 0
        right, bottom = c + w >= n, r + h >= n
        horiz, vert = left or right, top or bottom
        lo = 1 if native else 0
        if horiz and vert:
            return (c, c, r, r)
        if vert:  # along the top or bottom edge
            return (lo, n - w - lo, r, r)
        if horiz:  # along the left or right edge
            return (c, c, lo, n - h - lo)
        raise ValueError("side pattern at %s touches no edge" % (q["anchor"],))
    raise ValueError("unknown kind %r" % kind)


HIT_RE = re.compile(r"(\d+(?:-\d+)*)(@?[^-,\s\d])?(-)?, ")


def run_query(gl, q, with_game_hits=False, runs=1):
    rows = [r for r in q["pattern"].replace("\r", "").split("\n") if r.strip() != ""]
    rows = [r.replace(" ", "") for r in rows]
    w, h = len(rows[0]), len(rows)
    if any(len(r) != w for r in rows):
        raise ValueError("ragged pattern")
    ipos = "".join(rows)
    if set(ipos) - set("XO.*xo"):
        raise ValueError("bad pattern character in %r" % ipos)
    left, right, top, bottom = anchors_for(q, w, h)
    pattern = lk.Pattern(left, right, top, bottom, BOARD, w, h, ipos)

    so = lk.SearchOptions(0 if q.get("swap_colors", False) else 1,
                          int(q.get("next_move", 0)), int(q.get("move_limit", 10000)))
    so.searchInVariations = False
    so.algos = ALGOS

    # The fastest of `runs` searches (as kifu's side times its searches); each starts from
    # the whole list, since searches are AND-combined otherwise.
    dt = float("inf")
    for _ in range(max(runs, 1)):
        gl.reset()
        t0 = time.perf_counter()
        gl.search(pattern, so)
        dt = min(dt, time.perf_counter() - t0)

    # continuation statistics, in the pattern's orientation and colours
    label_cell = {}
    conts = []
    for y in range(h):
        for x in range(w):
            lab = gl.lookupLabel(x, y)
            if lab != ".":
                label_cell[lab] = [x, y]
            c = gl.lookupContinuation(x, y)
            if c.B:
                conts.append({"x": x, "y": y, "color": "B", "count": c.B, "tenuki": c.tB,
                              "black_wins": c.wB, "black_losses": c.lB})
            if c.W:
                conts.append({"x": x, "y": y, "color": "W", "count": c.W, "tenuki": c.tW,
                              "black_wins": c.wW, "black_losses": c.lW})

    game_hits = {}
    for i in range(gl.size()):
        s = gl.currentEntryAsString(i)
        parts = s.split(SEP)
        path, fn, pos, rest = parts[0], parts[1], parts[2], SEP.join(parts[3:])
        key = "%s:%s" % (os.path.join(path, fn) if path else fn, pos)
        hits = []
        for m in HIT_RE.finditer(rest):
            lab = m.group(2)
            cell = None
            if lab:
                cell = label_cell.get(lab[-1])
            hits.append([int(m.group(1).split("-")[0]), bool(m.group(3)), cell])
        game_hits[key] = hits
    out = {
        "games": gl.size(),
        "hits": gl.numHits(),
        "switched": gl.num_switched,
        "continuations": conts,
        "game_files": sorted(game_hits),
    }
    if with_game_hits:
        out["game_hits"] = {k: game_hits[k] for k in sorted(game_hits)}
    total = sum(len(v) for v in game_hits.values())
    if total != out["hits"]:
        log("kombilo: warning: parsed %d hits, numHits() = %d" % (total, out["hits"]))
    log("kombilo: search %s %s anchors=%s swap=%s: %d games, %d hits, %.4fs"
        % (q.get("kind"), json.dumps(q["pattern"]), (left, right, top, bottom),
           bool(q.get("swap_colors", False)), out["games"], out["hits"], dt))
    return out


def main(argv):
    args = argv[1:]
    with_game_hits = "--game-hits" in args
    builds = [int(a.split("=", 1)[1]) for a in args if a.startswith("--builds=")]
    runs = [int(a.split("=", 1)[1]) for a in args if a.startswith("--runs=")]
    args = [a for a in args if a != "--game-hits"
            and not a.startswith("--builds=") and not a.startswith("--runs=")]
    if len(args) != 3:
        sys.exit("usage: python kombilo_search.py [--game-hits] [--builds=N] [--runs=N] DBDIR "
                 "SGF_FOLDER QUERIES.jsonl")
    dbdir, folder, qfile = args
    gl = open_gamelist(dbdir, folder)
    # Built again N - 1 times (each logs its time), for the fastest of N.
    for _ in range(max(builds or [1]) - 1):
        del gl
        os.remove(os.path.join(dbdir, "manifest.json"))
        gl = open_gamelist(dbdir, folder)
    with open(qfile) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            out = run_query(gl, json.loads(line), with_game_hits, max(runs or [1]))
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv)
