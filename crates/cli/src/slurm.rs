//! `kifu slurm`: a heavy job as a Slurm array of shards plus a dependent merge job.
//!
//! kifu writes the two job scripts into a work folder (so they can be read, kept, and submitted
//! again by hand) and submits them with `sbatch`: the array runs the job's command with
//! `--shard I/N` (`pos score`, `pos extract`, `pos index`, `book make --counts`), one shard a task, each into
//! its own part file (a killed or requeued scoring task resumes its part; extraction and book
//! tasks redo their share); the merge job waits for every task to succeed (`afterok`) and runs
//! the merge (`pos merge --shards`, `book make --from-counts`), which refuses missing, repeated,
//! incomplete or differently made parts. Scores come out sorted (the canonical file, the bytes of
//! a one-process run merged with `--sort`); extractions, indexes and books come out as the bytes
//! of one run, whatever N.
//! Slurm requeues tasks lost with their node (`--requeue`); a task that failed or was cancelled
//! leaves the merge unrunnable (Slurm never re-evaluates a failed `afterok`), so running the same
//! `kifu slurm score` again submits only the shards whose parts are not complete and a new merge.
//! The array script reads its shard from `SLURM_ARRAY_TASK_ID`, or from `JOB_COMPLETION_INDEX`
//! (Kubernetes Indexed Jobs, from 0), so the same script serves both.

use crate::Outcome;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `kifu slurm` subcommands.
#[derive(Subcommand, Debug)]
pub enum SlurmCommand {
    /// Score positions with a GTP engine as an array job of --shards tasks and a merge job.
    Score(ScoreJob),
    /// Extract positions as an array job (`pos extract --shard`) and a merge job (`pos merge
    /// --shards`): the bytes of one `kifu pos extract` run.
    Extract(ExtractJob),
    /// Index games as an array job (`pos index --shard`) and a merge job (`pos merge --shards`):
    /// the bytes of one `kifu pos index` run, and its pattern index.
    Index(IndexJob),
    /// Make a Polyglot book as an array job (`book make --counts --shard`) and a merge job
    /// (`book make --from-counts`): the bytes of one `kifu book make` run.
    Book(BookJob),
}

/// The options of every `kifu slurm` job.
#[derive(Args, Debug)]
pub struct SlurmOptions {
    /// Number of shards (array tasks).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    shards: u64,
    /// Slurm partition.
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each task (Slurm's format: `30`, `2:00:00`, `1-0`).
    #[arg(long)]
    time: Option<String>,
    /// CPUs of each task (its threads or engines).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    cpus_per_task: u32,
    /// The folder for job scripts, parts and logs [default: OUTPUT.slurm].
    #[arg(long)]
    work: Option<PathBuf>,
    /// Write the job scripts but do not submit them.
    #[arg(long)]
    no_submit: bool,
    /// JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// `kifu slurm score` arguments.
#[derive(Args, Debug)]
pub struct ScoreJob {
    /// Position or queue files.
    #[arg(required = true)]
    positions: Vec<PathBuf>,
    /// The merged scored file.
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    engine: crate::pos::EngineArgs,
    #[command(flatten)]
    slurm: SlurmOptions,
}

/// `kifu slurm extract` arguments: those of `kifu pos extract` that a sharded run takes.
#[derive(Args, Debug)]
pub struct ExtractJob {
    /// SGF and Ishi files and folders.
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// The merged position file.
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    select: crate::pos::extract::ExtractSelection,
    #[command(flatten)]
    slurm: SlurmOptions,
}

/// `kifu slurm index` arguments: those of `kifu pos index`.
#[derive(Args, Debug)]
pub struct IndexJob {
    /// SGF and Ishi files and folders.
    #[arg(required = true)]
    games: Vec<PathBuf>,
    /// The merged index.
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    select: crate::pos::index::IndexSelection,
    #[command(flatten)]
    slurm: SlurmOptions,
}

/// `kifu slurm book` arguments: those of `kifu book make`.
#[derive(Args, Debug)]
pub struct BookJob {
    /// PGN files.
    #[arg(required = true)]
    pgn: Vec<PathBuf>,
    /// The book.
    #[arg(short, long)]
    output: PathBuf,
    /// `polyglot` or `kifu`, as for `kifu book make`.
    #[arg(long)]
    compat: Option<String>,
    /// Plies of each game used.
    #[arg(long)]
    max_ply: Option<u32>,
    /// Least games for a move to be kept.
    #[arg(long)]
    min_game: Option<u32>,
    /// Least score in percent for a move to be kept.
    #[arg(long)]
    min_score: Option<f64>,
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
    /// Header comment.
    #[arg(long)]
    comment: Option<String>,
    #[command(flatten)]
    slurm: SlurmOptions,
}

/// Runs a `kifu slurm` subcommand.
pub fn run(cmd: SlurmCommand) -> Result<Outcome> {
    match cmd {
        SlurmCommand::Score(a) => score(a),
        SlurmCommand::Extract(a) => extract(a),
        SlurmCommand::Index(a) => index(a),
        SlurmCommand::Book(a) => book(a),
    }
}

/// Quotes `s` for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn sh_path(p: &Path) -> Result<String> {
    Ok(sh(&absolute(p)?.display().to_string()))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).with_context(|| format!("{}: no absolute path", p.display()))
}

