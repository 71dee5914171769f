//! Ishi to SGF FF\[4\]: each event becomes a game tree.
//!
//! - Root: `FF[4]CA[UTF-8]GM[1]`, `SZ` from `BOARDSIZE`, `GN` from the event
//!   title, game info from the header (`PB`/`BR` and `PW`/`WR` when the last
//!   word of `BLACK`/`WHITE` is a rank such as `6-dan`, `DT` in ISO form when
//!   the dates can be read, `KM`, `HA`, `RU`, `RE` as `W+R` when the text can
//!   be read, `TM` in seconds, `SO`, `PC`, `AN`, `US` for `RECORDER`, with
//!   repeated lines joined by line breaks), and the event's own commentary and
//!   marks. A first `SETUP` group goes into the root when the event has no
//!   commentary or marks of its own; other setups get a node with `AB`/`AW`.
//! - Moves: `B`/`W`, and `MN` where the Ishi number is not the SGF count.
//! - `VAR`: an alternative to a move is a sibling variation of that move's
//!   node; a `VAR` holding a diagram is a later child of the move's node.
//! - `COM` blocks: `C` (titles on their own line, blocks separated by a blank
//!   line). `MARK`/`UNMARK` are applied in order and the result shown with
//!   `LB` (move numbers and characters), `TR` (`\t`), `SQ` (`\s`), `CR`
//!   (`\d`, the nearest SGF shape to a diamond) and `MA` (`\c`).
//! - `PRISONER` is checked by [`validate()`](crate::validate()), not shown: SGF
//!   computes captures.
//!
//! What SGF cannot say goes into private properties, written only where the
//! standard ones would not give the data back, so that
//! [`from_sgf`](crate::from_sgf()) returns an equal [`Document`]:
//!
//! | id  | node | value |
//! |-----|------|-------|
//! | ISE | root | the title of an `EVENT` line GN cannot give back (`ISE[]` for a bare `EVENT`) |
//! | ISI | root | header lines `KEYWORD text` whose field the game info cannot give back |
//! | IST | root of the last game | `REMARK`s at the end of the file |
//! | ISR | unit | `REMARK`s before the event, setup, move or diagram |
//! | ISC | unit | each `COM` block as `title\nline\n...` when `C` alone cannot give them back |
//! | ISM | unit | the `MARK`/`UNMARK` lines when `LB`/`TR`/`SQ`/`CR`/`MA` cannot give them back |
//! | ISU | unit | each `USER` block as `data\nline\n...` |
//! | ISP | move | the `PRISONER` items |
//! | ISH | diagram | the `HIDE` items |
//! | ISD | diagram | marks a diagram node; the region as written after `DIAGRAM` |
//! | ISS | setup | `ISS[]`: a `SETUP` group with no stone on the board |
//! | ISV | first node of a variation | the `VAR` marker |
//! | ISX | first node of a diagram variation | its place among the move's variations |
//! | ISJ | first node of an alternative | nesting depth, when the `VAR` is on the first move of an enclosing `VAR` |
//!
//! Private values are escaped SGF text read back exactly (tabs included).
//! The round trip is guaranteed for documents without locations off the
//! board (those are dropped with a warning, I043).

use crate::diag::{Code, Diagnostic, DiagnosticSink};
use crate::model::*;
use crate::sgfmap::*;
use crate::validate::{update_numbers, Boards, MAX_REPLAY_DEPTH};
use kifu_go::{BoardSize, Color, Move as GoMove, Point, Position};
use kifu_sgf::{Builder, Collection};

/// The result of a conversion: the collection and what could not be converted.
#[derive(Debug)]
pub struct Converted {
    /// The SGF collection.
    pub collection: Collection,
    /// Warnings about data left out.
    pub diagnostics: Vec<Diagnostic>,
}

/// A node of the SGF tree being built. Compact, because a file of short Ishi lines makes one
/// node per line: as a list of `(String, Vec<Vec<u8>>)` with a child list, a node of one move
/// took some 400 bytes (60 times its `B 1 Q3` line); packed, about 60.
struct SNode {
    /// The properties, packed by [`pack`].
    props: Box<[u8]>,
    /// Children as a list: first, last, and each child's next sibling (`NONE` for none).
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    diagram_var: bool,
}

const NONE: u32 = u32::MAX;

impl Default for SNode {
    fn default() -> Self {
        SNode {
            props: Box::default(),
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            diagram_var: false,
        }
    }
}

impl SNode {
    fn props(&self) -> PropList {
        unpack(&self.props)
    }

