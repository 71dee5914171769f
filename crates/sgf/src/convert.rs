//! Checking a collection against the standard, and converting it to a clean
//! FF\[4\] collection with the repairs SGFC makes.
//!
//! [`check`] and [`to_ff4`] share one pass, so what `check` reports is exactly
//! what `to_ff4` repairs. The rules, in the order they apply:
//!
//! **Identifiers.** FF\[1\]/FF\[3\] identifiers keep only their upper-case
//! letters (done while reading; S016 when an FF\[4\] file has lower-case
//! letters). Unknown identifiers are kept (S035; S031 beyond two letters).
//!
//! **Old properties.** `L` becomes `LB` with the labels `a`, `b`, `c`, … in
//! order (as SGFC writes them); `M` becomes `MA`; `KI` (integer komi, twice the
//! komi) becomes `KM` with half its value (S059); the other FF\[1\]/FF\[3\]
//! properties FF\[4\] dropped (BS, WS, CH, EL, EX, ID, LT, OM, OP, OV, RG, SC,
//! SE, SI, TC, DG) are kept as they are (S040).
//!
//! **Values.** A single-valued property keeps its first value (S013).
//! Values are checked against their type; a value that can be corrected is
//! (S015: white space inside points, `34.` as a real, `5 1/2` as `5.5`,
//! a colour word, a number followed by text, `KO[x]` as `KO[]`, an empty
//! Double as `1`), one that cannot is deleted (S014), an empty value that the
//! type does not allow is deleted (S017), and a property left without values
//! is deleted. For Go, points must lie on the board (S108). A pass written
//! `tt` on a board of at most 19x19 becomes `[]`; `[]` as a pass in an old file
//! is accepted (S065).
//!
//! **Nodes.** A property repeated in a node is merged (lists; texts joined by a
//! blank line) or its later copies deleted (S028). A node with a black and a
//! white move, or with setup and a move, is split in two (S037, S030: setup, or
//! the black move, stays in the first node with everything else). Move
//! annotations without a move are deleted (S043); `BM` with `TE` becomes `DO`
//! or `IT` after whichever came first (S042); contradicting position
//! annotations (GB, GW, DM, UC) keep the first (S041); a point marked by more
//! than one of CR, MA, SQ, TR, SL keeps its first mark (S038). Root properties
//! outside the root are deleted (S032). Game-info properties in a second
//! game-info node on one path are reported (S044) but kept, unlike SGFC,
//! because deleting them loses data.
//!
//! **Root.** `FF[4]`, `CA[UTF-8]`, `GM` (added as `GM[1]` when absent) and,
//! for Go, `SZ` (added as `SZ[19]`) come first, then the root's other
//! properties in their order. `SZ[n:n]` becomes `SZ[n]` (S047). FF above 4 is
//! reported (S046) and read as FF\[4\]. A collection mixing file formats or
//! game types is reported (S045, S053).
//!
//! **Game info** (DT, RE) with a format FF\[4\] does not allow is reported and
//! kept (S033), as SGFC does for what it cannot correct.

use crate::diag::{Code, Diagnostic, DiagnosticSink, LineIndex, Severity};
use crate::props::{self, Arity, Context, ValueType};
use crate::tree::{Builder, Collection, GameTree, Node, WalkEvent};
use crate::value::Value;
use std::borrow::Cow;

/// A converted collection and what was repaired.
#[derive(Debug, Clone)]
pub struct Converted {
    /// The FF\[4\] collection.
    pub collection: Collection,
    /// What was found and repaired, with line and column in the source.
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks a collection: every problem [`to_ff4`] would repair, and what it
/// would keep, with line and column in the collection's text.
pub fn check(coll: &Collection) -> Vec<Diagnostic> {
    let mut diags = DiagnosticSink::new();
    run(coll, None, &mut diags);
    diags.finish()
}

/// Converts a collection to FF\[4\] with the repairs listed in the module docs.
pub fn to_ff4(coll: &Collection) -> Converted {
    let mut diags = DiagnosticSink::new();
    let mut b = Builder::new();
    run(coll, Some(&mut b), &mut diags);
    Converted {
        collection: b.finish(),
        diagnostics: diags.finish(),
    }
}

fn run(coll: &Collection, mut out: Option<&mut Builder>, diags: &mut DiagnosticSink) {
    let start = diags.len();
    let renamed: Vec<(usize, usize)> = coll
        .renamed_ids()
        .map(|(n, off)| (n.index(), off))
        .collect();
    let mut formats: Vec<(u32, usize)> = Vec::new();
    let mut games: Vec<(i64, usize)> = Vec::new();
    for game in coll.games() {
        let g = GameCtx::new(&game);
        let at = game.root().offset();
        if !formats.iter().any(|f| f.0 == g.ff) {
            formats.push((g.ff, at));
        }
        if !games.iter().any(|f| f.0 == g.gm) {
            games.push((g.gm, at));
        }
        if !g.is_go() {
            diags.push(Diagnostic::new(
                Code::NotGo,
                at,
                format!(
                    "game {} is GM[{}], not Go: points and moves are not checked",
                    game.index() + 1,
                    g.gm
                ),
            ));
        }
        if g.ff >= 4 {
            // `renamed` is in node order: this game's entries are one run.
            let from = renamed.partition_point(|r| r.0 < g.first);
            for &(_, off) in renamed[from..].iter().take_while(|r| r.0 < g.end) {
                diags.push(Diagnostic::new(
                    Code::LowercaseId,
                    off,
                    "lower-case letters in a property identifier (only the upper-case ones are kept)",
                ));
            }
        }
        convert_game(&game, &g, out.as_deref_mut(), diags);
    }
    if formats.len() > 1 {
        diags.push(Diagnostic::new(
            Code::MixedFileFormats,
            formats[1].1,
            "different file formats in one collection",
        ));
    }
    if games.len() > 1 {
        diags.push(Diagnostic::new(
            Code::MixedGameTypes,
            games[1].1,
            "different game types in one collection",
        ));
    }
    if diags.len() > start {
        LineIndex::new(coll.text()).locate(coll.text(), &mut diags.as_mut_slice()[start..]);
    }
}

struct GameCtx {
    ff: u32,
    gm: i64,
    cols: u32,
    rows: u32,
    first: usize,
    end: usize,
}

impl GameCtx {
    fn new(game: &GameTree<'_>) -> Self {
        let root = game.root();
        // GM and SZ as convert leaves them: illegal values are deleted (S018)
        // and of the rest the first is kept (S028); no valid GM means GM[1].
        let valid = |id: &'static str| {
            root.properties()
                .filter(move |p| p.id() == id)
                .filter_map(|p| p.value())
        };
        let gm = valid("GM")
            .filter_map(|v| v.number())
            .find(|n| (1..=1000).contains(n))
            .unwrap_or(1);
        let size = valid("SZ")
            .find_map(|v| size_parts(&v))
            .map(|n| corrected_size(&n, gm == 1));
        let (cols, rows) = match size.as_deref() {
            Some([n]) => (*n as u32, *n as u32),
            Some([c, r]) => (*c as u32, *r as u32),
            _ => (19, 19),
        };
        GameCtx {
            ff: game.file_format(),
            gm,
            cols,
            rows,
            first: root.index(),
            end: root.index() + game.node_count(),
        }
    }
    fn is_go(&self) -> bool {
        self.gm == 1
    }
}

