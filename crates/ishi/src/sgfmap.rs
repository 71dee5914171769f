//! What both conversion directions share: property lists, the header mapping
//! and its text helpers (ranks, dates, results, time limits), and the notes
//! mapping. Each mapping has one function per direction, and the SGF -> Ishi
//! function is the one [`to_sgf`](crate::to_sgf()) uses to decide whether a
//! private property is needed: it is written exactly when the standard
//! properties would not give the data back.

use crate::model::*;
use crate::reader::{parse_komi, parse_marking};
use kifu_sgf::{escape, Value};

/// A node's properties: identifier and raw (escaped) values.
pub(crate) type PropList = Vec<(String, Vec<Vec<u8>>)>;

pub(crate) fn get<'a>(props: &'a PropList, id: &str) -> Option<&'a Vec<Vec<u8>>> {
    props.iter().find(|(i, _)| i == id).map(|(_, v)| v)
}

/// FF\[4\] Text decoding (what an SGF reader sees), for standard properties.
pub(crate) fn text_of(raw: &[u8]) -> String {
    Value::from_raw(raw).text()
}

/// Exact decoding for private properties: escapes removed, nothing else changed.
pub(crate) fn unescape(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            i += 1;
        }
        out.push(raw[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn first_text(props: &PropList, id: &str) -> Option<String> {
    get(props, id).and_then(|v| v.first()).map(|r| text_of(r))
}

pub(crate) fn private_texts(props: &PropList, id: &str) -> Option<Vec<String>> {
    get(props, id).map(|v| v.iter().map(|r| unescape(r)).collect())
}

// ----- text helpers -----

/// Whether a word is a rank like `5d`, `6-dan`, `30k`, `9p`.
pub(crate) fn is_rank(w: &str) -> bool {
    let digits = w.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return false;
    }
    let rest = w[digits..].strip_prefix('-').unwrap_or(&w[digits..]);
    ["k", "kyu", "d", "dan", "p", "pro"]
        .iter()
        .any(|s| rest.eq_ignore_ascii_case(s))
}

/// Splits `Honinbo Shusaku 9p` into name and rank when the last word is a rank.
pub(crate) fn split_rank(text: &str) -> (String, Option<String>) {
    match text.rsplit_once(' ') {
        Some((name, last)) if is_rank(last) => {
            (name.trim_end().to_string(), Some(last.to_string()))
        }
        None if is_rank(text) => (String::new(), Some(text.to_string())),
        _ => (text.to_string(), None),
    }
}

pub(crate) fn join_rank(name: Option<String>, rank: Option<String>) -> Option<String> {
    match (name, rank) {
        (None, None) => None,
        (Some(n), None) => Some(n),
        (n, Some(r)) => {
            let n = n.unwrap_or_default();
            Some(if n.is_empty() { r } else { format!("{n} {r}") })
        }
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// `8 March 1990`, `March 8, 1990`, `1990-03-08` to ISO `1990-03-08`.
pub(crate) fn iso_date(text: &str) -> Option<String> {
    let month = |w: &str| {
        let w = w.trim_end_matches('.').to_ascii_lowercase();
        (w.len() >= 3)
            .then(|| MONTHS.iter().position(|m| w.starts_with(m)))
            .flatten()
            .map(|i| i as u32 + 1)
    };
    let num = |w: &str| w.trim_end_matches(',').parse::<u32>().ok();
    let ws: Vec<&str> = text.split_whitespace().collect();
    let (y, m, d) = match ws.as_slice() {
        [one] => {
            let p: Vec<&str> = one.split('-').collect();
            match p.as_slice() {
                [y, m, d] if y.len() == 4 && m.len() == 2 && d.len() == 2 => {
                    (num(y)?, num(m)?, num(d)?)
                }
                _ => return None,
            }
        }
        [d, m, y] if num(d).is_some() => (num(y)?, month(m)?, num(d)?),
        [m, d, y] => (num(y)?, month(m)?, num(d)?),
        _ => return None,
    };
    ((1..=12).contains(&m) && (1..=31).contains(&d) && (1000..=9999).contains(&y))
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// Ishi result text to an SGF `RE` value where it can be read (`White wins by
/// resignation` is `W+R`); other texts are kept as they are.
pub(crate) fn sgf_result(text: &str) -> String {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if t.starts_with("B+")
        || t.starts_with("W+")
        || ["0", "draw", "void", "?"].contains(&lower.as_str())
    {
        return t.to_string();
    }
    if lower == "jigo" {
        return "0".to_string();
    }
    let ws: Vec<&str> = lower.split_whitespace().collect();
    let color = ws.iter().find_map(|w| match *w {
        "black" | "b" => Some('B'),
        "white" | "w" => Some('W'),
        _ => None,
    });
    let Some(mut c) = color else {
        return t.to_string();
    };
    let resigns = ws.iter().any(|w| w.starts_with("resigns"));
    if resigns {
        c = if c == 'B' { 'W' } else { 'B' };
    }
    let margin = if resigns || ws.iter().any(|w| w.starts_with("resign")) {
        "R".to_string()
    } else if ws.contains(&"time") {
        "T".to_string()
    } else if ws.iter().any(|w| w.starts_with("forfeit")) {
        "F".to_string()
    } else if let Some(i) = ws.iter().position(|w| *w == "by") {
        match parse_komi(&ws[i + 1..]) {
            Some((v, _)) if v >= 0.0 => v.to_string(),
            _ => return t.to_string(),
        }
    } else if ws.len() <= 2 {
        String::new()
    } else {
        return t.to_string();
    };
    format!("{c}+{margin}")
}

/// `30 minutes each`, `1 hour` to seconds.
pub(crate) fn seconds(text: &str) -> Option<u64> {
    let ws: Vec<String> = text
        .split_whitespace()
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let (n, unit) = match ws.as_slice() {
        [n, u] | [n, u, _] => (n.parse::<u64>().ok()?, u.as_str()),
        _ => return None,
    };
    if ws.len() == 3 && ws[2] != "each" {
        return None;
    }
    let mul = match unit {
        "hour" | "hours" | "hr" | "hrs" | "h" => 3600,
        "minute" | "minutes" | "min" | "mins" | "m" => 60,
        "second" | "seconds" | "sec" | "secs" | "s" => 1,
        _ => return None,
    };
    n.checked_mul(mul)
}

/// Seconds as a time-limit text (`1 hour`, `30 minutes`, `90 seconds`).
pub(crate) fn time_text(s: u64) -> String {
    let plural = |n: u64, u: &str| format!("{n} {u}{}", if n == 1 { "" } else { "s" });
    if s > 0 && s.is_multiple_of(3600) {
        plural(s / 3600, "hour")
    } else if s > 0 && s.is_multiple_of(60) {
        plural(s / 60, "minute")
    } else {
        plural(s, "second")
    }
}

fn real_text(v: f64) -> String {
    v.to_string()
}

// ----- header -----

/// The header keywords as SGF game-info properties (identifier, plain text).
pub(crate) fn header_to_props(h: &Header) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (text, name_id, rank_id) in [(&h.black, "PB", "BR"), (&h.white, "PW", "WR")] {
        if let Some(t) = text {
            let (name, rank) = split_rank(t);
            out.push((name_id, name));
            if let Some(r) = rank {
                out.push((rank_id, r));
            }
        }
    }
    if !h.date.is_empty() {
        let iso: Option<Vec<String>> = h.date.iter().map(|d| iso_date(d)).collect();
        out.push(("DT", iso.map_or_else(|| h.date.join("; "), |v| v.join(","))));
    }
    if let Some(k) = h.komi {
        out.push(("KM", real_text(k)));
    }
    if let Some(n) = h.handicap {
        out.push(("HA", n.to_string()));
    }
    if let Some(r) = &h.rules {
        out.push(("RU", r.clone()));
    }
    if let Some(r) = &h.result {
        out.push(("RE", sgf_result(r)));
    }
    if let Some(s) = h.timelimit.first().and_then(|t| seconds(t)) {
        out.push(("TM", s.to_string()));
    }
    for (v, id) in [
        (&h.source, "SO"),
        (&h.place, "PC"),
        (&h.analysis, "AN"),
        (&h.recorder, "US"),
    ] {
        if !v.is_empty() {
            out.push((id, v.join("\n")));
        }
    }
    out
}

/// The header from SGF game-info properties (decoded as SGF text).
pub(crate) fn header_from_props(props: &PropList) -> Header {
    let t = |id: &str| first_text(props, id);
    let lines = |id: &str| {
        t(id)
            .map(|s| s.split('\n').map(str::to_string).collect())
            .unwrap_or_default()
    };
    Header {
        black: join_rank(t("PB"), t("BR")),
        white: join_rank(t("PW"), t("WR")),
        result: t("RE"),
        rules: t("RU"),
        komi: t("KM").and_then(|k| k.trim().parse::<f64>().ok().filter(|v| v.is_finite())),
        handicap: t("HA").and_then(|k| k.trim().parse::<u32>().ok()),
        analysis: lines("AN"),
        date: t("DT").map(|d| vec![d]).unwrap_or_default(),
        place: lines("PC"),
        recorder: lines("US"),
        source: lines("SO"),
        timelimit: t("TM")
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0 && s.fract() == 0.0 && *s < 1e15)
            .map(|s| vec![time_text(s as u64)])
            .unwrap_or_default(),
    }
}

/// Header lines (`KEYWORD text`) for fields the standard properties do not give back.
pub(crate) fn header_private(h: &Header, back: &Header) -> Vec<String> {
    let mut out = Vec::new();
    let mut once = |k: &str, a: &Option<String>, b: &Option<String>| {
        if a != b {
            if let Some(a) = a {
                out.push(format!("{k} {a}"));
            } else {
                out.push(k.to_string());
            }
        }
    };
    once("BLACK", &h.black, &back.black);
    once("WHITE", &h.white, &back.white);
    once("RESULT", &h.result, &back.result);
    once("RULES", &h.rules, &back.rules);
    let komi = |k: Option<f64>| k.map(real_text);
    once("KOMI", &komi(h.komi), &komi(back.komi));
    let hc = |k: Option<u32>| k.map(|n| n.to_string());
    once("HANDICAP", &hc(h.handicap), &hc(back.handicap));
    for (k, a, b) in [
        ("ANALYSIS", &h.analysis, &back.analysis),
        ("DATE", &h.date, &back.date),
        ("PLACE", &h.place, &back.place),
        ("RECORDER", &h.recorder, &back.recorder),
        ("SOURCE", &h.source, &back.source),
        ("TIMELIMIT", &h.timelimit, &back.timelimit),
    ] {
        if a != b {
            if a.is_empty() {
                out.push(k.to_string());
            }
            for x in a {
                out.push(format!("{k} {x}"));
            }
        }
    }
    out
}

/// Applies `ISI` lines over a header read from standard properties: each
/// keyword named there replaces that field entirely (a bare keyword clears it).
pub(crate) fn apply_header_private(h: &mut Header, lines: &[String]) {
    let mut cleared: Vec<String> = Vec::new();
    for l in lines {
        let (k, v) = l.split_once(' ').unwrap_or((l.as_str(), ""));
        let k = k.to_ascii_uppercase();
        let bare = !l.contains(' ');
        let first = !cleared.contains(&k);
        if first {
            cleared.push(k.clone());
        }
        let val = (!bare).then(|| v.to_string());
        let many = |f: &mut Vec<String>| {
            if first {
                f.clear();
            }
            if let Some(v) = &val {
                f.push(v.clone());
            }
        };
        match k.as_str() {
            "BLACK" => h.black = val,
            "WHITE" => h.white = val,
            "RESULT" => h.result = val,
            "RULES" => h.rules = val,
            "KOMI" => h.komi = val.and_then(|v| v.parse::<f64>().ok()),
            "HANDICAP" => h.handicap = val.and_then(|v| v.parse::<u32>().ok()),
            "ANALYSIS" => many(&mut h.analysis),
            "DATE" => many(&mut h.date),
            "PLACE" => many(&mut h.place),
            "RECORDER" => many(&mut h.recorder),
            "SOURCE" => many(&mut h.source),
            "TIMELIMIT" => many(&mut h.timelimit),
            _ => {}
        }
    }
}

// ----- notes -----

/// The `C` text shown for a unit's comments.
pub(crate) fn comment_text(cs: &[Comment]) -> String {
    cs.iter()
        .map(|c| {
            let body = c.lines.join("\n");
            if c.title.is_empty() {
                body
            } else if c.lines.is_empty() {
                c.title.clone()
            } else {
                format!("{}\n{body}", c.title)
            }
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A comment or user block as one private value: first line, then the lines.
pub(crate) fn block_value(first: &str, lines: &[String]) -> String {
    let mut s = first.to_string();
    for l in lines {
        s.push('\n');
        s.push_str(l);
    }
    s
}

pub(crate) fn block_from_value(v: &str) -> (String, Vec<String>) {
    let mut it = v.split('\n');
    let first = it.next().unwrap_or("").to_string();
    (first, it.map(str::to_string).collect())
}

/// Comments from `ISC`, else from `C` (one untitled comment).
pub(crate) fn comments_from_props(props: &PropList) -> Vec<Comment> {
    if let Some(vs) = private_texts(props, "ISC") {
        return vs
            .iter()
            .map(|v| {
                let (title, lines) = block_from_value(v);
                Comment {
                    title,
                    lines,
                    line: SourceLine(0),
                }
            })
            .collect();
    }
    let c = get(props, "C").map(|v| v.iter().map(|r| text_of(r)).collect::<Vec<_>>().join("\n"));
    match c {
        Some(c) => vec![Comment {
            title: String::new(),
            lines: c.split('\n').map(str::to_string).collect(),
            line: SourceLine(0),
        }],
        None => Vec::new(),
    }
}

/// Marks from `ISM`, else from `LB`, `TR`, `SQ`, `CR` (diamond), `MA` (check mark).
/// Labels that Ishi cannot hold are returned in the second list.
pub(crate) fn marks_from_props(props: &PropList, n: u8) -> (Vec<Marking>, Vec<String>) {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    if let Some(lines) = private_texts(props, "ISM") {
        for l in &lines {
            let mut ws = l.split_whitespace();
            let unmark = ws.next().is_some_and(|k| k.eq_ignore_ascii_case("UNMARK"));
            out.extend(ws.filter_map(|w| parse_marking(w, unmark).ok()));
        }
        return (out, bad);
    }
    let loc = |raw: &[u8]| {
        Value::from_raw(raw)
            .point()
            .filter(|p| p.col < n && p.row < n)
            .and_then(|p| Loc::new(p.col, n - p.row))
    };
    if let Some(vs) = get(props, "LB") {
        for v in vs {
            let Some((p, label)) = Value::from_raw(v).compose() else {
                continue;
            };
            let (Some(l), label) = (loc(p.raw()), label.simple_text()) else {
                continue;
            };
            let ok = (1..=2).contains(&label.chars().count())
                && label.chars().all(|c| ('!'..='~').contains(&c))
                && !label.starts_with('\\');
            if ok {
                out.push(Marking::Text(label, Target::Point(l)));
            } else {
                bad.push(label);
            }
        }
    }
    for (id, sym) in [
        ("TR", Symbol::Triangle),
        ("SQ", Symbol::Square),
        ("CR", Symbol::Diamond),
        ("MA", Symbol::Check),
    ] {
        for v in get(props, id).into_iter().flatten() {
            for p in Value::from_raw(v).points().unwrap_or_default() {
                if p.col < n && p.row < n {
                    if let Some(l) = Loc::new(p.col, n - p.row) {
                        out.push(Marking::Symbol(sym, Target::Point(l)));
                    }
                }
            }
        }
    }
    (out, bad)
}

/// Targets from a private list property (`ISP`, `ISH`): space-separated items.
pub(crate) fn targets_from_props(props: &PropList, id: &str, range: bool) -> Vec<Target> {
    private_texts(props, id)
        .unwrap_or_default()
        .iter()
        .flat_map(|l| {
            l.split_whitespace()
                .filter_map(|w| crate::reader::parse_target(w, range).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Users from `ISU`.
pub(crate) fn users_from_props(props: &PropList) -> Vec<UserBlock> {
    private_texts(props, "ISU")
        .unwrap_or_default()
        .iter()
        .map(|v| {
            let (data, lines) = block_from_value(v);
            UserBlock {
                data,
                lines,
                line: SourceLine(0),
            }
        })
        .collect()
}

/// Escaped text value.
pub(crate) fn esc(s: &str) -> Vec<u8> {
    escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_dates_results_times() {
        assert_eq!(
            split_rank("Haruyama 6-dan"),
            ("Haruyama".into(), Some("6-dan".into()))
        );
        assert_eq!(
            split_rank("James Redmond 5-dan (made 6-dan after this game)").1,
            None
        );
        assert_eq!(iso_date("8 March 1990").as_deref(), Some("1990-03-08"));
        assert_eq!(iso_date("Dec 9, 1938").as_deref(), Some("1938-12-09"));
        assert_eq!(iso_date("1990-03-08").as_deref(), Some("1990-03-08"));
        assert_eq!(iso_date("3-21-48"), None);
        assert_eq!(sgf_result("White wins by resignation"), "W+R");
        assert_eq!(sgf_result("Black by 3"), "B+3");
        assert_eq!(sgf_result("Black resigns at move 186"), "W+R");
        assert_eq!(sgf_result("Black wins by 1"), "B+1");
        assert_eq!(sgf_result("Black wins by 2 1/2"), "B+2.5");
        assert_eq!(sgf_result("B+R"), "B+R");
        assert_eq!(sgf_result("unfinished"), "unfinished");
        assert_eq!(seconds("30 minutes each"), Some(1800));
        assert_eq!(seconds("1 hour"), Some(3600));
        assert_eq!(time_text(1800), "30 minutes");
        assert_eq!(time_text(3600), "1 hour");
        assert_eq!(time_text(90), "90 seconds");
    }
}
