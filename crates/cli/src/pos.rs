//! `kifu pos ...`: position databases. The file formats are in kifu-posdb, the engine work in
//! kifu-gtp; this module reads and writes files safely, resumes, shards and reports.

use crate::output::{progress, write_atomically, write_atomically_with};
use crate::Outcome;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use kifu_go::BoardSize;
use kifu_gtp::{score_all, EngineConfig, Event, Job, ScoreConfig, StderrMode};
use kifu_posdb::provenance::{check_parts, sidecar_path, EngineInfo, Provenance};
use kifu_posdb::scored;
use kifu_posdb::{
    PositionId, PositionReader, PositionRecord, PositionWriter, ScoredPosition, SCORED_BYTES,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod export;
mod extract;
mod index;
mod search;
mod view;

/// The `kifu pos` subcommands.
#[derive(Subcommand, Debug)]
pub enum PosCommand {
    /// Extract the distinct positions of game collections (SGF, Ishi .go, ASCII positions) into a position
    /// file: de-duplicated under the 8 symmetries by key and board, in input order, the same
    /// bytes for any number of threads, in bounded memory (external sort).
    Extract(extract::ExtractArgs),
    /// Show positions as ASCII boards (or SVG), filtered by index, stone count or key, with the
    /// scores of any number of scored files side by side.
    View(view::ViewArgs),
    /// Positions by number of stones: a table, and an SVG bar chart with --svg.
    Histogram(view::HistogramArgs),
    /// Counts of a position file: records, sizes, side to play, extra info, duplicates.
    Stats(view::HistogramArgs),
    /// Index every main-line position of game collections for full-board search.
    Index(index::IndexArgs),
    /// Pattern search: a corner, side or free pattern (wildcards allowed), in any orientation and
    /// optionally with colours swapped, with game-info filters; the games, continuations with win
    /// rates, tenuki, hits by year.
    Search(Box<search::SearchArgs>),
    /// Duplicate games of a database: the same game stored twice, in any orientation (a
    /// Dyer-style signature: moves 20, 31, 40, 51, 60, 71). Exit 1 when there are any.
    Duplicates(search::DuplicatesArgs),
    /// The games that reached a position (any symmetry, optionally colours swapped) and their
    /// continuations with counts and win rates; scores from scored files.
    Lookup(index::LookupArgs),
    /// Export an index's positions (each with its next move, game and result) or a position
    /// file's records as an Apache Parquet file, for pandas, Polars, DuckDB and Spark.
    Export(export::ExportArgs),
    /// Score positions with a GTP engine (resumable: positions already in the output are skipped).
    ///
    /// Each result is appended to the output as one whole 12-byte record and flushed as it comes
    /// (in completion order, so the order depends on -j); a kill loses only positions in flight,
    /// and a torn last record is cut off on the next start. Positions with the same id are scored
    /// once. Score = on-board margin of the median playout, clamped to 3..8; confidence = percent
    /// of playouts whose clamped margin equals it (see kifu-posdb's ScoredPosition).
    Score(ScoreArgs),
    /// Merge scored files (or, with --positions, position/queue files) without duplicates. An id
    /// scored differently in several files keeps the record with the highest confidence, and among
    /// equal confidences the one from the earliest file; positions keep their first record.
    Merge(MergeArgs),
    /// Compare two scored files: where the two scorers disagree. Exit 1 if they disagree anywhere.
    Compare {
        /// The first scored file.
        a: PathBuf,
        /// The second scored file.
        b: PathBuf,
        /// Most disagreements listed.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
}

/// `kifu pos score` arguments.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Position or queue files (`-` for stdin).
    #[arg(required = true)]
    positions: Vec<PathBuf>,
    /// The engine command line, split like a shell would: "gnugo --mode gtp --level 0".
    #[arg(long)]
    engine: String,
    /// Ruleset (`chinese`, `japanese`, ...): GNU Go flags, or `kgs-rules` for engines that have it.
    #[arg(long)]
    rules: Option<String>,
    /// The scored file: created, or resumed (its whole records are kept; a torn last record is cut).
    #[arg(short, long)]
    output: PathBuf,
    /// Board size of the position files.
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Playouts (final_score with different seeds) per position.
    #[arg(long, default_value_t = 3)]
    playouts: u32,
    /// First seed: playout k uses seed + 2k, plus 1 with White to play.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Timeout of each engine command and of the engine's start, in seconds [default: 60 for
    /// commands, 20 for the start].
    #[arg(long, value_parser = crate::gtp::parse_timeout)]
    timeout: Option<Duration>,
    /// Retries of a position after the engine died, hung or answered garbage.
    #[arg(long, default_value_t = 2)]
    retries: u32,
    #[command(flatten)]
    threads: crate::args::Threads,
    /// Write the positions still to do at the end (failed, stopped, never reached) to this
    /// position file: the input of a later run.
    #[arg(long)]
    queue_out: Option<PathBuf>,
    #[command(flatten)]
    sharding: crate::args::Sharding,
    /// Pass the engine's standard error through (it is discarded by default).
    #[arg(long)]
    engine_stderr: bool,
    /// JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// `kifu pos merge` arguments.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The files, in priority order.
    #[arg(required = true, num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// Output file (may be one of the inputs; written safely).
    #[arg(short, long)]
    output: PathBuf,
    /// The inputs are position or queue files (the first record of each position is kept).
    #[arg(long)]
    positions: bool,
    /// Board size, with --positions.
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Write the records sorted by position id (hash, tiebreaker, side to move): the canonical
    /// form, the same bytes however the work was split and in whatever order it finished.
    #[arg(long)]
    sort: bool,
    /// The inputs are the parts of a sharded `pos score` run (check from their provenance
    /// sidecars that they were made alike, that every shard 1..N is there once and complete,
    /// and write the merged file's sidecar; implies --sort), or of a sharded `pos extract` run
    /// (told by their manifests; the records are merged into the order of one run).
    #[arg(long, conflicts_with = "positions")]
    shards: bool,
    /// JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs a `kifu pos` subcommand.
pub fn run(cmd: PosCommand) -> Result<Outcome> {
    match cmd {
        PosCommand::Extract(a) => extract::run(a),
        PosCommand::View(a) => view::view(a),
        PosCommand::Histogram(a) => view::histogram(a),
        PosCommand::Stats(a) => view::stats(a),
        PosCommand::Index(a) => index::index(a),
        PosCommand::Lookup(a) => index::lookup(a),
        PosCommand::Export(a) => export::run(a),
        PosCommand::Search(a) => search::search(*a),
        PosCommand::Duplicates(a) => search::duplicates(a),
        PosCommand::Score(a) => score(a),
        PosCommand::Merge(a) => merge(a),
        PosCommand::Compare { a, b, limit, json } => compare(&a, &b, limit, json),
    }
}

/// Writes command output to stdout (a closed pipe ends the command quietly, see `main`).
fn emit(text: &str) -> Result<()> {
    crate::output::stdout().write_all(text.as_bytes())?;
    Ok(())
}

fn size_arg(n: u32) -> Result<BoardSize> {
    BoardSize::new(n).map_err(|e| crate::UsageError(format!("--size {n}: {e}")).into())
}

fn open_input(path: &Path) -> Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let f = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
}

/// Reads position files; a torn last record is reported and skipped (the input is not changed),
/// any other bad record is an error.
fn read_position_files(paths: &[PathBuf], size: BoardSize) -> Result<Vec<PositionRecord>> {
    let mut out = Vec::new();
    for path in paths {
        for item in PositionReader::new(open_input(path)?, size) {
            match item {
                Ok(r) => out.push(r),
                Err(e) if e.is_torn() => {
                    crate::output::message(format_args!(
                        "warning: {}: {e}; the whole records before it are used",
                        path.display()
                    ));
                }
                Err(e) => return Err(e).with_context(|| path.display().to_string()),
            }
        }
    }
    Ok(out)
}

fn score(a: ScoreArgs) -> Result<Outcome> {
    let started = Instant::now();
    let size = size_arg(a.size)?;
    let shard = a.sharding.shard;
    if a.playouts == 0 {
        crate::usage!("--playouts must be at least 1");
    }
    let mut engine = EngineConfig::from_command_line(&a.engine)?;
    // GNU Go is often not on PATH (Debian puts it in /usr/games).
    if engine.argv[0] == "gnugo" && which("gnugo").is_none() {
        let games = Path::new("/usr/games/gnugo");
        if games.exists() {
            engine.argv[0] = games.display().to_string();
        }
    }
    crate::gtp::set_timeout(&mut engine, a.timeout);
    if a.engine_stderr {
        engine.stderr = StderrMode::Inherit;
    }
    let config = ScoreConfig {
        playouts: a.playouts,
        seed_base: a.seed,
        rules: a.rules.clone(),
        timeout: engine.command_timeout,
        retries: a.retries,
        ..ScoreConfig::default()
    };

    // The positions: distinct ids (first record kept), in this shard.
    let input = read_position_files(&a.positions, size)?;
    let input_records = input.len();
    let mut seen = HashSet::new();
    let mut distinct = Vec::new();
    for r in input {
        if seen.insert(r.id) {
            distinct.push(r);
        }
    }
    let n_distinct = distinct.len();
    if let Some(shard) = shard {
        distinct.retain(|r| shard.contains(r.id.hash));
    }
    let in_shard = distinct.len();

    // Resume: what the output already has, read under the run's lock.
    let mut out = scored::open_for_append(&a.output)?;
    // The provenance: which engine and settings; a file made otherwise is not appended to.
    let mut prov = Provenance {
        kifu: env!("CARGO_PKG_VERSION").to_string(),
        engine: engine_info(&engine)?,
        rules: a.rules.clone().unwrap_or_default(),
        komi: 0.0,
        playouts: a.playouts,
        seed: a.seed,
        size: u32::from(size.get()),
        positions: a
            .positions
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        distinct: n_distinct as u64,
        shard: shard.map(|s| (s.number(), s.count())),
        in_shard: in_shard as u64,
        complete: false,
    };
    if let Some(earlier) = Provenance::read(&a.output)? {
        prov.check_resume(&earlier, &sidecar_path(&a.output))?;
    }
    write_atomically(&sidecar_path(&a.output), prov.to_json().as_bytes())?;
    let existing = scored::read_scored(&a.output, true)?;
    if let Some(r) = existing.repaired {
        crate::output::message(format_args!(
            "{}: repaired: record {} (byte offset {}) was torn; {} bytes cut",
            a.output.display(),
            r.record,
            r.offset,
            r.bytes_cut
        ));
    }
    let done: HashSet<PositionId> = existing.records.iter().map(|s| s.id).collect();
    let todo: Vec<PositionRecord> = distinct
        .iter()
        .filter(|r| !done.contains(&r.id))
        .cloned()
        .collect();
    let already = in_shard - todo.len();

    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            // A second Ctrl-C: leave now (whole records only have been written), and take the
            // engines' process groups along, since no destructor will.
            kifu_gtp::kill_running_engines();
            std::process::exit(130);
        }
        crate::output::message(format_args!(
            "kifu: stopping (Ctrl-C again to leave at once)..."
        ));
    });

    let workers = a.threads.count().min(todo.len().max(1));
    let bar = progress(todo.len() as u64, "scoring");
    let mut scored = 0usize;
    let mut abandoned = 0usize;
    let mut failures: Vec<Value> = Vec::new();
    let mut lost: Vec<String> = Vec::new();
    let mut write_error: Option<anyhow::Error> = None;
    let mut scored_ids = HashSet::new();
    let mut buf = Vec::with_capacity(SCORED_BYTES);
    let jobs = todo.iter().map(|r| Job {
        tag: r.id,
        board: r.board.clone(),
        to_play: r.id.to_play,
    });
    if !todo.is_empty() {
        score_all(jobs, workers, &engine, &config, &stop, |ev| match ev {
            Event::Scored { tag, playouts } => {
                let Some(s) = ScoredPosition::from_margins(tag, &playouts.margins) else {
                    failures.push(json!({"id": tag.to_string(), "error": "no margins", "attempts": playouts.attempts}));
                    return;
                };
                buf.clear();
                buf.extend_from_slice(&s.to_bytes());
                // One write of the whole record to an append-mode file, then flush.
                if let Err(e) = out.write_all(&buf).and_then(|()| out.flush()) {
                    if write_error.is_none() {
                        write_error = Some(
                            anyhow::Error::new(e)
                                .context(format!("{}: cannot append", a.output.display())),
                        );
                    }
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                scored += 1;
                scored_ids.insert(tag);
                bar.inc(1);
            }
            Event::Failed {
                tag,
                error,
                attempts,
            } => {
                bar.suspend(|| {
                    crate::output::message(format_args!(
                        "kifu: position {tag}: {error} ({attempts} attempts)"
                    ))
                });
                failures.push(
                    json!({"id": tag.to_string(), "error": error.to_string(), "attempts": attempts}),
                );
                bar.inc(1);
                bar.set_message(format!("scoring ({} failed)", failures.len()));
            }
            Event::Abandoned { .. } => abandoned += 1,
            Event::WorkerLost { worker, error } => {
                bar.suspend(|| {
                    crate::output::message(format_args!("kifu: engine {worker}: {error}"))
                });
                lost.push(error.to_string());
            }
        });
    }
    bar.finish_and_clear();
    let _ = out.sync_data();
    if let Some(e) = write_error {
        return Err(e);
    }
    if lost.len() == workers && scored == 0 && failures.is_empty() && !todo.is_empty() {
        bail!("no engine could be started: {}", lost[0]);
    }
    let remaining: Vec<&PositionRecord> = todo
        .iter()
        .filter(|r| !scored_ids.contains(&r.id))
        .collect();
    if let Some(q) = &a.queue_out {
        write_atomically_with(q, |w| {
            let mut pw = PositionWriter::new(w);
            for r in &remaining {
                pw.write(r)?;
            }
            Ok(())
        })?;
    }
    let secs = started.elapsed().as_secs_f64();
    let stopped = stop.load(Ordering::SeqCst);
    prov.complete = remaining.is_empty() && failures.is_empty();
    write_atomically(&sidecar_path(&a.output), prov.to_json().as_bytes())?;
    let summary = json!({
        "output": a.output.display().to_string(),
        "input_records": input_records,
        "distinct": n_distinct,
        "in_shard": in_shard,
        "already_scored": already,
        "scored": scored,
        "failed": failures.len(),
        "failures": failures,
        "abandoned": abandoned,
        "remaining": remaining.len(),
        "engines": workers,
        "engines_lost": lost.len(),
        "stopped": stopped,
        "repaired": existing.repaired,
        "seconds": secs,
        "positions_per_second": if secs > 0.0 { scored as f64 / secs } else { 0.0 },
    });
    if a.json {
        crate::output::print_json(&summary)?;
    } else {
        crate::output::message(format_args!(
            "scored {scored} positions in {secs:.1}s ({:.2}/s, {workers} engines); {already} already \
             scored, {} failed, {} still to do{}",
            summary["positions_per_second"].as_f64().unwrap_or(0.0),
            summary["failed"],
            remaining.len(),
            if stopped { " (stopped)" } else { "" }
        ));
    }
    Ok(if remaining.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

/// The engine's GTP `name` and `version`, asked of a short-lived instance.
fn engine_info(config: &EngineConfig) -> Result<EngineInfo> {
    let mut engine = kifu_gtp::Engine::start(config.clone())
        .with_context(|| format!("cannot start the engine {}", config.command_line()))?;
    let name = engine.command("name").context("the engine's name")?;
    let version = engine.command("version").context("the engine's version")?;
    engine.shutdown();
    Ok(EngineInfo {
        command: config.command_line(),
        name: name.trim().to_string(),
        version: version.trim().to_string(),
    })
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// Merge rule for scored files: for an id present in several inputs with different records, the
/// record with the highest confidence wins, and among equal confidences the first input (in
/// argument order) wins. The output keeps the order of first appearance.
fn merge(a: MergeArgs) -> Result<Outcome> {
    if a.shards
        && a.inputs
            .iter()
            .any(|p| kifu_posdb::parts::is_extract_part(p))
    {
        return merge_extract(&a);
    }
    let parts = if a.shards {
        Some(check_parts(&a.inputs)?)
    } else {
        None
    };
    let sort = a.sort || a.shards;
    let mut order: Vec<PositionId> = Vec::new();
    let mut total = 0usize;
    let mut conflicts = 0usize;
    if a.positions {
        let size = size_arg(a.size)?;
        let mut kept: HashMap<PositionId, PositionRecord> = HashMap::new();
        for path in &a.inputs {
            for r in read_position_files(std::slice::from_ref(path), size)? {
                total += 1;
                if let Some(old) = kept.get(&r.id) {
                    if kifu_posdb::canonical_rows(&old.board)
                        != kifu_posdb::canonical_rows(&r.board)
                    {
                        conflicts += 1;
                    }
                    continue;
                }
                order.push(r.id);
                kept.insert(r.id, r);
            }
        }
        if sort {
            order.sort_unstable();
        }
        write_atomically_with(&a.output, |w| {
            let mut pw = PositionWriter::new(w);
            for id in &order {
                pw.write(&kept[id])?;
            }
            Ok(())
        })?;
    } else {
        let merged = scored::merge_scored(&a.inputs, sort)?;
        total = merged.read as usize;
        conflicts = merged.conflicts as usize;
        order = merged.records.iter().map(|r| r.id).collect();
        write_atomically_with(&a.output, |w| {
            for r in &merged.records {
                w.write_all(&r.to_bytes())?;
            }
            Ok(())
        })?;
        if let Some(parts) = &parts {
            let merged = Provenance {
                shard: None,
                in_shard: parts.iter().map(|p| p.in_shard).sum(),
                complete: true,
                ..parts[0].clone()
            };
            write_atomically(&sidecar_path(&a.output), merged.to_json().as_bytes())?;
        }
    }
    let v = json!({"inputs": a.inputs.len(), "records_read": total, "written": order.len(),
                   "duplicates": total - order.len(), "conflicts": conflicts});
    if a.json {
        crate::output::print_json(&v)?;
    } else {
        crate::output::message(format_args!(
            "merged {} records from {} files into {} ({} duplicates, {} conflicting)",
            total,
            a.inputs.len(),
            order.len(),
            total - order.len(),
            conflicts
        ));
    }
    Ok(Outcome::Ok)
}

/// `pos merge --shards` of the parts of a sharded extraction: the records of one run.
fn merge_extract(a: &MergeArgs) -> Result<Outcome> {
    let mut written = 0;
    write_atomically_with(&a.output, |w| {
        written = kifu_posdb::parts::merge_extract_parts(&a.inputs, w)?;
        Ok(())
    })?;
    if a.json {
        crate::output::print_json(&json!({"inputs": a.inputs.len(), "written": written}))?;
    } else {
        crate::output::message(format_args!(
            "merged {} extraction parts into {} ({written} positions)",
            a.inputs.len(),
            a.output.display()
        ));
    }
    Ok(Outcome::Ok)
}

fn compare(a: &Path, b: &Path, limit: usize, json_out: bool) -> Result<Outcome> {
    let c = scored::compare(a, b, limit)?;
    let (both, agree, only_a, only_b) = (c.in_both, c.agree, c.only_in_a, c.only_in_b);
    if json_out {
        crate::output::print_json(&c)?;
    } else {
        writeln!(
            crate::output::stdout(),
            "{both} positions in both: {agree} agree, {} disagree; {only_a} only in {}, {only_b} only in {}",
            both - agree,
            a.display(),
            b.display()
        )?;
        writeln!(
            crate::output::stdout(),
            "score difference 0..5+: {}",
            c.by_difference.map(|n| n.to_string()).join(" ")
        )?;
        for d in &c.disagreements {
            writeln!(
                crate::output::stdout(),
                "{}  a: {} ({}%)  b: {} ({}%)",
                d.id,
                d.a.score,
                d.a.confidence,
                d.b.score,
                d.b.confidence
            )?;
        }
    }
    Ok(if both == agree {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}
