//! A resumable scoring run: positions in, a scored file out, by GTP engines ([`score_all`]) or
//! KataGo's analysis engine ([`analyze_all`]). The CLI's `kifu pos score`, its Slurm tasks and
//! any other skin call [`run`]; only reading the position files and drawing progress are theirs.
//!
//! What a run does, in order:
//! 1. **Distinct, then shard.** Positions with the same id are scored once (the first record is
//!    kept); with a shard, only the ids whose hash modulo N is I - 1.
//! 2. **One writer.** The output is opened for appending under an exclusive lock
//!    ([`kifu_posdb::scored::open_for_append`]).
//! 3. **Provenance.** The sidecar of an earlier run must name the same engine and settings
//!    (scores of another engine never share a file); it is written before scoring (incomplete)
//!    and after (complete when nothing is left).
//! 4. **Resume.** The output's whole records are kept and their positions skipped; a torn last
//!    record (a kill mid-append) is cut off first.
//! 5. **Append as results come.** Each record is one write of its 12 bytes, flushed: a kill
//!    loses only positions in flight.

use crate::analysis::{analyze_all, AnalysisConfig, AnalysisEngine, AnalysisEvent};
use crate::engine::{Engine, EngineConfig, GtpError};
use crate::pool::{score_all, Event, Job};
use crate::score::ScoreConfig;
use kifu_fs::shard::Shard;
use kifu_posdb::provenance::{sidecar_path, EngineInfo, Provenance, ProvenanceError};
use kifu_posdb::scored::{self, Repair, ScoredError};
use kifu_posdb::{PositionId, PositionRecord, ScoredPosition};
use serde::Serialize;
use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How positions are scored.
#[derive(Debug, Clone)]
pub enum Method {
    /// GTP `final_score` playouts, `workers` engines at once.
    Gtp(ScoreConfig),
    /// KataGo's analysis engine: one process, `workers` queries outstanding, restarted at most
    /// `restarts` times.
    Analysis {
        /// The queries' settings.
        config: AnalysisConfig,
        /// Engine restarts allowed.
        restarts: u32,
    },
}

/// One scoring run.
#[derive(Debug, Clone)]
pub struct ScoreJob {
    /// The positions, as read (duplicates allowed).
    pub positions: Vec<PositionRecord>,
    /// The scored file: created, or resumed.
    pub output: PathBuf,
    /// Only this share of the positions.
    pub shard: Option<Shard>,
    /// The engine's command line and timeouts.
    pub engine: EngineConfig,
    /// GTP or the analysis engine.
    pub method: Method,
    /// GTP engines at once, or analysis queries outstanding.
    pub workers: usize,
    /// The provenance to write: engine, settings, inputs (`distinct`, `shard`, `in_shard` and
    /// `complete` are filled in by [`run`]).
    pub provenance: Provenance,
}

/// A position that could not be scored.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The position's id.
    pub id: String,
    /// Why.
    pub error: String,
    /// Attempts made.
    pub attempts: u32,
}

