//! Engines in hostile shapes, through the real binary (`kifu pos score` and `kifu gtp`): wrapper
//! scripts whose children must not outlive kifu (after `quit`, after a timeout kill, after a
//! restart), engines that never answer at start, engines that hang on every position, and
//! `--timeout` values that make no sense.

mod common;

use common::fails;
use kifu_go::{Board, BoardSize, Color, Point, ZobristKeys};
use kifu_posdb::{read_scored, Keyer, PositionRecord, PositionWriter};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const KIFU: &str = env!("CARGO_BIN_EXE_kifu");

/// Runs `kifu ARGS` with its output in files, not pipes: a surviving engine process that inherited
/// kifu's standard error must not make the test wait for it (it would hold a pipe open for ever).
/// A run that takes over a minute is killed and fails the test.
fn kifu(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let mut child = Command::new(KIFU)
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("kifu runs");
    let t = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kifu {args:?} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `n` distinct 9x9 positions, Black to play: a white stone on a different point each, and a black
/// stone on A9 (the fake engine's trigger in these tests) in the positions listed in `on_a9`.
fn write_positions(path: &Path, n: usize, on_a9: impl Fn(usize) -> bool) {
    let size = BoardSize::NINE;
    let mut keyer = Keyer::new(ZobristKeys::default_for(size));
    let mut w = PositionWriter::new(Vec::new());
    for i in 0..n {
        let mut b = Board::new(size);
        b.set(Point::from_index(30 + i, size).unwrap(), Some(Color::White))
            .unwrap();
        if on_a9(i) {
            b.set(Point::from_human("A9", size).unwrap(), Some(Color::Black))
                .unwrap();
        }
        let r = PositionRecord {
            id: keyer.key(&b, Color::Black).unwrap(),
            board: b,
            extra: None,
        };
        w.write(&r).unwrap();
    }
    std::fs::write(path, w.into_inner()).unwrap();
}

/// The two shapes of wrapper: one that leaves a stray child behind and `exec`s the engine (the
/// engine leads the group), and one that runs the engine as its child and waits for it (the shell
/// leads the group). Both append the pid of the process that must not survive to `pids`.
fn wrappers(dir: &Path, pids: &Path, engine_args: &str) -> [PathBuf; 2] {
    let stray = dir.join("stray.sh");
    std::fs::write(
        &stray,
        format!(
            "#!/bin/sh\nsleep 1000 &\necho $! >> '{}'\nexec '{KIFU}' fake-gtp-engine {engine_args}\n",
            pids.display()
        ),
    )
    .unwrap();
    let parent = dir.join("parent.sh");
    // An asynchronous command of a non-interactive shell reads /dev/null unless told otherwise,
    // so the engine gets the shell's standard input through a saved descriptor.
    std::fs::write(
        &parent,
        format!(
            "#!/bin/sh\nexec 3<&0\n'{KIFU}' fake-gtp-engine {engine_args} <&3 3<&- &\n\
             echo $! >> '{}'\nwait\n",
            pids.display()
        ),
    )
    .unwrap();
    for p in [&stray, &parent] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    [stray, parent]
}

/// Whether `pid` is still one of the test's processes (running or stopped, not a zombie: a
/// zombie is dead, and whether it is reaped is up to whoever adopted it).
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|r| r.split_whitespace().next());
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline);
    // The pid may have been reused by an unrelated process.
    let ours = cmdline.contains("sleep") || cmdline.contains("fake-gtp-engine");
    state != Some("Z") && ours
}

/// The pids recorded by the wrappers; kills any survivor when dropped, so that a failing test
/// does not leave processes behind either.
struct Recorded(PathBuf);

