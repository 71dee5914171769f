//! Hostile inputs under a memory limit: the bounds of ARCHITECTURE.md ("Memory bounds") are
//! peak address space = multiple x input + constant; each command runs here under
//! `prlimit --as` set from its bound, on inputs crafted to make memory grow (a diagnostic
//! for every move, thousands of nested `VAR`s, one long line of games). The diagnostics
//! are capped per file: the first 10,000 are kept, then one note counts the rest.
//! Meant for release builds (`cargo test --release`), as the whole suite is.

mod common;

use std::path::Path;
use std::process::{Command, Output};

const MB: usize = 1 << 20;
/// Diagnostics kept per file (`kifu_sgf::DiagnosticSink::DEFAULT_LIMIT`).
const KEPT: usize = 10_000;

/// Runs `kifu ARGS` with its address space limited to `multiple` x `input` bytes + `plus_mb` MiB.
fn kifu_limited(input: usize, multiple: usize, plus_mb: usize, args: &[&str]) -> Output {
    let limit = multiple * input + plus_mb * MB;
    Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .output()
        .expect("prlimit (util-linux) runs")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

/// `(;SZ[19];B[zz];B[zz]...)`: every move is off the board, an error (S108).
fn off_board_moves(n: usize) -> Vec<u8> {
    let mut s = b"(;SZ[19]".to_vec();
    for _ in 0..n {
        s.extend_from_slice(b";B[zz]");
    }
    s.extend_from_slice(b")\n");
    s
}

#[test]
fn sgf_check_keeps_ten_thousand_problems_of_millions_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let n = 1_500_000; // 9 MB
    let bytes = off_board_moves(n);
    let f = write(dir.path(), "bad.sgf", &bytes);
    let out = kifu_limited(bytes.len(), 8, 128, &["sgf", "check", "-j1", &f]);
    assert_eq!(out.status.code(), Some(1), "{}", common::text(&out.stderr));
    let text = common::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), KEPT + 1);
    assert!(lines[..KEPT].iter().all(|l| l.contains("error S108")));
    assert_eq!(
        lines[KEPT],
        format!(
            "{f}: error S109: {} more problems not shown ({} of them errors)",
            n - KEPT,
            n - KEPT
        )
    );
    // The first kept is the first move's B, at column 10.
    assert!(
        lines[0].starts_with(&format!("{f}:1:10: error S108")),
        "{}",
        lines[0]
    );

    let out = kifu_limited(bytes.len(), 8, 128, &["sgf", "check", "-j1", "--json", &f]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), KEPT + 1);
    let note = &list[KEPT];
    assert_eq!(note["code"], "S109");
    assert_eq!(note["severity"], "error");
    assert_eq!(
        note["message"],
        format!(
            "{} more problems not shown ({} of them errors)",
            n - KEPT,
            n - KEPT
        )
    );
}

#[test]
fn an_error_among_the_dropped_problems_still_fails_the_check() {
    // 10,001 moves onto a stone (warnings) come first; the one error, last, is dropped.
    let dir = tempfile::tempdir().unwrap();
    let mut s = b"(;SZ[19]".to_vec();
    for _ in 0..KEPT + 2 {
        s.extend_from_slice(b";B[aa]");
    }
    s.extend_from_slice(b";B[zz])");
    let f = write(dir.path(), "w.sgf", &s);
    let out = common::kifu(&["sgf", "check", &f]);
    assert_eq!(out.status.code(), Some(1));
    let text = common::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), KEPT + 1);
    assert!(lines[..KEPT].iter().all(|l| l.contains("warning S058")));
    assert_eq!(
        lines[KEPT],
        format!("{f}: error S109: 2 more problems not shown (1 of them errors)")
    );
    // Only warnings dropped: the note is a warning, and --errors-only shows nothing.
    let mut s = b"(;SZ[19]".to_vec();
    for _ in 0..KEPT + 3 {
        s.extend_from_slice(b";B[aa]");
    }
    s.push(b')');
    let f = write(dir.path(), "w2.sgf", &s);
    let out = common::kifu(&["sgf", "check", "--errors-only", &f]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(common::text(&out.stdout), "");
}

