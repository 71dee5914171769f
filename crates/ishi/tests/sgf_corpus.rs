//! SGF -> Ishi -> SGF on the corpus games that hold only what Ishi can express, and
//! Ishi -> SGF -> Ishi (and Ishi text) on what those games become.

use kifu_ishi::*;
use kifu_sgf::{Collection, GameTree, Node, Value, WalkEvent};
use std::path::{Path, PathBuf};

const ROOT_IDS: [&str; 19] = [
    "FF", "CA", "GM", "AP", "ST", "SZ", "GN", "PB", "PW", "BR", "WR", "DT", "KM", "HA", "RU", "RE",
    "SO", "PC", "AN",
];
const NODE_IDS: [&str; 10] = ["B", "W", "AB", "AW", "C", "LB", "TR", "SQ", "CR", "MA"];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sgf") {
                out.push(p);
            }
        }
    }
    out.sort();
}

fn is_rank(w: &str) -> bool {
    let d = w.bytes().take_while(u8::is_ascii_digit).count();
    let rest = w[d..].strip_prefix('-').unwrap_or(&w[d..]);
    (1..=2).contains(&d)
        && ["k", "kyu", "d", "dan", "p", "pro"]
            .iter()
            .any(|s| rest.eq_ignore_ascii_case(s))
}

fn has_move(n: &Node<'_>) -> bool {
    n.has("B") || n.has("W")
}

/// Whether the game holds only what the Ishi format can express, in the shape kifu writes it.
fn expressible(g: &GameTree<'_>) -> bool {
    let Some((c, r)) = g.board_size().or(Some((19, 19))) else {
        return false;
    };
    if g.game_type() != 1 || c != r || !(2..=19).contains(&c) {
        return false;
    }
    let n = c as u8;
    let root = g.root();
    if has_move(&root) {
        return false;
    }
    for (name, rank) in [("PB", "BR"), ("PW", "WR")] {
        match (root.text(name), root.text(rank)) {
            (None, Some(_)) => return false,
            (Some(p), None) if p.rsplit(' ').next().is_some_and(is_rank) => return false,
            (Some(p), Some(r)) if !is_rank(&r) || p.is_empty() || p.ends_with(' ') => return false,
            _ => {}
        }
        if root
            .text(name)
            .is_some_and(|t| t.contains(['\n', '\t']) || t.trim() != t)
        {
            return false;
        }
    }
    for id in ["GN", "DT", "RU", "RE", "HA", "KM"] {
        if root
            .text(id)
            .is_some_and(|t| t.contains('\n') || t.trim() != t || t.is_empty())
        {
            return false;
        }
    }
    if let Some(re) = root.text("RE") {
        if !(re.starts_with("B+")
            || re.starts_with("W+")
            || ["0", "Draw", "Void", "?"].contains(&re.as_str()))
        {
            return false;
        }
    }
    if root.number("HA").is_some_and(|h| h < 0) || root.has("HA") && root.number("HA").is_none() {
        return false;
    }
    if root.has("KM")
        && root
            .get("KM")
            .and_then(|p| p.value())
            .and_then(|v| v.real())
            .is_none()
    {
        return false;
    }
    let first = root.first_child();
    if !(root.has("AB") || root.has("AW")) && first.is_some_and(|f| f.has("AB") || f.has("AW")) {
        return false;
    }
    for node in g.nodes() {
        let is_root = node.parent().is_none();
        let mut ids: Vec<&str> = node.properties().map(|p| p.id()).collect();
        let count = ids.len();
        ids.sort();
        ids.dedup();
        if ids.len() != count {
            return false; // a repeated property (SGF error S028)
        }
        for p in node.properties() {
            let id = p.id();
            if !(NODE_IDS.contains(&id) || is_root && ROOT_IDS.contains(&id)) {
                return false;
            }
            if p.value_count() > 1 && !["AB", "AW", "LB", "TR", "SQ", "CR", "MA"].contains(&id) {
                return false;
            }
        }
        if !is_root && !has_move(&node) && !node.has("AB") && !node.has("AW") {
            return false;
        }
        if node.has("B") && node.has("W") || has_move(&node) && (node.has("AB") || node.has("AW")) {
            return false;
        }
        if node.child_count() > 1 && !node.children().all(|c| has_move(&c)) {
            return false;
        }
        if node.text("C").is_some_and(|c| {
            c.contains('\t')
                || c.lines().any(|l| {
                    l.split([' '])
                        .next()
                        .is_some_and(|w| w.eq_ignore_ascii_case("ENDCOM"))
                })
        }) {
            return false;
        }
        // Points on the board, each carrying at most one markup, labels of 1-2 characters.
        let mut marked = Vec::new();
        for id in ["AB", "AW", "TR", "SQ", "CR", "MA", "B", "W", "LB"] {
            for p in node
                .get(id)
                .into_iter()
                .flat_map(|p| p.values().collect::<Vec<_>>())
            {
                let pts = if id == "LB" {
                    let Some((pt, label)) = p.compose() else {
                        return false;
                    };
                    let l = label.simple_text();
                    if !(1..=2).contains(&l.chars().count())
                        || !l.chars().all(|c| ('!'..='~').contains(&c))
                        || l.starts_with('\\')
                    {
                        return false;
                    }
                    pt.point().into_iter().collect()
                } else if id == "B" || id == "W" {
                    match p.move_for(c, c) {
                        Some(kifu_sgf::SgfMove::Play(q)) => vec![q],
                        Some(kifu_sgf::SgfMove::Pass) => vec![],
                        None => return false,
                    }
                } else {
                    match p.points() {
                        Some(v) => v,
                        None => return false,
                    }
                };
                for q in pts {
                    if q.col >= n || q.row >= n {
                        return false;
                    }
                    if ["TR", "SQ", "CR", "MA", "LB"].contains(&id) {
                        if marked.contains(&q) {
                            return false;
                        }
                        marked.push(q);
                    }
                }
            }
        }
    }
    true
}