    fn set_props(&mut self, props: &PropList) {
        self.props = pack(props);
    }
}

/// Per property: the identifier's length (a byte) and the identifier, the number of values
/// (u32 LE), then each value's length (u32 LE) and bytes.
fn pack(props: &PropList) -> Box<[u8]> {
    let mut out = Vec::new();
    for (id, vals) in props {
        out.push(u8::try_from(id.len()).expect("identifiers here are short"));
        out.extend_from_slice(id.as_bytes());
        out.extend_from_slice(&(vals.len() as u32).to_le_bytes());
        for v in vals {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }
    }
    out.into_boxed_slice()
}

fn unpack(mut b: &[u8]) -> PropList {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> &'a [u8] {
        let (head, rest) = b.split_at(n);
        *b = rest;
        head
    }
    fn num(b: &mut &[u8]) -> usize {
        u32::from_le_bytes(take(b, 4).try_into().expect("4 bytes")) as usize
    }
    let mut out = PropList::new();
    while let Some(&len) = b.first() {
        b = &b[1..];
        let id =
            String::from_utf8(take(&mut b, usize::from(len)).to_vec()).expect("packed from a str");
        let n = num(&mut b);
        let vals = (0..n)
            .map(|_| {
                let len = num(&mut b);
                take(&mut b, len).to_vec()
            })
            .collect();
        out.push((id, vals));
    }
    out
}

/// Converts a document to an SGF collection (one game tree per event).
pub fn to_sgf(doc: &Document) -> Converted {
    let mut b = Builder::new();
    let mut diags = DiagnosticSink::new();
    let count = doc.events.len();
    for (i, ev) in doc.events.iter().enumerate() {
        let mut tree = event_tree(ev, i == 0, &mut diags);
        if i + 1 == count && !doc.trailing_remarks.is_empty() {
            let mut root = tree[0].props();
            push_private(&mut root, "IST", &doc.trailing_remarks);
            tree[0].set_props(&root);
        }
        emit(&mut b, &tree);
    }
    if count == 0 && !doc.trailing_remarks.is_empty() {
        let mut props = base_props();
        push_private(&mut props, "IST", &doc.trailing_remarks);
        let mut root = SNode::default();
        root.set_props(&props);
        emit(&mut b, &[root]);
    }
    Converted {
        collection: b.finish(),
        diagnostics: diags.finish(),
    }
}

fn base_props() -> PropList {
    vec![
        ("FF".into(), vec![b"4".to_vec()]),
        ("CA".into(), vec![b"UTF-8".to_vec()]),
        ("GM".into(), vec![b"1".to_vec()]),
    ]
}

fn push_text(props: &mut PropList, id: &str, text: &str) {
    props.push((id.to_string(), vec![esc(text)]));
}

fn push_private(props: &mut PropList, id: &str, values: &[String]) {
    if !values.is_empty() {
        props.push((id.to_string(), values.iter().map(|v| esc(v)).collect()));
    }
}

fn emit(b: &mut Builder, tree: &[SNode]) {
    enum Task {
        Node(usize),
        Begin,
        End,
    }
    b.begin_game();
    let mut stack = vec![Task::Node(0)];
    while let Some(t) = stack.pop() {
        match t {
            Task::Begin => b.begin_variation(),
            Task::End => b.end_variation(),
            Task::Node(i) => {
                b.begin_node();
                for (id, vals) in &tree[i].props() {
                    b.add_property(id, vals);
                }
                // The main continuation first; variations holding diagrams last.
                let mut kids: Vec<usize> = Vec::new();
                let mut k = tree[i].first_child;
                while k != NONE {
                    kids.push(k as usize);
                    k = tree[k as usize].next_sibling;
                }
                kids.sort_by_key(|&k| tree[k].diagram_var);
                if kids.len() == 1 {
                    stack.push(Task::Node(kids[0]));
                } else {
                    for &k in kids.iter().rev() {
                        stack.push(Task::End);
                        stack.push(Task::Node(k));
                        stack.push(Task::Begin);
                    }
                }
            }
        }
    }
    b.end_game();
}

struct Level {
    cur: usize,
    /// The last move's node and its parent.
    last_move: Option<(usize, usize)>,
    num: u32,
    num_before: u32,
    boards: Option<Box<Boards>>,
    before: Option<Box<Boards>>,
    vars: usize,
    units: usize,
    alt_depth: Option<u32>,
    /// Private properties for the first node of this variation.
    pending: PropList,
    pending_diagram: bool,
}

fn sgf_point(l: Loc, size: BoardSize) -> Option<Vec<u8>> {
    l.to_point(size).map(|p| p.to_sgf().to_vec())
}

