//! Generated documents: read(write(d)) == d, and Ishi -> SGF text -> Ishi gives d back.

use kifu_go::Color;
use kifu_ishi::*;
use proptest::prelude::*;

fn word() -> impl Strategy<Value = String> {
    "[!-~]{1,6}"
}

/// Trimmed text without line breaks (what the reader keeps after a keyword).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        prop::collection::vec(word(), 1..4).prop_map(|w| w.join(" ")),
        "[!-~][ -~\t]{0,12}[!-~]",
    ]
}

/// A block line: anything printable (tabs too) that does not start with the end word.
fn block_line(end: &'static str) -> impl Strategy<Value = String> {
    "[ -~\t]{0,16}".prop_filter("not the end word", move |l| {
        !l.trim_start_matches([' ', '\t'])
            .split([' ', '\t'])
            .next()
            .unwrap_or("")
            .eq_ignore_ascii_case(end)
    })
}

fn loc(n: u8) -> impl Strategy<Value = Loc> {
    (0..n, 1..=n).prop_map(|(c, r)| Loc::new(c, r).unwrap())
}

fn target(n: u8, range: bool) -> impl Strategy<Value = Target> {
    let r = if range { 1 } else { 0 };
    prop_oneof![
        loc(n).prop_map(Target::Point),
        (1u32..60).prop_map(Target::Move),
        (1u32..60, 0u32..10 * r + 1).prop_map(move |(a, d)| if range {
            Target::Range(a, a + d)
        } else {
            Target::Move(a)
        }),
    ]
}

fn marking(n: u8) -> impl Strategy<Value = Marking> {
    let sym = prop_oneof![
        Just(Symbol::Diamond),
        Just(Symbol::Triangle),
        Just(Symbol::Check),
        Just(Symbol::Square)
    ];
    prop_oneof![
        Just(Marking::NumbersAll),
        target(n, true).prop_map(Marking::Number),
        (sym, target(n, true)).prop_map(|(s, t)| Marking::Symbol(s, t)),
        ("[!-\\[\\]-~][!-~]?", target(n, true)).prop_map(|(s, t)| Marking::Text(s, t)),
        ("[!-\\[\\]-~][!-~]?", loc(n)).prop_map(|(s, l)| Marking::Text(s, Target::Point(l))),
        Just(Marking::UnmarkAll),
        target(n, true).prop_map(Marking::Unmark),
    ]
}

fn notes(n: u8, prisoners: bool, hides: bool) -> impl Strategy<Value = Notes> {
    let comment =
        (text(), prop::collection::vec(block_line("ENDCOM"), 0..3)).prop_map(|(title, lines)| {
            Comment {
                title,
                lines,
                line: SourceLine(0),
            }
        });
    let user =
        (text(), prop::collection::vec(block_line("ENDUSER"), 0..3)).prop_map(|(data, lines)| {
            UserBlock {
                data,
                lines,
                line: SourceLine(0),
            }
        });
    (
        prop::collection::vec(comment, 0..2),
        prop::collection::vec(marking(n), 0..4),
        prop::collection::vec(user, 0..2),
        prop::collection::vec(target(n, false), 0..3),
        prop::collection::vec(target(n, true), 0..3),
    )
        .prop_map(move |(comments, marks, users, p, h)| Notes {
            comments,
            marks,
            users,
            prisoners: if prisoners { p } else { Vec::new() },
            hides: if hides { h } else { Vec::new() },
        })
}

fn remarks() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 0..2)
}

/// One step of a program that the legaliser turns into a valid item list.
#[derive(Debug, Clone)]
enum Op {
    Unit(Item),
    Open(Option<String>),
    Close,
}