/// What a game says, node by node in file order with its variations, as far as Ishi can say it.
fn content(g: &GameTree<'_>) -> Vec<String> {
    let (c, _) = g.board_size().unwrap_or((19, 19));
    let mut out = Vec::new();
    g.walk(|ev| {
        match ev {
            WalkEvent::BeginVariation => out.push("(".to_string()),
            WalkEvent::EndVariation => out.push(")".to_string()),
            WalkEvent::Node(node) => {
                // Repeated identifiers count as one (their values joined).
                let mut by_id: std::collections::BTreeMap<String, Vec<String>> = Default::default();
                for p in node
                    .properties()
                    .filter(|p| NODE_IDS.contains(&p.id()) || ROOT_IDS[5..].contains(&p.id()))
                {
                    let s = {
                        let id = p.id();
                        let vals: Vec<String> = p
                            .values()
                            .flat_map(|v: Value<'_>| match id {
                                "B" | "W" => {
                                    vec![String::from_utf8_lossy(&match v.move_for(c, c) {
                                        Some(kifu_sgf::SgfMove::Play(q)) => q.to_letters().to_vec(),
                                        _ => Vec::new(),
                                    })
                                    .into_owned()]
                                }
                                "AB" | "AW" | "TR" | "SQ" | "CR" | "MA" => v
                                    .points()
                                    .unwrap_or_default()
                                    .iter()
                                    .map(|q| String::from_utf8_lossy(&q.to_letters()).into_owned())
                                    .collect(),
                                "KM" => vec![v.real().map(|k| k.to_string()).unwrap_or_default()],
                                _ => vec![v.text()],
                            })
                            .collect();
                        vals
                    };
                    by_id.entry(p.id().to_string()).or_default().extend(s);
                }
                let props: Vec<String> = by_id
                    .into_iter()
                    .map(|(id, mut vals)| {
                        if id != "B" && id != "W" && id != "C" {
                            vals.sort();
                        }
                        format!("{id}{vals:?}")
                    })
                    .collect();
                out.push(props.join(""));
            }
        }
        Ok::<(), ()>(())
    })
    .unwrap();
    out
}

#[test]
fn expressible_corpus_games_survive_sgf_to_ishi_to_sgf() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/sgf");
    let mut paths = Vec::new();
    files(&dir, &mut paths);
    assert!(paths.len() > 1000, "corpus not found at {}", dir.display());
    let mut selected = 0;
    let mut with_variations = 0;
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let parsed = Collection::parse(&bytes);
        if parsed.has_errors() || parsed.collection.len() != 1 {
            continue;
        }
        let g = parsed.collection.game(0).unwrap();
        if !expressible(&g) {
            continue;
        }
        selected += 1;
        if g.nodes().any(|n| n.child_count() > 1) {
            with_variations += 1;
        }
        let ishi = from_sgf(&parsed.collection);
        assert!(
            ishi.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            ishi.diagnostics
        );
        // Through Ishi text.
        let text = write(&ishi.document);
        let read_back = read(text.as_bytes());
        assert!(
            !read_back.has_errors(),
            "{}: {:?}",
            path.display(),
            read_back.diagnostics
        );
        assert_eq!(read_back.document, ishi.document, "{}", path.display());
        // And back to SGF: the same content.
        let sgf = to_sgf(&read_back.document);
        let again = Collection::parse(kifu_sgf::write(&sgf.collection).as_bytes());
        let g2 = again.collection.game(0).unwrap();
        assert_eq!(content(&g2), content(&g), "{}", path.display());
        // Ishi -> SGF -> Ishi on what the game became.
        assert_eq!(
            from_sgf(&again.collection).document,
            ishi.document,
            "{}",
            path.display()
        );
    }
    println!(
        "{selected} games selected of {} files, {with_variations} with variations",
        paths.len()
    );
    assert!(selected >= 550, "only {selected} expressible games");
    assert!(
        with_variations >= 10,
        "only {with_variations} games with variations"
    );
}
