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
use nodes::{node_rules, root_rules, split};
use std::borrow::Cow;
use values::{check_values, corrected_size, size_parts};

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

/// Labels for FF\[1\]/FF\[3\] `L`: a..z, then aa, ab, … (SGFC writes lower case).
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

mod nodes;
mod values;

#[cfg(test)]
mod tests;