#[test]
fn sgf_rule_problems_on_every_move_are_capped_too() {
    // Black and White in turn on one point: every move but the first is onto a stone
    // (S058), found by kifu-go's replay, not kifu-sgf.
    let dir = tempfile::tempdir().unwrap();
    let mut s = b"(;SZ[19]".to_vec();
    let n = 1_200_000; // 7 MB
    for i in 0..n {
        s.extend_from_slice(if i % 2 == 0 { b";B[aa]" } else { b";W[aa]" });
    }
    s.extend_from_slice(b")\n");
    let f = write(dir.path(), "moves.sgf", &s);
    let out = kifu_limited(s.len(), 8, 128, &["sgf", "check", "-j1", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    let text = common::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), KEPT + 1);
    assert!(lines[..KEPT].iter().all(|l| l.contains("warning S058")));
    assert_eq!(
        lines[KEPT],
        format!(
            "{f}: warning S109: {} more problems not shown (0 of them errors)",
            n - 1 - KEPT
        )
    );

    let out = kifu_limited(s.len(), 24, 64, &["show", &f]);
    let shown = common::ok(&out);
    assert!(
        shown.starts_with(&format!("Game 1, variation 0, move {n} ")),
        "{shown}"
    );

    let out = kifu_limited(s.len(), 8, 64, &["sgf", "stats", "-j1", &f]);
    assert!(common::ok(&out).contains(&format!("moves       {n}\n")));

    let o = dir.path().join("o.sgf").display().to_string();
    let out = kifu_limited(s.len(), 20, 64, &["sgf", "convert", "-q", &f, "-o", &o]);
    common::ok(&out);
    let converted = std::fs::read_to_string(&o).unwrap();
    assert_eq!(
        converted.matches(";B[").count() + converted.matches(";W[").count(),
        n
    );
}

/// `EVENT x`, a move, then `n` lines of `VAR`, each opening a variation inside the last.
fn var_lines(n: usize) -> Vec<u8> {
    let mut s = b"EVENT x\nB 1 Q4\n".to_vec();
    for _ in 0..n {
        s.extend_from_slice(b"VAR\n");
    }
    s
}

#[test]
fn ishi_check_of_millions_of_nested_vars_is_capped_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let n = 2_000_000; // 8 MB
    let bytes = var_lines(n);
    let f = write(dir.path(), "var.go", &bytes);
    let out = kifu_limited(bytes.len(), 40, 128, &["ishi", "check", "-j1", &f]);
    assert_eq!(out.status.code(), Some(1), "{}", common::text(&out.stderr));
    let text = common::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), KEPT + 1);
    // Each VAR but the first has no move (I024), is never closed (I010) and is empty
    // (I015): 3n - 1 problems, 2n - 1 errors. The reader keeps the first it finds, the
    // I024s of lines 4 to 10,003.
    assert_eq!(
        lines[0],
        format!("{f}:4:1: error I024: VAR without a current B or W move (kept)")
    );
    assert!(lines[KEPT - 1].starts_with(&format!("{f}:10003:1: error I024")));
    let (all, errors) = (3 * n - 1, 2 * n - 1);
    assert_eq!(
        lines[KEPT],
        format!(
            "{f}: error I044: {} more problems not shown ({} of them errors)",
            all - KEPT,
            errors - KEPT
        )
    );
    let o = dir.path().join("var.sgf").display().to_string();
    let out = kifu_limited(bytes.len(), 40, 128, &["convert", "-q", &f, &o]);
    assert_eq!(out.status.code(), Some(1));
    assert!(std::fs::read(&o).unwrap().starts_with(b"(;FF[4]"));
}

