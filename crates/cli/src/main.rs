//! The `kifu` command: a thin layer over the kifu crates.
//!
//! Each command family lives in its own module (`sgf`, ...); this file only
//! wires clap's parse result to them and turns errors into exit codes:
//! 0 ok, 1 findings or failure, 2 usage error.

mod book;
mod convert;
mod gtp;
mod inputs;
mod ishi;
mod output;
mod pos;
mod report;
mod sgf;
mod show;

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
    /// Position databases: extract, view, histogram, stats, index, lookup, score, merge, compare.
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
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
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
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Usage) => ExitCode::from(2),
        Err(e) => {
            eprintln!("kifu: {e:#}");
            ExitCode::from(1)
        }
    }
}
