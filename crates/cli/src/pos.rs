//! `kifu pos ...`: position databases. The file formats are in kifu-posdb, the engine work in
//! kifu-gtp; this module reads and writes files safely, resumes, shards and reports.

use crate::output::{progress, write_atomically, write_atomically_with};
use crate::Outcome;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use kifu_go::BoardSize;
use kifu_gtp::analysis::AnalysisConfig;
use kifu_gtp::job::{self, Method, Progress as JobProgress, ScoreJob};
use kifu_gtp::{EngineConfig, ScoreConfig, StderrMode};
use kifu_posdb::provenance::{check_parts, sidecar_path, Provenance};
use kifu_posdb::scored;
use kifu_posdb::{PositionId, PositionReader, PositionRecord, PositionWriter};
use serde_json::json;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod export;
pub(crate) mod extract;
pub(crate) mod index;
mod search;
mod verify;
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
    /// Check a database: every block of the index against its checksum, and the pattern index
    /// beside it against its own. Exit 1, naming the file and the bytes, when one does not
    /// match.
    Verify(verify::VerifyArgs),
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

/// How positions are scored: the engine and its settings, the same for `kifu pos score` and
/// `kifu slurm score` (whose tasks get them back through [`EngineArgs::to_args`]).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// The engine command line, split like a shell would: "gnugo --mode gtp --level 0".
    #[arg(long)]
    pub engine: String,
    /// Ruleset (`chinese`, `japanese`, ...): GNU Go flags, or `kgs-rules` for engines that have it.
    #[arg(long)]
    pub rules: Option<String>,
    /// Board size of the position files.
    #[arg(long, default_value_t = 9)]
    pub size: u32,
    /// How the engine is asked: `gtp` (`final_score` playouts; any GTP engine) or `analysis`
    /// (KataGo's JSON analysis engine: `katago analysis -model M -config C`; score byte from
    /// its score lead, confidence from the lead's predicted deviation, see kifu-posdb's
    /// `ScoredPosition::from_estimate`).
    #[arg(long, value_enum, default_value_t = Protocol::Gtp)]
    pub protocol: Protocol,
    /// Visits of each analysis search (with --protocol analysis).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub visits: u32,
    /// Playouts (final_score with different seeds) per position.
    #[arg(long, default_value_t = 3)]
    pub playouts: u32,
    /// First seed: playout k uses seed + 2k, plus 1 with White to play.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Timeout of each engine command and of the engine's start, in seconds [default: 60 for
    /// commands, 20 for the start].
    #[arg(long, value_parser = crate::gtp::parse_timeout)]
    pub timeout: Option<Duration>,
    /// Retries of a position after the engine died, hung or answered garbage.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
}

impl EngineArgs {
    /// The options as `kifu pos score` takes them, each shell-quoted by `quote`.
    pub fn to_args(&self, quote: impl Fn(&str) -> String) -> Vec<String> {
        let mut v = vec![
            "--engine".to_string(),
            quote(&self.engine),
            "--size".into(),
            self.size.to_string(),
            "--protocol".into(),
            match self.protocol {
                Protocol::Gtp => "gtp",
                Protocol::Analysis => "analysis",
            }
            .into(),
            "--visits".into(),
            self.visits.to_string(),
            "--playouts".into(),
            self.playouts.to_string(),
            "--seed".into(),
            self.seed.to_string(),
            "--retries".into(),
            self.retries.to_string(),
        ];
        if let Some(r) = &self.rules {
            v.extend(["--rules".into(), quote(r)]);
        }
        if let Some(t) = self.timeout {
            v.extend(["--timeout".into(), t.as_secs_f64().to_string()]);
        }
        v
    }
}

