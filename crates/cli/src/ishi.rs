//! `kifu ishi ...`: Ishi Standard Format (`.go`) files.

use crate::report::{check_files, CheckOptions, Finding};
use crate::Outcome;
use anyhow::Result;
use clap::{Args, Subcommand};

/// The `kifu ishi` subcommands.
#[derive(Subcommand, Debug)]
pub enum IshiCommand {
    /// Check Ishi files: syntax, move numbers, PRISONER lines against the
    /// captures, VAR/ENDVAR balance, locations off the board. Prints each problem
    /// with its code, line and column; exits 1 when any file has an error.
    Check(CheckArgs),
}

/// `kifu ishi check`: files or folders (searched recursively for .go).
#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    options: CheckOptions,
}

/// Runs one `kifu ishi` subcommand.
pub fn run(cmd: IshiCommand) -> Result<Outcome> {
    match cmd {
        IshiCommand::Check(a) => check(a),
    }
}

fn check(a: CheckArgs) -> Result<Outcome> {
    check_files(&a.options, &["go"], |b| {
        kifu_ishi::check(&b)
            .diagnostics
            .iter()
            .map(Finding::from)
            .collect()
    })
}
