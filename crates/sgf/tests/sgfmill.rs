//! Differential test against sgfmill (Python), the SGF library many Go
//! programmers use: for every corpus file sgfmill reads, kifu must give the
//! same nodes (in pre-order), the same property identifiers in the same order,
//! the same raw values, and the same decoded values (text, numbers, moves and
//! expanded point lists).
//!
//! Deliberate differences, each checked below rather than skipped:
//! - sgfmill reads only the first game tree of a file; the test compares that one.
//! - Files sgfmill refuses (it stops at the first syntax error) are not compared.
//! - Charset: when sgfmill's charset (CA, else ISO-8859-1) differs from kifu's
//!   (kifu detects undeclared non-UTF-8 text, and reads UTF-8 declared as Latin-1
//!   as UTF-8), raw values are compared after decoding sgfmill's bytes with
//!   kifu's charset, and decoded texts are not compared.
//! - A game tree whose `(` is not followed by `;` is read by kifu (S036, as
//!   SGFC does) and skipped by sgfmill, which then reads the next tree: the
//!   test then compares sgfmill's game with kifu's next one.
//! - A property repeated in a node: sgfmill keeps one identifier with the values
//!   of both; kifu keeps both as written (the converter merges them, S028).

use serde::Deserialize;
use std::io::Write;
use std::process::{Command, Stdio};

mod common;

/// Identifier, raw values (Latin-1 characters for bytes), decoded value.
type PropDump = (String, Vec<String>, serde_json::Value);

#[derive(Deserialize)]
struct Dump {
    file: String,
    ok: bool,
    charset: Option<String>,
    size: Option<u32>,
    nodes: Option<Vec<Vec<PropDump>>>,
}