/// A property on its way out: identifier and raw values.
#[derive(Debug, Clone)]
struct Item<'c> {
    id: Cow<'c, str>,
    values: Vec<Cow<'c, [u8]>>,
    offset: usize,
}

impl Item<'_> {
    fn info(&self) -> Option<&'static props::PropInfo> {
        props::info(self.id.as_bytes())
    }
}

fn convert_game(
    game: &GameTree<'_>,
    g: &GameCtx,
    mut out: Option<&mut Builder>,
    diags: &mut DiagnosticSink,
) {
    if let Some(b) = out.as_deref_mut() {
        b.begin_game();
    }
    // Whether a game-info node lies on the path to each node (by index in the game).
    let mut info_on_path = vec![false; g.end - g.first];
    let _ = game.walk(|ev| -> Result<(), ()> {
        match ev {
            WalkEvent::BeginVariation => {
                if let Some(b) = out.as_deref_mut() {
                    b.begin_variation();
                }
            }
            WalkEvent::EndVariation => {
                if let Some(b) = out.as_deref_mut() {
                    b.end_variation();
                }
            }
            WalkEvent::Node(node) => {
                let inherited = node
                    .parent()
                    .is_some_and(|p| info_on_path[p.index() - g.first]);
                let nodes = convert_node(&node, g, inherited, diags);
                let has_info = nodes
                    .iter()
                    .flatten()
                    .any(|i| i.info().is_some_and(|p| p.context == Context::GameInfo));
                info_on_path[node.index() - g.first] = inherited || has_info;
                if let Some(b) = out.as_deref_mut() {
                    for items in nodes {
                        b.begin_node();
                        for it in items {
                            b.add_property(&it.id, it.values.iter());
                        }
                    }
                }
            }
        }
        Ok(())
    });
    if let Some(b) = out {
        b.end_game();
    }
}

/// Checks and repairs one node; returns one node's properties, or two when the node is split.
fn convert_node<'c>(
    node: &Node<'c>,
    g: &GameCtx,
    info_above: bool,
    diags: &mut DiagnosticSink,
) -> Vec<Vec<Item<'c>>> {
    let coll = node.collection();
    let is_root = node.parent().is_none();
    let mut items: Vec<Item<'c>> = Vec::with_capacity(node.properties().len());
    for p in node.properties() {
        let offset = coll.prop_offset(&p, node);
        let mut item = Item {
            id: Cow::Borrowed(p.id()),
            values: p.values().map(|v| Cow::Borrowed(v.raw())).collect(),
            offset,
        };
        let id = p.id();
        let Some(info) = props::info(id.as_bytes()) else {
            if id.len() > 2 {
                diags.push(Diagnostic::new(
                    Code::LongId,
                    offset,
                    format!("property identifier {id} has more than two letters"),
                ));
            }
            diags.push(Diagnostic::new(
                Code::UnknownProperty,
                offset,
                format!("unknown property {id} (kept)"),
            ));
            items.push(item);
            continue;
        };
        if !info.ff4 {
            match id {
                "L" => {
                    diags.push(Diagnostic::new(
                        Code::NotInFf4,
                        offset,
                        "property L is not defined in FF[4] (converted to LB)",
                    ));
                    item.id = Cow::Borrowed("LB");
                    item.values = item
                        .values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| {
                            let mut nv = v.to_vec();
                            nv.push(b':');
                            nv.extend(label(i).bytes());
                            Cow::Owned(nv)
                        })
                        .collect();
                }
                "M" => {
                    diags.push(Diagnostic::new(
                        Code::NotInFf4,
                        offset,
                        "property M is not defined in FF[4] (converted to MA)",
                    ));
                    item.id = Cow::Borrowed("MA");
                }
                "KI" => {
                    diags.push(Diagnostic::new(
                        Code::ObsoleteKi,
                        offset,
                        "obsolete property KI (converted to KM with half its value)",
                    ));
                    match item
                        .values
                        .first()
                        .and_then(|v| Value::from_raw(v).number())
                    {
                        Some(n) => {
                            item.id = Cow::Borrowed("KM");
                            item.values =
                                vec![Cow::Owned(format_real(n as f64 / 2.0).into_bytes())];
                        }
                        None => {
                            diags.push(Diagnostic::new(
                                Code::IllegalValue,
                                offset,
                                "illegal KI value (deleted)",
                            ));
                            continue;
                        }
                    }
                }
                _ => diags.push(Diagnostic::new(
                    Code::NotInFf4,
                    offset,
                    format!("property {id} is not defined in FF[4] (kept)"),
                )),
            }
        }
        if !is_root && info.context == Context::Root {
            diags.push(Diagnostic::new(
                Code::RootOutsideRoot,
                offset,
                format!("root property {id} outside the root node (deleted)"),
            ));
            continue;
        }
        if check_values(&mut item, g, diags) {
            items.push(item);
        }
    }
    node_rules(&mut items, info_above, diags);
    if is_root {
        root_rules(&mut items, g, node.offset(), diags);
    }
    split(items, node.offset(), diags)
}

