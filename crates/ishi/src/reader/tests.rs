use super::*;

fn codes(p: &Parsed) -> Vec<(u32, String)> {
    p.diagnostics
        .iter()
        .map(|d| (d.line, d.code.to_string()))
        .collect()
}

#[test]
fn komi_forms() {
    let k = |s: &str| parse_komi(&s.split_whitespace().collect::<Vec<_>>()).map(|x| x.0);
    assert_eq!(k("5"), Some(5.0));
    assert_eq!(k("4.5"), Some(4.5));
    assert_eq!(k("3 1/2"), Some(3.5));
    assert_eq!(k("-2"), Some(-2.0));
    assert_eq!(k("-3 1/2"), Some(-3.5));
    assert_eq!(k("1/2"), Some(0.5));
    assert_eq!(k("five"), None);
    assert_eq!(k("."), None);
    assert_eq!(k("1.2.3"), None);
}

#[test]
fn implicit_event_remarks_and_moves() {
    let p = read(b"REMARK r1\nb 1 q3\nW 2 pass\nREMARK end\n");
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let ev = &p.document.events[0];
    assert_eq!(ev.title, None);
    let moves: Vec<_> = ev.moves().collect();
    assert_eq!(moves[0].remarks, ["r1"]);
    assert_eq!(moves[0].point, Loc::parse("Q3"));
    assert_eq!(moves[1].point, None);
    assert_eq!(moves[1].color, Color::White);
    assert_eq!(p.document.trailing_remarks, ["end"]);
}

#[test]
fn move_line_errors() {
    let p = read(b"B 22 Q3 R7\nB 0 Q3\nB x\nW 3 I4\nB\n");
    assert_eq!(
        codes(&p),
        [
            (1, "I002".into()),
            (2, "I002".into()),
            (3, "I002".into()),
            (4, "I002".into()),
            (5, "I002".into())
        ]
    );
    assert_eq!(p.diagnostics[0].column, 9);
    assert_eq!(p.document.events[0].moves().count(), 1);
}

#[test]
fn endvar_with_extra_data_is_only_a_warning() {
    let p = read(b"B 1 Q3\nVAR\nB 1 R4\nENDVAR back to main game\n");
    assert_eq!(codes(&p), [(4, "I004".into())]);
    assert!(!p.has_errors());
}

#[test]
fn blocks_are_opaque_and_unclosed_blocks_reported() {
    let p = read(b"USER x\nB 1 Q3\nendUser\nCOM t\nVAR\nno end");
    let ev = &p.document.events[0];
    assert_eq!(ev.notes.users[0].lines, ["B 1 Q3"]);
    assert_eq!(ev.notes.comments[0].lines, ["VAR", "no end"]);
    assert_eq!(ev.notes.comments[0].title, "t");
    assert_eq!(codes(&p), [(4, "I007".into())]);
}

#[test]
fn an_implicit_event_left_empty_is_not_kept() {
    // Found by fuzzing: the empty variation is dropped, and nothing is left to write.
    let p = read(b"VAR");
    assert_eq!(p.document, Document::default());
    assert_eq!(
        codes(&p),
        [(1, "I024".into()), (1, "I010".into()), (1, "I015".into())]
    );
}

#[test]
fn setup_lines_around_an_ignored_line_stay_one_group() {
    // Found by fuzzing.
    let p = read(b"SETUP B A1\nC\nSETUP W B2\n");
    assert_eq!(p.document.events[0].items.len(), 1);
    let p = read(b"SETUP B A1\nCOM\nx\nENDCOM\nSETUP W B2\n");
    assert_eq!(p.document.events[0].items.len(), 2);
}

#[test]
fn setup_after_var_starts_a_unit_of_the_variation() {
    // Found by fuzzing: the stones went to the diagram before the variation, and the
    // written file read back as another document.
    for text in [
        &b"DIAGRAM\nVAR\nSETUP B A1\n"[..],
        b"B 1 Q3\nDIAGRAM\nVAR\nVAR\nSETUP B A1 W B2\nENDVAR\nENDVAR\n",
    ] {
        let p = read(text);
        let items = &p.document.events[0].items;
        let Some(Item::Diagram(d)) = items.iter().find(|i| matches!(i, Item::Diagram(_))) else {
            panic!("no diagram in {items:?}");
        };
        assert!(d.black.is_empty() && d.white.is_empty(), "{items:?}");
        assert!(
            items.iter().any(|i| matches!(i, Item::Setup(_))),
            "{items:?}"
        );
        let again = read(crate::write(&p.document).as_bytes());
        assert_eq!(again.document, p.document);
    }
}

#[test]
fn deep_nesting_costs_no_stack() {
    let mut s = String::from("B 1 Q3\n");
    for _ in 0..200_000 {
        s.push_str("VAR\nB 1 Q4\n");
    }
    let p = read(s.as_bytes());
    assert_eq!(p.document.events[0].items.len(), 1 + 200_000 * 3);
    let (last, kept) = p.diagnostics.split_last().unwrap();
    assert!(kept.iter().all(|d| d.code == Code::UnbalancedVar));
    // One I010 per open VAR: the list is capped, the rest counted.
    assert_eq!(kept.len(), DiagnosticSink::DEFAULT_LIMIT);
    assert_eq!(
        last.to_string(),
        "error I044: 190000 more problems not shown (190000 of them errors)"
    );
}