fn op(n: u8) -> impl Strategy<Value = Op> {
    let stones = || prop::collection::vec(loc(n), 0..4);
    let mv = (
        remarks(),
        any::<bool>(),
        1u32..200,
        prop::option::weighted(0.9, loc(n)),
        notes(n, true, false),
    )
        .prop_map(|(remarks, b, number, point, notes)| {
            Item::Move(Box::new(Move {
                remarks,
                color: if b { Color::Black } else { Color::White },
                number,
                point,
                notes,
                line: SourceLine(0),
            }))
        });
    let setup = (remarks(), stones(), stones(), notes(n, false, false)).prop_map(
        |(remarks, black, white, notes)| {
            Item::Setup(Box::new(Setup {
                remarks,
                black,
                white,
                notes,
                line: SourceLine(0),
            }))
        },
    );
    let region = prop_oneof![
        Just(Region::Board),
        (2u8..=19).prop_map(Region::Size),
        (loc(n), loc(n)).prop_map(|(a, b)| Region::Corners(a, b)),
    ];
    let diagram = (remarks(), region, stones(), stones(), notes(n, false, true)).prop_map(
        |(remarks, region, black, white, notes)| {
            Item::Diagram(Box::new(Diagram {
                remarks,
                region,
                black,
                white,
                notes,
                line: SourceLine(0),
            }))
        },
    );
    prop_oneof![
        5 => mv.prop_map(Op::Unit),
        1 => setup.prop_map(Op::Unit),
        1 => diagram.prop_map(Op::Unit),
        2 => prop::option::of("[!-~]{1,2}").prop_map(Op::Open),
        2 => Just(Op::Close),
    ]
}

/// Keeps only what the format can say: a `VAR` right after a move and starting with a move or
/// a diagram, no setup right after a setup or a diagram (the reader would join them), no empty
/// variation.
fn legalise(ops: Vec<Op>) -> Vec<Item> {
    // Per level: index in `out` of the BeginVar (None at level 0), and the kind of the last unit.
    #[derive(PartialEq, Clone, Copy)]
    enum Last {
        None,
        Move,
        Setup,
        Diagram,
        AfterVar,
    }
    let mut out: Vec<Item> = Vec::new();
    let mut levels: Vec<(Option<usize>, Last)> = vec![(None, Last::None)];
    for op in ops {
        let (begin, last) = *levels.last().unwrap();
        match op {
            Op::Open(m) => {
                if last == Last::Move || last == Last::AfterVar && prev_unit_is_move(&out) {
                    out.push(Item::BeginVar(m));
                    levels.push((Some(out.len() - 1), Last::None));
                }
            }
            Op::Close => {
                if let Some(b) = begin {
                    if b + 1 == out.len() {
                        out.pop();
                    } else {
                        out.push(Item::EndVar);
                    }
                    levels.pop();
                    levels.last_mut().unwrap().1 = Last::AfterVar;
                }
            }
            Op::Unit(item) => {
                let in_var_start = begin.is_some() && last == Last::None;
                let kind = match &item {
                    Item::Move(_) => Last::Move,
                    Item::Setup(_) => Last::Setup,
                    _ => Last::Diagram,
                };
                if in_var_start && kind == Last::Setup {
                    continue;
                }
                if kind == Last::Setup && (last == Last::Setup || last == Last::Diagram) {
                    continue;
                }
                out.push(item);
                levels.last_mut().unwrap().1 = kind;
            }
        }
    }
    while levels.len() > 1 {
        let (b, _) = levels.pop().unwrap();
        if b == Some(out.len() - 1) {
            out.pop();
        } else {
            out.push(Item::EndVar);
        }
    }
    out
}

/// After a `ENDVAR`, the unit the variations hang on is a move (a VAR may follow another VAR).
fn prev_unit_is_move(out: &[Item]) -> bool {
    let mut depth = 0usize;
    for it in out.iter().rev() {
        match it {
            Item::EndVar => depth += 1,
            Item::BeginVar(_) => depth -= 1,
            _ if depth == 0 => return matches!(it, Item::Move(_)),
            _ => {}
        }
    }
    false
}

