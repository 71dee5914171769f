//! KataGo's JSON analysis engine (`katago analysis`), the second way kifu scores positions.
//!
//! GTP asks one position at a time of each engine process; the analysis engine takes many
//! queries on one process and answers each when its search is done, in any order, batching the
//! network's evaluations across positions. [`analyze_all`] keeps up to `in_flight` queries
//! outstanding, hands each answer to the caller as it comes (so a scored file grows record by
//! record, as with GTP), and stops sending on a stop request.
//!
//! # The query
//! One JSON line a position: the stones as `initialStones` (`["B","C3"]`, GTP coordinates),
//! `initialPlayer` the side to move, no moves, the rules ([`AnalysisConfig::rules`], KataGo's
//! names: `chinese`, `japanese`, `tromp-taylor`, `aga`, ...), `komi` (0 by default, as GNU Go
//! is asked: the score is the on-board margin), the board size and `maxVisits`. A board with a
//! string without liberties is refused before it is sent, as the GTP scorer refuses it.
//!
//! # The answer
//! `rootInfo.scoreLead` (how many points Black leads by; the engine must report for Black:
//! `reportAnalysisWinratesAs = BLACK` in its config, as `tools/katago/install.sh` writes it) and `rootInfo.scoreStdev`, the
//! standard deviation of the final score its search predicts. kifu-posdb's
//! `ScoredPosition::from_estimate` turns them into the score byte and the confidence.

use crate::engine::{clip, spawn, EngineConfig, GtpError, Line, Process};
use crate::pool::Job;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How positions are asked of the analysis engine.
#[derive(Debug, Clone)]
pub struct AnalysisConfig {
    /// `maxVisits` of each search.
    pub visits: u32,
    /// KataGo's rules name.
    pub rules: String,
    /// The komi given (0: the score is the on-board margin).
    pub komi: f64,
}

/// What the engine said of one position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Black's expected lead in points (komi included).
    pub lead: f64,
    /// The standard deviation of the final score the search predicts.
    pub stdev: f64,
    /// Black's winning chance, 0..1.
    pub winrate: f64,
    /// Visits the search made.
    pub visits: u64,
}

/// What happened to one job.
#[derive(Debug)]
pub enum AnalysisEvent<T> {
    /// The position was analysed.
    Estimated {
        /// The job's tag.
        tag: T,
        /// The answer.
        estimate: Estimate,
    },
    /// The engine refused the position, or failed while it was outstanding.
    Failed {
        /// The job's tag.
        tag: T,
        /// Why.
        error: String,
    },
    /// Not sent because a stop was requested.
    Abandoned {
        /// The job's tag.
        tag: T,
    },
}

/// A running `katago analysis` process.
pub struct AnalysisEngine {
    config: EngineConfig,
    _process: Process,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    version: String,
}

impl AnalysisEngine {
    /// Starts the engine and asks its version (`query_version`) within the startup timeout, so
    /// a command that is not an analysis engine fails here, with what it printed.
    pub fn start(config: EngineConfig) -> Result<AnalysisEngine, GtpError> {
        let (process, stdin, lines) = spawn(&config)?;
        let mut engine = AnalysisEngine {
            config,
            _process: process,
            stdin: Some(stdin),
            lines,
            version: String::new(),
        };
        engine.send(&json!({"id": "kifu-version", "action": "query_version"}))?;
        let answer = engine.receive(engine.config.startup_timeout, "query_version")?;
        match answer.get("version").and_then(Value::as_str) {
            Some(v) => engine.version = v.to_string(),
            None => {
                return Err(GtpError::Protocol {
                    command: "query_version".into(),
                    reply: clip(&answer.to_string()),
                })
            }
        }
        Ok(engine)
    }

    /// The engine's version (`query_version`'s answer).
    pub fn version(&self) -> &str {
        &self.version
    }

    fn send(&mut self, query: &Value) -> Result<(), GtpError> {
        let line = format!("{query}\n");
        let ok = self.stdin.as_mut().is_some_and(|s| {
            s.write_all(line.as_bytes())
                .and_then(|()| s.flush())
                .is_ok()
        });
        if ok {
            Ok(())
        } else {
            Err(GtpError::Died {
                command: clip(&line),
                status: "its input closed".into(),
            })
        }
    }