fn event_tree(ev: &Event, first: bool, diags: &mut DiagnosticSink) -> Vec<SNode> {
    let n = ev.size();
    let size = BoardSize::new(u32::from(n)).expect("2..=19");
    let mut tree = vec![SNode::default()];
    let mut root_props = base_props();
    let root = &mut root_props;
    if let Some(s) = ev.board_size {
        push_text(root, "SZ", &s.to_string());
    }
    if let Some(t) = &ev.title {
        if !t.is_empty() {
            push_text(root, "GN", t);
        }
        let gn_back = (!t.is_empty()).then(|| text_of(&esc(t)));
        if gn_back.as_deref() != Some(t.as_str()) && (first || !t.is_empty()) {
            push_private(root, "ISE", std::slice::from_ref(t));
        }
    }
    let info = header_to_props(&ev.header);
    let mut info_props: PropList = Vec::new();
    for (id, v) in info {
        push_text(&mut info_props, id, &v);
    }
    let back = header_from_props(&info_props);
    root.extend(info_props);
    push_private(root, "ISI", &header_private(&ev.header, &back));
    push_private(root, "ISR", &ev.remarks);

    let start = Boards {
        pos: Position::new(size),
        nums: vec![0; size.points()],
    };
    let merge = match ev.items.first() {
        Some(Item::Setup(s)) => {
            ev.notes.is_empty()
                && s.remarks.is_empty()
                && s.black.iter().chain(&s.white).any(|l| l.is_on(n))
        }
        _ => false,
    };
    if !merge {
        put_notes(&mut root_props, &ev.notes, Some(&start), size, diags);
    }
    tree[0].set_props(&root_props);
    let mut levels = vec![Level {
        cur: 0,
        last_move: None,
        num: 0,
        num_before: 0,
        boards: Some(Box::new(start)),
        before: None,
        vars: 0,
        units: 0,
        alt_depth: None,
        pending: Vec::new(),
        pending_diagram: false,
    }];
    for (i, item) in ev.items.iter().enumerate() {
        match item {
            Item::BeginVar(marker) => {
                let depth_ok = levels.len() < MAX_REPLAY_DEPTH;
                let parent = levels.last_mut().expect("level 0 stays");
                let next = ev.items.get(i + 1);
                let mut pending: PropList = Vec::new();
                if let Some(m) = marker {
                    push_private(&mut pending, "ISV", std::slice::from_ref(m));
                }
                let mut diagram = false;
                let mut alt_depth = None;
                let (anchor, num, boards) = match (next, parent.last_move) {
                    (Some(Item::Move(_)), Some((_, mparent))) => {
                        let d = match parent.alt_depth {
                            Some(d) if parent.units == 1 => d + 1,
                            _ => 0,
                        };
                        if d > 0 {
                            push_private(&mut pending, "ISJ", &[d.to_string()]);
                        }
                        alt_depth = Some(d);
                        (mparent, parent.num_before, parent.before.clone())
                    }
                    (Some(Item::Diagram(_)), Some((mnode, _))) => {
                        diagram = true;
                        push_private(&mut pending, "ISX", &[parent.vars.to_string()]);
                        (mnode, parent.num, parent.boards.clone())
                    }
                    _ => (parent.cur, parent.num, parent.boards.clone()),
                };
                parent.vars += 1;
                levels.push(Level {
                    cur: anchor,
                    last_move: None,
                    num,
                    num_before: num,
                    boards: boards.filter(|_| depth_ok),
                    before: None,
                    vars: 0,
                    units: 0,
                    alt_depth,
                    pending,
                    pending_diagram: diagram,
                });
            }
            Item::EndVar => {
                if levels.len() > 1 {
                    levels.pop();
                }
            }
            Item::Setup(s) => {
                let lv = levels.last_mut().expect("level 0 stays");
                let node = if i == 0 && merge {
                    0
                } else {
                    new_node(&mut tree, lv)
                };
                let mut node_props = tree[node].props();
                let props = &mut node_props;
                let mut any = false;
                for (id, list, color) in [
                    ("AB", &s.black, Color::Black),
                    ("AW", &s.white, Color::White),
                ] {
                    let mut vals = Vec::new();
                    for &l in list {
                        match sgf_point(l, size) {
                            Some(v) => {
                                if let (Some(b), Some(p)) = (lv.boards.as_mut(), l.to_point(size)) {
                                    let _ = b.pos.setup(p, Some(color));
                                    b.nums[p.index(size)] = 0;
                                }
                                vals.push(v);
                            }
                            None => dropped(diags, s.line, &format!("SETUP {l} (off the board)")),
                        }
                    }
                    if !vals.is_empty() {
                        any = true;
                        props.push((id.to_string(), vals));
                    }
                }
                if !any {
                    props.push(("ISS".to_string(), vec![Vec::new()]));
                }
                push_private(props, "ISR", &s.remarks);
                put_notes(props, &s.notes, lv.boards.as_deref(), size, diags);
                tree[node].set_props(props);
                lv.last_move = None;
                lv.cur = node;
                lv.vars = 0;
                lv.units += 1;
            }
            Item::Diagram(d) => {
                let lv = levels.last_mut().expect("level 0 stays");
                let node = new_node(&mut tree, lv);
                let mut node_props = tree[node].props();
                let props = &mut node_props;
                push_private(props, "ISD", &[d.region.to_string()]);
                for (id, list) in [("AB", &d.black), ("AW", &d.white)] {
                    let mut vals = Vec::new();
                    for &l in list {
                        match sgf_point(l, size) {
                            Some(v) => vals.push(v),
                            None => dropped(diags, d.line, &format!("SETUP {l} (off the board)")),
                        }
                    }
                    if !vals.is_empty() {
                        props.push((id.to_string(), vals));
                    }
                }
                push_private(props, "ISR", &d.remarks);
                put_notes(props, &d.notes, lv.boards.as_deref(), size, diags);
                tree[node].set_props(props);
                lv.last_move = None;
                lv.cur = node;
                lv.vars = 0;
                lv.units += 1;
            }
            Item::Move(m) => {
                let lv = levels.last_mut().expect("level 0 stays");
                let parent = lv.cur;
                let node = new_node(&mut tree, lv);
                let mut node_props = tree[node].props();
                let props = &mut node_props;
                let id = if m.color == Color::Black { "B" } else { "W" };
                let mv = match m.point {
                    None => Some(GoMove::Pass),
                    Some(l) => l.to_point(size).map(GoMove::Play),
                };
                let value = match mv {
                    Some(mv) => mv.to_sgf(),
                    None => {
                        dropped(
                            diags,
                            m.line,
                            &format!(
                                "{id} {} location off the board (written as a pass)",
                                m.number
                            ),
                        );
                        Vec::new()
                    }
                };
                props.push((id.to_string(), vec![value]));
                if m.number != lv.num.wrapping_add(1) {
                    push_text(props, "MN", &m.number.to_string());
                }
                push_private(props, "ISR", &m.remarks);
                if let Some(b) = lv.boards.as_mut() {
                    let before = b.clone();
                    let mv = mv.unwrap_or(GoMove::Pass);
                    let _ = b.pos.play_forced(m.color, mv);
                    update_numbers(&before, b, mv.point(), m.number);
                    lv.before = Some(before);
                } else {
                    lv.before = None;
                }
                put_notes(props, &m.notes, lv.boards.as_deref(), size, diags);
                tree[node].set_props(props);
                lv.num_before = lv.num;
                lv.num = m.number;
                lv.last_move = Some((node, parent));
                lv.cur = node;
                lv.vars = 0;
                lv.units += 1;
            }
        }
    }
    tree
}