fn header() -> impl Strategy<Value = Header> {
    let opt = || prop::option::of(text());
    let many = || prop::collection::vec(text(), 0..3);
    let komi = prop::option::of(prop_oneof![
        Just(-2.0),
        Just(0.0),
        Just(0.5),
        Just(3.5),
        Just(5.0),
        Just(6.5),
        Just(100.25)
    ]);
    let rank_name = prop::option::of(prop_oneof![
        text(),
        Just("Haruyama 6-dan".to_string()),
        Just("5d".to_string()),
        Just("A  B 3k".to_string())
    ]);
    let result = prop::option::of(prop_oneof![
        text(),
        Just("White wins by resignation".to_string()),
        Just("B+R".to_string()),
        Just("Black by 3 1/2".to_string())
    ]);
    let date = prop::collection::vec(
        prop_oneof![
            text(),
            Just("8 March 1990".to_string()),
            Just("1990-03-08".to_string())
        ],
        0..3,
    );
    let time = prop::collection::vec(
        prop_oneof![
            text(),
            Just("30 minutes each".to_string()),
            Just("2 hours".to_string())
        ],
        0..2,
    );
    (
        (
            rank_name.clone(),
            rank_name,
            result,
            opt(),
            komi,
            prop::option::of(0u32..10),
        ),
        (many(), date, many(), many(), many(), time),
    )
        .prop_map(
            |(
                (black, white, result, rules, komi, handicap),
                (analysis, date, place, recorder, source, timelimit),
            )| Header {
                black,
                white,
                result,
                rules,
                komi,
                handicap,
                analysis,
                date,
                place,
                recorder,
                source,
                timelimit,
            },
        )
}

fn event(first: bool) -> impl Strategy<Value = Event> {
    (2u8..=19, any::<bool>())
        .prop_flat_map(move |(n, sized)| {
            let title = if first {
                prop::option::of(text()).boxed()
            } else {
                text().prop_map(Some).boxed()
            };
            (
                remarks(),
                title,
                header(),
                Just(if sized || n != 19 { Some(n) } else { None }),
                notes(n, false, false),
                prop::collection::vec(op(n), 0..14),
            )
        })
        .prop_map(|(remarks, title, header, board_size, notes, ops)| {
            let items = legalise(ops);
            let mut ev = Event {
                remarks: if title.is_some() { remarks } else { Vec::new() },
                title,
                header,
                board_size,
                notes,
                items,
                line: SourceLine(0),
            };
            if ev.title.is_none() && ev == Event::default() {
                ev.title = Some(String::new());
            }
            ev
        })
}

fn document() -> impl Strategy<Value = Document> {
    (
        event(true),
        prop::collection::vec(event(false), 0..3),
        remarks(),
    )
        .prop_map(|(first, rest, trailing_remarks)| {
            let mut events = vec![first];
            events.extend(rest);
            Document {
                events,
                trailing_remarks,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn write_then_read_gives_the_document_back(doc in document()) {
        let text = write(&doc);
        let back = read(text.as_bytes());
        prop_assert!(!back.has_errors(), "{:?}\n{text}", back.diagnostics);
        prop_assert_eq!(&back.document, &doc, "{}", text);
    }

    #[test]
    fn ishi_to_sgf_to_ishi_gives_the_document_back(doc in document()) {
        let sgf = to_sgf(&doc);
        prop_assert!(sgf.diagnostics.is_empty(), "{:?}", sgf.diagnostics);
        let text = kifu_sgf::write(&sgf.collection);
        let parsed = kifu_sgf::Collection::parse(text.as_bytes());
        prop_assert!(!parsed.has_errors(), "{:?}\n{text}", parsed.diagnostics);
        let back = from_sgf(&parsed.collection);
        prop_assert_eq!(&back.document, &doc, "{}", text);
    }
}

#[test]
fn empty_file_is_an_empty_document() {
    let p = read(b"");
    assert!(p.diagnostics.is_empty());
    assert_eq!(p.document, Document::default());
    assert_eq!(write(&p.document), "");
    let sgf = to_sgf(&p.document);
    assert_eq!(kifu_sgf::write(&sgf.collection), "");
}
