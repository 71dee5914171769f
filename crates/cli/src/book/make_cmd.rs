//! `kifu book make`: a book from PGN (kifu-polyglot's `make`), in one pass or as a sharded
//! job: `--counts --shard I/N` writes the counts of one shard, `--from-counts` makes the book
//! from the counts of every shard, the same bytes as one pass.

use super::CompatArg;
use crate::output::{progress, write_atomically_with};
use crate::Outcome;
use anyhow::Result;
use clap::Args;
use kifu_polyglot::make::{self, Compat, MakeOptions, MakeReport};
use kifu_polyglot::{Entry, Header};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `kifu book make` arguments.
#[derive(Args, Debug)]
pub struct MakeArgs {
    /// PGN files (`-` for stdin, not with --counts).
    #[arg(required_unless_present = "from_counts")]
    pgn: Vec<PathBuf>,
    /// Output: the book, or with --counts the counts file.
    #[arg(short, long)]
    output: PathBuf,
    /// Write the counts of the games (wins, draws, losses per position and move; see
    /// kifu-polyglot's `make::counts`) instead of a book: the part of a sharded job. The filters
    /// (--min-game, --min-score, --only-*, --uniform) apply when the book is made from them.
    #[arg(long, requires = "pgn")]
    counts: bool,
    #[command(flatten)]
    sharding: crate::args::Sharding,
    /// Make the book from these counts files, one per shard of one job, in any order (the PGN
    /// files they name are read again only when a move reached 16,384 games).
    #[arg(long, num_args = 1.., conflicts_with_all = ["pgn", "counts", "compat", "max_ply"])]
    from_counts: Vec<PathBuf>,
    /// `polyglot`: the same bytes as Debian polyglot 2.0.4 make-book (no header, FEN
    /// tags ignored, the first bad game is an error).
    #[arg(long, value_enum)]
    compat: Option<CompatArg>,
    #[command(flatten)]
    threads: crate::args::Threads,
    /// Plies of each game used [default: 1024].
    #[arg(long)]
    max_ply: Option<u32>,
    /// Least games for a move to be kept.
    #[arg(long, default_value_t = 3)]
    min_game: u32,
    /// Least score in percent for a move to be kept.
    #[arg(long, default_value_t = 0.0, value_parser = crate::args::percent)]
    min_score: f64,
    /// Keep only White's moves.
    #[arg(long)]
    only_white: bool,
    /// Keep only Black's moves.
    #[arg(long)]
    only_black: bool,
    /// Every weight 1.
    #[arg(long)]
    uniform: bool,
    /// Write no header.
    #[arg(long)]
    no_header: bool,
    /// Header comment (default: what the book was made from).
    #[arg(long)]
    comment: Option<String>,
    /// Distinct (position, move) pairs held in memory before spilling a sorted run to disk.
    #[arg(long, default_value_t = 8 << 20)]
    memory_entries: usize,
    /// Print a summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `kifu book make`.
pub fn run(a: MakeArgs) -> Result<Outcome> {
    if a.json && a.output.as_os_str() == "-" {
        crate::usage!("--json prints to stdout, which -o - takes for the book");
    }
    let inputs = a.pgn.iter().chain(&a.from_counts);
    crate::output::refuse_overwrite(&a.output, inputs.map(PathBuf::as_path))?;
    if a.sharding.shard.is_some() && !a.counts {
        crate::usage!("--shard writes a part of a sharded job: give --counts too");
    }
    let opts = MakeOptions {
        max_ply: a.max_ply.unwrap_or(1024),
        min_game: a.min_game,
        min_score: a.min_score,
        only_white: a.only_white,
        only_black: a.only_black,
        uniform: a.uniform,
        compat: match a.compat {
            Some(CompatArg::Polyglot) => Compat::Polyglot,
            _ => Compat::Kifu,
        },
        max_entries_in_memory: a.memory_entries.max(1),
        temp_dir: a
            .output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf),
    };
    let threads = a.threads;
    if !a.from_counts.is_empty() {
        return threads.run(|| from_counts(&a, &opts))?;
    }
    if a.counts {
        return threads.run(|| counts(&a, &opts))?;
    }
    threads.run(|| make_book(&a, &opts))?
}

fn header(a: &MakeArgs, compat: Compat, names: &[PathBuf]) -> Option<Header> {
    if a.no_header || compat == Compat::Polyglot {
        return None;
    }
    let text = a
        .comment
        .clone()
        .unwrap_or_else(|| format!("made by kifu book make from {}", make::file_names(names)));
    Some(Header::new(vec!["normal".into()], text))
}

