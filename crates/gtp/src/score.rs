//! Scoring a position with an engine: setup, rules, komi, playouts with seeds, `final_score`.
//!
//! # The session for one position
//! ```text
//! clear_cache         only if the engine knows it (GNU Go does)
//! boardsize N
//! clear_board
//! komi 0
//! play C V            one per stone: first every stone of the side to play, then the opponent's
//! play C pass         only if the opponent has no stone (so the last move is the opponent's)
//! set_random_seed S   then final_score, once per playout (the seed only if the engine knows
//!                     `set_random_seed`: KataGo does not, and varies its searches itself)
//! final_score
//! ```
//! GNU Go takes the side to move from the colour of the last move, not from anything else, so the
//! setup ends with a move by the side *not* to play. Setting up a legal position stone by stone
//! never captures, whatever the order: a string that ran out of liberties during setup would still
//! have none once all stones are down, because setup only adds stones. Boards with a string
//! without liberties cannot be set up this way and are refused before the engine sees them
//! ([`ScoreError::Illegal`]); this is also why `loadsgf` is not needed.
//!
//! # Seeds
//! Playout `k` (0-based) of a position with `to_play` uses seed `seed_base + 2k` for Black to play
//! and `seed_base + 2k + 1` for White to play ([`playout_seeds`]). GNU Go caches the result of
//! `final_score` by board and seed only, not by side to play, so a board scored for Black right
//! before the same board for White would get Black's cached answer if the seeds were equal.
//!
//! # Caches
//! GNU Go's caches (reading results, `final_score` by board and seed) outlive `clear_board`, and
//! at low levels a cached answer can differ from a fresh one: a position's score then depended
//! on which positions the same engine had scored before. Shards score positions in other orders
//! and other groupings, so the session starts with `clear_cache` when the engine knows it: every
//! position is scored as if by a fresh engine, and a sharded run gives the one-process run's
//! bytes.
//!
//! # Rules
//! If the engine knows `kgs-rules`, `kgs-rules NAME` is sent after every (re)start. GNU Go
//! (a program named `gnugo*`) has no rules command: `--chinese-rules` or `--japanese-rules` is added
//! to its command line instead. Other engines cannot be told rules ([`ScoreError::RulesUnsupported`]);
//! pass the engine's own flags in its command line and no rules.

use crate::engine::{Engine, EngineConfig, GtpError};
use kifu_go::{Board, Color};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How many positions in a row may fail with an engine fault (a death, a hang, garbage, a failed
/// restart; each after its retries) before a [`Scorer`] gives its engine up: an engine that fails
/// on every position would otherwise be restarted for ever, each attempt costing a timeout.
pub const GIVE_UP_AFTER: u32 = 3;

/// How positions are scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreConfig {
    /// Playouts (`final_score` calls with different seeds) per position; at least 1.
    pub playouts: u32,
    /// The first seed (see the module docs).
    pub seed_base: u32,
    /// The ruleset, e.g. `chinese` or `japanese`; `None` keeps the engine's default.
    pub rules: Option<String>,
    /// The timeout of each command (a `final_score` at a high level needs seconds).
    pub timeout: Duration,
    /// How many times a position is retried after the engine died, hung or answered garbage
    /// (each retry restarts the engine).
    pub retries: u32,
    /// How many positions in a row may fail with an engine fault before the engine is given up
    /// ([`Scorer::given_up`]); 0 counts as 1, so that giving up cannot be turned off.
    pub give_up_after: u32,
}

impl Default for ScoreConfig {
    fn default() -> Self {
        ScoreConfig {
            playouts: 3,
            seed_base: 1,
            rules: None,
            timeout: Duration::from_secs(60),
            retries: 2,
            give_up_after: GIVE_UP_AFTER,
        }
    }
}

