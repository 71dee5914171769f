//! SGF to Ishi: each Go game tree becomes an event.
//!
//! The mapping is [`to_sgf`](crate::to_sgf())'s read backwards, private `IS?`
//! properties first (they override the standard ones they stand for). For a
//! node: a move (`B`/`W`, number from `MN` or one more than the node
//! above), a setup group (`AB`/`AW`), a diagram (`ISD`); its `C`, marks
//! (`LB` labels of one or two characters, `TR`, `SQ`, `CR` as `\d`, `MA` as
//! `\c`) go to that unit. A node with only commentary joins the unit above.
//! Variations become `VAR`s on the move they replace.
//!
//! A warning (I040) names each property Ishi cannot hold, once per game with
//! a count: `AE`, `PL`, `KO`, annotations (`GB`, `TE`, `BM`...), `N`, `SL`,
//! `AR`, `LN`, `DD`, territory, times left, `OT`, `GC`, `EV` beside `GN`,
//! unknown properties... File metadata (`FF`, `CA`, `GM`, `AP`, `ST`) is
//! dropped silently. Games that are not Go, not square or larger than 19x19
//! are left out with an error (I041).

use crate::diag::{Code, Diagnostic, DiagnosticSink};
use crate::model::*;
use crate::sgfmap::*;
use kifu_go::Color;
use kifu_sgf::{Collection, LineIndex, Node, SgfMove, Value};
use std::collections::BTreeMap;

/// The result of a conversion from SGF.
#[derive(Debug, Clone)]
pub struct FromSgf {
    /// The Ishi document.
    pub document: Document,
    /// What could not be converted.
    pub diagnostics: Vec<Diagnostic>,
}

const SILENT: [&str; 5] = ["FF", "CA", "GM", "AP", "ST"];
const HELD: [&str; 38] = [
    "SZ", "GN", "PB", "PW", "BR", "WR", "DT", "KM", "HA", "RU", "RE", "TM", "SO", "PC", "AN", "US",
    "B", "W", "AB", "AW", "C", "LB", "TR", "SQ", "CR", "MA", "MN", "ISE", "ISI", "IST", "ISR",
    "ISC", "ISM", "ISU", "ISP", "ISH", "ISD", "ISS",
];
const HELD_VAR: [&str; 3] = ["ISV", "ISX", "ISJ"];

/// The node's properties, values of a repeated identifier joined into the first (as SGF
/// repairs do).
fn props_of(node: &Node<'_>) -> PropList {
    let mut out: PropList = Vec::new();
    for p in node.properties() {
        let values: Vec<Vec<u8>> = p.values().map(|v| v.raw().to_vec()).collect();
        match out.iter_mut().find(|(id, _)| id == p.id()) {
            Some((_, v)) => v.extend(values),
            None => out.push((p.id().to_string(), values)),
        }
    }
    out
}

fn has(props: &PropList, id: &str) -> bool {
    get(props, id).is_some()
}

struct Game<'a> {
    n: u8,
    drops: BTreeMap<String, (usize, usize)>,
    diags: &'a mut DiagnosticSink,
    event: Event,
}