/// Labels for FF[1]/FF[3] `L`: a..z, then aa, ab, … (SGFC writes lower case).
fn label(i: usize) -> String {
    if i < 26 {
        ((b'a' + i as u8) as char).to_string()
    } else {
        format!("{}{}", label(i / 26 - 1), label(i % 26))
    }
}

fn format_real(x: f64) -> String {
    let s = format!("{x}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Checks and corrects the values of one known property; false when it is to be deleted.
fn check_values(item: &mut Item<'_>, g: &GameCtx, diags: &mut DiagnosticSink) -> bool {
    let Some(info) = item.info() else { return true };
    let id = info.id;
    let off = item.offset;
    if info.arity == Arity::One && item.values.len() > 1 {
        diags.push(Diagnostic::new(
            Code::TooManyValues,
            off,
            format!("property {id} takes one value (other values deleted)"),
        ));
        item.values.truncate(1);
    }
    if info.go_only && !g.is_go() {
        return true;
    }
    if !g.is_go()
        && matches!(
            info.value,
            ValueType::Point | ValueType::Move | ValueType::PointPair | ValueType::PointText
        )
    {
        // Points of other games have other syntaxes: kept as they are.
        return true;
    }
    if info.arity == Arity::EList && item.values.iter().any(|v| v.is_empty()) {
        if item.values.len() > 1 {
            diags.push(Diagnostic::new(
                Code::ValuesAfterEmpty,
                off,
                format!("{id}: values beside the empty value [] (deleted)"),
            ));
        }
        item.values = vec![Cow::Borrowed(&b""[..])];
        return true;
    }
    if id == "SZ" || id == "GM" {
        return check_root_value(item, g, diags);
    }
    let mut kept = Vec::with_capacity(item.values.len());
    for raw in std::mem::take(&mut item.values) {
        let v = Value::from_raw(&raw);
        let verdict = judge(info.value, id, &v, g);
        match verdict {
            Verdict::Ok => kept.push(raw),
            Verdict::Pass => {
                if raw.is_empty() && g.ff < 4 {
                    diags.push(Diagnostic::new(
                        Code::EmptyPassInOldFormat,
                        off,
                        format!(
                            "FF[4]-style pass {id}[] in an FF[{}] file (read as a pass)",
                            g.ff
                        ),
                    ));
                }
                kept.push(Cow::Borrowed(&b""[..]));
            }
            Verdict::Fix(new) => {
                let composed = matches!(info.value, ValueType::PointPair | ValueType::PointText)
                    || new.contains(&b':');
                diags.push(Diagnostic::new(
                    if composed {
                        Code::CorrectableComposed
                    } else {
                        Code::CorrectableValue
                    },
                    off,
                    format!(
                        "illegal {id} value [{}] corrected to [{}]",
                        String::from_utf8_lossy(&raw),
                        String::from_utf8_lossy(&new)
                    ),
                ));
                kept.push(Cow::Owned(new));
            }
            Verdict::Empty => {
                let texty = matches!(info.value, ValueType::Text | ValueType::SimpleText);
                let d =
                    Diagnostic::new(Code::EmptyValue, off, format!("empty {id} value (deleted)"));
                diags.push(if texty {
                    d.with_severity(Severity::Warning)
                } else {
                    d
                });
            }
            Verdict::OffBoard => diags.push(Diagnostic::new(
                Code::OffBoard,
                off,
                format!(
                    "{id}[{}] is outside the {}x{} board (deleted)",
                    String::from_utf8_lossy(&raw),
                    g.cols,
                    g.rows
                ),
            )),
            Verdict::NotComposed => diags.push(Diagnostic::new(
                Code::ExpectsComposed,
                off,
                format!(
                    "property {id} expects a composed value a:b (value [{}] deleted)",
                    String::from_utf8_lossy(&raw)
                ),
            )),
            Verdict::Bad => diags.push(Diagnostic::new(
                Code::IllegalValue,
                off,
                format!(
                    "illegal {id} value [{}] (deleted)",
                    String::from_utf8_lossy(&raw)
                ),
            )),
        }
    }
    item.values = kept;
    if matches!(id, "DT" | "RE") {
        if let Some(v) = item.values.first() {
            let text = Value::from_raw(v).simple_text();
            let ok = if id == "DT" {
                valid_date(&text)
            } else {
                valid_result(&text)
            };
            if !ok {
                diags.push(Diagnostic::new(
                    Code::GameInfoFormat,
                    off,
                    format!("game info {id} has a format FF[4] does not define (kept): [{text}]"),
                ));
            }
        }
    }
    !item.values.is_empty()
}

/// The numbers of an SZ value (`n` or `c:r`), each at least 1.
fn size_parts(v: &Value<'_>) -> Option<Vec<i64>> {
    let nums = match v.compose() {
        None => vec![v.number()?],
        Some((a, b)) => vec![a.number()?, b.number()?],
    };
    nums.iter().all(|&x| x >= 1).then_some(nums)
}

/// SZ as convert writes it: each side at most 52, `n:n` as `n`, a Go board at least 2.
fn corrected_size(nums: &[i64], is_go: bool) -> Vec<i64> {
    let clamped: Vec<i64> = nums.iter().map(|&n| n.min(52)).collect();
    let mut fixed = if clamped.len() == 2 && clamped[0] == clamped[1] {
        vec![clamped[0]]
    } else {
        clamped
    };
    if is_go && fixed.len() == 1 && fixed[0] < 2 {
        fixed[0] = 2;
    }
    fixed
}

/// GM and SZ: an illegal value is deleted (GM\[1\] and SZ\[19\] are then
/// assumed, S018), a size over 52 is corrected to 52 (S050), `SZ[n:n]` to `SZ[n]` (S047).
fn check_root_value(item: &mut Item<'_>, g: &GameCtx, diags: &mut DiagnosticSink) -> bool {
    let off = item.offset;
    let raw = item.values.first().cloned().unwrap_or_default();
    let v = Value::from_raw(&raw);
    let shown = String::from_utf8_lossy(&raw).into_owned();
    if item.id == "GM" {
        if v.number().is_some_and(|n| (1..=1000).contains(&n)) {
            return true;
        }
        diags.push(Diagnostic::new(
            Code::IllegalRootValue,
            off,
            format!("illegal GM value [{shown}] (deleted: GM[1] assumed)"),
        ));
        return false;
    }
    let Some(nums) = size_parts(&v) else {
        diags.push(Diagnostic::new(
            Code::IllegalRootValue,
            off,
            format!("illegal SZ value [{shown}] (deleted: SZ[19] assumed)"),
        ));
        return false;
    };
    let clamped: Vec<i64> = nums.iter().map(|&n| n.min(52)).collect();
    let fixed = corrected_size(&nums, g.is_go());
    if clamped != nums {
        diags.push(Diagnostic::new(
            Code::BoardSize,
            off,
            format!("board size [{shown}] too big (corrected to at most 52)"),
        ));
    }
    if nums.len() == 2 && clamped[0] == clamped[1] {
        diags.push(Diagnostic::new(
            Code::SquareAsRectangle,
            off,
            format!("square board written as SZ[{shown}] (corrected)"),
        ));
    }
    if g.is_go() && fixed.len() == 1 && clamped[0] < 2 {
        diags.push(Diagnostic::new(
            Code::BoardSize,
            off,
            format!("board size [{shown}] too small for Go (corrected to 2)"),
        ));
    }
    let text = fixed
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(":");
    item.values = vec![Cow::Owned(text.into_bytes())];
    true
}

enum Verdict {
    Ok,
    Pass,
    Fix(Vec<u8>),
    Empty,
    OffBoard,
    NotComposed,
    Bad,
}

fn judge(t: ValueType, id: &str, v: &Value<'_>, g: &GameCtx) -> Verdict {
    let raw = v.raw();
    let on_board = |p: crate::SgfPoint| (p.col as u32) < g.cols && (p.row as u32) < g.rows;
    let point = |v: &Value<'_>| -> Verdict {
        match v.point() {
            Some(p) if on_board(p) => Verdict::Ok,
            Some(_) => Verdict::OffBoard,
            None => {
                let squeezed: Vec<u8> = v
                    .raw()
                    .iter()
                    .copied()
                    .filter(|b| !b.is_ascii_whitespace())
                    .collect();
                match Value::from_raw(&squeezed).point() {
                    Some(p) if on_board(p) && squeezed.len() != v.raw().len() => {
                        Verdict::Fix(squeezed)
                    }
                    _ => Verdict::Bad,
                }
            }
        }
    };
    match t {
        ValueType::None => {
            if raw.is_empty() {
                Verdict::Ok
            } else {
                Verdict::Fix(Vec::new())
            }
        }
        ValueType::Number => match v.number() {
            Some(_) => Verdict::Ok,
            None if raw.is_empty() => Verdict::Empty,
            None => leading_number(raw).map_or(Verdict::Bad, Verdict::Fix),
        },
        ValueType::Real => match v.real() {
            Some(_) if raw.last() == Some(&b'.') => Verdict::Fix(raw[..raw.len() - 1].to_vec()),
            Some(_) => Verdict::Ok,
            None if raw.is_empty() => Verdict::Empty,
            None => fraction(raw).map_or(Verdict::Bad, Verdict::Fix),
        },
        ValueType::Double | ValueType::Triple => match v.double() {
            Some(_) => Verdict::Ok,
            None if raw.is_empty() => Verdict::Fix(b"1".to_vec()),
            None => match raw.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'1') => Verdict::Fix(b"1".to_vec()),
                Some(b'2') => Verdict::Fix(b"2".to_vec()),
                _ => Verdict::Bad,
            },
        },
        ValueType::Color => match raw {
            b"B" | b"W" => Verdict::Ok,
            _ => match raw
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .map(u8::to_ascii_uppercase)
            {
                Some(b'B') => Verdict::Fix(b"B".to_vec()),
                Some(b'W') => Verdict::Fix(b"W".to_vec()),
                _ => Verdict::Bad,
            },
        },
        ValueType::SimpleText | ValueType::Text | ValueType::Unknown => {
            if raw.is_empty() && t != ValueType::Unknown {
                Verdict::Empty
            } else {
                Verdict::Ok
            }
        }
        ValueType::Move => {
            if raw.is_empty() {
                return Verdict::Pass;
            }
            if raw == b"tt" && g.cols <= 19 && g.rows <= 19 {
                return Verdict::Pass;
            }
            point(v)
        }
        ValueType::Point => {
            if raw.is_empty() {
                return Verdict::Empty;
            }
            match v.compose() {
                None => point(v),
                Some((a, b)) => match (point(&a), point(&b)) {
                    (Verdict::Ok, Verdict::Ok) => Verdict::Ok,
                    (Verdict::OffBoard, _) | (_, Verdict::OffBoard) => Verdict::OffBoard,
                    _ => squeeze_compose(raw, |x| Value::from_raw(x).point().is_some_and(on_board)),
                },
            }
        }
        ValueType::PointPair => match v.compose() {
            None if raw.is_empty() => Verdict::Empty,
            None => Verdict::NotComposed,
            Some((a, b)) => match (point(&a), point(&b)) {
                // FF[4]: an arrow or line from a point to itself is illegal.
                (Verdict::Ok, Verdict::Ok) if a.raw() == b.raw() => Verdict::Bad,
                (Verdict::Ok, Verdict::Ok) => Verdict::Ok,
                (Verdict::OffBoard, _) | (_, Verdict::OffBoard) => Verdict::OffBoard,
                _ => {
                    match squeeze_compose(raw, |x| Value::from_raw(x).point().is_some_and(on_board))
                    {
                        Verdict::Fix(f) if f[..f.len() / 2] == f[f.len() / 2 + 1..] => Verdict::Bad,
                        other => other,
                    }
                }
            },
        },
        ValueType::PointText => match v.compose() {
            None if raw.is_empty() => Verdict::Empty,
            None => Verdict::NotComposed,
            Some((a, _)) => match point(&a) {
                Verdict::Ok => Verdict::Ok,
                Verdict::Fix(p) => {
                    let mut n = p;
                    n.extend_from_slice(&raw[a.raw().len()..]);
                    Verdict::Fix(n)
                }
                other => other,
            },
        },
        ValueType::TextPair => {
            if v.compose().is_some() || !raw.is_empty() {
                Verdict::Ok
            } else {
                Verdict::Empty
            }
        }
        ValueType::Size => match v.size() {
            Some((c, r)) if c == r && v.compose().is_some() => {
                Verdict::Fix(c.to_string().into_bytes())
            }
            Some(_) => Verdict::Ok,
            None => {
                let _ = id;
                Verdict::Bad
            }
        },
        ValueType::Figure => {
            if raw.is_empty() || v.compose().is_some_and(|(n, _)| n.number().is_some()) {
                Verdict::Ok
            } else {
                Verdict::Bad
            }
        }
    }
}

