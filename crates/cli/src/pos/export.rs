//! `kifu pos export`: an index's positions or a position file's records as an Apache Parquet
//! file (the columns and the work are kifu-export's).

use crate::output::{progress, write_atomically_with};
use crate::Outcome;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use kifu_export::{
    export, Compression, ExportError, ExportOptions, ExportSummary, Input, InputKind,
};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// The most rows a row group may be asked to hold (the encoder keeps one row group in memory).
const MAX_ROW_GROUP: usize = 1 << 24;

/// Compression of the Parquet column chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Codec {
    /// Zstandard (small files).
    Zstd,
    /// Snappy (faster, larger).
    Snappy,
    /// None.
    None,
}

/// `kifu pos export` arguments.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// An index made by `kifu pos index`, or a position or queue file (`-` for stdin): an index
    /// is recognised by its magic bytes, anything else is read as position records.
    input: PathBuf,
    /// The Parquet file to write (replaced safely; `-` for stdout).
    #[arg(short, long)]
    output: PathBuf,
    /// Board size of a position file (an index knows its own).
    #[arg(long, default_value_t = 9)]
    size: u32,
    /// Compression of the column chunks.
    #[arg(long, value_enum, default_value_t = Codec::Zstd)]
    compression: Codec,
    /// Rows per row group at most: the memory an export takes is about one row group.
    #[arg(long, default_value_t = ExportOptions::default().row_group_rows, value_parser = row_group)]
    row_group: usize,
    /// JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

fn row_group(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_ROW_GROUP).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text}: expected a number of rows from 1 to {MAX_ROW_GROUP}"
        )),
    }
}

/// Runs `kifu pos export`.
pub fn run(a: ExportArgs) -> Result<Outcome> {
    let started = Instant::now();
    let size = super::size_arg(a.size)?;
    if a.json && a.output.as_os_str() == "-" {
        crate::usage!("--json prints to stdout, which -o - takes for the Parquet file");
    }
    let sidecar = kifu_search::index::sidecar_path(&a.input);
    crate::output::refuse_overwrite(&a.output, [a.input.as_path(), sidecar.as_path()])?;
    let name = a.input.display().to_string();
    let input = if a.input.as_os_str() == "-" {
        Input::Positions(Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::io::stdin(),
        )))
    } else {
        // A path that cannot be opened names itself; anything else gets the path in front.
        Input::open(&a.input).map_err(|e| match e {
            ExportError::Open { .. } => anyhow::Error::new(e),
            e => anyhow::Error::new(e).context(name.clone()),
        })?
    };
    // The bar counts games of an index, records of a position file (estimated from its length).
    let work = match &input {
        Input::Index(r) => Some((r.games(), "exporting games")),
        Input::Positions(_) => std::fs::metadata(&a.input)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| {
                let records = m.len() / kifu_posdb::position_bytes(size) as u64;
                (records, "exporting positions")
            }),
    };
    let bar = work.map_or_else(indicatif::ProgressBar::hidden, |(n, what)| {
        progress(n, what)
    });
    let opts = ExportOptions {
        size,
        compression: match a.compression {
            Codec::Zstd => Compression::Zstd,
            Codec::Snappy => Compression::Snappy,
            Codec::None => Compression::None,
        },
        row_group_rows: a.row_group,
        ..ExportOptions::default()
    };
    let mut summary = None;
    write_atomically_with(&a.output, |w| {
        // A failed write names the output, and keeps its io::Error in the chain (a closed
        // standard output ends kifu quietly); anything else names the input.
        summary = Some(
            export(input, &opts, w, &|n| bar.inc(n)).map_err(|e| match e {
                ExportError::Io(io) => {
                    anyhow::Error::new(io).context(format!("{}: cannot write", a.output.display()))
                }
                e => anyhow::Error::new(e).context(name.clone()),
            })?,
        );
        Ok(())
    })?;
    bar.finish_and_clear();
    let s = summary.context("the export wrote nothing")?;
    report(&a, &name, &s, started.elapsed().as_secs_f64())?;
    Ok(if s.has_problems() {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

/// The summary: JSON on stdout, or a line on stderr; every failure and a torn record as
/// messages.
fn report(a: &ExportArgs, name: &str, s: &ExportSummary, secs: f64) -> Result<()> {
    for f in &s.failures {
        crate::output::message(format_args!("kifu: {f}"));
    }
    if let Some(t) = &s.torn {
        crate::output::message(format_args!(
            "warning: {name}: {t}; the whole records before it are exported"
        ));
    }
    let rate = |n: f64| if secs > 0.0 { n / secs } else { 0.0 };
    if a.json {
        crate::output::print_json(&json!({
            "input": name, "kind": s.kind.name(), "output": a.output.display().to_string(),
            "size": s.size.get(), "rows": s.rows, "games": s.games,
            "games_failed": s.games_failed, "files_failed": s.files_failed,
            "row_groups": s.row_groups, "bytes": s.bytes, "seconds": secs,
            "rows_per_second": rate(s.rows as f64),
            "megabytes_per_second": rate(s.bytes as f64 / 1e6),
            "failures": s.failures, "torn": s.torn,
        }))?;
    } else {
        let what = match s.kind {
            InputKind::Index => format!(
                "{} positions of {} games ({} failed)",
                s.rows, s.games, s.games_failed
            ),
            InputKind::Positions => format!("{} positions", s.rows),
        };
        crate::output::message(format_args!(
            "exported {what} to {} ({} bytes, {} row groups) in {secs:.2}s",
            a.output.display(),
            s.bytes,
            s.row_groups
        ));
    }
    Ok(())
}
