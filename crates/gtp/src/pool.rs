//! A pool of engines scoring positions in parallel: one thread and one [`Scorer`] per engine,
//! jobs taken from a shared iterator, results handed to the caller's thread as they come.

use crate::engine::EngineConfig;
use crate::score::{Playouts, ScoreConfig, ScoreError, Scorer};
use kifu_go::{Board, Color};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// One position to score, with a tag the caller uses to recognise the result.
#[derive(Debug, Clone)]
pub struct Job<T> {
    /// The caller's tag (an index, an id).
    pub tag: T,
    /// The stones.
    pub board: Board,
    /// The side to play.
    pub to_play: Color,
}

/// What the pool reports, on the caller's thread, in the order things happen.
#[derive(Debug)]
pub enum Event<T> {
    /// A position was scored.
    Scored {
        /// The job's tag.
        tag: T,
        /// The playouts.
        playouts: Playouts,
    },
    /// A position could not be scored (after its retries).
    Failed {
        /// The job's tag.
        tag: T,
        /// Why.
        error: ScoreError,
        /// Attempts made.
        attempts: u32,
    },
    /// A position was abandoned because a stop was requested (it is not done).
    Abandoned {
        /// The job's tag.
        tag: T,
    },
    /// A worker's engine could not be (re)started, or was given up after failing on positions in
    /// a row ([`ScoreError::GaveUp`]); the worker has ended.
    WorkerLost {
        /// The worker number.
        worker: usize,
        /// Why.
        error: ScoreError,
    },
}

/// Scores `jobs` with `workers` engines, calling `on_event` on this thread for every result. Stops
/// taking jobs when `stop` is set (positions in flight are abandoned at once, even in the middle of
/// a slow answer: the engine is then killed and not restarted). Ends
/// when the jobs run out, when stopped, or when every worker is lost (an engine that cannot be
/// started, or that failed on [`ScoreConfig::give_up_after`] positions in a row); jobs not reported
/// are left in the iterator's remainder.
pub fn score_all<T, I>(
    jobs: I,
    workers: usize,
    engine: &EngineConfig,
    config: &ScoreConfig,
    stop: &Arc<AtomicBool>,
    mut on_event: impl FnMut(Event<T>),
) where
    T: Send,
    I: Iterator<Item = Job<T>> + Send,
{
    let jobs = Mutex::new(jobs);
    let (tx, rx) = mpsc::channel::<Event<T>>();
    std::thread::scope(|s| {
        for worker in 0..workers.max(1) {
            let tx = tx.clone();
            let jobs = &jobs;
            s.spawn(move || {
                let mut scorer = match Scorer::start(engine.clone(), config.clone()) {
                    Ok(mut sc) => {
                        sc.set_interrupt(Arc::clone(stop));
                        sc
                    }
                    Err(error) => {
                        let _ = tx.send(Event::WorkerLost { worker, error });
                        return;
                    }
                };
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let job = match jobs.lock() {
                        Ok(mut it) => it.next(),
                        Err(_) => None,
                    };
                    let Some(job) = job else { break };
                    let event = match scorer.score(&job.board, job.to_play, stop) {
                        Ok(playouts) => Event::Scored {
                            tag: job.tag,
                            playouts,
                        },
                        Err((ScoreError::Stopped, _)) => Event::Abandoned { tag: job.tag },
                        Err((error, attempts)) => {
                            let lost = matches!(&error, ScoreError::Engine(e) if matches!(e, crate::GtpError::Spawn { .. }));
                            let ev = Event::Failed {
                                tag: job.tag,
                                error,
                                attempts,
                            };
                            if lost {
                                let _ = tx.send(ev);
                                return;
                            }
                            if let Some(error) = scorer.given_up() {
                                let _ = tx.send(ev);
                                let _ = tx.send(Event::WorkerLost { worker, error });
                                // Dropping the scorer kills the engine's process group: it is
                                // broken or hung, a `quit` would only wait for nothing.
                                return;
                            }
                            ev
                        }
                    };
                    if tx.send(event).is_err() {
                        break;
                    }
                }
                scorer.shutdown();
            });
        }
        drop(tx);
        for ev in rx {
            on_event(ev);
        }
    });
}
