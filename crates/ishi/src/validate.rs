//! Validation: replays each event with kifu-go's rules and reports, with the
//! line of the move, setup or diagram concerned:
//! - duplicate (I020), out-of-sequence (I021) and missing (I022) move numbers
//!   within a sequence; the first move of a variation must carry the number
//!   of the move it replaces;
//! - `PRISONER` lines that do not match the stones the move captures (I023),
//!   and, in an event that uses `PRISONER` at all, captures left unlisted (I028);
//! - locations off the event's board (I025), in moves, setups, diagrams,
//!   marks, prisoners and hidden stones;
//! - illegal moves (I026: onto a stone, suicide, ko), which are then played anyway.
//!
//! `#n` in a `PRISONER` line is the stone of move `n` on the board before the
//! move. The replay keeps one position per open variation level, up to
//! [`MAX_REPLAY_DEPTH`] levels; deeper variations get their numbers checked
//! but are not replayed (memory stays bounded whatever the file).
//! Problems the reader sees by itself (`VAR` without a move, unbalanced
//! `VAR`/`ENDVAR`, `COM` without `ENDCOM`, misplaced `PRISONER`/`HIDE`) are
//! reported by [`read`](crate::read()), not here.

use crate::diag::{Code, Diagnostic, DiagnosticSink};
use crate::model::*;
use kifu_go::{BoardSize, Color, Move as GoMove, Point, Position};

/// Variation levels replayed with a board of their own.
pub const MAX_REPLAY_DEPTH: usize = 1000;

/// Move numbers of the stones on the board (0: no numbered stone).
pub(crate) type Numbers = Vec<u32>;

#[derive(Clone)]
pub(crate) struct Boards {
    pub pos: Position,
    pub nums: Numbers,
}

struct Level {
    /// Boards after the last move of this sequence, and before it.
    now: Option<Box<Boards>>,
    before: Option<Box<Boards>>,
    last_num: Option<u32>,
    before_num: Option<u32>,
    /// The number the next move must carry (first move of an alternative).
    replaces: Option<u32>,
    has_move: bool,
}

/// Validates every event; see the module docs.
pub fn validate(doc: &Document) -> Vec<Diagnostic> {
    let mut out = DiagnosticSink::new();
    for ev in &doc.events {
        event(ev, &mut out);
    }
    out.sort();
    out.finish()
}

fn off_board(out: &mut DiagnosticSink, line: SourceLine, what: &str, l: Loc, n: u8) {
    out.push(Diagnostic::new(
        Code::OffBoard,
        line.0,
        0,
        format!("{what} {l} is off the {n}x{n} board"),
    ));
}

fn check_notes(out: &mut DiagnosticSink, line: SourceLine, notes: &Notes, n: u8) {
    let mark_target = |m: &Marking| match m {
        Marking::Number(t) | Marking::Symbol(_, t) | Marking::Text(_, t) | Marking::Unmark(t) => {
            Some(*t)
        }
        _ => None,
    };
    for (what, t) in notes
        .marks
        .iter()
        .filter_map(|m| mark_target(m).map(|t| (if m.is_unmark() { "UNMARK" } else { "MARK" }, t)))
        .chain(notes.prisoners.iter().map(|t| ("PRISONER", *t)))
        .chain(notes.hides.iter().map(|t| ("HIDE", *t)))
    {
        if let Target::Point(l) = t {
            if !l.is_on(n) {
                off_board(out, line, what, l, n);
            }
        }
    }
}

/// The numbers of the stones on the board after a move, from those before.
pub(crate) fn update_numbers(before: &Boards, after: &mut Boards, p: Option<Point>, number: u32) {
    let size = after.pos.size();
    for q in size.all_points() {
        if after.pos.stone_at(q).is_none() {
            after.nums[q.index(size)] = 0;
        }
    }
    let _ = before;
    if let Some(p) = p {
        after.nums[p.index(size)] = number;
    }
}

fn event(ev: &Event, out: &mut DiagnosticSink) {
    let n = ev.size();
    let size = BoardSize::new(u32::from(n)).expect("2..=19");
    let uses_prisoner = ev.moves().any(|m| !m.notes.prisoners.is_empty());
    check_notes(out, ev.line, &ev.notes, n);
    let start = Boards {
        pos: Position::new(size),
        nums: vec![0; size.points()],
    };
    let mut levels = vec![Level {
        now: Some(Box::new(start)),
        before: None,
        last_num: None,
        before_num: None,
        replaces: None,
        has_move: false,
    }];
    for (i, item) in ev.items.iter().enumerate() {
        match item {
            Item::BeginVar(_) => {
                let parent = levels.last().expect("level 0 stays");
                let alternative =
                    parent.has_move && matches!(ev.items.get(i + 1), Some(Item::Move(_)));
                let replay = levels.len() < MAX_REPLAY_DEPTH;
                let (now, last_num, replaces) = if alternative {
                    (parent.before.clone(), parent.before_num, parent.last_num)
                } else {
                    (parent.now.clone(), parent.last_num, None)
                };
                levels.push(Level {
                    now: now.filter(|_| replay),
                    before: None,
                    last_num,
                    before_num: None,
                    replaces,
                    has_move: false,
                });
            }
            Item::EndVar => {
                if levels.len() > 1 {
                    levels.pop();
                }
            }
            Item::Setup(s) => {
                check_notes(out, s.line, &s.notes, n);
                let lv = levels.last_mut().expect("level 0 stays");
                for (color, list) in [(Color::Black, &s.black), (Color::White, &s.white)] {
                    for &l in list {
                        match l.to_point(size) {
                            None => off_board(out, s.line, "SETUP", l, n),
                            Some(p) => {
                                if let Some(b) = lv.now.as_mut() {
                                    let _ = b.pos.setup(p, Some(color));
                                    b.nums[p.index(size)] = 0;
                                }
                            }
                        }
                    }
                }
                lv.has_move = false;
            }
            Item::Diagram(d) => {
                check_notes(out, d.line, &d.notes, n);
                for &l in d.black.iter().chain(&d.white) {
                    if !l.is_on(n) {
                        off_board(out, d.line, "SETUP", l, n);
                    }
                }
                if let Region::Corners(a, b) = d.region {
                    for l in [a, b] {
                        if !l.is_on(n) {
                            off_board(out, d.line, "DIAGRAM corner", l, n);
                        }
                    }
                }
                levels.last_mut().expect("level 0 stays").has_move = false;
            }
            Item::Move(m) => {
                check_notes(out, m.line, &m.notes, n);
                let lv = levels.last_mut().expect("level 0 stays");
                numbers(out, lv, m);
                play(out, lv, m, size, uses_prisoner);
            }
        }
    }
}

