//! `kifu convert IN OUT`: between SGF and the Ishi Standard Format.

use crate::inputs::Input;
use crate::output::write_atomically;
use crate::Outcome;
use anyhow::Result;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

/// A game-record format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// SGF (written as FF[4], UTF-8).
    Sgf,
    /// Ishi Standard Format (`.go`).
    Go,
}

/// `kifu convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The input file, or `-` for stdin (then --from is needed).
    input: PathBuf,
    /// The output file, or `-` for stdout (then --to is needed).
    output: PathBuf,
    /// The input format (default: from the extension, .sgf or .go).
    #[arg(long, value_enum)]
    from: Option<Format>,
    /// The output format (default: from the extension, .sgf or .go).
    #[arg(long, value_enum)]
    to: Option<Format>,
    /// Do not print warnings.
    #[arg(short, long)]
    quiet: bool,
}

fn format_of(path: &Path, given: Option<Format>, what: &str) -> Result<Format> {
    if let Some(f) = given {
        return Ok(f);
    }
    if path.as_os_str() == "-" {
        crate::usage!(
            "the {what} is `-`: say its format with --{}",
            if what == "input" { "from" } else { "to" }
        );
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext.eq_ignore_ascii_case("sgf") {
        Ok(Format::Sgf)
    } else if ext.eq_ignore_ascii_case("go") {
        Ok(Format::Go)
    } else {
        crate::usage!(
            "{}: cannot tell the {what} format from the extension (use .sgf or .go, or --{})",
            path.display(),
            if what == "input" { "from" } else { "to" }
        )
    }
}

/// Runs `kifu convert`: prints what could not be converted (`file:line:col: ...`) and exits 1
/// when the input had errors (the output is written all the same), 2 when the formats
/// cannot be told.
pub fn run(a: ConvertArgs) -> Result<Outcome> {
    let formats = format_of(&a.input, a.from, "input")
        .and_then(|f| Ok((f, format_of(&a.output, a.to, "output")?)));
    let (from, to) = match formats {
        Ok(f) => f,
        Err(e) => {
            // A usage error: exit 2 as clap does.
            crate::output::message(format_args!("kifu: {}", crate::output::error_text(&e)));
            return Ok(Outcome::Usage);
        }
    };
    crate::output::refuse_overwrite(&a.output, [a.input.as_path()])?;
    let input = if a.input.as_os_str() == "-" {
        Input::Stdin
    } else {
        Input::File {
            path: a.input.clone(),
            root: None,
        }
    };
    let name = input.display();
    let bytes = input.read()?;
    let mut notes: Vec<(bool, String)> = Vec::new();
    let (out, errors) = match (from, to) {
        (Format::Go, _) => {
            let p = kifu_ishi::read(&bytes);
            let errors = p.has_errors();
            for d in &p.diagnostics {
                notes.push((d.is_error(), format!("{name}:{d}")));
            }
            match to {
                Format::Go => (kifu_ishi::write(&p.document), errors),
                Format::Sgf => {
                    let c = kifu_ishi::to_sgf(&p.document);
                    for d in &c.diagnostics {
                        notes.push((d.is_error(), format!("{name}:{d}")));
                    }
                    (kifu_sgf::write(&c.collection), errors)
                }
            }
        }
        (Format::Sgf, _) => {
            let parsed = kifu_sgf::Collection::parse_vec(bytes);
            let errors = parsed.diagnostics.iter().any(|d| d.is_error());
            for d in &parsed.diagnostics {
                notes.push((d.is_error(), format!("{name}:{d}")));
            }
            match to {
                Format::Sgf => (
                    kifu_sgf::write(&kifu_sgf::convert::to_ff4(&parsed.collection).collection),
                    errors,
                ),
                Format::Go => {
                    // The collection as read: FF[4] repairs would add data (SZ, KM) the file
                    // does not hold.
                    let r = kifu_ishi::from_sgf(&parsed.collection);
                    for d in &r.diagnostics {
                        notes.push((d.is_error(), format!("{name}: {d}")));
                    }
                    let errors = errors || r.diagnostics.iter().any(|d| d.is_error());
                    (kifu_ishi::write(&r.document), errors)
                }
            }
        }
    };
    write_atomically(&a.output, out.as_bytes())?;
    for (is_error, n) in &notes {
        if *is_error || !a.quiet {
            crate::output::message(format_args!("{n}"));
        }
    }
    Ok(if errors {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}