/// `a a: c r` → `aa:cr` when both halves are then valid.
fn squeeze_compose(raw: &[u8], ok: impl Fn(&[u8]) -> bool) -> Verdict {
    let squeezed: Vec<u8> = raw
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    match Value::from_raw(&squeezed).compose() {
        Some((a, b)) if ok(a.raw()) && ok(b.raw()) => Verdict::Fix(squeezed.clone()),
        _ => Verdict::Bad,
    }
}

/// `1 kk` → `1`.
fn leading_number(raw: &[u8]) -> Option<Vec<u8>> {
    let s = std::str::from_utf8(raw).ok()?.trim_start();
    let sign = usize::from(s.starts_with(['+', '-']));
    let digits = s[sign..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| {
        s[..sign + digits]
            .trim_start_matches('+')
            .as_bytes()
            .to_vec()
    })
}

/// `5 1/2` → `5.5`, `1/2` → `0.5`, `34.` handled by the caller.
fn fraction(raw: &[u8]) -> Option<Vec<u8>> {
    let s = std::str::from_utf8(raw).ok()?.trim();
    let (whole, frac) = match s.split_once(' ') {
        Some((w, f)) => (w.trim(), f.trim()),
        None => ("0", s),
    };
    let (n, d) = frac.split_once('/')?;
    let (w, n, d): (i64, i64, i64) = (
        whole.parse().ok()?,
        n.trim().parse().ok()?,
        d.trim().parse().ok()?,
    );
    if d == 0 || n < 0 || d > 1000 {
        return None;
    }
    let x = w.abs() as f64 + n as f64 / d as f64;
    let x = if whole.starts_with('-') { -x } else { x };
    Some(format_real(x).into_bytes())
}