fn numbers(out: &mut DiagnosticSink, lv: &mut Level, m: &Move) {
    let c = if m.color == Color::Black { "B" } else { "W" };
    let line = m.line.0;
    if let Some(r) = lv.replaces.take() {
        if m.number != r {
            out.push(Diagnostic::new(
                Code::OutOfSequence,
                line,
                0,
                format!(
                    "{c} {}: the variation's first move should carry the number of the move it replaces ({r})",
                    m.number
                ),
            ));
        }
    } else if let Some(prev) = lv.last_num {
        if m.number == prev {
            out.push(Diagnostic::new(
                Code::DuplicateNumber,
                line,
                0,
                format!("{c} {}: move number {prev} again", m.number),
            ));
        } else if m.number < prev {
            out.push(Diagnostic::new(
                Code::OutOfSequence,
                line,
                0,
                format!("{c} {}: out of sequence after move {prev}", m.number),
            ));
        } else if m.number > prev + 1 {
            let missing = if m.number == prev + 2 {
                format!("{}", prev + 1)
            } else {
                format!("{}-{}", prev + 1, m.number - 1)
            };
            out.push(Diagnostic::new(
                Code::MissingNumber,
                line,
                0,
                format!("{c} {}: move(s) {missing} missing", m.number),
            ));
        }
    }
    lv.before_num = lv.last_num;
    lv.last_num = Some(m.number);
    lv.has_move = true;
}

fn play(out: &mut DiagnosticSink, lv: &mut Level, m: &Move, size: BoardSize, uses_prisoner: bool) {
    let c = if m.color == Color::Black { "B" } else { "W" };
    let line = m.line.0;
    let n = size.get();
    let Some(now) = lv.now.as_mut() else {
        lv.before = None;
        return;
    };
    let before = now.clone();
    let mv = match m.point {
        None => GoMove::Pass,
        Some(l) => match l.to_point(size) {
            Some(p) => GoMove::Play(p),
            None => {
                off_board(out, m.line, c, l, n);
                lv.before = Some(before);
                return;
            }
        },
    };
    if let Ok(outcome) = now.pos.play_forced(m.color, mv) {
        if let Some(v) = outcome.violation {
            out.push(Diagnostic::new(
                Code::IllegalMove,
                line,
                0,
                format!(
                    "{c} {} {}: {v} (played anyway)",
                    m.number,
                    l_or_pass(m.point)
                ),
            ));
        }
    }
    update_numbers(&before, now, mv.point(), m.number);
    // Stones of the opponent that were on the board before and are gone now.
    let opp = m.color.opponent();
    let captured: Vec<Point> = size
        .all_points()
        .filter(|&q| before.pos.stone_at(q) == Some(opp) && now.pos.stone_at(q).is_none())
        .collect();
    if !m.notes.prisoners.is_empty() {
        let mut listed = Vec::new();
        let mut unknown = Vec::new();
        for t in &m.notes.prisoners {
            let p = match *t {
                Target::Point(l) => l.to_point(size),
                Target::Move(k) => size.all_points().find(|q| before.nums[q.index(size)] == k),
                Target::Range(..) => None,
            };
            match p {
                Some(p) => listed.push(p),
                None => unknown.push(t.to_string()),
            }
        }
        listed.sort();
        listed.dedup();
        let mut got = captured.clone();
        got.sort();
        if listed != got || !unknown.is_empty() {
            let show = |v: &[Point]| {
                if v.is_empty() {
                    "nothing".to_string()
                } else {
                    v.iter()
                        .map(|&p| Loc::from_point(p, size).to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            };
            let listed_text: Vec<String> =
                m.notes.prisoners.iter().map(|t| t.to_string()).collect();
            out.push(Diagnostic::new(
                Code::PrisonerMismatch,
                line,
                0,
                format!(
                    "{c} {} {}: PRISONER {} but the move captures {}",
                    m.number,
                    l_or_pass(m.point),
                    listed_text.join(" "),
                    show(&got)
                ),
            ));
        }
    } else if uses_prisoner && !captured.is_empty() {
        out.push(Diagnostic::new(
            Code::UnlistedCaptures,
            line,
            0,
            format!(
                "{c} {} {}: captures {} stone(s) but has no PRISONER line",
                m.number,
                l_or_pass(m.point),
                captured.len()
            ),
        ));
    }
    lv.before = Some(before);
}

fn l_or_pass(p: Option<Loc>) -> String {
    p.map_or_else(|| "PASS".to_string(), |l| l.to_string())
}
