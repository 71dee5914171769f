//! `kifu gtp`: send GTP commands to an engine and print the answers (a debugging aid), and the
//! hidden fake engine that kifu's tests drive.

use crate::Outcome;
use anyhow::Result;
use clap::Args;
use kifu_gtp::{Engine, EngineConfig, GtpError, StderrMode};
use serde_json::json;
use std::io::Write as _;
use std::time::Duration;

/// `kifu gtp` arguments.
#[derive(Args, Debug)]
pub struct GtpArgs {
    /// The engine command line, split like a shell would: "gnugo --mode gtp".
    #[arg(long)]
    engine: String,
    /// GTP commands, one per argument: "boardsize 9" "play B E5" showboard.
    #[arg(required = true)]
    commands: Vec<String>,
    /// Timeout of each command and of the engine's start, in seconds [default: 60 for commands,
    /// 20 for the start].
    #[arg(long, value_parser = parse_timeout)]
    timeout: Option<Duration>,
    /// Discard the engine's standard error (it is shown by default).
    #[arg(long)]
    quiet: bool,
    /// JSON output: one object per command.
    #[arg(long)]
    json: bool,
}

/// Runs the commands; exit 1 if any failed.
pub fn run(a: GtpArgs) -> Result<Outcome> {
    let mut config = EngineConfig::from_command_line(&a.engine)?;
    if config.argv[0] == "gnugo" && std::path::Path::new("/usr/games/gnugo").exists() {
        config.argv[0] = "/usr/games/gnugo".into();
    }
    set_timeout(&mut config, a.timeout);
    config.stderr = if a.quiet {
        StderrMode::Null
    } else {
        StderrMode::Inherit
    };
    // Without a handler Ctrl-C would end kifu alone: the engine is in its own process group.
    let _ = ctrlc::set_handler(|| {
        kifu_gtp::kill_running_engines();
        std::process::exit(130);
    });
    let mut engine = Engine::start(config)?;
    let mut failed = false;
    let mut results = Vec::new();
    for cmd in &a.commands {
        let r = engine.command(cmd);
        let fatal = matches!(&r, Err(e) if e.needs_restart());
        match &r {
            Ok(text) => {
                if a.json {
                    results.push(json!({"command": cmd, "ok": true, "answer": text}));
                } else {
                    writeln!(crate::output::stdout(), "= {text}\n")?;
                }
            }
            Err(GtpError::Failure { message, .. }) => {
                failed = true;
                if a.json {
                    results.push(json!({"command": cmd, "ok": false, "answer": message}));
                } else {
                    writeln!(crate::output::stdout(), "? {message}\n")?;
                }
            }
            Err(e) => {
                failed = true;
                if a.json {
                    results.push(json!({"command": cmd, "ok": false, "error": e.to_string()}));
                } else {
                    crate::output::message(format_args!("kifu: {e}"));
                }
            }
        }
        if fatal {
            break;
        }
    }
    if a.json {
        crate::output::print_json(&results)?;
    }
    engine.shutdown();
    Ok(if failed {
        Outcome::Findings
    } else {
        Outcome::Ok
    })
}

/// The bounds of `--timeout`, in seconds: below a millisecond nothing can answer, and a year is
/// longer than any wait kifu-gtp will do ([`kifu_gtp::MAX_WAIT`]).
const TIMEOUT_RANGE: std::ops::RangeInclusive<f64> = 0.001..=31_536_000.0;

/// The clap parser of `--timeout` (`kifu gtp`, `kifu pos score`): a number of seconds in
/// [`TIMEOUT_RANGE`]. Checked here, so a value that `Duration` cannot hold is a usage error rather
/// than a panic.
pub(crate) fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !secs.is_finite() {
        return Err(format!("{text:?} is not a finite number of seconds"));
    }
    if !TIMEOUT_RANGE.contains(&secs) {
        return Err(format!(
            "{text} seconds is out of range ({} to {}, a year)",
            TIMEOUT_RANGE.start(),
            TIMEOUT_RANGE.end()
        ));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())
}

/// Applies `--timeout` to an engine: it bounds every command and the start as well (an engine
/// that never answers `protocol_version` is given up as soon as one that hangs on a command).
/// Without it, the defaults of [`EngineConfig::from_command_line`] stay.
pub(crate) fn set_timeout(config: &mut EngineConfig, timeout: Option<Duration>) {
    if let Some(t) = timeout {
        config.command_timeout = t;
        config.startup_timeout = t;
    }
}

/// The fake engine of kifu-gtp on stdin/stdout (for tests of GTP controllers, kifu's own included).
pub fn fake_engine(args: &[String]) -> Result<Outcome> {
    let opts = kifu_gtp::fake::parse_args(args).map_err(anyhow::Error::msg)?;
    let crashed = kifu_gtp::fake::serve(std::io::stdin().lock(), std::io::stdout().lock(), &opts)?;
    if crashed {
        std::process::exit(3);
    }
    Ok(Outcome::Ok)
}