/// The inputs of a task's command line, absolute and shell-quoted; an input that fails `exists`
/// is a usage error (`missing` says what is missing).
fn input_args(paths: &[PathBuf], exists: fn(&Path) -> bool, missing: &str) -> Result<Vec<String>> {
    paths
        .iter()
        .map(|p| {
            if !exists(p) {
                crate::usage!("{}: {missing}", p.display());
            }
            sh_path(p)
        })
        .collect()
}

/// The name of part `i` of `n`, with extension `ext`.
pub fn part_name(i: u64, n: u64, ext: &str) -> String {
    format!("part-{i:05}-of-{n:05}.{ext}")
}

/// One sharded job: how a task makes its part and how the parts are merged.
struct Plan<'a> {
    /// `score`, `extract`, `book`: in job names and script names.
    kind: &'static str,
    /// The merged output.
    output: &'a Path,
    /// The inputs, for the scripts' comments.
    inputs: &'a [PathBuf],
    /// The part files' extension.
    ext: &'static str,
    /// The task's kifu arguments, shell-quoted; `"$I/N"` and the part's path are added.
    task: Vec<String>,
    /// The option that names the shard (`--shard`).
    merge: Vec<String>,
    /// Whether a part is complete (its task need not run again).
    complete: fn(&Path) -> bool,
    slurm: &'a SlurmOptions,
}

fn score(a: ScoreJob) -> Result<Outcome> {
    let mut task = vec!["pos".into(), "score".into()];
    task.extend(input_args(
        &a.positions,
        Path::is_file,
        "no such position file",
    )?);
    task.extend(a.engine.to_args(sh));
    submit(Plan {
        kind: "score",
        output: &a.output,
        inputs: &a.positions,
        ext: "dat",
        task,
        merge: vec!["pos".into(), "merge".into(), "--shards".into()],
        complete: |p| matches!(kifu_posdb::provenance::Provenance::read(p), Ok(Some(p)) if p.complete),
        slurm: &a.slurm,
    })
}

/// The task's command line of `kifu pos COMMAND`: the games, then the command's options.
fn pos_task(command: &str, games: &[PathBuf], options: Vec<String>) -> Result<Vec<String>> {
    let mut task = vec!["pos".into(), command.into()];
    task.extend(input_args(games, Path::exists, "no such file or folder")?);
    task.extend(options);
    Ok(task)
}

fn extract(a: ExtractJob) -> Result<Outcome> {
    let mut task = pos_task("extract", &a.games, a.select.to_args())?;
    // Every part must be keyed with the table one run would use: the given one, else the one
    // next to the output, else kifu's own.
    let beside =
        absolute(&a.output)?.with_file_name(format!("zobrist_board_{}.dat", a.select.size));
    let table = a
        .select
        .zobrist
        .clone()
        .or_else(|| beside.is_file().then_some(beside));
    if let Some(t) = table {
        task.extend(["--zobrist".into(), sh_path(&t)?]);
    }
    submit(Plan {
        kind: "extract",
        output: &a.output,
        inputs: &a.games,
        ext: "dat",
        task,
        merge: vec!["pos".into(), "merge".into(), "--shards".into()],
        complete: |p| kifu_posdb::parts::PartManifest::read(p, "extract").is_ok(),
        slurm: &a.slurm,
    })
}

fn index(a: IndexJob) -> Result<Outcome> {
    let mut task = pos_task("index", &a.games, a.select.to_args())?;
    if let Some(z) = &a.select.zobrist {
        task.extend(["--zobrist".into(), sh_path(z)?]);
    }
    submit(Plan {
        kind: "index",
        output: &a.output,
        inputs: &a.games,
        ext: "idx",
        task,
        merge: vec!["pos".into(), "merge".into(), "--shards".into()],
        complete: |p| kifu_posdb::parts::PartManifest::read(p, "index").is_ok(),
        slurm: &a.slurm,
    })
}

