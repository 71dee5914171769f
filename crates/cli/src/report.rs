//! Checking many files and printing what was found: one piece for
//! `kifu sgf check` and `kifu ishi check`, whatever crate the findings come from.

use crate::inputs;
use crate::output::progress;
use crate::Outcome;
use anyhow::Result;
use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// One problem in one file, in the shape every checker's diagnostics share.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// 1-based line (0 when the problem concerns the whole file).
    pub line: u32,
    /// 1-based column in characters.
    pub column: u32,
    /// `error` or `warning`.
    pub severity: String,
    /// The stable code (`S008`, `I012`, ...).
    pub code: String,
    /// SGFC's number for the same problem, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sgfc: Option<u16>,
    /// The one-line explanation.
    pub message: String,
    /// Whether it is an error (the exit code is 1 when any is).
    #[serde(skip)]
    pub error: bool,
}

impl From<&kifu_sgf::Diagnostic> for Finding {
    fn from(d: &kifu_sgf::Diagnostic) -> Self {
        Finding {
            line: d.line,
            column: d.column,
            severity: d.severity.to_string(),
            code: d.code.to_string(),
            sgfc: d.code.sgfc(),
            message: d.message.clone(),
            error: d.is_error(),
        }
    }
}

impl From<&kifu_ishi::Diagnostic> for Finding {
    fn from(d: &kifu_ishi::Diagnostic) -> Self {
        Finding {
            line: d.line,
            column: if d.line > 0 {
                d.column.max(1)
            } else {
                d.column
            },
            severity: d.severity.to_string(),
            code: d.code.to_string(),
            sgfc: None,
            message: d.message.clone(),
            error: d.is_error(),
        }
    }
}

/// The options every `check` command takes.
#[derive(Args, Debug)]
pub struct CheckOptions {
    /// Files or folders (searched recursively); `-` for stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print errors only, not warnings.
    #[arg(long)]
    pub errors_only: bool,
    #[command(flatten)]
    pub threads: crate::args::Threads,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    file: &'a str,
    #[serde(flatten)]
    finding: &'a Finding,
}

/// Checks every file (folders searched for `exts`) in parallel with `check`, then
/// prints the findings in file order: `file:line:column: severity CODE: message`,
/// or one JSON array. Unreadable files are reported and counted as failures.
pub fn check_files(
    o: &CheckOptions,
    exts: &[&str],
    check: impl Fn(Vec<u8>) -> Vec<Finding> + Sync + Send,
) -> Result<Outcome> {
    // Listed on the command's threads too: folders are listed in parallel.
    let files = o.threads.run(|| inputs::collect(&o.files, exts))??;
    let bar = progress(files.len() as u64, "checking");
    let results: Vec<(String, Result<Vec<Finding>>)> = o.threads.run(|| {
        files
            .par_iter()
            .map(|f| {
                let r = f.read().map(&check);
                bar.inc(1);
                (f.display(), r)
            })
            .collect()
    })?;
    bar.finish_and_clear();
    let mut out = crate::output::stdout();
    let mut failed = false;
    let mut json = Vec::new();
    for (name, r) in &results {
        match r {
            Err(e) => {
                failed = true;
                crate::output::message(format_args!("kifu: {}", crate::output::error_text(e)));
            }
            Ok(findings) => {
                for f in findings {
                    failed |= f.error;
                    if o.errors_only && !f.error {
                        continue;
                    }
                    if o.json {
                        json.push(JsonFinding {
                            file: name,
                            finding: f,
                        });
                    } else if f.line > 0 {
                        writeln!(
                            out,
                            "{name}:{}:{}: {} {}: {}",
                            f.line, f.column, f.severity, f.code, f.message
                        )?;
                    } else {
                        writeln!(out, "{name}: {} {}: {}", f.severity, f.code, f.message)?;
                    }
                }
            }
        }
    }
    if o.json {
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    }
    Ok(if failed {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