/// FF\[4\] DT: comma-separated `YYYY[-MM[-DD]]`, later entries may shorten to `MM-DD` or `DD`.
fn valid_date(s: &str) -> bool {
    let mut have_month = false;
    let mut have_day = false;
    let mut first = true;
    for part in s.split(',') {
        let f: Vec<&str> = part.trim().split('-').collect();
        let num = |x: &str, n: usize| x.len() == n && x.bytes().all(|b| b.is_ascii_digit());
        let ok = match f.as_slice() {
            [y] if num(y, 4) => {
                have_month = false;
                have_day = false;
                true
            }
            [y, m] if num(y, 4) && num(m, 2) => {
                have_month = true;
                have_day = false;
                true
            }
            [y, m, d] if num(y, 4) && num(m, 2) && num(d, 2) => {
                have_month = true;
                have_day = true;
                true
            }
            [m, d] if !first && num(m, 2) && num(d, 2) && have_month => {
                have_day = true;
                true
            }
            [x] if !first && num(x, 2) && (have_month || have_day) => true,
            _ => false,
        };
        if !ok {
            return false;
        }
        first = false;
    }
    true
}

/// FF\[4\] RE: `0`, `Draw`, `Void`, `?`, or `B+`/`W+` followed by nothing, a
/// score, `R`/`Resign`, `T`/`Time` or `F`/`Forfeit`.
fn valid_result(s: &str) -> bool {
    match s {
        "0" | "Draw" | "Void" | "?" => true,
        _ => {
            let Some(rest) = s.strip_prefix("B+").or_else(|| s.strip_prefix("W+")) else {
                return false;
            };
            matches!(rest, "" | "R" | "Resign" | "T" | "Time" | "F" | "Forfeit")
                || Value::from_raw(rest.as_bytes()).real().is_some()
        }
    }
}

