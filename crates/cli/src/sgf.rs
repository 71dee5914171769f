//! `kifu sgf ...`: check, convert and count SGF files.

use crate::inputs::{self, Input};
use crate::output::{progress, write_atomically};
use crate::report::{check_files, CheckOptions, Finding};
use crate::Outcome;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use kifu_sgf::{convert, Collection, Diagnostic};
use rayon::prelude::*;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The `kifu sgf` subcommands.
#[derive(Subcommand, Debug)]
pub enum SgfCommand {
    /// Check SGF files: print every problem with its code, line and column.
    /// Exits 1 when any file has an error (or could not be read).
    Check(CheckArgs),
    /// Repair and convert to FF[4] UTF-8: a file to a file, `-` for
    /// stdin/stdout, or folders recursively into an output folder.
    Convert(ConvertArgs),
    /// Parse files fully and count games, nodes, moves, properties and bytes
    /// (.go files are counted as their SGF conversion).
    Stats(StatsArgs),
}

/// Options shared by commands that read many files.
#[derive(Args, Debug)]
pub struct Many {
    /// Files or folders (searched recursively for .sgf); `-` for stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub threads: crate::args::Threads,
}

/// `kifu sgf check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    options: CheckOptions,
}

/// `kifu sgf convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// A file, a folder, or `-` for stdin.
    input: PathBuf,
    /// The output file, `-` for stdout, or (for a folder input) the output folder.
    #[arg(short, long)]
    output: PathBuf,
    /// Do not print what was repaired.
    #[arg(short, long)]
    quiet: bool,
    /// Threads to use for folders (default: all cores).
    #[command(flatten)]
    pub threads: crate::args::Threads,
}

/// `kifu sgf stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    many: Many,
}

/// Runs one `kifu sgf` subcommand.
pub fn run(cmd: SgfCommand) -> Result<Outcome> {
    match cmd {
        SgfCommand::Check(a) => check(a),
        SgfCommand::Convert(a) => convert_cmd(a),
        SgfCommand::Stats(a) => stats(a),
    }
}

/// Everything `check` finds in one file: syntax and values (kifu-sgf), then the rules of Go
/// replayed through every variation (kifu-go: moves onto stones, suicide, ko, setup without effect
/// or replacing stones, `PL` contradicted).
pub fn check_bytes(bytes: Vec<u8>) -> Vec<Diagnostic> {
    let parsed = Collection::parse_vec(bytes);
    let checked = convert::check(&parsed.collection);
    let rules = kifu_go::replay::rule_diagnostics(&parsed.collection);
    // Each list is capped; one cap for the file, with one S109 note last.
    kifu_sgf::merge_capped(
        vec![parsed.diagnostics, checked, rules],
        kifu_sgf::DiagnosticSink::DEFAULT_LIMIT,
    )
}

fn check(a: CheckArgs) -> Result<Outcome> {
    check_files(&a.options, &["sgf"], |b| {
        check_bytes(b).iter().map(Finding::from).collect()
    })
}

/// Parses, repairs and converts SGF bytes to FF[4] UTF-8 text; `None` when there is no game to
/// write.
pub fn convert_bytes(bytes: Vec<u8>) -> (Option<String>, Vec<Diagnostic>) {
    let parsed = Collection::parse_vec(bytes);
    let converted = convert::to_ff4(&parsed.collection);
    let diags = kifu_sgf::merge_capped(
        vec![parsed.diagnostics, converted.diagnostics],
        kifu_sgf::DiagnosticSink::DEFAULT_LIMIT,
    );
    // No game, nothing to write: an empty output would replace a good file with nothing.
    let unreadable = converted.collection.games().next().is_none()
        || diags
            .iter()
            .any(|d| matches!(d.code, kifu_sgf::Code::NoSgfData | kifu_sgf::Code::TooLarge));
    let text = (!unreadable).then(|| kifu_sgf::write(&converted.collection));
    (text, diags)
}

fn convert_cmd(a: ConvertArgs) -> Result<Outcome> {
    let is_dir = a.input.as_os_str() != "-" && a.input.is_dir();
    if !is_dir {
        let input = if a.input.as_os_str() == "-" {
            Input::Stdin
        } else {
            Input::File {
                path: a.input.clone(),
                root: None,
            }
        };
        let name = input.display();
        crate::output::refuse_overwrite(&a.output, [a.input.as_path()])?;
        let (text, diags) = convert_bytes(input.read()?);
        if !a.quiet {
            for d in &diags {
                crate::output::message(format_args!("{name}:{d}"));
            }
        }
        let Some(text) = text else {
            bail!("{name}: no SGF game tree found: nothing written");
        };
        write_atomically(&a.output, text.as_bytes())?;
        return Ok(Outcome::Ok);
    }
    if a.output.as_os_str() == "-" {
        crate::output::message(format_args!(
            "kifu: a folder converts into a folder: give -o FOLDER, not -o -"
        ));
        return Ok(Outcome::Usage);
    }
    crate::output::refuse_overwrite(&a.output, [a.input.as_path()])?;
    let files = a
        .threads
        .run(|| inputs::collect(std::slice::from_ref(&a.input), &["sgf"]))??;
    // A file written where another input is (-o inside the input folder) would replace it
    // before it is read: such outputs are refused one by one.
    let given = inputs::file_ids(&files);
    let bar = progress(files.len() as u64, "converting");
    let results: Vec<(String, Result<Vec<Diagnostic>>)> = a.threads.run(|| {
        files
            .par_iter()
            .map(|f| {
                let r = convert_one(f, (&a.input, &a.output), &given);
                bar.inc(1);
                (f.display(), r)
            })
            .collect()
    })?;
    bar.finish_and_clear();
    let mut failed = 0;
    for (name, r) in &results {
        match r {
            Ok(diags) => {
                if !a.quiet {
                    for d in diags {
                        crate::output::message(format_args!("{name}:{d}"));
                    }
                }
            }
            Err(e) => {
                failed += 1;
                crate::output::message(format_args!("kifu: {}", crate::output::error_text(e)));
            }
        }
    }
    if failed > 0 {
        crate::output::message(format_args!(
            "kifu: {failed} of {} files could not be converted",
            results.len()
        ));
        return Ok(Outcome::Findings);
    }
    Ok(Outcome::Ok)
}

