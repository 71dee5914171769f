//! The `kifu` command: a thin layer over the kifu crates.
//!
//! Each command family lives in its own module (`sgf`, ...); this file only
//! wires clap's parse result to them and turns errors into exit codes:
//! 0 ok, 1 findings or failure, 2 usage error.

// The arguments' doc comments are clap's help text, printed as written: `FF[4]` there is not
// a link, and escaping it for rustdoc would print the backslashes in `--help`.
#![allow(rustdoc::broken_intra_doc_links)]

mod args;
mod book;
mod convert;
mod gtp;
mod inputs;
mod ishi;
mod output;
mod pos;
mod report;
mod serve;
mod sgf;
mod show;
mod slurm;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Go game records, Go position databases and chess opening books.
#[derive(Parser, Debug)]
#[command(name = "kifu", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// SGF game records: check, convert (repair, FF[4], UTF-8), stats.
    #[command(subcommand)]
    Sgf(sgf::SgfCommand),
    /// Polyglot chess opening books: dump, lookup, check, repair, merge, make, header.
    #[command(subcommand)]
    Book(book::BookCommand),
    /// Position databases: extract, view, histogram, stats, index, search, duplicates, lookup, verify, export, score, merge, compare.
    #[command(subcommand)]
    Pos(pos::PosCommand),
    /// Send GTP commands to an engine and print the answers (a debugging aid).
    Gtp(gtp::GtpArgs),
    /// A fake GTP engine for tests (crash, hang, garbage, slow on chosen points).
    #[command(hide = true)]
    FakeGtpEngine {
        /// --crash-on V, --crash-once FILE, --hang-on V, --garbage-on V, --fail-on V, --slow-ms N.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Show the board at one node of an SGF game: ASCII, rows, SVG or JSON.
    Show(show::ShowArgs),
    /// Convert a game record between SGF and the Ishi Standard Format (.go).
    Convert(convert::ConvertArgs),
    /// Ishi Standard Format (.go) files: check.
    #[command(subcommand)]
    Ishi(ishi::IshiCommand),
    /// A local web explorer and JSON API over databases and Polyglot books.
    Serve(serve::ServeArgs),
    /// Heavy jobs on a Slurm cluster: an array job of shards plus a dependent merge job.
    #[command(subcommand)]
    Slurm(slurm::SlurmCommand),
}

/// A command line that makes no sense (a value out of range, options that contradict each
/// other): `main` prints it and exits with code 2, as clap does for the errors it finds.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Returns a [`UsageError`] from the enclosing function: `usage!("--from {a} is after --to {b}")`.
#[macro_export]
macro_rules! usage {
    ($($arg:tt)*) => {
        return Err($crate::UsageError(format!($($arg)*)).into())
    };
}

/// What a command ended with: every command returns one, `main` maps it to an exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report.
    Ok,
    /// The command ran but found problems (errors in files, failed items).
    Findings,
    /// The command line made no sense; the command has said why (exit code 2).
    Usage,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout with exit 0, usage errors to stderr with 2.
            // clap's print panics on neither a closed nor a full stream; help that could not
            // be written is a failure.
            let printed = e.print().is_ok();
            return ExitCode::from(match (e.use_stderr(), printed) {
                (true, _) => 2,
                (false, true) => 0,
                (false, false) => 1,
            });
        }
    };
    let result = match cli.command {
        Command::Sgf(cmd) => sgf::run(cmd),
        Command::Book(cmd) => book::run(cmd),
        Command::Pos(cmd) => pos::run(cmd),
        Command::Gtp(args) => gtp::run(args),
        Command::FakeGtpEngine { args } => gtp::fake_engine(&args),
        Command::Show(args) => show::run(args),
        Command::Convert(a) => convert::run(a),
        Command::Ishi(cmd) => ishi::run(cmd),
        Command::Serve(a) => serve::run(a),
        Command::Slurm(cmd) => slurm::run(cmd),
    };
    // Whatever the command printed must reach standard output, or the command failed.
    let result = result.and_then(|outcome| {
        output::finish_stdout()?;
        Ok(outcome)
    });
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Usage) => ExitCode::from(2),
        // The reader went away (`kifu ... | head`): what it wanted, it has.
        Err(e) if output::is_stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            output::message(format_args!("kifu: {}", crate::output::error_text(&e)));
            let usage = e.chain().any(|c| c.is::<UsageError>());
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}