/// Converts an SGF collection to an Ishi document.
pub fn from_sgf(coll: &Collection) -> FromSgf {
    let lines = LineIndex::new(coll.text());
    let at = |off: usize| lines.line_col(coll.text(), off);
    let mut doc = Document::default();
    let mut diags = DiagnosticSink::new();
    for (gi, game) in coll.games().enumerate() {
        let root = game.root();
        let rp = props_of(&root);
        let (line, col) = at(root.offset());
        if let Some(t) = private_texts(&rp, "IST") {
            doc.trailing_remarks = t;
        }
        if rp
            .iter()
            .all(|(id, _)| SILENT.contains(&id.as_str()) || id == "IST")
            && root.first_child().is_none()
            && has(&rp, "IST")
        {
            continue;
        }
        if game.game_type() != 1 {
            diags.push(Diagnostic::new(
                Code::SgfUnconvertible,
                line,
                col,
                format!(
                    "game {} is not Go (GM[{}]): left out",
                    gi + 1,
                    game.game_type()
                ),
            ));
            continue;
        }
        let n = match game.board_size() {
            None => 19,
            Some((c, r)) if c == r && (2..=19).contains(&c) => c as u8,
            Some((c, r)) => {
                diags.push(Diagnostic::new(
                    Code::SgfUnconvertible,
                    line,
                    col,
                    format!("game {}: board {c}x{r} cannot be an Ishi event (square, 2 to 19): left out", gi + 1),
                ));
                continue;
            }
        };
        let mut g = Game {
            n,
            drops: BTreeMap::new(),
            diags: &mut diags,
            event: Event::default(),
        };
        g.event.title = private_texts(&rp, "ISE")
            .and_then(|v| v.into_iter().next())
            .or_else(|| first_text(&rp, "GN"))
            .or_else(|| first_text(&rp, "EV"));
        if has(&rp, "GN") && has(&rp, "EV") && !has(&rp, "ISE") {
            g.drop("EV", root.offset());
        }
        if gi > 0 && g.event.title.is_none() {
            g.event.title = Some(String::new());
        }
        let mut header = header_from_props(&rp);
        if let Some(lines) = private_texts(&rp, "ISI") {
            apply_header_private(&mut header, &lines);
        }
        g.event.header = header;
        if has(&rp, "SZ") {
            g.event.board_size = Some(n);
        }
        g.event.remarks = private_texts(&rp, "ISR").unwrap_or_default();
        g.walk(root, &rp);
        if g.event.title.is_none() && g.event == Event::default() {
            // An empty implicit event would vanish from the file: make it explicit.
            g.event.title = Some(String::new());
        }
        let mut changed = 0usize;
        fit_event(&mut g.event, &mut changed);
        if changed > 0 {
            g.diags.push(Diagnostic::new(
                Code::TextChanged,
                line,
                col,
                format!(
                    "game {}: {changed} text(s) changed to fit on one Ishi line (line breaks and control characters)",
                    gi + 1
                ),
            ));
        }
        let Game { drops, event, .. } = g;
        for (id, (count, off)) in drops {
            let (l, c) = at(off);
            diags.push(Diagnostic::new(
                Code::SgfDropped,
                l,
                c,
                format!(
                    "game {}: {id} cannot be held in Ishi ({count} dropped)",
                    gi + 1
                ),
            ));
        }
        doc.events.push(event);
    }
    FromSgf {
        document: doc,
        diagnostics: diags.finish(),
    }
}

enum Task<'c> {
    Unit {
        node: Node<'c>,
        alts: Vec<(Node<'c>, u32)>,
        prev: u32,
        above: Option<usize>,
    },
    Begin(Option<String>),
    End,
}

/// Alternatives to a move with their nesting depths (`ISJ`).
type Alts<'c> = Vec<(Node<'c>, u32)>;

fn isj(node: &Node<'_>) -> u32 {
    node.get("ISJ")
        .and_then(|p| p.value())
        .and_then(|v| unescape(v.raw()).trim().parse().ok())
        .unwrap_or(0)
}

fn is_diagram_var(node: &Node<'_>) -> bool {
    node.has("ISX")
}

/// Splits alternatives with nesting depths into groups: each depth-0 entry with the deeper ones after it.
fn groups<'c>(alts: &[(Node<'c>, u32)]) -> Vec<(Node<'c>, Vec<(Node<'c>, u32)>)> {
    let mut out: Vec<(Node<'c>, Vec<(Node<'c>, u32)>)> = Vec::new();
    for &(n, d) in alts {
        match out.last_mut() {
            Some(last) if d > 0 => last.1.push((n, d - 1)),
            _ => out.push((n, Vec::new())),
        }
    }
    out
}