fn context(it: &Item<'_>) -> Option<Context> {
    it.info().map(|p| p.context)
}

/// Rules within a node: duplicates, annotations, markup.
fn node_rules(items: &mut Vec<Item<'_>>, info_above: bool, diags: &mut DiagnosticSink) {
    // Duplicates: merge lists and texts, drop later copies of single values.
    // Linear in the number of properties, however many a hostile node has.
    let big = items.len() > 16;
    let mut first: std::collections::HashMap<Cow<'_, str>, usize> =
        std::collections::HashMap::new();
    let mut out: Vec<Item<'_>> = Vec::with_capacity(items.len());
    for dup in items.drain(..) {
        let j = if big {
            first.get(&dup.id).copied()
        } else {
            out.iter().position(|x| x.id == dup.id)
        };
        let Some(j) = j else {
            if big {
                first.insert(dup.id.clone(), out.len());
            }
            out.push(dup);
            continue;
        };
        let info = dup.info();
        let id = &dup.id;
        match info.map(|p| (p.arity, p.value)) {
            Some((Arity::List | Arity::EList, _)) | None => {
                diags.push(Diagnostic::new(
                    Code::DuplicateProperty,
                    dup.offset,
                    format!("property {id} repeated in the node (values merged)"),
                ));
                out[j].values.extend(dup.values);
                if info.is_some_and(|p| p.arity == Arity::EList) {
                    // `[]` is the whole empty list: beside points it says nothing,
                    // and twice it is once.
                    let vals = &mut out[j].values;
                    if vals.iter().any(|v| !v.is_empty()) {
                        vals.retain(|v| !v.is_empty());
                    } else {
                        vals.truncate(1);
                    }
                }
            }
            Some((_, ValueType::Text | ValueType::SimpleText)) => {
                diags.push(Diagnostic::new(
                    Code::DuplicateProperty,
                    dup.offset,
                    format!("property {id} repeated in the node (texts joined)"),
                ));
                if let (Some(a), Some(b)) = (out[j].values.first_mut(), dup.values.first()) {
                    let sep: &[u8] = if info.is_some_and(|p| p.value == ValueType::Text) {
                        b"\n\n"
                    } else {
                        b" "
                    };
                    let a = a.to_mut();
                    a.extend_from_slice(sep);
                    a.extend_from_slice(b);
                }
            }
            _ => {
                let same = out[j].values == dup.values;
                let d = Diagnostic::new(
                    Code::DuplicateProperty,
                    dup.offset,
                    format!("property {id} repeated in the node (later copy deleted)"),
                );
                diags.push(if same {
                    d.with_severity(Severity::Warning)
                } else {
                    d
                });
            }
        }
    }
    *items = out;
    let has = |items: &Vec<Item<'_>>, id: &str| items.iter().position(|x| x.id == id);
    let has_move = has(items, "B").is_some() || has(items, "W").is_some();
    // Move annotations need a move.
    if !has_move {
        items.retain(|it| {
            let keep = context(it) != Some(Context::MoveAnnotation);
            if !keep {
                diags.push(Diagnostic::new(
                    Code::MoveAnnotationWithoutMove,
                    it.offset,
                    format!(
                        "move annotation {} without a move in the node (deleted)",
                        it.id
                    ),
                ));
            }
            keep
        });
    }
    if let (Some(bm), Some(te)) = (has(items, "BM"), has(items, "TE")) {
        let (first, second) = (bm.min(te), bm.max(te));
        let to = if bm < te { "DO" } else { "IT" };
        diags.push(Diagnostic::new(
            Code::BmTeCombination,
            items[second].offset,
            format!("BM and TE in one node (converted to {to})"),
        ));
        items[first] = Item {
            id: Cow::Borrowed(to),
            values: vec![Cow::Borrowed(&b""[..])],
            offset: items[first].offset,
        };
        items.remove(second);
    }
    // Position annotations exclude each other; the first stays.
    let mut seen_pos = false;
    items.retain(|it| {
        if matches!(&*it.id, "GB" | "GW" | "DM" | "UC") {
            if seen_pos {
                diags.push(Diagnostic::new(
                    Code::AnnotationConflict,
                    it.offset,
                    format!("annotation {} contradicts an earlier one (deleted)", it.id),
                ));
                return false;
            }
            seen_pos = true;
        }
        true
    });
    // One markup per point.
    let mut marked: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    for it in items.iter_mut() {
        if !matches!(&*it.id, "CR" | "MA" | "SQ" | "TR" | "SL") {
            continue;
        }
        let mut dups = Vec::new();
        it.values.retain(|v| {
            // Rectangles are kept whole; single points are compared.
            if v.contains(&b':') {
                return true;
            }
            if !marked.insert(v.to_vec()) {
                dups.push(String::from_utf8_lossy(v).into_owned());
                return false;
            }
            true
        });
        if !dups.is_empty() {
            diags.push(Diagnostic::new(
                Code::MarkupNotUnique,
                it.offset,
                format!(
                    "point(s) [{}]{} already marked in the node (repeat deleted from {})",
                    dups[..dups.len().min(5)].join("]["),
                    if dups.len() > 5 {
                        format!(" and {} more", dups.len() - 5)
                    } else {
                        String::new()
                    },
                    it.id
                ),
            ));
        }
    }
    items.retain(|it| !it.values.is_empty());
    if info_above {
        for it in items.iter() {
            if context(it) == Some(Context::GameInfo) {
                diags.push(Diagnostic::new(
                    Code::GameInfoOutside,
                    it.offset,
                    format!(
                        "game info {} in a second game-info node on this path (kept)",
                        it.id
                    ),
                ));
            }
        }
    }
}