fn total_bytes(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// Writes a book: the header, then every entry `make` hands over, to `output` safely.
fn write_book(
    output: &Path,
    header: Option<&Header>,
    make: impl FnOnce(&mut dyn FnMut(&Entry) -> kifu_polyglot::Result<()>) -> Result<()>,
) -> Result<()> {
    write_atomically_with(output, |w| {
        if let Some(h) = header {
            w.write_all(&h.to_records()?)?;
        }
        let mut sink = |e: &Entry| -> kifu_polyglot::Result<()> {
            w.write_all(&e.to_bytes())
                .map_err(kifu_polyglot::Error::from)
        };
        make(&mut sink)
    })
}

fn make_book(a: &MakeArgs, opts: &MakeOptions) -> Result<Outcome> {
    let mut pgn = a.pgn.clone();
    // stdin cannot be read twice (halving may need a second pass): spool it, in a locked
    // temporary file that a later run removes if this one is killed. Messages name it <stdin>.
    let mut spool = None;
    for p in pgn.iter_mut() {
        if p.as_os_str() == "-" {
            if spool.is_some() {
                crate::usage!("`-` (stdin) can be given once");
            }
            let tmp = kifu_fs::atomic::spool_stdin()?;
            *p = tmp.path().to_path_buf();
            spool = Some(tmp);
        }
    }
    let spool_path = spool.as_ref().map(|t| t.path().to_path_buf());
    let shown = |p: &Path| -> PathBuf {
        if spool_path.as_deref() == Some(p) {
            PathBuf::from("<stdin>")
        } else {
            p.to_path_buf()
        }
    };
    let names: Vec<PathBuf> = pgn.iter().map(|p| shown(p)).collect();
    let bar = progress(total_bytes(&pgn), "reading PGN");
    let header = header(a, opts.compat, &names);
    let mut report = None;
    write_book(&a.output, header.as_ref(), |sink| {
        let made = make::make_book_to(&pgn, opts, &|b| bar.set_position(b), sink);
        report = Some(made.map_err(|e| match e {
            kifu_polyglot::Error::Game { path, game, reason } => kifu_polyglot::Error::Game {
                path: shown(&path),
                game,
                reason,
            },
            kifu_polyglot::Error::Io { path, source } => kifu_polyglot::Error::Io {
                path: shown(&path),
                source,
            },
            e => e,
        })?);
        Ok(())
    })?;
    bar.finish_and_clear();
    let r = report.expect("set when writing succeeded");
    let skipped: Vec<make::SkippedGame> = r
        .skipped
        .iter()
        .map(|s| make::SkippedGame {
            path: shown(&s.path),
            ..s.clone()
        })
        .collect();
    summary(a, &r, &skipped)
}

fn summary(a: &MakeArgs, r: &MakeReport, skipped: &[make::SkippedGame]) -> Result<Outcome> {
    for s in skipped {
        crate::output::message(format_args!("warning: skipped {s}"));
    }
    if a.json {
        writeln!(
            crate::output::stdout(),
            "{}",
            json!({"output": a.output.display().to_string(), "games": r.games, "skipped": r.skipped.len(), "plies": r.plies,
                   "pairs": r.pairs, "entries": r.written, "runs_spilled": r.runs_spilled, "halved_positions": r.halved_keys})
        )?;
    } else {
        crate::output::message(format_args!(
            "{}: {} games ({} skipped), {} plies, {} entries",
            a.output.display(),
            r.games,
            r.skipped.len(),
            r.plies,
            r.written
        ));
    }
    Ok(Outcome::Ok)
}

fn counts(a: &MakeArgs, opts: &MakeOptions) -> Result<Outcome> {
    if a.pgn.iter().any(|p| p.as_os_str() == "-") {
        crate::usage!("--counts needs PGN files, not `-`: a merge may read them again");
    }
    let shard = a
        .sharding
        .shard
        .unwrap_or_else(kifu_fs::shard::Shard::whole);
    let bar = progress(total_bytes(&a.pgn), "counting PGN");
    let mut info = None;
    write_atomically_with(&a.output, |w| {
        info = Some(make::make_counts(
            &a.pgn,
            opts,
            shard,
            &|b| bar.set_position(b),
            w,
        )?);
        Ok(())
    })?;
    bar.finish_and_clear();
    let info = info.expect("set when writing succeeded");
    let skipped = make::counts::skipped_games(&info);
    for s in &skipped {
        crate::output::message(format_args!("warning: skipped {s}"));
    }
    if a.json {
        writeln!(
            crate::output::stdout(),
            "{}",
            json!({"output": a.output.display().to_string(), "shard": shard.to_string(),
                   "games": info.games, "skipped": skipped.len(), "plies": info.plies,
                   "pairs": info.records})
        )?;
    } else {
        crate::output::message(format_args!(
            "{}: shard {shard}: {} games ({} skipped), {} plies, {} (position, move) pairs",
            a.output.display(),
            info.games,
            skipped.len(),
            info.plies,
            info.records
        ));
    }
    Ok(Outcome::Ok)
}

fn from_counts(a: &MakeArgs, opts: &MakeOptions) -> Result<Outcome> {
    // The header names the PGN files, which only the parts know: read the first one's trailer
    // before the book is written.
    let first = make::CountsPart::open(&a.from_counts[0])?;
    let names: Vec<PathBuf> = first.info.inputs.iter().map(|f| f.path.clone()).collect();
    // The PGN files the counts name are read again for the moves of the most played
    // positions: the book may not replace one.
    crate::output::refuse_overwrite(&a.output, names.iter().map(PathBuf::as_path))?;
    let compat = if first.info.compat == "polyglot" {
        Compat::Polyglot
    } else {
        Compat::Kifu
    };
    drop(first);
    let header = header(a, compat, &names);
    let mut report = None;
    write_book(&a.output, header.as_ref(), |sink| {
        report = Some(make::make_book_from_counts(&a.from_counts, opts, sink)?);
        Ok(())
    })?;
    let (r, info) = report.expect("set when writing succeeded");
    summary(a, &r, &make::counts::skipped_games(&info))
}