/// Why a position was not scored.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    /// The engine failed (the last of the attempts).
    #[error(transparent)]
    Engine(#[from] GtpError),
    /// The board has a string without liberties, so it cannot be set up by moves.
    #[error("the board cannot be set up: the string at {0} has no liberties")]
    Illegal(String),
    /// `final_score` answered something that is not a score.
    #[error("final_score answered {0:?}, which is not a score")]
    NotAScore(String),
    /// The engine has no way to set the ruleset.
    #[error("the engine has no kgs-rules command and is not GNU Go: cannot set rules {0:?}")]
    RulesUnsupported(String),
    /// GNU Go knows only Chinese and Japanese rules.
    #[error("GNU Go has no {0:?} rules (chinese or japanese)")]
    UnknownRules(String),
    /// A stop was requested.
    #[error("stopped")]
    Stopped,
    /// Positions failed in a row with engine faults, up to [`ScoreConfig::give_up_after`]: the
    /// engine is not worth more restarts.
    #[error(
        "gave up on the engine {command}: {failures} positions in a row failed (the last: {last})"
    )]
    GaveUp {
        /// The engine's command line.
        command: String,
        /// How many positions failed in a row.
        failures: u32,
        /// The last fault.
        last: String,
    },
}

/// The seeds of the playouts of a position (see the module docs).
pub fn playout_seeds(config: &ScoreConfig, to_play: Color) -> Vec<u32> {
    let side = u32::from(to_play == Color::White);
    (0..config.playouts.max(1))
        .map(|k| config.seed_base.wrapping_add(2 * k + side))
        .collect()
}

/// The setup commands for `board` with `to_play` (see the module docs).
pub fn setup_commands(board: &Board, to_play: Color) -> Vec<String> {
    let size = board.size();
    let mut cmds = vec![
        format!("boardsize {}", size.get()),
        "clear_board".to_string(),
        "komi 0".to_string(),
    ];
    for colour in [to_play, to_play.opponent()] {
        for (p, c) in board.stones() {
            if c == colour {
                cmds.push(format!("play {} {}", c.letter(), p.to_human(size)));
            }
        }
    }
    if board.count(to_play.opponent()) == 0 {
        cmds.push(format!("play {} pass", to_play.opponent().letter()));
    }
    cmds
}

/// The on-board margin (Black minus White) of a `final_score` answer: `B+3.5` is 3.5, `W+2` is
/// -2, `0` (and `B+0`, `Jigo`) is 0. Resignation or time wins (`B+R`, `W+T`) are not scores.
pub fn parse_final_score(text: &str) -> Option<f64> {
    let t = text.trim();
    if t == "0" || t.eq_ignore_ascii_case("jigo") || t == "0.0" {
        return Some(0.0);
    }
    let (sign, rest) = match t.as_bytes().first()? {
        b'B' | b'b' => (1.0, &t[1..]),
        b'W' | b'w' => (-1.0, &t[1..]),
        _ => return None,
    };
    let v: f64 = rest.strip_prefix('+')?.parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(sign * v)
}

/// The margins of one scored position and how many attempts it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Playouts {
    /// One on-board margin per playout, in seed order.
    pub margins: Vec<f64>,
    /// 1 if the first attempt succeeded.
    pub attempts: u32,
}

/// An engine prepared for scoring (rules set), with the retry policy of a [`ScoreConfig`].
#[derive(Debug)]
pub struct Scorer {
    engine: Engine,
    config: ScoreConfig,
    rules_command: Option<String>,
    /// The engine knows `clear_cache` (sent before every position).
    clear_cache: bool,
    /// The engine knows `set_random_seed` (sent before every playout).
    seeds: bool,
    /// Positions failed in a row with an engine fault, and the last fault.
    faults_in_a_row: u32,
    last_fault: String,
}

fn is_gnugo(argv0: &str) -> bool {
    std::path::Path::new(argv0)
        .file_name()
        .and_then(|f| f.to_str())
        .is_some_and(|f| f.starts_with("gnugo"))
}