fn take<'c>(items: &mut Vec<Item<'c>>, id: &str) -> Option<Item<'c>> {
    items
        .iter()
        .position(|x| x.id == id)
        .map(|i| items.remove(i))
}

fn root_rules(items: &mut Vec<Item<'_>>, g: &GameCtx, offset: usize, diags: &mut DiagnosticSink) {
    if g.ff > 4 {
        diags.push(Diagnostic::new(
            Code::UnknownFileFormat,
            offset,
            format!("unknown file format FF[{}] (read as FF[4])", g.ff),
        ));
    }
    take(items, "FF");
    take(items, "CA");
    let gm = take(items, "GM");
    let sz = take(items, "SZ");
    let mut head: Vec<Item<'_>> = vec![
        Item {
            id: Cow::Borrowed("FF"),
            values: vec![Cow::Borrowed(&b"4"[..])],
            offset,
        },
        Item {
            id: Cow::Borrowed("CA"),
            values: vec![Cow::Borrowed(&b"UTF-8"[..])],
            offset,
        },
    ];
    head.push(gm.unwrap_or(Item {
        id: Cow::Borrowed("GM"),
        values: vec![Cow::Borrowed(&b"1"[..])],
        offset,
    }));
    match sz {
        Some(s) => head.push(s),
        None if g.is_go() => head.push(Item {
            id: Cow::Borrowed("SZ"),
            values: vec![Cow::Borrowed(&b"19"[..])],
            offset,
        }),
        None => {}
    }
    head.append(items);
    *items = head;
}

