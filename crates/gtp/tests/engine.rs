//! The engine client against the fake engine (`examples/fake_engine.rs`, which `cargo test`
//! builds): answers, refusals, crashes, hangs, garbage, slow answers, restarts, retries and
//! clean shutdown without zombies.

use kifu_go::{Board, Color};
use kifu_gtp::{Engine, EngineConfig, GtpError, ScoreConfig, ScoreError, Scorer};
use std::path::{Path, PathBuf};
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
        ..Default::default()
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

/// A wrapper script around the fake engine that first starts a `sleep` (a member of the engine's
/// process group that GTP knows nothing about) and appends its pid to `pids`.
fn wrapped(dir: &Path, pids: &Path, args: &str) -> EngineConfig {
    let script = dir.join("engine.sh");
    // The stray's output goes elsewhere, so that a crash of the engine still closes the pipe.
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsleep 1000 >/dev/null 2>&1 &\necho $! >> '{}'\nexec '{}' {args}\n",
            pids.display(),
            fake().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut c = config("");
    c.argv = vec![script.display().to_string()];
    c
}

/// The strays recorded in `pids` that still run (a zombie is dead: reaping it is up to whoever
/// adopted it), after a bounded wait for the killed ones to be torn down.
fn strays(pids: &Path) -> Vec<u32> {
    let recorded: Vec<u32> = std::fs::read_to_string(pids)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let running = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next());
        // The pid may have been reused by an unrelated process.
        !stat.is_empty() && state != Some("Z") && cmdline.starts_with(b"sleep")
    };
    let t = Instant::now();
    while recorded.iter().any(|&p| running(p)) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<u32> = recorded.into_iter().filter(|&p| running(p)).collect();
    for p in &left {
        // Do not leave them behind when the assertion fails.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &p.to_string()])
            .status();
    }
    left
}

#[test]
fn the_whole_process_group_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    // A `quit` the engine obeys: the stray is killed after the engine exits.
    let pids = dir.path().join("quit");
    let mut e = Engine::start(wrapped(dir.path(), &pids, "")).unwrap();
    assert_eq!(e.command("name").unwrap(), "kifu fake engine");
    let leader = e.pid();
    assert!(e.shutdown().unwrap().success());
    assert!(gone(leader));
    assert_eq!(strays(&pids), [] as [u32; 0], "after quit");

    // Dropped.
    let pids = dir.path().join("drop");
    let e = Engine::start(wrapped(dir.path(), &pids, "")).unwrap();
    drop(e);
    assert_eq!(strays(&pids), [] as [u32; 0], "after drop");

    // A timeout, then a restart; then a crash, found when the output closes.
    let pids = dir.path().join("restart");
    let mut e = Engine::start(wrapped(dir.path(), &pids, "--hang-on C3 --crash-on A1")).unwrap();
    e.command("play B C3").unwrap();
    let err = e
        .command_with_timeout("final_score", Duration::from_millis(200))
        .unwrap_err();
    assert!(matches!(err, GtpError::Timeout { .. }), "{err}");
    e.restart().unwrap();
    e.command("play W A1").unwrap();
    let err = e.command("final_score").unwrap_err();
    assert!(
        matches!(&err, GtpError::Died { status, .. } if status == "exit code 3"),
        "{err}"
    );
    // Both engines' strays are gone, the second before any restart or drop.
    assert_eq!(strays(&pids), [] as [u32; 0], "after a timeout and a crash");
    drop(e);

    // A broken engine at shutdown (no `quit`).
    let pids = dir.path().join("broken");
    let mut e = Engine::start(wrapped(dir.path(), &pids, "--hang-on C3")).unwrap();
    e.command("play B C3").unwrap();
    let err = e
        .command_with_timeout("final_score", Duration::from_millis(200))
        .unwrap_err();
    assert!(err.needs_restart());
    e.shutdown();
    assert_eq!(strays(&pids), [] as [u32; 0], "after a broken shutdown");
}

#[test]
fn timeouts_too_long_for_a_deadline_do_not_panic() {
    let mut e = Engine::start(config("")).unwrap();
    assert_eq!(
        e.command_with_timeout("name", Duration::MAX).unwrap(),
        "kifu fake engine"
    );
    let mut c = config("");
    c.startup_timeout = Duration::MAX;
    c.quit_grace = Duration::MAX;
    let e = Engine::start(c).unwrap();
    assert!(e.shutdown().unwrap().success());
}

#[test]
fn the_scorer_gives_up_after_faults_in_a_row() {
    let hang = Board::from_rows(b"#...O....", None).unwrap();
    let refused = Board::from_rows(b".#..O....", None).unwrap();
    let sound = Board::from_rows(b"....O....", None).unwrap();
    let cfg = ScoreConfig {
        playouts: 1,
        timeout: Duration::from_millis(200),
        retries: 0,
        give_up_after: 3,
        ..Default::default()
    };
    let stop = AtomicBool::new(false);
    let mut s = Scorer::start(config("--hang-on A3 --fail-on B3"), cfg).unwrap();
    for _ in 0..2 {
        assert!(s.score(&hang, Color::Black, &stop).is_err());
        assert!(s.given_up().is_none());
    }
    // An answer, even a refusal, shows the engine works: the count starts again.
    assert!(s.score(&refused, Color::Black, &stop).is_err());
    for _ in 0..2 {
        assert!(s.score(&hang, Color::Black, &stop).is_err());
        assert!(s.given_up().is_none());
    }
    s.score(&sound, Color::Black, &stop).unwrap();
    for _ in 0..2 {
        assert!(s.score(&hang, Color::Black, &stop).is_err());
        assert!(s.given_up().is_none());
    }
    assert!(s.score(&hang, Color::Black, &stop).is_err());
    let err = s.given_up().unwrap();
    assert!(
        matches!(&err, ScoreError::GaveUp { failures: 3, last, command }
            if last.contains("no answer within 200ms") && command.contains("--hang-on A3")),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("gave up on the engine"), "{text}");
}

#[test]
fn pipelined_commands_stay_in_step_after_a_refusal() {
    let mut e = Engine::start(config("")).unwrap();
    let batch: Vec<String> = [
        "boardsize 9",
        "clear_board",
        "frobnicate",
        "play B E5",
        "play W C3",
    ]
    .map(String::from)
    .to_vec();
    let err = e.commands(&batch, Duration::from_secs(10)).unwrap_err();
    assert!(
        matches!(&err, GtpError::Failure { command, message } if command == "frobnicate" && message == "unknown command"),
        "{err}"
    );
    assert!(!e.is_broken());
    // Every answer of the batch was read: the next command gets its own answer, and the moves
    // after the refusal were played.
    assert_eq!(e.command("name").unwrap(), "kifu fake engine");
    assert!(e.command("play B E5").is_err(), "E5 is taken");
    e.commands(&["clear_board".to_string()], Duration::from_secs(10))
        .unwrap();
    e.command("play B E5").unwrap();
    assert!(matches!(
        e.commands(&["name\nquit".to_string()], Duration::from_secs(1)),
        Err(GtpError::BadCommand(_))
    ));
    e.shutdown();
}