/// What a run did: the JSON of `kifu pos score --json` (with the output and the time).
#[derive(Debug, Clone, Serialize)]
pub struct ScoreReport {
    /// Records read.
    pub input_records: u64,
    /// Distinct positions among them.
    pub distinct: u64,
    /// Of those, in the shard.
    pub in_shard: u64,
    /// Already in the output when the run began.
    pub already_scored: u64,
    /// Scored by this run.
    pub scored: u64,
    /// Failed.
    pub failed: u64,
    /// The failures.
    pub failures: Vec<Failure>,
    /// Abandoned on a stop.
    pub abandoned: u64,
    /// Still to do (failed, stopped, never reached).
    pub remaining: u64,
    /// Engines (GTP) or queries outstanding (analysis).
    pub engines: usize,
    /// Engines lost.
    pub engines_lost: u64,
    /// Whether a stop was requested.
    pub stopped: bool,
    /// A torn last record cut off at the start.
    pub repaired: Option<Repair>,
    /// Wall time.
    pub seconds: f64,
    /// Scored per second.
    pub positions_per_second: f64,
    /// The positions still to do, for a queue file.
    #[serde(skip)]
    pub todo: Vec<PositionRecord>,
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The output or its lock.
    #[error(transparent)]
    Scored(#[from] ScoredError),
    /// The sidecar: unreadable, or another engine or setting.
    #[error(transparent)]
    Provenance(#[from] ProvenanceError),
    /// The sidecar could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Sidecar {
        /// The sidecar.
        path: PathBuf,
        /// Why.
        source: kifu_fs::FsError,
    },
    /// Appending a record failed (a full disk): the run stopped; the records before are whole.
    #[error("{}: cannot append: {source}", path.display())]
    Append {
        /// The output.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No engine could be started at all.
    #[error("no engine could be started: {0}")]
    NoEngine(String),
    /// The engine could not be asked its name and version.
    #[error("cannot start the engine {command}: {}", engine_failure(source))]
    Engine {
        /// The command line.
        command: String,
        /// Why.
        source: GtpError,
    },
}

/// Why an engine did not start, without its command line a second time.
fn engine_failure(e: &GtpError) -> String {
    match e {
        GtpError::Spawn { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// The engine's name and version: GTP `name` and `version` of a short-lived instance, or the
/// analysis engine's `query_version` (named `KataGo`: only it speaks that protocol).
pub fn engine_info(config: &EngineConfig, analysis: bool) -> Result<EngineInfo, JobError> {
    let fail = |source| JobError::Engine {
        command: config.command_line(),
        source,
    };
    if analysis {
        let engine = AnalysisEngine::start(config.clone()).map_err(fail)?;
        return Ok(EngineInfo {
            command: config.command_line(),
            name: "KataGo".into(),
            version: engine.version().to_string(),
        });
    }
    let mut engine = Engine::start(config.clone()).map_err(fail)?;
    let name = engine.command("name").map_err(fail)?;
    let version = engine.command("version").map_err(fail)?;
    engine.shutdown();
    Ok(EngineInfo {
        command: config.command_line(),
        name: name.trim().to_string(),
        version: version.trim().to_string(),
    })
}

fn write_sidecar(job: &ScoreJob, prov: &Provenance) -> Result<(), JobError> {
    let path = sidecar_path(&job.output);
    let mut f = kifu_fs::atomic::AtomicFile::create(&path).map_err(|source| JobError::Sidecar {
        path: path.clone(),
        source,
    })?;
    let written = f.write_all(prov.to_json().as_bytes());
    if let Err(e) = written {
        return Err(JobError::Append {
            path: path.clone(),
            source: e,
        });
    }
    f.commit()
        .map_err(|source| JobError::Sidecar { path, source })
}

/// Runs a scoring job (see the [module docs](self)). `stop` ends it early (positions in flight
/// are abandoned); `progress` is called with the number of positions handled so far and the
/// number to do, and with each failure's message.
pub fn run(
    job: ScoreJob,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<ScoreReport, JobError> {
    let started = Instant::now();
    let input_records = job.positions.len() as u64;
    let mut seen = HashSet::new();
    let mut distinct = Vec::new();
    for r in &job.positions {
        if seen.insert(r.id) {
            distinct.push(r.clone());
        }
    }
    let n_distinct = distinct.len() as u64;
    if let Some(shard) = job.shard {
        distinct.retain(|r| shard.contains(r.id.hash));
    }
    let in_shard = distinct.len() as u64;

    let mut out = scored::open_for_append(&job.output)?;
    let mut prov = Provenance {
        distinct: n_distinct,
        shard: job.shard.map(|s| (s.number(), s.count())),
        in_shard,
        complete: false,
        ..job.provenance.clone()
    };
    if let Some(earlier) = Provenance::read(&job.output)? {
        prov.check_resume(&earlier, &sidecar_path(&job.output))?;
    }
    write_sidecar(&job, &prov)?;
    let existing = scored::read_scored(&job.output, true)?;
    let done: HashSet<PositionId> = existing.records.iter().map(|s| s.id).collect();
    let todo: Vec<PositionRecord> = distinct
        .into_iter()
        .filter(|r| !done.contains(&r.id))
        .collect();
    let already = in_shard - todo.len() as u64;

    let analysis = matches!(job.method, Method::Analysis { .. });
    let workers = job.workers.max(1).min(if analysis {
        usize::MAX
    } else {
        todo.len().max(1)
    });
    let mut report = ScoreReport {
        input_records,
        distinct: n_distinct,
        in_shard,
        already_scored: already,
        scored: 0,
        failed: 0,
        failures: Vec::new(),
        abandoned: 0,
        remaining: 0,
        engines: workers,
        engines_lost: 0,
        stopped: false,
        repaired: existing.repaired,
        seconds: 0.0,
        positions_per_second: 0.0,
        todo: Vec::new(),
    };
    let total = todo.len() as u64;
    let mut rec = Recorder {
        out: &mut out,
        stop,
        report: &mut report,
        scored_ids: HashSet::new(),
        append_error: None,
        handled: 0,
        total,
        progress,
    };
    let mut lost: Vec<String> = Vec::new();
    let jobs = todo.iter().map(|r| Job {
        tag: r.id,
        board: r.board.clone(),
        to_play: r.id.to_play,
    });
    if !todo.is_empty() {
        match &job.method {
            Method::Gtp(config) => {
                score_all(jobs, workers, &job.engine, config, stop, |ev| match ev {
                    Event::Scored { tag, playouts } => rec.result(
                        tag,
                        ScoredPosition::from_margins(tag, &playouts.margins),
                        "no margins",
                        playouts.attempts,
                    ),
                    Event::Failed {
                        tag,
                        error,
                        attempts,
                    } => rec.failed(tag, error.to_string(), attempts),
                    Event::Abandoned { .. } => rec.report.abandoned += 1,
                    Event::WorkerLost { worker, error } => {
                        let text = error.to_string();
                        (rec.progress)(Progress::EngineLost {
                            worker,
                            error: &text,
                        });
                        lost.push(text);
                    }
                });
            }
            Method::Analysis { config, restarts } => {
                let result = analyze_all(
                    jobs,
                    &job.engine,
                    config,
                    workers,
                    *restarts,
                    stop,
                    |ev| match ev {
                        AnalysisEvent::Estimated { tag, estimate } => rec.result(
                            tag,
                            ScoredPosition::from_estimate(tag, estimate.lead, estimate.stdev),
                            "no finite score lead",
                            1,
                        ),
                        AnalysisEvent::Failed { tag, error } => rec.failed(tag, error, 1),
                        AnalysisEvent::Abandoned { .. } => rec.report.abandoned += 1,
                    },
                );
                if let Err(e) = result {
                    lost.push(e.to_string());
                }
            }
        }
    }
    let (scored_ids, append_error) = (rec.scored_ids, rec.append_error);
    let _ = out.sync_data();
    if let Some(source) = append_error {
        return Err(JobError::Append {
            path: job.output.clone(),
            source,
        });
    }
    report.engines_lost = lost.len() as u64;
    let all_lost = if analysis {
        !lost.is_empty()
    } else {
        lost.len() == workers
    };
    if all_lost && report.scored == 0 && report.failures.is_empty() && !todo.is_empty() {
        return Err(JobError::NoEngine(lost[0].clone()));
    }
    report.todo = todo
        .into_iter()
        .filter(|r| !scored_ids.contains(&r.id))
        .collect();
    report.remaining = report.todo.len() as u64;
    report.failed = report.failures.len() as u64;
    report.stopped = stop.load(Ordering::SeqCst);
    report.seconds = started.elapsed().as_secs_f64();
    report.positions_per_second = if report.seconds > 0.0 {
        report.scored as f64 / report.seconds
    } else {
        0.0
    };
    prov.complete = report.todo.is_empty() && report.failures.is_empty();
    write_sidecar(&job, &prov)?;
    Ok(report)
}

/// What the engines' answers do, whichever protocol gave them: a score is appended to the
/// output (one write of the whole record, then a flush) and counted; a failure is reported;
/// progress follows both.
struct Recorder<'r> {
    out: &'r mut std::fs::File,
    stop: &'r AtomicBool,
    report: &'r mut ScoreReport,
    scored_ids: HashSet<PositionId>,
    /// The first append that failed: the run stops, and `run` returns it.
    append_error: Option<std::io::Error>,
    handled: u64,
    total: u64,
    progress: &'r mut dyn FnMut(Progress<'_>),
}

impl Recorder<'_> {
    /// A position's answer: its score, or `None` with why the answer gave none.
    fn result(
        &mut self,
        tag: PositionId,
        scored: Option<ScoredPosition>,
        none: &str,
        attempts: u32,
    ) {
        match scored {
            Some(s) => {
                match self
                    .out
                    .write_all(&s.to_bytes())
                    .and_then(|()| self.out.flush())
                {
                    Ok(()) => {
                        self.report.scored += 1;
                        self.scored_ids.insert(tag);
                    }
                    Err(e) => {
                        self.append_error.get_or_insert(e);
                        self.stop.store(true, Ordering::SeqCst);
                    }
                }
                self.done();
            }
            None => self.failed(tag, none.to_string(), attempts),
        }
    }

    /// A position the engine could not score.
    fn failed(&mut self, tag: PositionId, error: String, attempts: u32) {
        let f = Failure {
            id: tag.to_string(),
            error,
            attempts,
        };
        (self.progress)(Progress::Failed(&f));
        self.report.failures.push(f);
        self.done();
    }

    fn done(&mut self) {
        self.handled += 1;
        (self.progress)(Progress::Done {
            handled: self.handled,
            total: self.total,
        });
    }
}

/// What [`run`] reports while it runs.
#[derive(Debug)]
pub enum Progress<'a> {
    /// Positions handled (scored or failed) so far, of `total`.
    Done {
        /// Handled so far.
        handled: u64,
        /// To do in this run.
        total: u64,
    },
    /// A position failed.
    Failed(&'a Failure),
    /// An engine was lost.
    EngineLost {
        /// Its number.
        worker: usize,
        /// Why.
        error: &'a str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_that_does_not_start_is_named_once() {
        let e = JobError::Engine {
            command: "gnugo --mode gtp".into(),
            source: GtpError::Spawn {
                command: "gnugo --mode gtp".into(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            },
        };
        assert_eq!(
            e.to_string(),
            format!(
                "cannot start the engine gnugo --mode gtp: {}",
                std::io::Error::from(std::io::ErrorKind::NotFound)
            )
        );
    }
}