/// Splits a node with B and W, or with setup and a move, in two.
fn split<'c>(
    items: Vec<Item<'c>>,
    offset: usize,
    diags: &mut DiagnosticSink,
) -> Vec<Vec<Item<'c>>> {
    let pos = |id: &str| items.iter().position(|x| x.id == id);
    if let (Some(b), Some(w)) = (pos("B"), pos("W")) {
        let second_id = if b < w { "W" } else { "B" };
        diags.push(Diagnostic::new(
            Code::TwoMoves,
            items[b.max(w)].offset,
            "black and white move in one node (split into two nodes)",
        ));
        let (first, second): (Vec<_>, Vec<_>) = items.into_iter().partition(|x| {
            x.id != second_id && !matches!(&*x.id, "BL" | "WL" | "OB" | "OW")
                || matches!((second_id, &*x.id), ("W", "BL" | "OB") | ("B", "WL" | "OW"))
        });
        let mut out = split(first, offset, diags);
        out.push(second);
        return out;
    }
    let has_setup = items.iter().any(|x| context(x) == Some(Context::Setup));
    let has_move = pos("B").is_some() || pos("W").is_some();
    if has_setup && has_move {
        let at = items
            .iter()
            .find(|x| context(x) == Some(Context::Setup))
            .map_or(offset, |x| x.offset);
        diags.push(Diagnostic::new(
            Code::SetupAndMove,
            at,
            "setup and move properties in one node (split into two nodes: setup first)",
        ));
        let (second, first): (Vec<_>, Vec<_>) = items
            .into_iter()
            .partition(|x| matches!(context(x), Some(Context::Move | Context::MoveAnnotation)));
        return vec![first, second];
    }
    vec![items]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write;

    fn conv(s: &str) -> (String, Vec<Code>) {
        let p = Collection::parse(s.as_bytes());
        let c = to_ff4(&p.collection);
        (
            write(&c.collection),
            c.diagnostics.iter().map(|d| d.code).collect(),
        )
    }

    #[test]
    fn ff3_to_ff4() {
        let (out, codes) = conv("(;FF[3]GaMe[1]SZ[9]KI[11]L[aa][bb]M[cc];B[tt];W[])");
        assert_eq!(
            out,
            "(;FF[4]CA[UTF-8]GM[1]SZ[9]KM[5.5]LB[aa:a][bb:b]MA[cc];B[];W[])\n"
        );
        assert_eq!(
            codes,
            [
                Code::ObsoleteKi,
                Code::NotInFf4,
                Code::NotInFf4,
                Code::EmptyPassInOldFormat
            ]
        );
    }

    #[test]
    fn values_are_corrected_or_deleted() {
        let (out, codes) = conv(
            "(;FF[4]SZ[19];B[c   c]BL[34.]OB[1 kk]DM[]KO[xxxx]KM[5 1/2]WL[not much]C[]N[x][y])",
        );
        assert_eq!(
            out,
            "(;FF[4]CA[UTF-8]GM[1]SZ[19];B[cc]BL[34]OB[1]DM[1]KO[]KM[5.5]N[x])\n"
        );
        assert_eq!(
            codes,
            [
                Code::CorrectableValue,
                Code::CorrectableValue,
                Code::CorrectableValue,
                Code::CorrectableValue,
                Code::CorrectableValue,
                Code::CorrectableValue,
                Code::IllegalValue,
                Code::EmptyValue,
                Code::TooManyValues,
            ]
        );
    }

    #[test]
    fn node_repairs() {
        let (out, codes) =
            conv("(;FF[4];B[aa]W[bb]C[x]C[y];MA[aa][ab]TR[aa];TE[1];B[cc]BM[1]TE[2];GB[1]GW[1])");
        assert_eq!(
            out,
            "(;FF[4]CA[UTF-8]GM[1]SZ[19];B[aa]C[x\n\ny];W[bb];MA[aa][ab];;B[cc]DO[];GB[1])\n"
        );
        assert_eq!(
            codes,
            [
                Code::DuplicateProperty,
                Code::TwoMoves,
                Code::MarkupNotUnique,
                Code::MoveAnnotationWithoutMove,
                Code::BmTeCombination,
                Code::AnnotationConflict
            ]
        );
    }

    #[test]
    fn root_properties_and_game_info() {
        let (out, codes) = conv("(;SZ[9:9]GM[1]FF[4]DT[last summer]RE[B+R];CA[UTF-8]SZ[9];PB[x])");
        assert_eq!(
            out,
            "(;FF[4]CA[UTF-8]GM[1]SZ[9]DT[last summer]RE[B+R];;PB[x])\n"
        );
        assert_eq!(
            codes,
            [
                Code::SquareAsRectangle,
                Code::GameInfoFormat,
                Code::RootOutsideRoot,
                Code::RootOutsideRoot,
                Code::GameInfoOutside
            ]
        );
    }

    #[test]
    fn off_board_and_lowercase() {
        let p = Collection::parse(b"(;FF[4]SZ[9]AddBlack[aa][jj];W[ss])");
        let d = check(&p.collection);
        let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::LowercaseId, Code::OffBoard, Code::OffBoard]);
        assert_eq!((d[0].line, d[0].column), (1, 13));
    }

    #[test]
    fn hostile_nodes_stay_linear_and_bounded() {
        let mut s = String::from("(;FF[4];MA");
        for _ in 0..200_000 {
            s.push_str("[aa]");
        }
        for _ in 0..50_000 {
            s.push_str("C[x]B[zz]");
        }
        s.push(')');
        let p = Collection::parse(s.as_bytes());
        // (Quadratic passes made this take minutes; bench/ measures speed.)
        let d = check(&p.collection);
        assert_eq!(d.len(), DiagnosticSink::DEFAULT_LIMIT + 1);
        assert_eq!(d.last().unwrap().code, Code::TooManyProblems);
        let c = to_ff4(&p.collection);
        let comment = vec!["x"; 50_000].join("\n\n");
        assert_eq!(
            write(&c.collection),
            format!("(;FF[4]CA[UTF-8]GM[1]SZ[19];MA[aa]C[{comment}])\n")
        );
    }

    #[test]
    fn points_are_checked_against_the_corrected_size() {
        // Found by fuzzing: SZ[10:53] becomes SZ[10:52]; a point in column 13
        // is off that board in the first conversion already.
        let (out, codes) = conv("(;FF[4]SZ[10:53];B[mb])");
        assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[10:52];)\n");
        assert_eq!(codes, [Code::BoardSize, Code::OffBoard]);
        assert_eq!(conv(&out).0, out);
    }

    #[test]
    fn repeated_elists_merge_to_a_fixed_point() {
        // Found by fuzzing.
        let (out, _) = conv("(;VW[]VW[];TB[]TB[aa])");
        assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[19]VW[];TB[aa])\n");
        assert_eq!(conv(&out).0, out);
    }

    #[test]
    fn the_first_valid_size_counts() {
        // Found by fuzzing: an illegal SZ is deleted, the valid repeat is kept,
        // and points are checked against it in the first conversion already.
        let (out, _) = conv("(;SZ[x]SZ[9]AB[aa][pp])");
        assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[9]AB[aa])\n");
        assert_eq!(conv(&out).0, out);
    }

    #[test]
    fn an_illegal_gm_means_go() {
        // Found by fuzzing: the converted file must itself convert unchanged.
        let (out, codes) = conv("(;FF[4]GM[0];B[aa])");
        assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[19];B[aa])\n");
        assert_eq!(codes, [Code::IllegalRootValue]);
        assert_eq!(conv(&out).0, out);
    }

    #[test]
    fn dates_and_results() {
        for ok in [
            "1996-12-27",
            "1996-12-27,28",
            "1996-05,06",
            "1996-05-06,07-01",
            "2000",
        ] {
            assert!(valid_date(ok), "{ok}");
        }
        for bad in ["27.12.1996", "96-12-27", "1996-1-2", "12,1996"] {
            assert!(!valid_date(bad), "{bad}");
        }
        for ok in ["B+R", "W+12.5", "0", "Draw", "B+", "W+Time", "?"] {
            assert!(valid_result(ok), "{ok}");
        }
        assert!(!valid_result("black wins"));
    }
}