    /// The next JSON line (warnings skipped), within `timeout`.
    fn receive(&mut self, timeout: Duration, what: &str) -> Result<Value, GtpError> {
        let deadline = Instant::now() + timeout;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(wait) {
                Ok(Line::Text(t)) => t,
                Ok(Line::TooLong) => {
                    return Err(GtpError::Protocol {
                        command: what.into(),
                        reply: "a line too long".into(),
                    })
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(GtpError::Timeout {
                        command: what.into(),
                        after: timeout,
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(GtpError::Died {
                        command: what.into(),
                        status: "output closed".into(),
                    })
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(&line).map_err(|_| GtpError::Protocol {
                command: what.into(),
                reply: clip(&line),
            })?;
            if v.get("warning").is_some() && v.get("rootInfo").is_none() {
                continue;
            }
            return Ok(v);
        }
    }
}

/// The query for one position.
pub fn query(id: &str, job: &Job<impl Sized>, config: &AnalysisConfig) -> Value {
    let size = job.board.size();
    let stones: Vec<Value> = job
        .board
        .stones()
        .map(|(p, c)| json!([c.letter().to_string(), p.to_human(size)]))
        .collect();
    let n = size.get();
    json!({
        "id": id,
        "initialStones": stones,
        "initialPlayer": job.to_play.letter().to_string(),
        "moves": [],
        "rules": config.rules,
        "komi": config.komi,
        "boardXSize": n,
        "boardYSize": n,
        "maxVisits": config.visits,
    })
}

/// Reads the estimate from an answer's `rootInfo`.
pub fn estimate_of(answer: &Value) -> Option<Estimate> {
    let root = answer.get("rootInfo")?;
    let f = |k: &str| {
        root.get(k)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite())
    };
    Some(Estimate {
        lead: f("scoreLead")?,
        stdev: f("scoreStdev")?,
        winrate: f("winrate")?,
        visits: root.get("visits").and_then(Value::as_u64).unwrap_or(0),
    })
}

/// Analyses every job on one engine, at most `in_flight` queries outstanding, calling `on` as
/// answers come. An engine that dies or hangs (no answer within the command timeout) fails the
/// queries outstanding and is started again, at most `restarts` times; then the remaining jobs
/// fail with the last error. Returns the engine's version.
pub fn analyze_all<T>(
    jobs: impl IntoIterator<Item = Job<T>>,
    engine: &EngineConfig,
    config: &AnalysisConfig,
    in_flight: usize,
    restarts: u32,
    stop: &AtomicBool,
    mut on: impl FnMut(AnalysisEvent<T>),
) -> Result<String, GtpError> {
    let mut running = AnalysisEngine::start(engine.clone())?;
    let version = running.version.clone();
    let mut restarted = 0u32;
    let mut jobs = jobs.into_iter();
    let mut outstanding: HashMap<String, T> = HashMap::new();
    let mut next_id = 0u64;
    let in_flight = in_flight.max(1);
    let mut dead: Option<String> = None;
    // The engine's input closed on a send: nothing more is sent, but the answers it wrote
    // before it went are still read (its output is a pipe that outlives it), so only the
    // queries it never answered fail.
    let mut closed: Option<String> = None;
    loop {
        // Fill the window.
        while outstanding.len() < in_flight && dead.is_none() && closed.is_none() {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let Some(job) = jobs.next() else { break };
            if let Some(p) = job.board.string_without_liberties() {
                on(AnalysisEvent::Failed {
                    tag: job.tag,
                    error: format!(
                        "the board cannot be set up: the string at {} has no liberties",
                        p.to_human(job.board.size())
                    ),
                });
                continue;
            }
            let id = format!("q{next_id}");
            next_id += 1;
            let q = query(&id, &job, config);
            if let Err(e) = running.send(&q) {
                on(AnalysisEvent::Failed {
                    tag: job.tag,
                    error: e.to_string(),
                });
                closed = Some(e.to_string());
                break;
            }
            outstanding.insert(id, job.tag);
        }
        if outstanding.is_empty() && dead.is_none() {
            // Every answer it wrote is read: the engine must be replaced.
            dead = closed.take();
        }
        if outstanding.is_empty() && (dead.is_none() || stop.load(Ordering::SeqCst)) {
            // Nothing in flight: done, or stopped, or the engine must be replaced.
            if stop.load(Ordering::SeqCst) {
                for job in jobs.by_ref() {
                    on(AnalysisEvent::Abandoned { tag: job.tag });
                }
                return Ok(version);
            }
            // The window is empty and nothing more was sent: the jobs are done.
            return Ok(version);
        }
        if dead.is_none() {
            match running.receive(engine.command_timeout, "analysis") {
                Ok(answer) => {
                    let id = answer.get("id").and_then(Value::as_str).unwrap_or("");
                    let Some(tag) = outstanding.remove(id) else {
                        continue;
                    };
                    if let Some(err) = answer.get("error").and_then(Value::as_str) {
                        on(AnalysisEvent::Failed {
                            tag,
                            error: format!("the engine refused the position: {err}"),
                        });
                    } else if answer.get("isDuringSearch").and_then(Value::as_bool) == Some(true) {
                        outstanding.insert(id.to_string(), tag);
                    } else {
                        match estimate_of(&answer) {
                            Some(estimate) => on(AnalysisEvent::Estimated { tag, estimate }),
                            None => on(AnalysisEvent::Failed {
                                tag,
                                error: format!(
                                    "no scoreLead, scoreStdev and winrate in {}",
                                    clip(&answer.to_string())
                                ),
                            }),
                        }
                    }
                    continue;
                }
                Err(e) => dead = Some(closed.take().unwrap_or_else(|| e.to_string())),
            }
        }
        // The engine is gone or hung: what was outstanding failed; start another.
        let why = dead.take().unwrap_or_default();
        for (_, tag) in outstanding.drain() {
            on(AnalysisEvent::Failed {
                tag,
                error: why.clone(),
            });
        }
        if restarted >= restarts {
            for job in jobs.by_ref() {
                on(AnalysisEvent::Failed {
                    tag: job.tag,
                    error: format!("the engine was given up: {why}"),
                });
            }
            return Ok(version);
        }
        restarted += 1;
        running = AnalysisEngine::start(engine.clone())?;
    }
}