fn sgfmill_available() -> bool {
    Command::new("python3")
        .args(["-c", "import sgfmill"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn kifu_reads_what_sgfmill_reads() {
    if !sgfmill_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "sgfmill is not installed: .ci/run installs it"
        );
        eprintln!("SKIPPED: python3 with sgfmill not found (pip install sgfmill)");
        return;
    }
    let files = common::sgf_files(&common::corpus().join("sgf"));
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/sgfmill_dump.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    {
        let mut stdin = child.stdin.take().unwrap();
        let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
        std::thread::spawn(move || stdin.write_all(list.as_bytes()).unwrap());
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let mut compared = 0;
    let mut values = 0;
    let mut failures = Vec::new();
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let d: Dump = serde_json::from_slice(line).unwrap();
        if !d.ok {
            continue;
        }
        compared += 1;
        if let Err(e) = compare(&d, &mut values) {
            failures.push(format!("{}: {e}", d.file));
        }
    }
    assert!(
        failures.is_empty(),
        "{} files differ:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
    assert!(compared > 9_000, "only {compared} files compared");
    assert!(values > 1_000_000, "only {values} values compared");
}

fn compare(d: &Dump, values: &mut usize) -> Result<(), String> {
    let bytes = std::fs::read(&d.file).map_err(|e| e.to_string())?;
    let parsed = kifu_sgf::Collection::parse(&bytes);
    let coll = &parsed.collection;
    let skipped = parsed
        .diagnostics
        .iter()
        .any(|d| d.code == kifu_sgf::Code::MissingSemicolon);
    match compare_game(d, coll, 0, values) {
        Err(_) if skipped => compare_game(d, coll, 1, values),
        r => r,
    }
}

fn compare_game(
    d: &Dump,
    coll: &kifu_sgf::Collection,
    index: usize,
    values: &mut usize,
) -> Result<(), String> {
    let game = coll.game(index).ok_or("kifu found no game")?;
    let kifu_enc = encoding_rs::Encoding::for_label(coll.charset().as_bytes()).unwrap();
    let same_charset = d
        .charset
        .as_deref()
        .and_then(|c| encoding_rs::Encoding::for_label(c.as_bytes()))
        .is_some_and(|e| e == kifu_enc);
    let size = d.size.unwrap_or(19);
    let theirs = d.nodes.as_ref().unwrap();
    let ours: Vec<_> = game.nodes().collect();
    if theirs.len() != ours.len() {
        return Err(format!(
            "{} nodes in sgfmill, {} in kifu",
            theirs.len(),
            ours.len()
        ));
    }
    for (i, (tn, on)) in theirs.iter().zip(&ours).enumerate() {
        // Merge repeated identifiers the way sgfmill does.
        let mut mine: Vec<(String, Vec<kifu_sgf::Value<'_>>)> = Vec::new();
        for p in on.properties() {
            match mine.iter_mut().find(|(id, _)| id == p.id()) {
                Some((_, v)) => v.extend(p.values()),
                None => mine.push((p.id().to_string(), p.values().collect())),
            }
        }
        let ids: Vec<&str> = tn.iter().map(|t| t.0.as_str()).collect();
        let my_ids: Vec<&str> = mine.iter().map(|m| m.0.as_str()).collect();
        if ids != my_ids {
            return Err(format!("node {i}: ids {ids:?} vs {my_ids:?}"));
        }
        for ((id, raws, dec), (_, vals)) in tn.iter().zip(&mine) {
            if raws.len() != vals.len() {
                return Err(format!(
                    "node {i} {id}: {} values vs {}",
                    raws.len(),
                    vals.len()
                ));
            }
            for (r, v) in raws.iter().zip(vals) {
                let theirs_bytes: Vec<u8> = r.chars().map(|c| c as u32 as u8).collect();
                let (theirs_text, _) = kifu_enc.decode_without_bom_handling(&theirs_bytes);
                let ours_text = String::from_utf8_lossy(v.raw());
                if theirs_text != ours_text {
                    return Err(format!(
                        "node {i} {id}: raw {theirs_text:?} vs {ours_text:?}"
                    ));
                }
                *values += 1;
            }
            if !dec.is_null() {
                let mine = decoded(id, vals, size, same_charset);
                if let Some(m) = mine {
                    if !json_eq(&m, dec) {
                        return Err(format!("node {i} {id}: decoded {dec} vs {m}"));
                    }
                }
            }
        }
    }
    Ok(())
}

fn json_eq(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        _ => a == b,
    }
}

fn rc(p: kifu_sgf::SgfPoint, size: u32) -> serde_json::Value {
    serde_json::json!([size as i64 - 1 - p.row as i64, p.col])
}

/// kifu's decoding of a property, in the shape the Python side prints.
fn decoded(
    id: &str,
    vals: &[kifu_sgf::Value<'_>],
    size: u32,
    same_charset: bool,
) -> Option<serde_json::Value> {
    use serde_json::{json, Value as J};
    let first = vals.first()?;
    Some(match id {
        "B" | "W" => match first.move_for(size, size)? {
            kifu_sgf::SgfMove::Pass => J::Null,
            kifu_sgf::SgfMove::Play(p) => rc(p, size),
        },
        "AB" | "AW" | "AE" | "TR" | "SQ" | "CR" | "MA" | "SL" | "DD" | "TB" | "TW" | "VW" => {
            let mut pts: Vec<(i64, i64)> = Vec::new();
            for v in vals {
                if v.is_empty() {
                    continue;
                }
                for p in v.points()? {
                    pts.push((size as i64 - 1 - p.row as i64, p.col as i64));
                }
            }
            pts.sort();
            pts.dedup();
            json!(pts.iter().map(|(r, c)| json!([r, c])).collect::<Vec<_>>())
        }
        "LB" => {
            let mut v = Vec::new();
            for x in vals {
                let (p, t) = x.compose()?;
                let p = p.point()?;
                v.push((
                    (size as i64 - 1 - p.row as i64, p.col as i64),
                    t.simple_text(),
                ));
            }
            v.sort();
            if !same_charset {
                return None;
            }
            json!(v
                .iter()
                .map(|((r, c), t)| json!([[r, c], t]))
                .collect::<Vec<_>>())
        }
        "AR" | "LN" => {
            let mut v = Vec::new();
            for x in vals {
                let (a, b) = x.compose()?;
                let (a, b) = (a.point()?, b.point()?);
                let flip = |p: kifu_sgf::SgfPoint| (size as i64 - 1 - p.row as i64, p.col as i64);
                v.push((flip(a), flip(b)));
            }
            v.sort();
            json!(v
                .iter()
                .map(|((a, b), (c, d))| json!([[a, b], [c, d]]))
                .collect::<Vec<_>>())
        }
        "C" | "GC" if same_charset => json!(first.text()),
        "PB" | "PW" | "N" | "GN" | "EV" | "RE" | "DT" | "PC" | "RO" | "RU" | "SO" | "US" | "WR"
        | "BR" | "BT" | "WT" | "AN" | "CP" | "ON" | "OT"
            if same_charset =>
        {
            json!(first.simple_text())
        }
        "SZ" | "HA" | "MN" | "OB" | "OW" | "FF" | "GM" | "ST" | "PM" => json!(first.number()?),
        "KM" | "BL" | "WL" | "TM" | "V" => json!(first.real()?),
        "DM" | "GB" | "GW" | "HO" | "UC" | "BM" | "TE" => json!(first.double()?),
        "PL" => json!(if first.color_is_black()? { "b" } else { "w" }),
        _ => return None,
    })
}