impl Scorer {
    /// Starts an engine and sets its rules (see the module docs).
    pub fn start(mut engine: EngineConfig, config: ScoreConfig) -> Result<Scorer, ScoreError> {
        let mut rules_command = None;
        let gnugo = is_gnugo(&engine.argv[0]);
        if let (Some(rules), true) = (&config.rules, gnugo) {
            let flag = match rules.to_ascii_lowercase().as_str() {
                "chinese" => "--chinese-rules",
                "japanese" => "--japanese-rules",
                _ => return Err(ScoreError::UnknownRules(rules.clone())),
            };
            if !engine.argv.iter().any(|a| a.ends_with("-rules")) {
                engine.argv.push(flag.to_string());
            }
        }
        let mut e = Engine::start(engine)?;
        if let (Some(rules), false) = (&config.rules, gnugo) {
            if e.command("known_command kgs-rules")? != "true" {
                return Err(ScoreError::RulesUnsupported(rules.clone()));
            }
            let cmd = format!("kgs-rules {rules}");
            e.command(&cmd)?;
            rules_command = Some(cmd);
        }
        let clear_cache = e
            .command("known_command clear_cache")
            .is_ok_and(|a| a.trim() == "true");
        let seeds = e
            .command("known_command set_random_seed")
            .is_ok_and(|a| a.trim() == "true");
        Ok(Scorer {
            engine: e,
            config,
            rules_command,
            clear_cache,
            seeds,
            faults_in_a_row: 0,
            last_fault: String::new(),
        })
    }

