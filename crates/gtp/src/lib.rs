//! kifu-gtp: a client for Go engines that speak GTP (the Go Text Protocol, version 2), built to
//! score many positions with real engines (GNU Go, Fuego, KataGo...) for hours without losing work.
//!
//! - **One engine, [`Engine`].** Starts a command line (split like a POSIX shell would, with
//!   `shlex`), sends numbered commands and checks the answer's number, reads `=`/`?` answers of
//!   any number of lines up to the blank line, and gives every command a timeout (a reader thread
//!   feeds a channel, so a hung engine cannot hang the caller). A dead engine (output closed, write
//!   failed), a hung one (timeout) or a confused one (not GTP, wrong id, a line over 1 MiB) is
//!   reported as a [`GtpError`] whose [`GtpError::needs_restart`] is true; [`Engine::restart`]
//!   replaces the process. [`Engine::shutdown`] sends `quit`, waits a grace period, then kills;
//!   dropping an engine kills and waits, so no process is left behind as a zombie. Engines run in
//!   their own process group, so Ctrl-C in a terminal reaches only the controller; whenever an
//!   engine is stopped (timeout, restart, drop, after `quit`) the whole group is killed, so a
//!   wrapper script's children do not outlive it, and [`kill_running_engines`] does the same for
//!   a program about to leave at once.
//! - **Scoring, [`Scorer`].** Sets rules (GNU Go flags or `kgs-rules`), then for each position
//!   `boardsize`, `clear_board`, `komi 0`, the stones by `play` in an order that leaves the right
//!   side to move, and `set_random_seed` + `final_score` per playout. The exact session, seeds and
//!   the reasons are in [`score`]. Failures that need a restart are retried a bounded number of
//!   times, and an engine on which [`score::GIVE_UP_AFTER`] positions in a row fail that way is
//!   given up ([`ScoreError::GaveUp`]).
//! - **Many engines, [`score_all`].** A thread per engine pulls jobs from a shared iterator and
//!   sends results back to the caller's thread, which writes them as they come.
//! - **KataGo's analysis engine, [`analysis`]:** many positions on one process, JSON queries
//!   and answers, the score lead and its standard deviation.
//! - **A fake engine, [`fake`],** for tests of GTP controllers: it can crash, hang, answer garbage,
//!   refuse or answer slowly on chosen positions.
//!
//! # Example
//!
//! ```
//! use kifu_gtp::{Engine, EngineConfig, GtpError};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # if !std::path::Path::new("/usr/games/gnugo").exists() { return Ok(()); }
//! let config = EngineConfig::from_command_line("/usr/games/gnugo --mode gtp --level 0")?;
//! let mut engine = Engine::start(config)?;
//! assert_eq!(engine.command("boardsize 9")?, "");
//! assert_eq!(engine.command("name")?, "GNU Go");
//! // A refusal is an error that leaves the engine usable.
//! let err = engine.command("play B Z99").unwrap_err();
//! assert!(matches!(err, GtpError::Failure { .. }) && !err.needs_restart());
//! engine.shutdown();
//! # Ok(()) }
//! ```

pub mod analysis;
pub mod engine;
pub mod fake;
pub mod job;
pub mod pool;
pub mod score;

pub use engine::{
    kill_running_engines, Engine, EngineConfig, GtpError, StderrMode, DEFAULT_COMMAND_TIMEOUT,
    DEFAULT_STARTUP_TIMEOUT, MAX_WAIT,
};
pub use pool::{score_all, Event, Job};
pub use score::{
    parse_final_score, playout_seeds, setup_commands, Playouts, ScoreConfig, ScoreError, Scorer,
    GIVE_UP_AFTER,
};