#[test]
fn ishi_check_of_nested_variations_with_moves_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = b"EVENT x\nB 1 Q4\n".to_vec();
    let n = 700_000; // 7.7 MB
    for _ in 0..n {
        s.extend_from_slice(b"VAR\nB 1 Q3\n");
    }
    let f = write(dir.path(), "varmove.go", &s);
    let out = kifu_limited(s.len(), 40, 128, &["ishi", "check", "-j1", &f]);
    assert_eq!(out.status.code(), Some(1), "{}", common::text(&out.stderr));
    let text = common::text(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), KEPT + 1);
    assert_eq!(
        lines[KEPT],
        format!(
            "{f}: error I044: {} more problems not shown ({} of them errors)",
            n - KEPT,
            n - KEPT
        )
    );
    let o = dir.path().join("varmove.sgf").display().to_string();
    let out = kifu_limited(s.len(), 64, 128, &["convert", "-q", &f, &o]);
    assert_eq!(out.status.code(), Some(1));
    let sgf = std::fs::read_to_string(&o).unwrap();
    // Each VAR is an alternative to the move before it: all siblings of the first.
    assert_eq!(sgf.matches("B[").count(), n + 1);
}

#[test]
fn deeply_nested_sgf_variations_are_bounded() {
    // `(;B[aa](;W[bb](;...` 700,000 deep: one open variation for every move.
    let dir = tempfile::tempdir().unwrap();
    let n = 700_000;
    let mut s = b"(;SZ[19]".to_vec();
    for i in 0..n {
        let p = i % 361;
        s.extend_from_slice(b"(;");
        s.push(if i % 2 == 0 { b'B' } else { b'W' });
        s.extend_from_slice(&[b'[', b'a' + (p / 19) as u8, b'a' + (p % 19) as u8, b']']);
    }
    s.extend(std::iter::repeat_n(b')', n + 1));
    let f = write(dir.path(), "deep.sgf", &s);
    let out = kifu_limited(s.len(), 8, 128, &["sgf", "check", "-j1", &f]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}", out.status);
    let text = common::text(&out.stdout);
    assert_eq!(text.lines().count(), KEPT + 1);
    assert!(text.lines().last().unwrap().contains(" S109: "));
    let out = kifu_limited(s.len(), 24, 64, &["show", &f]);
    assert!(common::ok(&out).starts_with(&format!("Game 1, variation 0, move {n} ")));
    let o = dir.path().join("deep.go").display().to_string();
    let out = kifu_limited(s.len(), 56, 128, &["convert", "-q", &f, &o]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}", out.status);
}

#[test]
fn sgf_to_ishi_with_forty_thousand_games_on_one_line() {
    // Every game has an `N` Ishi cannot hold: a warning with the column of the game, far
    // along the one line (line and column lookups counted from the line start made this
    // quadratic).
    let dir = tempfile::tempdir().unwrap();
    let game = "(;SZ[19]N[x];B[aa];W[bb])";
    let n = 40_000;
    let s = game.repeat(n);
    let f = write(dir.path(), "games.sgf", s.as_bytes());
    let o = dir.path().join("games.go").display().to_string();
    let out = kifu_limited(s.len(), 56, 128, &["convert", &f, &o]);
    let err = common::ok(&out);
    assert_eq!(err, "");
    let stderr = common::text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), KEPT + 1);
    for (k, l) in [(0, lines[0]), (KEPT - 1, lines[KEPT - 1])] {
        // The game's first node, after its '('.
        let col = k * game.len() + 2;
        assert_eq!(
            l,
            format!(
                "{f}: 1:{col}: warning I040: game {}: N cannot be held in Ishi (1 dropped)",
                k + 1
            )
        );
    }
    assert_eq!(
        lines[KEPT],
        format!(
            "{f}: warning I044: {} more problems not shown (0 of them errors)",
            n - KEPT
        )
    );
    let go = std::fs::read_to_string(&o).unwrap();
    let event = "BOARDSIZE 19\r\nB 1 A19\r\nW 2 B18\r\n";
    assert_eq!(
        go,
        format!("{event}{}", format!("EVENT\r\n{event}").repeat(n - 1))
    );
}
