//! `kifu sgf ...`: placeholder until kifu-sgf lands.

use crate::Outcome;
use anyhow::Result;
use clap::Subcommand;

/// The `kifu sgf` subcommands.
#[derive(Subcommand, Debug)]
pub enum SgfCommand {
    /// Check SGF files and print diagnostics.
    Check {
        /// Files or folders.
        files: Vec<std::path::PathBuf>,
    },
}

/// Runs one `kifu sgf` subcommand.
pub fn run(cmd: SgfCommand) -> Result<Outcome> {
    match cmd {
        SgfCommand::Check { files } => {
            let _ = files;
            Ok(Outcome::Ok)
        }
    }
}
