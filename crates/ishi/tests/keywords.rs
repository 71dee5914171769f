//! Hand-written files: each keyword of Section 5 read as the spec says, and each error reported
//! with its code and line.

use kifu_go::Color;
use kifu_ishi::*;

fn doc(text: &str) -> Document {
    let p = read(text.as_bytes());
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    // Every file here also survives writing and conversion to SGF and back.
    assert_eq!(read(write(&p.document).as_bytes()).document, p.document);
    let sgf = kifu_sgf::write(&to_sgf(&p.document).collection);
    let back = from_sgf(&kifu_sgf::Collection::parse(sgf.as_bytes()).collection);
    assert_eq!(back.document, p.document, "{sgf}");
    p.document
}

/// (line, code) of every diagnostic of reading and validating.
fn problems(text: &str) -> Vec<(u32, String)> {
    check(text.as_bytes())
        .diagnostics
        .iter()
        .map(|d| (d.line, d.code.to_string()))
        .collect()
}

fn l(s: &str) -> Loc {
    Loc::parse(s).unwrap()
}

#[test]
fn header_keywords_repeat_as_the_spec_says() {
    let d = doc("EVENT Honinbo 1989 Final\nSource Book\nsource Page 3\nBlack Honinbo Shusaku\n\
                 WHITE X 5-dan\nDATE 8 March 1990\nHANDICAP 0\nKomi 3 1/2\nPLACE Kyoto\nRECORDER Ishi Press\n\
                 RESULT White wins by resignation\nRULES Chinese\nTimelimit 1 hour\nANALYSIS Kato 9 Dan\n");
    let ev = &d.events[0];
    assert_eq!(ev.title.as_deref(), Some("Honinbo 1989 Final"));
    let h = &ev.header;
    assert_eq!(h.source, ["Book", "Page 3"]);
    assert_eq!(h.black.as_deref(), Some("Honinbo Shusaku"));
    assert_eq!(h.white.as_deref(), Some("X 5-dan"));
    assert_eq!(h.komi, Some(3.5));
    assert_eq!(h.handicap, Some(0));
    assert_eq!(h.rules.as_deref(), Some("Chinese"));
    assert_eq!(h.timelimit, ["1 hour"]);
    let sgf = kifu_sgf::write(&to_sgf(&d).collection);
    // (The writer breaks lines between properties; SO holds a line break of its own.)
    assert!(sgf.replace('\n', "").contains("GN[Honinbo 1989 Final]PB[Honinbo Shusaku]PW[X]WR[5-dan]DT[1990-03-08]KM[3.5]HA[0]RU[Chinese]RE[W+R]TM[3600]SO[BookPage 3]PC[Kyoto]AN[Kato 9 Dan]US[Ishi Press]ISI[RESULT White wins by resignation][DATE 8 March 1990]"), "{sgf}");
    // Once-only keywords repeated: a warning, the last kept.
    assert_eq!(problems("BLACK A\nBLACK B\n"), [(2, "I011".to_string())]);
}

#[test]
fn komi_forms_and_bad_values() {
    for (t, v) in [("5", 5.0), ("4.5", 4.5), ("3 1/2", 3.5), ("-2", -2.0)] {
        assert_eq!(doc(&format!("KOMI {t}\n")).events[0].header.komi, Some(v));
    }
    assert_eq!(
        problems("KOMI lots\nHANDICAP x\nBOARDSIZE 20\n"),
        [(1, "I012".into()), (2, "I012".into()), (3, "I012".into())]
    );
    assert_eq!(problems("KOMI 5 points\n"), [(1, "I004".into())]);
}

#[test]
fn moves_boardsize_pass_and_case() {
    let d = doc("boardsize 9\nb 1 c3\nW 2 PASS\nB 3 j9\n");
    let ev = &d.events[0];
    assert_eq!(ev.board_size, Some(9));
    let m: Vec<(Color, u32, Option<Loc>)> =
        ev.moves().map(|m| (m.color, m.number, m.point)).collect();
    assert_eq!(
        m,
        [
            (Color::Black, 1, Some(l("C3"))),
            (Color::White, 2, None),
            (Color::Black, 3, Some(l("J9")))
        ]
    );
    let sgf = kifu_sgf::write(&to_sgf(&d).collection);
    assert_eq!(sgf, "(;FF[4]CA[UTF-8]GM[1]SZ[9];B[cg];W[];B[ia])\n");
}