    /// Cuts short any wait for the engine once `flag` is set (see [`Engine::set_interrupt`]); the
    /// position in flight then ends with [`ScoreError::Stopped`].
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.engine.set_interrupt(flag);
    }

    /// The engine (for its pid, restarts, or extra commands).
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Stops the engine cleanly (`quit`, then kill after the grace period).
    pub fn shutdown(self) {
        self.engine.shutdown();
    }

    fn attempt(
        &mut self,
        board: &Board,
        to_play: Color,
        stop: &AtomicBool,
    ) -> Result<Vec<f64>, ScoreError> {
        let t = self.config.timeout;
        if stop.load(Ordering::Relaxed) {
            return Err(ScoreError::Stopped);
        }
        // The whole setup in one write, its answers read in order: one round trip a position
        // rather than one a stone.
        let mut setup = Vec::new();
        if self.clear_cache {
            setup.push("clear_cache".to_string());
        }
        setup.extend(setup_commands(board, to_play));
        self.engine.commands(&setup, t)?;
        let mut margins = Vec::new();
        for seed in playout_seeds(&self.config, to_play) {
            if stop.load(Ordering::Relaxed) {
                return Err(ScoreError::Stopped);
            }
            if self.seeds {
                self.engine
                    .command_with_timeout(&format!("set_random_seed {seed}"), t)?;
            }
            let answer = self.engine.command_with_timeout("final_score", t)?;
            match parse_final_score(&answer) {
                Some(m) => margins.push(m),
                None => return Err(ScoreError::NotAScore(answer)),
            }
        }
        Ok(margins)
    }

    /// Scores one position: the margins of all playouts. After an engine failure that needs a
    /// restart (death, hang, garbage), the engine is restarted and the position tried again, up to
    /// `retries` times; a refusal (`?`) or a non-score answer is not retried. Positions that fail
    /// with an engine fault are counted (an answer resets the count) for [`Scorer::given_up`].
    pub fn score(
        &mut self,
        board: &Board,
        to_play: Color,
        stop: &AtomicBool,
    ) -> Result<Playouts, (ScoreError, u32)> {
        let result = self.score_with_retries(board, to_play, stop);
        match &result {
            Ok(_)
            | Err((ScoreError::Engine(GtpError::Failure { .. }), _))
            | Err((ScoreError::NotAScore(_), _)) => self.faults_in_a_row = 0,
            Err((ScoreError::Engine(e), _)) if e.needs_restart() => {
                self.faults_in_a_row += 1;
                self.last_fault = e.to_string();
            }
            // Not the engine's doing (a board that cannot be set up, a stop).
            Err(_) => {}
        }
        result
    }

    /// [`ScoreError::GaveUp`] once [`ScoreConfig::give_up_after`] positions in a row have failed
    /// with an engine fault; the caller should then stop using this scorer.
    pub fn given_up(&self) -> Option<ScoreError> {
        (self.faults_in_a_row >= self.config.give_up_after.max(1)).then(|| ScoreError::GaveUp {
            command: self.engine.config().command_line(),
            failures: self.faults_in_a_row,
            last: self.last_fault.clone(),
        })
    }

    fn score_with_retries(
        &mut self,
        board: &Board,
        to_play: Color,
        stop: &AtomicBool,
    ) -> Result<Playouts, (ScoreError, u32)> {
        if let Some(p) = board.string_without_liberties() {
            return Err((ScoreError::Illegal(p.to_human(board.size())), 0));
        }
        let mut attempts = 0;
        loop {
            attempts += 1;
            if self.engine.is_broken() {
                if let Err(e) = self.restart() {
                    return Err((e, attempts));
                }
            }
            match self.attempt(board, to_play, stop) {
                Ok(margins) => return Ok(Playouts { margins, attempts }),
                Err(ScoreError::Engine(GtpError::Interrupted { .. })) => {
                    return Err((ScoreError::Stopped, attempts))
                }
                Err(ScoreError::Engine(e))
                    if e.needs_restart()
                        && attempts <= self.config.retries
                        && !stop.load(Ordering::Relaxed) => {}
                Err(e) => return Err((e, attempts)),
            }
        }
    }

    fn restart(&mut self) -> Result<(), ScoreError> {
        self.engine.restart()?;
        if let Some(cmd) = &self.rules_command {
            self.engine.command(cmd)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_score_answers() {
        assert_eq!(parse_final_score("B+13.0"), Some(13.0));
        assert_eq!(parse_final_score("W+2.5"), Some(-2.5));
        assert_eq!(parse_final_score(" 0 "), Some(0.0));
        assert_eq!(parse_final_score("B+R"), None);
        assert_eq!(parse_final_score("W+-3"), None);
        assert_eq!(parse_final_score("garbage"), None);
        assert_eq!(parse_final_score(""), None);
    }

    #[test]
    fn setup_ends_with_the_opponent() {
        let b = Board::from_rows(b"#O.......", None).unwrap();
        assert_eq!(
            setup_commands(&b, Color::Black)[3..],
            ["play B A3", "play W B3"]
        );
        assert_eq!(
            setup_commands(&b, Color::White)[3..],
            ["play W B3", "play B A3"]
        );
        let only_black = Board::from_rows(b"#........", None).unwrap();
        assert_eq!(
            setup_commands(&only_black, Color::Black)[3..],
            ["play B A3", "play W pass"]
        );
        assert_eq!(
            setup_commands(&only_black, Color::White)[3..],
            ["play B A3"]
        );
        let empty = Board::from_rows(b".........", None).unwrap();
        assert_eq!(
            setup_commands(&empty, Color::Black),
            ["boardsize 3", "clear_board", "komi 0", "play W pass"]
        );
    }

    #[test]
    fn seeds_differ_by_side() {
        let c = ScoreConfig {
            playouts: 3,
            seed_base: 10,
            ..Default::default()
        };
        assert_eq!(playout_seeds(&c, Color::Black), [10, 12, 14]);
        assert_eq!(playout_seeds(&c, Color::White), [11, 13, 15]);
    }

    #[test]
    fn liberties() {
        assert_eq!(
            Board::from_rows(b"#O.......", None)
                .unwrap()
                .string_without_liberties(),
            None
        );
        // Black in the corner surrounded by White.
        let dead = Board::from_rows(b"#O.O.....", None).unwrap();
        assert_eq!(
            dead.string_without_liberties()
                .map(|p| p.to_human(dead.size())),
            Some("A3".to_string())
        );
        // A full board: every string lacks liberties; the first is reported.
        let full = Board::from_rows(b"#########", None).unwrap();
        assert!(full.string_without_liberties().is_some());
    }
}