fn book(a: BookJob) -> Result<Outcome> {
    let mut task = vec!["book".into(), "make".into()];
    task.extend(input_args(&a.pgn, Path::is_file, "no such PGN file")?);
    task.push("--counts".into());
    if let Some(c) = &a.compat {
        task.extend(["--compat".into(), sh(c)]);
    }
    if let Some(m) = a.max_ply {
        task.extend(["--max-ply".into(), m.to_string()]);
    }
    let mut merge = vec!["book".into(), "make".into()];
    if let Some(m) = a.min_game {
        merge.extend(["--min-game".into(), m.to_string()]);
    }
    if let Some(m) = a.min_score {
        merge.extend(["--min-score".into(), m.to_string()]);
    }
    for (on, flag) in [
        (a.only_white, "--only-white"),
        (a.only_black, "--only-black"),
        (a.uniform, "--uniform"),
        (a.no_header, "--no-header"),
    ] {
        if on {
            merge.push(flag.into());
        }
    }
    if let Some(c) = &a.comment {
        merge.extend(["--comment".into(), sh(c)]);
    }
    merge.push("--from-counts".into());
    submit(Plan {
        kind: "book",
        output: &a.output,
        inputs: &a.pgn,
        ext: "counts",
        task,
        merge,
        complete: |p| kifu_polyglot::make::CountsPart::open(p).is_ok(),
        slurm: &a.slurm,
    })
}

