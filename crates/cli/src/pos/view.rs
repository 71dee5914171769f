//! `kifu pos view`, `kifu pos histogram`, `kifu pos stats`: looking at position files.

use crate::output::write_atomically;
use crate::Outcome;
use anyhow::{Context, Result};
use clap::Args;
use kifu_go::diagram::{ascii_board, svg_diagram, Markup, SvgOptions};
use kifu_go::Color;
use kifu_posdb::inspect::{histogram_svg, FileStats, ScoreTable};
use kifu_posdb::{PositionReader, PositionRecord};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// `kifu pos view` arguments.
#[derive(Args, Debug)]
pub struct ViewArgs {
    /// A position or queue file (`-` for stdin).
    file: PathBuf,
    /// Board size of the file.
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Only the record with this index (0 = the first).
    #[arg(long)]
    index: Option<u64>,
    /// Only positions with at least this many stones.
    #[arg(long)]
    min_stones: Option<usize>,
    /// Only positions with at most this many stones.
    #[arg(long)]
    max_stones: Option<usize>,
    /// Only ids that start with this text: a hash in hex (or its first digits), or a whole id
    /// `0123456789abcdef-00-B`.
    #[arg(long)]
    key: Option<String>,
    /// Show at most this many positions.
    #[arg(long)]
    limit: Option<u64>,
    /// Scored files to show beside each position (program and ruleset from the name, e.g.
    /// gnugo_chinese.dat).
    #[arg(long, num_args = 1)]
    scores: Vec<PathBuf>,
    /// Write SVG diagrams: OUT for one position, or one file per position if OUT contains `{}`
    /// (replaced by the record index).
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
    /// JSON output.
    #[arg(long)]
    json: bool,
}

/// `kifu pos histogram` and `kifu pos stats` arguments.
#[derive(Args, Debug)]
pub struct HistogramArgs {
    /// A position or queue file (`-` for stdin).
    file: PathBuf,
    /// Board size of the file.
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Also write an SVG bar chart here (histogram only).
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
    /// JSON output.
    #[arg(long)]
    json: bool,
}

/// Reads the scored files given with `--scores`.
pub fn load_scores(paths: &[PathBuf]) -> Result<Vec<ScoreTable>> {
    paths
        .iter()
        .map(|p| {
            ScoreTable::read(p, super::open_input(p)?).with_context(|| p.display().to_string())
        })
        .collect()
}

/// A record's scores as text (`gnugo x chinese: 6 (80%)`, `-` when absent) and JSON.
fn scores_of(tables: &[ScoreTable], r: &PositionRecord) -> (String, Value) {
    let mut text = Vec::new();
    let mut obj = serde_json::Map::new();
    for t in tables {
        match t.get(&r.id) {
            Some(s) => {
                text.push(format!("{}: {} ({}%)", t.label(), s.score, s.confidence));
                obj.insert(
                    t.label(),
                    json!({"score": s.score, "confidence": s.confidence}),
                );
            }
            None => {
                text.push(format!("{}: -", t.label()));
                obj.insert(t.label(), Value::Null);
            }
        }
    }
    (text.join("  "), Value::Object(obj))
}

/// Walks a position file, stopping at the first bad record (a torn last record is a warning).
fn for_each_record(
    path: &Path,
    size: kifu_go::BoardSize,
    mut f: impl FnMut(u64, &PositionRecord) -> Result<bool>,
) -> Result<Option<String>> {
    let mut reader = PositionReader::new(super::open_input(path)?, size);
    let mut i = 0u64;
    loop {
        match reader.read_record() {
            Ok(Some(r)) => {
                if !f(i, &r)? {
                    return Ok(None);
                }
                i += 1;
            }
            Ok(None) => return Ok(None),
            Err(e) if e.is_torn() => return Ok(Some(e.to_string())),
            Err(e) => return Err(e).with_context(|| path.display().to_string()),
        }
    }
}