impl Recorded {
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }

    /// Asserts that every recorded process is gone (within a bounded wait: a killed process
    /// needs a moment to be torn down) and that there were `at_least` of them.
    fn assert_all_gone(&self, at_least: usize, what: &str) {
        let pids = self.pids();
        assert!(pids.len() >= at_least, "{what}: recorded {pids:?}");
        let t = Instant::now();
        while pids.iter().any(|&p| alive(p)) && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let left: Vec<u32> = pids.into_iter().filter(|&p| alive(p)).collect();
        assert!(left.is_empty(), "{what}: still running: {left:?}");
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        for pid in self.pids() {
            if alive(pid) {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

#[test]
fn wrapper_processes_do_not_outlive_pos_score() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.dat");
    // The third position hangs: a timeout, a kill, a restart; the others end with `quit`.
    write_positions(&input, 5, |i| i == 2);
    for (k, name) in ["stray", "parent"].iter().enumerate() {
        let pids = Recorded(dir.path().join(format!("{name}.pids")));
        let script = &wrappers(dir.path(), &pids.0, "--hang-on A9")[k];
        let out = dir.path().join(format!("{name}.dat"));
        let o = kifu(&[
            "pos",
            "score",
            s(&input),
            "--engine",
            s(script),
            "--playouts",
            "1",
            "--timeout",
            "2",
            "--retries",
            "0",
            "-j",
            "1",
            "-o",
            s(&out),
            "--json",
        ]);
        let err = fails(&o, 1);
        let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(summary["scored"], 4, "{name}: {err}");
        assert_eq!(summary["failed"], 1, "{name}: {err}");
        // The first engine and the one started after the timeout.
        pids.assert_all_gone(2, name);
    }
}

#[test]
fn wrapper_processes_do_not_outlive_gtp() {
    let dir = tempfile::tempdir().unwrap();
    for (k, name) in ["stray", "parent"].iter().enumerate() {
        // A clean session that ends with `quit`.
        let pids = Recorded(dir.path().join(format!("{name}.pids")));
        let script = &wrappers(dir.path(), &pids.0, "--hang-on A9")[k];
        let o = kifu(&["gtp", "--engine", s(script), "name"]);
        assert!(o.status.success(), "{name}: {o:?}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "= kifu fake engine\n\n");
        pids.assert_all_gone(1, name);
        drop(pids);
        // A session that ends with a timeout, then a kill.
        let pids = Recorded(dir.path().join(format!("{name}-hang.pids")));
        let script = &wrappers(dir.path(), &pids.0, "--hang-on A9")[k];
        let o = kifu(&[
            "gtp",
            "--engine",
            s(script),
            "--timeout",
            "1",
            "boardsize 9",
            "play B A9",
            "final_score",
        ]);
        let err = fails(&o, 1);
        assert!(err.contains("no answer within"), "{name}: {err}");
        pids.assert_all_gone(1, name);
    }
}

#[test]
fn the_startup_timeout_follows_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.dat");
    write_positions(&input, 2, |_| false);
    let out = dir.path().join("s.dat");
    // `sleep` reads nothing and answers nothing: a start that never ends. The default startup
    // timeout is 20 s; bounds of 15 s only catch a hang, they measure nothing.
    let t = Instant::now();
    let o = kifu(&["gtp", "--engine", "sleep 1000", "--timeout", "1", "name"]);
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    let err = fails(&o, 1);
    assert!(
        err.contains("\"protocol_version\": no answer within 1s"),
        "{err}"
    );
    let t = Instant::now();
    let o = kifu(&[
        "pos",
        "score",
        s(&input),
        "--engine",
        "sleep 1000",
        "--timeout",
        "1",
        "-j",
        "1",
        "-o",
        s(&out),
    ]);
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    let err = fails(&o, 1);
    assert!(
        err.contains("\"protocol_version\": no answer within 1s"),
        "{err}"
    );
}

#[test]
fn an_engine_that_hangs_on_every_position_is_given_up() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.dat");
    // Two sound positions, then eight that hang.
    write_positions(&input, 10, |i| i >= 2);
    let out = dir.path().join("s.dat");
    let queue = dir.path().join("q.dat");
    let engine = format!("'{KIFU}' fake-gtp-engine --hang-on A9");
    let o = kifu(&[
        "pos",
        "score",
        s(&input),
        "--engine",
        &engine,
        "--playouts",
        "1",
        "--timeout",
        "1",
        "--retries",
        "1",
        "-j",
        "1",
        "-o",
        s(&out),
        "--queue-out",
        s(&queue),
        "--json",
    ]);
    let err = fails(&o, 1);
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Three positions in a row failed (after their retry), then the engine was given up: the five
    // other hanging positions were never tried.
    assert_eq!(summary["scored"], 2, "{err}");
    assert_eq!(summary["failed"], 3, "{err}");
    assert_eq!(summary["remaining"], 8, "{err}");
    assert_eq!(summary["engines_lost"], 1, "{err}");
    assert!(err.contains("gave up on the engine"), "{err}");
    assert!(err.contains("fake-gtp-engine --hang-on A9"), "{err}");
    assert!(err.contains("3 positions in a row failed"), "{err}");
    assert!(err.contains("no answer within 1s"), "{err}");
    // What was scored is kept, and the rest is queued for a later run.
    assert_eq!(read_scored(&std::fs::read(&out).unwrap()).unwrap().len(), 2);
    let queued = kifu_posdb::read_positions(&std::fs::read(&queue).unwrap(), BoardSize::NINE);
    assert_eq!(queued.unwrap().len(), 8);
}

#[test]
fn timeouts_out_of_range_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.dat");
    for bad in ["1e300", "nan", "inf", "0", "-1", "0.0000000001", "ten", ""] {
        let arg = format!("--timeout={bad}");
        let o = kifu(&["gtp", "--engine", "sleep 1000", &arg, "name"]);
        let err = fails(&o, 2);
        assert!(err.contains("--timeout"), "{bad}: {err}");
        let o = kifu(&[
            "pos",
            "score",
            "p.dat",
            "--engine",
            "sleep 1000",
            &arg,
            "-o",
            s(&out),
        ]);
        let err = fails(&o, 2);
        assert!(err.contains("--timeout"), "{bad}: {err}");
        assert!(!out.exists());
    }
}