#[test]
fn com_titles_user_blocks_and_remarks() {
    let d = doc("REMARK before the event\nEVENT\nCOM Event title\nline 1\n\tindented\nENDCOM\n\
                 REMARK before B 1\nB 1 Q3\nUSER Ishi inventory\nB 2 R4\nEnduser\nCOM\nplain\nENDCOM\n");
    let ev = &d.events[0];
    assert_eq!(ev.remarks, ["before the event"]);
    assert_eq!(ev.notes.comments[0].title, "Event title");
    assert_eq!(ev.notes.comments[0].lines, ["line 1", "\tindented"]);
    let m = ev.moves().next().unwrap();
    assert_eq!(m.remarks, ["before B 1"]);
    assert_eq!(m.notes.users[0].data, "Ishi inventory");
    assert_eq!(m.notes.users[0].lines, ["B 2 R4"]);
    assert_eq!(m.notes.comments[0].lines, ["plain"]);
    let sgf = kifu_sgf::write(&to_sgf(&d).collection);
    assert!(
        sgf.contains(";B[pq]ISR[before B 1]C[plain]ISU[Ishi inventory\nB 2 R4]"),
        "{sgf}"
    );
}

#[test]
fn setup_lines_with_several_colours_form_one_group() {
    let d = doc("SETUP B d4 q4 W a6 B a7\nSETUP W b5\nCOM\nhandicap\nENDCOM\nB 1 C3\n");
    let ev = &d.events[0];
    let Item::Setup(s) = &ev.items[0] else {
        panic!()
    };
    assert_eq!(s.black, [l("D4"), l("Q4"), l("A7")]);
    assert_eq!(s.white, [l("A6"), l("B5")]);
    assert_eq!(s.notes.comments.len(), 1);
    assert_eq!(problems("SETUP d4\n"), [(1, "I003".into())]);
}

#[test]
fn marks_and_unmarks_keep_their_order() {
    let d = doc("B 1 Q3\nMARK #1-33 \\t@Q5 \\S@R1 a@R3 B0@o9 +@A6 x@#81-90 aa@#33\nUNMARK #6-20 Q8\nMARK #11 ALL\nUNMARK all\n");
    let marks = &d.events[0].moves().next().unwrap().notes.marks;
    let shown: Vec<String> = marks
        .iter()
        .map(|m| format!("{}{m}", if m.is_unmark() { "-" } else { "" }))
        .collect();
    assert_eq!(
        shown,
        [
            "#1-33", "\\t@Q5", "\\s@R1", "a@R3", "B0@O9", "+@A6", "x@#81-90", "aa@#33", "-#6-20",
            "-Q8", "#11", "ALL", "-ALL"
        ]
    );
    assert_eq!(
        problems("MARK abc@Q3 \\x@Q3 #5-2 I3\n"),
        [
            (1, "I003".into()),
            (1, "I003".into()),
            (1, "I003".into()),
            (1, "I003".into())
        ]
    );
}

#[test]
fn marks_become_sgf_markup() {
    let d =
        doc("BOARDSIZE 9\nB 1 C3\nW 2 D4\nMARK ALL \\t@C3 \\s@E5 \\c@F6 \\d@G7 X@A1\nUNMARK D4\n");
    let sgf = kifu_sgf::write(&to_sgf(&d).collection);
    assert_eq!(sgf, "(;FF[4]CA[UTF-8]GM[1]SZ[9];B[cg];W[df]LB[ai:X]TR[cg]SQ[ee]CR[gc]MA[fd]ISM[MARK ALL \\\\t@C3 \\\\s@E5 \\\\c@F6 \\\\d@G7 X@A1]\n[UNMARK D4])\n");
}

#[test]
fn diagrams_in_all_three_region_forms_with_hide() {
    let d = doc("B 1 Q3\nVAR\nDIAGRAM\nHIDE #1 q9 #3-9\nENDVAR\nVAR\nDIAGRAM 9X9\nSETUP B C3\nENDVAR\nVAR\nDIAGRAM b12 j5\nENDVAR\n");
    let regions: Vec<Region> = d.events[0]
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Diagram(x) => Some(x.region),
            _ => None,
        })
        .collect();
    assert_eq!(
        regions,
        [
            Region::Board,
            Region::Size(9),
            Region::Corners(l("B12"), l("J5"))
        ]
    );
    let Item::Diagram(x) = &d.events[0].items[2] else {
        panic!()
    };
    assert_eq!(
        x.notes.hides,
        [Target::Move(1), Target::Point(l("Q9")), Target::Range(3, 9)]
    );
    assert_eq!(problems("DIAGRAM 20x20\n"), [(1, "I016".into())]);
}

#[test]
fn variations_nest_and_become_sgf_variations() {
    let d = doc("B 1 Q3\nVAR a\nB 1 R4\nW 2 C3\nVAR\nW 2 D4\nENDVAR\nENDVAR\nW 2 E5\n");
    let sgf = kifu_sgf::write(&to_sgf(&d).collection);
    assert_eq!(
        sgf,
        "(;FF[4]CA[UTF-8]GM[1]\n(;B[pq];W[eo])\n(;ISV[a]B[qp]\n(;W[cq])\n(;W[dp])))\n"
    );
}