/// Runs `kifu pos view`.
pub fn view(a: ViewArgs) -> Result<Outcome> {
    if let Some(svg) = &a.svg {
        let inputs = std::iter::once(&a.file).chain(&a.scores);
        crate::output::refuse_overwrite(svg, inputs.map(PathBuf::as_path))?;
    }
    let size = super::size_arg(a.size)?;
    let tables = load_scores(&a.scores)?;
    let key = a.key.as_deref().map(str::to_ascii_lowercase);
    let mut shown = 0u64;
    let mut out = String::new();
    let mut items = Vec::new();
    let mut svgs: Vec<(u64, String)> = Vec::new();
    let torn = for_each_record(&a.file, size, |i, r| {
        if a.limit.is_some_and(|l| shown >= l) {
            return Ok(false);
        }
        if a.index.is_some_and(|x| x != i) {
            return Ok(a.index.is_some_and(|x| x > i));
        }
        let stones = r.board.stone_count();
        if a.min_stones.is_some_and(|m| stones < m) || a.max_stones.is_some_and(|m| stones > m) {
            return Ok(true);
        }
        let id = r.id.to_string();
        if key
            .as_deref()
            .is_some_and(|k| !id.to_ascii_lowercase().starts_with(k))
        {
            return Ok(true);
        }
        shown += 1;
        let (black, white) = (r.board.count(Color::Black), r.board.count(Color::White));
        let (score_text, score_json) = scores_of(&tables, r);
        if a.svg.is_some() {
            svgs.push((
                i,
                svg_diagram(&r.board, &Markup::default(), &SvgOptions::default()),
            ));
        }
        if a.json {
            items.push(json!({
                "index": i, "id": id, "to_play": r.id.to_play.letter().to_string(),
                "stones": stones, "black": black, "white": white,
                "rows": r.board.to_rows().chunks(usize::from(size.get()))
                    .map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>(),
                "extra": r.extra.map(|e| json!({"file_id": e.file_id, "variation": e.variation, "move": e.move_number})),
                "scores": score_json,
            }));
        } else {
            out.push_str(&format!(
                "#{i} {id}  {} to play  {stones} stones ({black} black, {white} white)",
                r.id.to_play
            ));
            if let Some(e) = r.extra {
                out.push_str(&format!(
                    "  file {} variation {} move {}",
                    e.file_id, e.variation, e.move_number
                ));
            }
            out.push('\n');
            if !tables.is_empty() {
                out.push_str(&format!("scores: {score_text}\n"));
            }
            out.push_str(&ascii_board(&r.board, None));
            out.push('\n');
        }
        Ok(true)
    })?;
    if let Some(t) = &torn {
        crate::output::message(format_args!("warning: {}: {t}", a.file.display()));
    }
    if let Some(svg) = &a.svg {
        let pattern = svg.to_string_lossy();
        if pattern.contains("{}") {
            for (i, s) in &svgs {
                write_atomically(
                    Path::new(&pattern.replace("{}", &i.to_string())),
                    s.as_bytes(),
                )?;
            }
        } else if svgs.len() == 1 {
            write_atomically(svg, svgs[0].1.as_bytes())?;
        } else {
            crate::usage!(
                "--svg {}: {} positions selected; select one (--index) or put {{}} in the name",
                svg.display(),
                svgs.len()
            );
        }
    }
    if a.json {
        super::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({"positions": items}))?
        ))?;
    } else {
        super::emit(&out)?;
    }
    Ok(if torn.is_some() {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

fn stats_of(path: &Path, size: kifu_go::BoardSize) -> Result<(FileStats, Option<String>)> {
    let mut stats = FileStats::default();
    let mut seen = HashSet::new();
    let torn = for_each_record(path, size, |_, r| {
        stats.add(r, &mut seen);
        Ok(true)
    })?;
    if let Some(t) = &torn {
        crate::output::message(format_args!("warning: {}: {t}", path.display()));
    }
    Ok((stats, torn))
}

/// Runs `kifu pos histogram`.
pub fn histogram(a: HistogramArgs) -> Result<Outcome> {
    if let Some(svg) = &a.svg {
        crate::output::refuse_overwrite(svg, [a.file.as_path()])?;
    }
    let size = super::size_arg(a.size)?;
    let mut text = String::new();
    macro_rules! o { ($($t:tt)*) => {{ text.push_str(&format!($($t)*)); text.push('\n'); }} }
    let (stats, torn) = stats_of(&a.file, size)?;
    if let Some(svg) = &a.svg {
        write_atomically(svg, histogram_svg(&stats.by_stones).as_bytes())?;
    }
    if a.json {
        let rows: Vec<Value> = stats
            .by_stones
            .iter()
            .map(|(s, n)| json!({"stones": s, "positions": n}))
            .collect();
        o!(
            "{}",
            serde_json::to_string_pretty(&json!({"records": stats.records, "by_stones": rows}))?
        );
    } else {
        o!("stones  positions  percent");
        for (s, n) in &stats.by_stones {
            o!(
                "{s:>6}  {n:>9}  {:>6.2}%",
                *n as f64 * 100.0 / stats.records as f64
            );
        }
        o!(" total  {:>9}", stats.records);
    }
    super::emit(&text)?;
    Ok(if torn.is_some() {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

/// Runs `kifu pos stats`.
pub fn stats(a: HistogramArgs) -> Result<Outcome> {
    let size = super::size_arg(a.size)?;
    let mut text = String::new();
    macro_rules! o { ($($t:tt)*) => {{ text.push_str(&format!($($t)*)); text.push('\n'); }} }
    if a.svg.is_some() {
        crate::usage!("--svg is for kifu pos histogram");
    }
    let (s, torn) = stats_of(&a.file, size)?;
    let (min, max) = (
        s.by_stones.keys().next().copied(),
        s.by_stones.keys().next_back().copied(),
    );
    let extra_share = if s.records > 0 {
        s.with_extra as f64 / s.records as f64
    } else {
        0.0
    };
    let v = json!({
        "file": a.file.display().to_string(), "size": size.get(),
        "records": s.records, "bytes": s.bytes,
        "with_extra": s.with_extra, "extra_share": extra_share,
        "black_to_play": s.black_to_play, "white_to_play": s.white_to_play,
        "distinct_ids": s.distinct_ids, "duplicate_ids": s.duplicate_ids,
        "tiebroken": s.tiebroken,
        "min_stones": min, "max_stones": max, "mean_stones": s.mean_stones(),
        "torn": torn,
    });
    if a.json {
        o!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        o!("records        {}", s.records);
        o!("bytes          {}", s.bytes);
        o!("black to play  {}", s.black_to_play);
        o!("white to play  {}", s.white_to_play);
        o!(
            "extra info     {} ({:.1}%)",
            s.with_extra,
            extra_share * 100.0
        );
        o!("distinct ids   {}", s.distinct_ids);
        o!("duplicate ids  {}", s.duplicate_ids);
        o!("tiebreaker > 0 {}", s.tiebroken);
        match (min, max) {
            (Some(lo), Some(hi)) => o!("stones         {lo} to {hi}, mean {:.2}", s.mean_stones()),
            _ => o!("stones         -"),
        }
    }
    super::emit(&text)?;
    Ok(if torn.is_some() {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
