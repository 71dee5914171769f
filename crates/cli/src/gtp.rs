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
    /// Timeout of each command, in seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
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
    if !(a.timeout > 0.0 && a.timeout.is_finite()) {
        anyhow::bail!("--timeout must be a positive number of seconds");
    }
    config.command_timeout = Duration::from_secs_f64(a.timeout);
    config.stderr = if a.quiet {
        StderrMode::Null
    } else {
        StderrMode::Inherit
    };
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

/// The fake engine of kifu-gtp on stdin/stdout (for tests of GTP controllers, kifu's own included).
pub fn fake_engine(args: &[String]) -> Result<Outcome> {
    let opts = kifu_gtp::fake::parse_args(args).map_err(anyhow::Error::msg)?;
    let crashed = kifu_gtp::fake::serve(std::io::stdin().lock(), std::io::stdout().lock(), &opts)?;
    if crashed {
        std::process::exit(3);
    }
    Ok(Outcome::Ok)
}