impl Game<'_> {
    fn drop(&mut self, id: &str, offset: usize) {
        let e = self.drops.entry(id.to_string()).or_insert((0, offset));
        e.0 += 1;
    }

    fn warn_text(&mut self, offset: usize, msg: String) {
        let _ = offset;
        self.diags
            .push(Diagnostic::new(Code::TextChanged, 0, 0, msg));
    }

    fn walk<'c>(&mut self, root: Node<'c>, rp: &PropList) {
        let mut stack = vec![Task::Unit {
            node: root,
            alts: Vec::new(),
            prev: 0,
            above: None,
        }];
        let _ = rp;
        while let Some(t) = stack.pop() {
            match t {
                Task::Begin(m) => self.event.items.push(Item::BeginVar(m)),
                Task::End => self.event.items.push(Item::EndVar),
                Task::Unit {
                    node,
                    alts,
                    prev,
                    above,
                } => {
                    let (unit, num) = self.unit(&node, prev, above);
                    // Variations on this unit: its alternatives, and diagrams hanging from it.
                    let mut vars: Vec<(Node<'c>, Alts<'c>, u32)> = groups(&alts)
                        .into_iter()
                        .map(|(n, nested)| (n, nested, prev))
                        .collect();
                    let mut diagrams: Vec<(usize, Node<'c>)> = node
                        .children()
                        .filter(is_diagram_var)
                        .map(|c| {
                            let k = c
                                .get("ISX")
                                .and_then(|p| p.value())
                                .and_then(|v| unescape(v.raw()).trim().parse().ok())
                                .unwrap_or(usize::MAX);
                            (k, c)
                        })
                        .collect();
                    diagrams.sort_by_key(|d| d.0);
                    for (k, c) in diagrams {
                        let at = k.min(vars.len());
                        vars.insert(at, (c, Vec::new(), num));
                    }
                    let mut kids = node.children().filter(|c| !is_diagram_var(c));
                    if let Some(cont) = kids.next() {
                        let alts: Vec<(Node<'c>, u32)> = kids.map(|k| (k, isj(&k))).collect();
                        stack.push(Task::Unit {
                            node: cont,
                            alts,
                            prev: num,
                            above: unit,
                        });
                    }
                    for (n, nested, p) in vars.into_iter().rev() {
                        stack.push(Task::End);
                        stack.push(Task::Unit {
                            node: n,
                            alts: nested,
                            prev: p,
                            above: unit,
                        });
                        let marker = n
                            .get("ISV")
                            .and_then(|p| p.value())
                            .map(|v| unescape(v.raw()));
                        stack.push(Task::Begin(marker));
                    }
                }
            }
        }
    }

    fn loc(&self, p: kifu_sgf::SgfPoint) -> Option<Loc> {
        (p.col < self.n && p.row < self.n)
            .then(|| Loc::new(p.col, self.n - p.row))
            .flatten()
    }

    fn stones(&mut self, props: &PropList, id: &str, offset: usize) -> Vec<Loc> {
        let mut out = Vec::new();
        for v in get(props, id).into_iter().flatten() {
            for p in Value::from_raw(v).points().unwrap_or_default() {
                match self.loc(p) {
                    Some(l) => out.push(l),
                    None => self.drop(&format!("{id} point off the board"), offset),
                }
            }
        }
        out
    }

    fn notes(&mut self, props: &PropList, offset: usize) -> Notes {
        let mut comments = comments_from_props(props);
        for c in &mut comments {
            fix_lines(&mut c.lines, "ENDCOM", offset, self);
        }
        let (marks, bad) = marks_from_props(props, self.n);
        for _ in bad {
            self.drop("LB label longer than two characters", offset);
        }
        let mut users = users_from_props(props);
        for u in &mut users {
            fix_lines(&mut u.lines, "ENDUSER", offset, self);
        }
        Notes {
            comments,
            marks,
            users,
            prisoners: targets_from_props(props, "ISP", false),
            hides: targets_from_props(props, "ISH", true),
        }
    }

    /// Adds the node's units; returns the index of the last one (or `above`) and the
    /// SGF move number after the node.
    fn unit(&mut self, node: &Node<'_>, prev: u32, above: Option<usize>) -> (Option<usize>, u32) {
        let props = props_of(node);
        let off = node.offset();
        let is_root = node.parent().is_none();
        for (id, _) in &props {
            let id = id.as_str();
            let held = HELD.contains(&id) || (HELD_VAR.contains(&id) && !is_root);
            let info_ok = is_root
                || ![
                    "GN", "PB", "PW", "BR", "WR", "DT", "KM", "HA", "RU", "RE", "TM", "SO", "PC",
                    "AN", "US", "SZ", "ISE", "ISI", "IST",
                ]
                .contains(&id);
            if SILENT.contains(&id) || (held && info_ok) {
                continue;
            }
            if is_root && id == "EV" {
                continue;
            }
            self.drop(id, off);
        }
        // The root's remarks are the event's (read by the caller).
        let remarks = if is_root {
            Vec::new()
        } else {
            private_texts(&props, "ISR").unwrap_or_default()
        };
        let notes = self.notes(&props, off);
        let mut num = prev;
        let first = self.event.items.len();
        if has(&props, "ISD") {
            let region = private_texts(&props, "ISD")
                .and_then(|v| v.into_iter().next())
                .map(|r| parse_region(&r))
                .unwrap_or(Region::Board);
            let d = Diagram {
                remarks,
                region,
                black: self.stones(&props, "AB", off),
                white: self.stones(&props, "AW", off),
                notes,
                line: SourceLine(0),
            };
            self.event.items.push(Item::Diagram(Box::new(d)));
            return (Some(self.event.items.len() - 1), num);
        }
        if has(&props, "AB") || has(&props, "AW") || has(&props, "ISS") {
            let s = Setup {
                remarks: Vec::new(),
                black: self.stones(&props, "AB", off),
                white: self.stones(&props, "AW", off),
                notes: Notes::default(),
                line: SourceLine(0),
            };
            self.event.items.push(Item::Setup(Box::new(s)));
        }
        for (id, color) in [("B", Color::Black), ("W", Color::White)] {
            let Some(v) = get(&props, id).and_then(|v| v.first()) else {
                continue;
            };
            let n = u32::from(self.n);
            let point = match Value::from_raw(v).move_for(n, n) {
                Some(SgfMove::Pass) => None,
                Some(SgfMove::Play(p)) => match self.loc(p) {
                    Some(l) => Some(l),
                    None => {
                        self.drop(&format!("{id} off the board (read as a pass)"), off);
                        None
                    }
                },
                None => {
                    self.drop(&format!("{id} with a bad value (read as a pass)"), off);
                    None
                }
            };
            let mn = first_text(&props, "MN")
                .and_then(|t| t.trim().parse::<u32>().ok())
                .filter(|&k| k > 0);
            num = mn.unwrap_or(num.saturating_add(1).max(1));
            self.event.items.push(Item::Move(Box::new(Move {
                remarks: Vec::new(),
                color,
                number: num,
                point,
                notes: Notes::default(),
                line: SourceLine(0),
            })));
        }
        let units = first..self.event.items.len();
        if units.is_empty() {
            if is_root {
                self.event.notes = notes;
                return (None, num);
            }
            let target = match above {
                Some(i) => i,
                None => {
                    self.event.items.push(Item::Setup(Box::default()));
                    self.event.items.len() - 1
                }
            };
            if !notes.is_empty() || !remarks.is_empty() {
                self.diags.push(Diagnostic::new(
                    Code::TextChanged,
                    0,
                    0,
                    "a node without a move or setup: its commentary and marks joined the unit above",
                ));
            }
            let (r, n) = unit_parts(&mut self.event.items[target]);
            r.extend(remarks);
            merge_notes(n, notes);
            return (Some(target), num);
        }
        if let Some((r, _)) = self.event.items.get_mut(first).map(unit_parts) {
            *r = remarks;
        }
        let last = self.event.items.len() - 1;
        *unit_parts(&mut self.event.items[last]).1 = notes;
        (Some(last), num)
    }
}

fn unit_parts(item: &mut Item) -> (&mut Vec<String>, &mut Notes) {
    match item {
        Item::Setup(s) => (&mut s.remarks, &mut s.notes),
        Item::Move(m) => (&mut m.remarks, &mut m.notes),
        Item::Diagram(d) => (&mut d.remarks, &mut d.notes),
        Item::BeginVar(_) | Item::EndVar => unreachable!("units only"),
    }
}

fn merge_notes(into: &mut Notes, from: Notes) {
    into.comments.extend(from.comments);
    into.marks.extend(from.marks);
    into.users.extend(from.users);
    into.prisoners.extend(from.prisoners);
    into.hides.extend(from.hides);
}

/// Lines starting with the block's end word, or holding characters below 32, cannot be written
/// in Ishi: such lines get a `>` in front, and control characters are removed.
fn fix_lines(lines: &mut [String], end: &str, offset: usize, g: &mut Game<'_>) {
    for l in lines.iter_mut() {
        if l.contains(|c: char| (c < ' ' && c != '\t') || c == '\u{7f}') {
            l.retain(|c| !((c < ' ' && c != '\t') || c == '\u{7f}'));
            g.warn_text(offset, "control characters removed from a text".to_string());
        }
        let t = l.trim_start_matches([' ', '\t']);
        let w = t.split([' ', '\t']).next().unwrap_or("");
        if w.eq_ignore_ascii_case(end) {
            l.insert(0, '>');
            g.warn_text(
                offset,
                format!("a text line starting with {end} got a '>' in front"),
            );
        }
    }
}

/// Makes a text fit on one Ishi line: line breaks become spaces, control characters go, ends
/// are trimmed (white space there is not significant). Counts the texts changed otherwise.
fn fit_line(s: &mut String, changed: &mut usize) {
    let bad = |c: char| (c < ' ' && c != '\t') || c == '\u{7f}';
    if s.contains(bad) {
        *s = s
            .chars()
            .filter_map(|c| match c {
                '\n' | '\r' => Some(' '),
                c if bad(c) => None,
                c => Some(c),
            })
            .collect();
        *changed += 1;
    }
    let t = s.trim_matches([' ', '\t']);
    if t.len() != s.len() {
        *s = t.to_string();
    }
}

fn fit_notes(n: &mut Notes, changed: &mut usize) {
    for c in &mut n.comments {
        fit_line(&mut c.title, changed);
    }
    for u in &mut n.users {
        fit_line(&mut u.data, changed);
    }
}

fn fit_event(ev: &mut Event, changed: &mut usize) {
    let mut one = |s: &mut String| fit_line(s, changed);
    if let Some(t) = ev.title.as_mut() {
        one(t);
    }
    ev.remarks.iter_mut().for_each(&mut one);
    let h = &mut ev.header;
    for f in [&mut h.black, &mut h.white, &mut h.result, &mut h.rules] {
        if let Some(t) = f.as_mut() {
            one(t);
        }
    }
    for v in [
        &mut h.analysis,
        &mut h.date,
        &mut h.place,
        &mut h.recorder,
        &mut h.source,
        &mut h.timelimit,
    ] {
        v.iter_mut().for_each(&mut one);
    }
    fit_notes(&mut ev.notes, changed);
    for it in &mut ev.items {
        match it {
            Item::Setup(s) => {
                s.remarks.iter_mut().for_each(|r| fit_line(r, changed));
                fit_notes(&mut s.notes, changed);
            }
            Item::Move(m) => {
                m.remarks.iter_mut().for_each(|r| fit_line(r, changed));
                fit_notes(&mut m.notes, changed);
            }
            Item::Diagram(d) => {
                d.remarks.iter_mut().for_each(|r| fit_line(r, changed));
                fit_notes(&mut d.notes, changed);
            }
            Item::BeginVar(m) => {
                let ok = m.as_ref().is_none_or(|m| {
                    (1..=2).contains(&m.chars().count())
                        && m.chars().all(|c| ('!'..='~').contains(&c))
                });
                if !ok {
                    *m = None;
                    *changed += 1;
                }
            }
            Item::EndVar => {}
        }
    }
}

fn parse_region(r: &str) -> Region {
    let ws: Vec<&str> = r.split_whitespace().collect();
    match ws.as_slice() {
        [a, b] => match (Loc::parse(a), Loc::parse(b)) {
            (Some(a), Some(b)) => Region::Corners(a, b),
            _ => Region::Board,
        },
        [s] => s
            .split_once(['x', 'X'])
            .and_then(|(a, b)| Some((a.parse::<u8>().ok()?, b.parse::<u8>().ok()?)))
            .filter(|(a, b)| a == b && (2..=19).contains(a))
            .map_or(Region::Board, |(a, _)| Region::Size(a)),
        _ => Region::Board,
    }
}