fn dropped(diags: &mut DiagnosticSink, line: SourceLine, what: &str) {
    diags.push(Diagnostic::new(
        Code::IshiDropped,
        line.0,
        0,
        format!("{what}: not converted"),
    ));
}

fn new_node(tree: &mut Vec<SNode>, lv: &mut Level) -> usize {
    let idx = tree.len();
    tree.push(SNode {
        props: pack(&std::mem::take(&mut lv.pending)),
        diagram_var: std::mem::take(&mut lv.pending_diagram),
        ..SNode::default()
    });
    let parent = &mut tree[lv.cur];
    let last = std::mem::replace(&mut parent.last_child, idx as u32);
    if last == NONE {
        parent.first_child = idx as u32;
    } else {
        tree[last as usize].next_sibling = idx as u32;
    }
    idx
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Label {
    Text(String),
    Sym(Symbol),
}

/// Applies the marks in order; the labels shown at the end, in the order they were set.
fn display(marks: &[Marking], boards: Option<&Boards>, size: BoardSize) -> Vec<(Point, Label)> {
    let resolve = |t: &Target| -> Vec<Point> {
        match *t {
            Target::Point(l) => l.to_point(size).into_iter().collect(),
            Target::Move(k) => boards.map_or_else(Vec::new, |b| {
                size.all_points()
                    .filter(|p| b.nums[p.index(size)] == k)
                    .collect()
            }),
            Target::Range(a, z) => boards.map_or_else(Vec::new, |b| {
                size.all_points()
                    .filter(|p| (a..=z).contains(&b.nums[p.index(size)]))
                    .collect()
            }),
        }
    };
    let number_at = |p: Point| boards.map_or(0, |b| b.nums[p.index(size)]);
    let mut state: Vec<(Point, Label)> = Vec::new();
    let set = |state: &mut Vec<(Point, Label)>, p: Point, l: Label| {
        state.retain(|(q, _)| *q != p);
        state.push((p, l));
    };
    for m in marks {
        match m {
            Marking::NumbersAll => {
                for p in size.all_points() {
                    let k = number_at(p);
                    if k > 0 {
                        set(&mut state, p, Label::Text(k.to_string()));
                    }
                }
            }
            Marking::Number(t) => {
                for p in resolve(t) {
                    let k = number_at(p);
                    if k > 0 {
                        set(&mut state, p, Label::Text(k.to_string()));
                    }
                }
            }
            Marking::Symbol(s, t) => {
                for p in resolve(t) {
                    set(&mut state, p, Label::Sym(*s));
                }
            }
            Marking::Text(s, t) => {
                for p in resolve(t) {
                    set(&mut state, p, Label::Text(s.clone()));
                }
            }
            Marking::UnmarkAll => state.clear(),
            Marking::Unmark(t) => {
                let ps = resolve(t);
                state.retain(|(q, _)| !ps.contains(q));
            }
        }
    }
    state
}

fn put_notes(
    props: &mut PropList,
    notes: &Notes,
    boards: Option<&Boards>,
    size: BoardSize,
    diags: &mut DiagnosticSink,
) {
    let _ = diags;
    if !notes.comments.is_empty() {
        let c = comment_text(&notes.comments);
        push_text(props, "C", &c);
        let plain = notes.comments.len() == 1
            && notes.comments[0].title.is_empty()
            && !notes.comments[0].lines.is_empty()
            && text_of(&esc(&c)) == c;
        if !plain {
            let vals: Vec<String> = notes
                .comments
                .iter()
                .map(|c| block_value(&c.title, &c.lines))
                .collect();
            push_private(props, "ISC", &vals);
        }
    }
    if !notes.marks.is_empty() {
        let shown = display(&notes.marks, boards, size);
        let mut mark_props: PropList = Vec::new();
        let lb: Vec<Vec<u8>> = shown
            .iter()
            .filter_map(|(p, l)| match l {
                Label::Text(t) => {
                    let mut v = p.to_sgf().to_vec();
                    v.push(b':');
                    v.extend(esc(t));
                    Some(v)
                }
                Label::Sym(_) => None,
            })
            .collect();
        if !lb.is_empty() {
            mark_props.push(("LB".into(), lb));
        }
        for (id, sym) in [
            ("TR", Symbol::Triangle),
            ("SQ", Symbol::Square),
            ("CR", Symbol::Diamond),
            ("MA", Symbol::Check),
        ] {
            let v: Vec<Vec<u8>> = shown
                .iter()
                .filter(|(_, l)| *l == Label::Sym(sym))
                .map(|(p, _)| p.to_sgf().to_vec())
                .collect();
            if !v.is_empty() {
                mark_props.push((id.into(), v));
            }
        }
        let (back, _) = marks_from_props(&mark_props, size.get());
        props.extend(mark_props);
        if back != notes.marks {
            let mut lines = Vec::new();
            let mut i = 0;
            while i < notes.marks.len() {
                let unmark = notes.marks[i].is_unmark();
                let mut j = i;
                while j < notes.marks.len() && notes.marks[j].is_unmark() == unmark {
                    j += 1;
                }
                let items: Vec<String> = notes.marks[i..j].iter().map(|m| m.to_string()).collect();
                lines.push(format!(
                    "{} {}",
                    if unmark { "UNMARK" } else { "MARK" },
                    items.join(" ")
                ));
                i = j;
            }
            push_private(props, "ISM", &lines);
        }
    }
    let join = |ts: &[Target]| {
        ts.iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !notes.prisoners.is_empty() {
        push_private(props, "ISP", &[join(&notes.prisoners)]);
    }
    if !notes.hides.is_empty() {
        push_private(props, "ISH", &[join(&notes.hides)]);
    }
    let users: Vec<String> = notes
        .users
        .iter()
        .map(|u| block_value(&u.data, &u.lines))
        .collect();
    push_private(props, "ISU", &users);
}