#[test]
fn lf_tabs_and_odd_characters() {
    let d = read(b"B\t1\tQ3\r\nCOM\r\nna\xefve \x01x\r\nENDCOM\n");
    let ev = &d.document.events[0];
    assert_eq!(ev.moves().count(), 1);
    // Not UTF-8: read as Windows-1252; the control character removed.
    assert_eq!(
        ev.moves().next().unwrap().notes.comments[0].lines,
        ["na\u{ef}ve x"]
    );
    let codes: Vec<String> = d.diagnostics.iter().map(|x| x.code.to_string()).collect();
    assert_eq!(codes, ["I006", "I005"]);
}

#[test]
fn each_error_with_its_line() {
    // Move syntax, extra data.
    assert_eq!(problems("B 22 Q3 R7\n"), [(1, "I002".into())]);
    assert_eq!(problems("ENDVAR\n"), [(1, "I010".into())]);
    assert_eq!(problems("B 1 Q3\nVAR\nB 1 R4\n"), [(2, "I010".into())]);
    assert_eq!(problems("COM\ntext\n"), [(1, "I007".into())]);
    assert_eq!(problems("USER\ntext\n"), [(1, "I008".into())]);
    assert_eq!(problems("ENDCOM\n"), [(1, "I009".into())]);
    assert_eq!(problems("FOO bar\n"), [(1, "I001".into())]);
    assert_eq!(
        problems("SETUP B C3\nVAR\nB 1 D4\nENDVAR\n"),
        [(2, "I024".into())]
    );
    assert_eq!(problems("PRISONER Q3\n"), [(1, "I027".into())]);
    assert_eq!(problems("B 1 Q3\nHIDE Q3\n"), [(2, "I027".into())]);
    assert_eq!(
        problems("B 1 Q3\nVAR 123\nB 1 C3\nENDVAR\n"),
        [(2, "I016".into())]
    );
    // Move numbers.
    assert_eq!(problems("B 1 Q3\nW 1 R4\n"), [(2, "I020".into())]);
    assert_eq!(problems("B 12 Q3\nW 11 R4\n"), [(2, "I021".into())]);
    assert_eq!(problems("B 19 Q3\nW 21 R4\n"), [(2, "I022".into())]);
    assert_eq!(
        problems("B 1 Q3\nVAR\nB 2 R4\nENDVAR\n"),
        [(3, "I021".into())]
    );
    // Off the board, in moves, setup and marks.
    assert_eq!(
        problems("BOARDSIZE 9\nB 1 K3\nSETUP W A10\nMARK x@T19\n"),
        [(2, "I025".into()), (3, "I025".into()), (3, "I025".into())]
    );
    // Illegal move: onto a stone.
    assert_eq!(problems("B 1 Q3\nW 2 Q3\n"), [(2, "I026".into())]);
}

#[test]
fn prisoners_are_checked_against_the_captures() {
    // White captures the black stone at A1 (by location or by move number).
    let ok = "BOARDSIZE 9\nB 1 A1\nW 2 B1\nB 3 E5\nW 4 A2\nPRISONER A1\n";
    assert!(check(ok.as_bytes()).diagnostics.is_empty());
    assert!(check(ok.replace("PRISONER A1", "PRISONER #1").as_bytes())
        .diagnostics
        .is_empty());
    assert_eq!(
        problems(&ok.replace("PRISONER A1", "PRISONER B1")),
        [(5, "I023".into())]
    );
    assert_eq!(
        problems("BOARDSIZE 9\nB 1 E5\nPRISONER E6\n"),
        [(2, "I023".into())]
    );
    // A capture left unlisted in an event that lists prisoners elsewhere.
    let unlisted = "BOARDSIZE 9\nB 1 A1\nW 2 B1\nB 3 E5\nW 4 A2\nB 5 J9\nW 6 H9\nB 7 E6\nW 8 J8\nPRISONER J9\n";
    assert_eq!(problems(unlisted), [(5, "I028".into())]);
}

#[test]
fn sgf_to_ishi_warns_for_what_ishi_cannot_hold() {
    let sgf = b"(;FF[4]GM[1]SZ[9]GN[g]EV[e]OT[3x30];B[ee]N[name]TE[1];W[cc]AE[ee]PL[B])";
    let r = from_sgf(&kifu_sgf::Collection::parse(sgf).collection);
    let msgs: Vec<String> = r.diagnostics.iter().map(|d| d.message.clone()).collect();
    assert_eq!(
        msgs,
        [
            "game 1: AE cannot be held in Ishi (1 dropped)",
            "game 1: EV cannot be held in Ishi (1 dropped)",
            "game 1: N cannot be held in Ishi (1 dropped)",
            "game 1: OT cannot be held in Ishi (1 dropped)",
            "game 1: PL cannot be held in Ishi (1 dropped)",
            "game 1: TE cannot be held in Ishi (1 dropped)",
        ]
    );
    let bad = b"(;FF[4]GM[1]SZ[25];B[aa])(;GM[2])";
    let r = from_sgf(&kifu_sgf::Collection::parse(bad).collection);
    assert_eq!(r.document.events.len(), 0);
    assert!(
        r.diagnostics
            .iter()
            .all(|d| d.code == Code::SgfUnconvertible)
            && r.diagnostics.len() == 2
    );
}