/// Writes the job scripts of `plan` and submits them (unless --no-submit).
fn submit(plan: Plan<'_>) -> Result<Outcome> {
    let a = plan.slurm;
    let kind = plan.kind;
    let output = absolute(plan.output)?;
    let work = match &a.work {
        Some(w) => absolute(w)?,
        None => {
            let mut s = output.as_os_str().to_os_string();
            s.push(".slurm");
            PathBuf::from(s)
        }
    };
    std::fs::create_dir_all(work.join("logs"))
        .with_context(|| format!("{}: cannot create", work.display()))?;
    let kifu = std::env::current_exe().context("cannot find the kifu binary")?;
    let kifu = sh(&kifu.display().to_string());
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());
    let n = a.shards;
    let ext = plan.ext;
    let mut task_cmd = vec![kifu.clone()];
    task_cmd.extend(plan.task.iter().cloned());
    task_cmd.extend([
        "-j".into(),
        "\"${SLURM_CPUS_PER_TASK:-1}\"".into(),
        "--shard".into(),
        format!("\"$I/{n}\""),
        "-o".into(),
        format!("{}/\"$PART\"", sh(&work.display().to_string())),
    ]);
    let mut head = vec![
        format!("#SBATCH --job-name=kifu-{kind}-{stem}"),
        format!("#SBATCH --array=1-{n}"),
        format!("#SBATCH --cpus-per-task={}", a.cpus_per_task),
        "#SBATCH --requeue".to_string(),
        "#SBATCH --open-mode=append".to_string(),
        format!("#SBATCH --output={}/logs/{kind}-%a.log", work.display()),
    ];
    if let Some(p) = &a.partition {
        head.push(format!("#SBATCH --partition={p}"));
    }
    if let Some(t) = &a.time {
        head.push(format!("#SBATCH --time={t}"));
    }
    let inputs = plan
        .inputs
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let task_script = format!(
        "#!/bin/bash\n\
         # kifu slurm {kind}: shard I of {n} of {inputs} into {output}.\n\
         # Written by kifu {version}; submit with sbatch, or run with JOB_COMPLETION_INDEX set\n\
         # (Kubernetes Indexed Jobs, from 0). A task run again redoes (or resumes) its own share.\n\
         {head}\n\
         set -euo pipefail\n\
         if [ -n \"${{SLURM_ARRAY_TASK_ID:-}}\" ]; then I=$SLURM_ARRAY_TASK_ID\n\
         elif [ -n \"${{JOB_COMPLETION_INDEX:-}}\" ]; then I=$((JOB_COMPLETION_INDEX + 1))\n\
         else echo \"no SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX: which shard?\" >&2; exit 2; fi\n\
         PART=$(printf 'part-%05d-of-%05d.{ext}' \"$I\" {n})\n\
         exec {cmd}\n",
        output = output.display(),
        version = env!("CARGO_PKG_VERSION"),
        head = head.join("\n"),
        cmd = task_cmd.join(" "),
    );
    let parts: Vec<String> = (1..=n)
        .map(|i| sh(&work.join(part_name(i, n, ext)).display().to_string()))
        .collect();
    let mut merge_head = vec![
        format!("#SBATCH --job-name=kifu-merge-{stem}"),
        format!("#SBATCH --output={}/logs/merge.log", work.display()),
        "#SBATCH --open-mode=append".to_string(),
    ];
    if let Some(p) = &a.partition {
        merge_head.push(format!("#SBATCH --partition={p}"));
    }
    let merge_script = format!(
        "#!/bin/bash\n\
         # kifu slurm {kind}: the merge of the {n} parts into {output} (runs once every task\n\
         # succeeded; refuses missing, incomplete or differently made parts).\n\
         {head}\n\
         set -euo pipefail\n\
         exec {kifu} {merge} {parts} -o {out}\n",
        output = output.display(),
        head = merge_head.join("\n"),
        merge = plan.merge.join(" "),
        parts = parts.join(" "),
        out = sh(&output.display().to_string()),
    );
    let task_path = work.join(format!("{kind}.sbatch"));
    let merge_path = work.join("merge.sbatch");
    crate::output::write_atomically(&task_path, task_script.as_bytes())?;
    crate::output::write_atomically(&merge_path, merge_script.as_bytes())?;
    // A run again with the same arguments resubmits only the shards that are not complete (a
    // task that was cancelled or failed resumes or redoes its part) and a fresh merge job.
    let todo: Vec<u64> = (1..=n)
        .filter(|&i| !(plan.complete)(&work.join(part_name(i, n, ext))))
        .collect();
    let jobs_file = work.join("jobs.json");
    let (array, merge) = if a.no_submit {
        (None, None)
    } else {
        if let Ok(text) = std::fs::read_to_string(&jobs_file) {
            let earlier: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            if let Some(id) = earlier["array_job"].as_str() {
                if still_queued(id)? {
                    bail!(
                        "array job {id} of {} is still queued or running: wait for it, or `scancel {id}`, before submitting again",
                        work.display()
                    );
                }
            }
            if let Some(id) = earlier["merge_job"].as_str() {
                // A merge waiting on a failed array never runs: replaced by the new one.
                let _ = Command::new("scancel").arg(id).status();
            }
        }
        let array = if todo.is_empty() {
            None
        } else {
            let list: Vec<String> = todo.iter().map(u64::to_string).collect();
            let spec = format!("--array={}", list.join(","));
            Some(sbatch(&[
                &spec,
                task_path.as_os_str().to_str().unwrap_or_default(),
            ])?)
        };
        let merge_path = merge_path.as_os_str().to_str().unwrap_or_default();
        let merge = match &array {
            Some(id) => {
                let dep = format!("--dependency=afterok:{id}");
                sbatch(&[&dep, "--kill-on-invalid-dep=yes", merge_path])?
            }
            None => sbatch(&[merge_path])?,
        };
        crate::output::write_atomically(
            &jobs_file,
            json!({"array_job": array, "merge_job": merge, "shards": todo})
                .to_string()
                .as_bytes(),
        )?;
        (array, Some(merge))
    };
    let v = json!({
        "work": work.display().to_string(),
        "task_script": task_path.display().to_string(),
        "merge_script": merge_path.display().to_string(),
        "shards": n,
        "parts": (1..=n).map(|i| work.join(part_name(i, n, ext)).display().to_string()).collect::<Vec<_>>(),
        "output": output.display().to_string(),
        "submitted_shards": if a.no_submit { Vec::new() } else { todo.clone() },
        "array_job": array,
        "merge_job": merge,
    });
    if a.json {
        crate::output::print_json(&v)?;
    } else if let Some(merge) = &merge {
        let tasks = match &array {
            Some(id) => format!("array job {id} ({} of {n} shards)", todo.len()),
            None => "no shards (all complete)".to_string(),
        };
        crate::output::message(format_args!(
            "submitted {tasks} and merge job {merge}; watch with `squeue -n kifu-{kind}-{stem},kifu-merge-{stem}`; \
             after a failed or cancelled task, run this command again: it resubmits the shards not complete"
        ));
    } else {
        crate::output::message(format_args!(
            "wrote {} and {}; submit: `sbatch {}` then `sbatch --dependency=afterok:JOB {}`",
            task_path.display(),
            merge_path.display(),
            task_path.display(),
            merge_path.display()
        ));
    }
    Ok(Outcome::Ok)
}

/// Whether job `id` (or any task of it) is still pending or running.
fn still_queued(id: &str) -> Result<bool> {
    let out = Command::new("squeue")
        .args(["-h", "-o", "%T", "-j", id])
        .output()
        .context("cannot run squeue")?;
    // squeue fails for a job it no longer knows: not queued.
    Ok(out.status.success() && !String::from_utf8_lossy(&out.stdout).trim().is_empty())
}

/// Submits a job; its id.
fn sbatch(args: &[&str]) -> Result<String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(args)
        .output()
        .context("cannot run sbatch (is Slurm installed?)")?;
    if !out.status.success() {
        bail!(
            "sbatch {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `id` or `id;cluster`.
    Ok(text.trim().split(';').next().unwrap_or("").to_string())
}