/// `kifu pos score` arguments.
#[derive(Args, Debug)]
pub struct ScoreArgs {
    /// Position or queue files (`-` for stdin).
    #[arg(required = true)]
    positions: Vec<PathBuf>,
    /// The scored file: created, or resumed (its whole records are kept; a torn last record is cut).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    engine: EngineArgs,
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

/// `--protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// GTP `final_score` playouts.
    Gtp,
    /// KataGo's JSON analysis engine.
    Analysis,
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
        PosCommand::Verify(a) => verify::verify(a),
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
    for out in std::iter::once(&a.output).chain(&a.queue_out) {
        crate::output::refuse_overwrite(out, a.positions.iter().map(PathBuf::as_path))?;
    }
    if let Some(q) = &a.queue_out {
        // The scored output is read back when a run resumes: the queue may not replace it.
        crate::output::refuse_overwrite(q, [a.output.as_path()])?;
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        if absolute(q)
            .components()
            .eq(absolute(&a.output).components())
        {
            crate::usage!("--queue-out {}: the same file as -o", q.display());
        }
    }
    let e = &a.engine;
    let size = size_arg(e.size)?;
    if e.playouts == 0 {
        crate::usage!("--playouts must be at least 1");
    }
    let analysis = e.protocol == Protocol::Analysis;
    let mut engine = EngineConfig::from_command_line(&e.engine)?;
    // GNU Go is often not on PATH (Debian puts it in /usr/games).
    if engine.argv[0] == "gnugo" && which("gnugo").is_none() {
        let games = Path::new("/usr/games/gnugo");
        if games.exists() {
            engine.argv[0] = games.display().to_string();
        }
    }
    crate::gtp::set_timeout(&mut engine, e.timeout);
    if a.engine_stderr {
        engine.stderr = StderrMode::Inherit;
    }
    let method = if analysis {
        Method::Analysis {
            config: AnalysisConfig {
                visits: e.visits,
                rules: e.rules.clone().unwrap_or_else(|| "chinese".to_string()),
                komi: 0.0,
            },
            restarts: e.retries,
        }
    } else {
        Method::Gtp(ScoreConfig {
            playouts: e.playouts,
            seed_base: e.seed,
            rules: e.rules.clone(),
            timeout: engine.command_timeout,
            retries: e.retries,
            ..ScoreConfig::default()
        })
    };
    let positions = read_position_files(&a.positions, size)?;
    let provenance = Provenance {
        kifu: env!("CARGO_PKG_VERSION").to_string(),
        engine: job::engine_info(&engine, analysis)?,
        protocol: if analysis { "analysis" } else { "gtp" }.to_string(),
        visits: if analysis { e.visits } else { 0 },
        rules: e.rules.clone().unwrap_or_default(),
        komi: 0.0,
        playouts: if analysis { 0 } else { e.playouts },
        seed: if analysis { 0 } else { e.seed },
        size: u32::from(size.get()),
        positions: a
            .positions
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        distinct: 0,
        shard: None,
        in_shard: 0,
        complete: false,
    };
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
    let workers = if analysis && a.threads.jobs == 0 {
        // Queries outstanding: enough to keep the engine's batches full.
        16
    } else {
        a.threads.count()
    };
    let bar = progress(0, "scoring");
    let mut failed = 0usize;
    let r = job::run(
        ScoreJob {
            positions,
            output: a.output.clone(),
            shard: a.sharding.shard,
            engine,
            method,
            workers,
            provenance,
        },
        &stop,
        &mut |p| match p {
            JobProgress::Done { handled, total } => {
                bar.set_length(total);
                bar.set_position(handled);
            }
            JobProgress::Failed(f) => {
                failed += 1;
                bar.suspend(|| {
                    crate::output::message(format_args!(
                        "kifu: position {}: {} ({} attempts)",
                        f.id, f.error, f.attempts
                    ))
                });
                bar.set_message(format!("scoring ({failed} failed)"));
            }
            JobProgress::EngineLost { worker, error } => bar
                .suspend(|| crate::output::message(format_args!("kifu: engine {worker}: {error}"))),
        },
    )?;
    bar.finish_and_clear();
    if let Some(rep) = r.repaired {
        crate::output::message(format_args!(
            "{}: repaired: record {} (byte offset {}) was torn; {} bytes cut",
            a.output.display(),
            rep.record,
            rep.offset,
            rep.bytes_cut
        ));
    }
    if let Some(q) = &a.queue_out {
        write_atomically_with(q, |w| {
            let mut pw = PositionWriter::new(w);
            for rec in &r.todo {
                pw.write(rec)?;
            }
            Ok(())
        })?;
    }
    if a.json {
        let mut v = serde_json::to_value(&r)?;
        v["output"] = json!(a.output.display().to_string());
        crate::output::print_json(&v)?;
    } else {
        crate::output::message(format_args!(
            "scored {} positions in {:.1}s ({:.2}/s, {} engines); {} already \
             scored, {} failed, {} still to do{}",
            r.scored,
            r.seconds,
            r.positions_per_second,
            r.engines,
            r.already_scored,
            r.failed,
            r.remaining,
            if r.stopped { " (stopped)" } else { "" }
        ));
    }
    Ok(if r.remaining == 0 {
        Outcome::Ok
    } else {
        Outcome::Findings
    })
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

/// `kifu pos merge`: scored files by kifu-posdb's merge rule (see `scored::merge_scored`),
/// position files keeping the first record of each id, or the parts of a sharded run.
fn merge(a: MergeArgs) -> Result<Outcome> {
    if a.json && a.output.as_os_str() == "-" {
        crate::usage!("--json prints to stdout, which -o - takes for the merged file");
    }
    if a.shards {
        // Parts of an extraction or an index build say so in their manifests; scored parts
        // have a provenance sidecar instead.
        let jobs: Vec<String> = a
            .inputs
            .iter()
            .filter_map(|p| kifu_posdb::parts::part_job(p))
            .collect();
        if jobs.iter().any(|j| j == "index") {
            return index::merge_parts(&a.inputs, &a.output, a.json);
        }
        if jobs.iter().any(|j| j == "extract") {
            return merge_extract(&a);
        }
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
