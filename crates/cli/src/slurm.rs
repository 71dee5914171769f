//! `kifu slurm`: a heavy job as a Slurm array of shards plus a dependent merge job.
//!
//! kifu writes the two job scripts into a work folder (so they can be read, kept, and submitted
//! again by hand) and submits them with `sbatch`: the array runs `kifu pos score --shard I/N`,
//! one shard a task, each into its own part file, which a killed or requeued task resumes; the
//! merge job waits for every task to succeed (`afterok`) and runs `kifu pos merge --shards`,
//! which refuses missing, repeated, incomplete or differently made parts and writes the sorted,
//! canonical file: the same bytes as a one-process run merged with `--sort`, whatever N.
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
}

/// `kifu slurm score` arguments.
#[derive(Args, Debug)]
pub struct ScoreJob {
    /// Position or queue files.
    #[arg(required = true)]
    positions: Vec<PathBuf>,
    /// The engine command line, as for `kifu pos score`.
    #[arg(long)]
    engine: String,
    /// Ruleset, as for `kifu pos score`.
    #[arg(long)]
    rules: Option<String>,
    /// The merged scored file.
    #[arg(short, long)]
    output: PathBuf,
    /// Number of shards (array tasks).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    shards: u64,
    /// Board size of the position files.
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Playouts per position.
    #[arg(long, default_value_t = 3)]
    playouts: u32,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    seed: u32,
    /// Timeout of each engine command, in seconds.
    #[arg(long)]
    timeout: Option<String>,
    /// Slurm partition.
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each task (Slurm's format: `30`, `2:00:00`, `1-0`).
    #[arg(long)]
    time: Option<String>,
    /// CPUs of each task (engines run in parallel within a task).
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

/// Runs a `kifu slurm` subcommand.
pub fn run(cmd: SlurmCommand) -> Result<Outcome> {
    match cmd {
        SlurmCommand::Score(a) => score(a),
    }
}

/// Quotes `s` for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).with_context(|| format!("{}: no absolute path", p.display()))
}

/// The name of part `i` of `n`.
pub fn part_name(i: u64, n: u64) -> String {
    format!("part-{i:05}-of-{n:05}.dat")
}

fn score(a: ScoreJob) -> Result<Outcome> {
    for p in &a.positions {
        if !p.is_file() {
            crate::usage!("{}: no such position file", p.display());
        }
    }
    let output = absolute(&a.output)?;
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
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());
    let n = a.shards;
    let mut score_cmd = vec![
        sh(&kifu.display().to_string()),
        "pos".into(),
        "score".into(),
    ];
    for p in &a.positions {
        score_cmd.push(sh(&absolute(p)?.display().to_string()));
    }
    score_cmd.extend([
        "--engine".into(),
        sh(&a.engine),
        "--size".into(),
        a.size.to_string(),
        "--playouts".into(),
        a.playouts.to_string(),
        "--seed".into(),
        a.seed.to_string(),
        "-j".into(),
        "\"${SLURM_CPUS_PER_TASK:-1}\"".into(),
        "--shard".into(),
        format!("\"$I/{n}\""),
        "-o".into(),
        format!("{}/\"$PART\"", sh(&work.display().to_string())),
    ]);
    if let Some(r) = &a.rules {
        score_cmd.extend(["--rules".into(), sh(r)]);
    }
    if let Some(t) = &a.timeout {
        score_cmd.extend(["--timeout".into(), sh(t)]);
    }
    let mut head = vec![
        format!("#SBATCH --job-name=kifu-score-{stem}"),
        format!("#SBATCH --array=1-{n}"),
        format!("#SBATCH --cpus-per-task={}", a.cpus_per_task),
        "#SBATCH --requeue".to_string(),
        "#SBATCH --open-mode=append".to_string(),
        format!("#SBATCH --output={}/logs/score-%a.log", work.display()),
    ];
    if let Some(p) = &a.partition {
        head.push(format!("#SBATCH --partition={p}"));
    }
    if let Some(t) = &a.time {
        head.push(format!("#SBATCH --time={t}"));
    }
    let score_script = format!(
        "#!/bin/bash\n\
         # kifu slurm score: shard I of {n} of the scoring of {positions} into {output}.\n\
         # Written by kifu {version}; submit with sbatch, or run with JOB_COMPLETION_INDEX set\n\
         # (Kubernetes Indexed Jobs, from 0). A task that was killed resumes its part.\n\
         {head}\n\
         set -euo pipefail\n\
         if [ -n \"${{SLURM_ARRAY_TASK_ID:-}}\" ]; then I=$SLURM_ARRAY_TASK_ID\n\
         elif [ -n \"${{JOB_COMPLETION_INDEX:-}}\" ]; then I=$((JOB_COMPLETION_INDEX + 1))\n\
         else echo \"no SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX: which shard?\" >&2; exit 2; fi\n\
         PART=$(printf 'part-%05d-of-%05d.dat' \"$I\" {n})\n\
         exec {cmd}\n",
        positions = a
            .positions
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        output = output.display(),
        version = env!("CARGO_PKG_VERSION"),
        head = head.join("\n"),
        cmd = score_cmd.join(" "),
    );
    let parts: Vec<String> = (1..=n)
        .map(|i| sh(&work.join(part_name(i, n)).display().to_string()))
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
         # kifu slurm score: the merge of the {n} parts into {output} (runs once every task\n\
         # succeeded; refuses missing, incomplete or differently made parts).\n\
         {head}\n\
         set -euo pipefail\n\
         exec {kifu} pos merge --shards {parts} -o {out}\n",
        output = output.display(),
        head = merge_head.join("\n"),
        kifu = sh(&kifu.display().to_string()),
        parts = parts.join(" "),
        out = sh(&output.display().to_string()),
    );
    let score_path = work.join("score.sbatch");
    let merge_path = work.join("merge.sbatch");
    crate::output::write_atomically(&score_path, score_script.as_bytes())?;
    crate::output::write_atomically(&merge_path, merge_script.as_bytes())?;
    // A run again with the same arguments resubmits only the shards that are not complete (a
    // task that was cancelled or failed resumes its part) and a fresh merge job.
    let todo: Vec<u64> = (1..=n)
        .filter(|&i| {
            !matches!(
                kifu_posdb::provenance::Provenance::read(&work.join(part_name(i, n))),
                Ok(Some(p)) if p.complete
            )
        })
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
                score_path.as_os_str().to_str().unwrap_or_default(),
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
        "score_script": score_path.display().to_string(),
        "merge_script": merge_path.display().to_string(),
        "shards": n,
        "parts": (1..=n).map(|i| work.join(part_name(i, n)).display().to_string()).collect::<Vec<_>>(),
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
            "submitted {tasks} and merge job {merge}; watch with `squeue -n kifu-score-{stem},kifu-merge-{stem}`; \
             after a failed or cancelled task, run this command again: it resubmits the shards not complete, which resume their parts"
        ));
    } else {
        crate::output::message(format_args!(
            "wrote {} and {}; submit: `sbatch {}` then `sbatch --dependency=afterok:JOB {}`",
            score_path.display(),
            merge_path.display(),
            score_path.display(),
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
