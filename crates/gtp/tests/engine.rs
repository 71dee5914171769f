//! The engine client against the fake engine (`examples/fake_engine.rs`, which `cargo test`
//! builds): answers, refusals, crashes, hangs, garbage, slow answers, restarts, retries and
//! clean shutdown without zombies.

use kifu_go::{Board, Color};
use kifu_gtp::{Engine, EngineConfig, GtpError, ScoreConfig, ScoreError, Scorer};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn fake() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let p = dir.join("examples").join("fake_engine");
    assert!(p.exists(), "{} not built", p.display());
    p
}

fn config(args: &str) -> EngineConfig {
    let mut c = EngineConfig::from_command_line(&format!("'{}' {args}", fake().display())).unwrap();
    c.command_timeout = Duration::from_secs(10);
    c.quit_grace = Duration::from_millis(500);
    c
}

/// Whether process `pid` is gone (reaped: no zombie left).
fn gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn answers_refusals_and_multi_line() {
    let mut e = Engine::start(config("")).unwrap();
    assert_eq!(e.command("name").unwrap(), "kifu fake engine");
    let list = e.command("list_commands").unwrap();
    assert_eq!(list.lines().count(), 13);
    assert_eq!(list.lines().nth(5), Some("boardsize"));
    let err = e.command("frobnicate").unwrap_err();
    assert!(
        matches!(&err, GtpError::Failure { message, .. } if message == "unknown command"),
        "{err}"
    );
    assert!(!err.needs_restart() && !e.is_broken());
    assert!(matches!(
        e.command("name\nquit"),
        Err(GtpError::BadCommand(_))
    ));
    assert_eq!(e.command("boardsize 9").unwrap(), "");
    e.command("play B E5").unwrap();
    // 1 - 0 + 0, White to play.
    assert_eq!(e.command("final_score").unwrap(), "B+1.0");
    let pid = e.pid();
    let status = e.shutdown().unwrap();
    assert!(status.success());
    assert!(gone(pid));
}

#[test]
fn crash_is_detected_and_restart_works() {
    let mut e = Engine::start(config("--crash-on A1")).unwrap();
    e.command("play W A1").unwrap();
    let err = e.command("final_score").unwrap_err();
    assert!(
        matches!(&err, GtpError::Died { status, .. } if status == "exit code 3"),
        "{err}"
    );
    assert!(err.needs_restart() && e.is_broken());
    let old = e.pid();
    e.restart().unwrap();
    assert!(gone(old));
    assert_ne!(e.pid(), old);
    assert_eq!(e.restarts(), 1);
    assert_eq!(e.command("final_score").unwrap(), "B+2.0");
    drop(e);
}

#[test]
fn hang_times_out_and_the_engine_is_killed() {
    let mut e = Engine::start(config("--hang-on C3")).unwrap();
    e.command("play B C3").unwrap();
    let t = Instant::now();
    let err = e
        .command_with_timeout("final_score", Duration::from_millis(300))
        .unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }), "{err}");
    assert!(t.elapsed() < Duration::from_secs(3));
    let pid = e.pid();
    // A broken engine is not asked to quit: it is killed at once and reaped.
    let t = Instant::now();
    e.shutdown();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(gone(pid));
}

#[test]
fn garbage_and_slow_answers() {
    let mut e = Engine::start(config("--garbage-on D4 --slow-ms 300")).unwrap();
    e.command("play B D4").unwrap();
    let err = e.command("final_score").unwrap_err();
    assert!(
        matches!(&err, GtpError::Protocol { reply, .. } if reply == "this is not GTP"),
        "{err}"
    );
    e.restart().unwrap();
    let err = e
        .command_with_timeout("final_score", Duration::from_millis(50))
        .unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }));
    e.restart().unwrap();
    assert_eq!(
        e.command_with_timeout("final_score", Duration::from_secs(5))
            .unwrap(),
        "B+2.0"
    );
}

#[test]
fn start_failures() {
    let err = Engine::start(config("--die-at-start")).unwrap_err();
    assert!(matches!(err, GtpError::Died { .. }), "{err}");
    let err =
        Engine::start(EngineConfig::from_command_line("/nonexistent/engine").unwrap()).unwrap_err();
    assert!(matches!(err, GtpError::Spawn { .. }), "{err}");
    assert!(EngineConfig::from_command_line("'unbalanced").is_err());
    assert!(EngineConfig::from_command_line("   ").is_err());
    let c = EngineConfig::from_command_line("gnugo --mode 'gtp' \"a b\"").unwrap();
    assert_eq!(c.argv, ["gnugo", "--mode", "gtp", "a b"]);
}

#[test]
fn scorer_retries_a_crash_once_and_gives_up_on_a_crash_always() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("crashed");
    let board = Board::from_rows(b"#...O....", None).unwrap();
    let cfg = ScoreConfig {
        playouts: 3,
        seed_base: 1,
        rules: Some("chinese".into()),
        timeout: Duration::from_secs(5),
        retries: 2,
    };
    let stop = AtomicBool::new(false);
    let mut s = Scorer::start(
        config(&format!(
            "--crash-once-on A3 --crash-once '{}'",
            marker.display()
        )),
        cfg.clone(),
    )
    .unwrap();
    let p = s.score(&board, Color::White, &stop).unwrap();
    // Seeds 2, 4, 6 (White to play): 1 - 1 + s % 3, White to play.
    assert_eq!(p.margins, [2.0, 1.0, 0.0]);
    assert_eq!(p.attempts, 2);
    assert!(marker.exists());
    s.shutdown();

    let mut s = Scorer::start(config("--crash-on A3"), cfg).unwrap();
    let (err, attempts) = s.score(&board, Color::Black, &stop).unwrap_err();
    assert!(
        matches!(err, ScoreError::Engine(GtpError::Died { .. })),
        "{err}"
    );
    assert_eq!(attempts, 3);
    // The engine still works for the next position.
    let other = Board::from_rows(b"....O....", None).unwrap();
    let p = s.score(&other, Color::Black, &stop).unwrap();
    // Seeds 1, 3, 5 (Black to play): 0 - 1 + s % 3 + 2.
    assert_eq!(p.margins, [2.0, 1.0, 3.0]);
    // A board that cannot be set up is refused before the engine sees it.
    let dead = Board::from_rows(b"#O.O.....", None).unwrap();
    let (err, attempts) = s.score(&dead, Color::Black, &stop).unwrap_err();
    assert!(matches!(err, ScoreError::Illegal(ref p) if p == "A3"));
    assert_eq!(attempts, 0);
}

#[test]
fn interrupt_cuts_a_long_wait_short() {
    let mut e = Engine::start(config("--hang-on C3")).unwrap();
    let flag = std::sync::Arc::new(AtomicBool::new(false));
    e.set_interrupt(flag.clone());
    e.command("play B C3").unwrap();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let t = Instant::now();
    let err = e
        .command_with_timeout("final_score", Duration::from_secs(30))
        .unwrap_err();
    assert!(matches!(err, GtpError::Interrupted { .. }), "{err}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert!(err.needs_restart());
    setter.join().unwrap();
    let pid = e.pid();
    e.shutdown();
    assert!(gone(pid));
}
