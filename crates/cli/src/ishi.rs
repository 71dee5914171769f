//! `kifu ishi ...`: Ishi Standard Format (`.go`) files.

use crate::inputs;
use crate::output::progress;
use crate::sgf::with_jobs;
use crate::Outcome;
use anyhow::Result;
use clap::{Args, Subcommand};
use kifu_ishi::{Diagnostic, Severity};
use rayon::prelude::*;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// The `kifu ishi` subcommands.
#[derive(Subcommand, Debug)]
pub enum IshiCommand {
    /// Check Ishi files: syntax, move numbers, PRISONER lines against the
    /// captures, VAR/ENDVAR balance, locations off the board. Prints each problem
    /// with its code, line and column; exits 1 when any file has an error.
    Check(CheckArgs),
}

/// `kifu ishi check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or folders (searched recursively for .go); `-` for stdin.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Print errors only, not warnings.
    #[arg(long)]
    errors_only: bool,
    /// Threads to use (default: all cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
}

#[derive(Serialize)]
struct JsonDiag<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    severity: String,
    code: String,
    message: &'a str,
}

/// Runs one `kifu ishi` subcommand.
pub fn run(cmd: IshiCommand) -> Result<Outcome> {
    match cmd {
        IshiCommand::Check(a) => check(a),
    }
}

fn check(a: CheckArgs) -> Result<Outcome> {
    let files = inputs::collect(&a.files, &["go"])?;
    let bar = progress(files.len() as u64, "checking");
    let results: Vec<(String, Result<Vec<Diagnostic>>)> = with_jobs(a.jobs, || {
        files
            .par_iter()
            .map(|f| {
                let r = f.read().map(|b| kifu_ishi::check(&b).diagnostics);
                bar.inc(1);
                (f.display(), r)
            })
            .collect()
    })?;
    bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    let mut json = Vec::new();
    for (name, r) in &results {
        match r {
            Err(e) => {
                failed = true;
                eprintln!("kifu: {e:#}");
            }
            Ok(diags) => {
                for d in diags {
                    failed |= d.is_error();
                    if a.errors_only && d.severity == Severity::Warning {
                        continue;
                    }
                    if a.json {
                        json.push(JsonDiag {
                            file: name,
                            line: d.line,
                            column: d.column,
                            severity: d.severity.to_string(),
                            code: d.code.to_string(),
                            message: &d.message,
                        });
                    } else {
                        writeln!(out, "{name}:{d}")?;
                    }
                }
            }
        }
    }
    if a.json {
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    }
    Ok(if failed {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