fn convert_one(
    f: &Input,
    (in_root, out_root): (&Path, &Path),
    inputs: &std::collections::HashSet<(u64, u64)>,
) -> Result<Vec<Diagnostic>> {
    let Input::File { path, .. } = f else {
        bail!("stdin in a folder run");
    };
    let rel = path.strip_prefix(in_root).unwrap_or(path);
    let dest = out_root.join(rel);
    if inputs::file_id(&dest).is_some_and(|id| inputs.contains(&id)) {
        bail!(
            "{}: the output is also an input: not written",
            dest.display()
        );
    }
    let (text, diags) = convert_bytes(f.read()?);
    let Some(text) = text else {
        bail!("{}: no SGF game tree found: skipped", path.display());
    };
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create the folder", parent.display()))?;
    }
    write_atomically(&dest, text.as_bytes())?;
    Ok(diags)
}

/// Counts of one or many files.
#[derive(Debug, Default, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Stats {
    /// Files read.
    pub files: u64,
    /// Game trees.
    pub games: u64,
    /// Nodes.
    pub nodes: u64,
    /// B and W properties.
    pub moves: u64,
    /// Properties.
    pub properties: u64,
    /// Bytes of input.
    pub bytes: u64,
    /// Errors found while reading.
    pub errors: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.files += o.files;
        self.games += o.games;
        self.nodes += o.nodes;
        self.moves += o.moves;
        self.properties += o.properties;
        self.bytes += o.bytes;
        self.errors += o.errors;
    }
}

/// Parses SGF bytes fully and counts what is in them.
pub fn stats_of(bytes: Vec<u8>) -> Stats {
    let len = bytes.len() as u64;
    let parsed = Collection::parse_vec(bytes);
    let c = &parsed.collection;
    let (b, w) = (c.prop_id("B"), c.prop_id("W"));
    let mut moves = 0;
    for g in c.games() {
        for n in g.nodes() {
            moves += n
                .properties()
                .filter(|p| Some(p.prop_id()) == b || Some(p.prop_id()) == w)
                .count() as u64;
        }
    }
    Stats {
        files: 1,
        games: c.len() as u64,
        nodes: c.node_count() as u64,
        moves,
        properties: c.property_count() as u64,
        bytes: len,
        errors: parsed.diagnostics.iter().filter(|d| d.is_error()).count() as u64,
    }
}

/// Reads an Ishi (`.go`) file and counts what its SGF conversion holds.
pub fn stats_of_ishi(bytes: Vec<u8>) -> Stats {
    let len = bytes.len() as u64;
    let parsed = kifu_ishi::read(&bytes);
    let sgf = kifu_ishi::to_sgf(&parsed.document).collection;
    let mut s = stats_of(kifu_sgf::write(&sgf).into_bytes());
    s.bytes = len;
    s.errors = parsed.diagnostics.iter().filter(|d| d.is_error()).count() as u64;
    s
}

fn stats(a: StatsArgs) -> Result<Outcome> {
    let files = a
        .many
        .threads
        .run(|| inputs::collect(&a.many.files, &["sgf", "go"]))??;
    let bar = progress(files.len() as u64, "parsing");
    let results: Vec<Result<Stats>> = a.many.threads.run(|| {
        files
            .par_iter()
            .map(|f| {
                let ishi = matches!(f, Input::File { path, .. } if inputs::has_ext(path, &["go"]));
                let r = f
                    .read()
                    .map(|b| if ishi { stats_of_ishi(b) } else { stats_of(b) });
                bar.inc(1);
                r
            })
            .collect()
    })?;
    bar.finish_and_clear();
    let mut total = Stats::default();
    let mut failed = 0;
    for r in results {
        match r {
            Ok(s) => total += s,
            Err(e) => {
                failed += 1;
                crate::output::message(format_args!("kifu: {}", crate::output::error_text(&e)));
            }
        }
    }
    let mut out = crate::output::stdout();
    if a.many.json {
        serde_json::to_writer_pretty(&mut out, &total)?;
        writeln!(out)?;
    } else {
        writeln!(out, "files       {}", total.files)?;
        writeln!(out, "games       {}", total.games)?;
        writeln!(out, "nodes       {}", total.nodes)?;
        writeln!(out, "moves       {}", total.moves)?;
        writeln!(out, "properties  {}", total.properties)?;
        writeln!(out, "bytes       {}", total.bytes)?;
        writeln!(out, "errors      {}", total.errors)?;
    }
    Ok(if failed > 0 {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
