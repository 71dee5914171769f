//! The rules within a node and of the root, and the splitting of a node in two.

use super::*;

pub(super) fn context(it: &Item<'_>) -> Option<Context> {
    it.info().map(|p| p.context)
}

/// Rules within a node: duplicates, annotations, markup.
pub(super) fn node_rules(items: &mut Vec<Item<'_>>, info_above: bool, diags: &mut DiagnosticSink) {
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

pub(super) fn take<'c>(items: &mut Vec<Item<'c>>, id: &str) -> Option<Item<'c>> {
    items
        .iter()
        .position(|x| x.id == id)
        .map(|i| items.remove(i))
}

pub(super) fn root_rules(
    items: &mut Vec<Item<'_>>,
    g: &GameCtx,
    offset: usize,
    diags: &mut DiagnosticSink,
) {
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
pub(super) fn split<'c>(
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
