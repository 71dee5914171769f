//! `kifu convert`, `kifu ishi check` and `kifu sgf stats` on .go files, run as a user runs them.

mod common;
use common::{kifu, kifu_stdin, text};

use std::path::{Path, PathBuf};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/ishi/testspec.go")
}

#[test]
fn convert_go_to_sgf_and_back_gives_the_same_ishi_text() {
    let dir = tempfile::tempdir().unwrap();
    let sgf = dir.path().join("t.sgf");
    let go = dir.path().join("t.go");
    let out = kifu(&["convert", sample().to_str().unwrap(), sgf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sgf_text = std::fs::read_to_string(&sgf).unwrap();
    assert!(sgf_text.starts_with("(;FF[4]CA[UTF-8]GM[1]ISE[]ISR[testspec.go]"));
    assert_eq!(sgf_text.matches("(;FF[4]").count(), 3);
    let out = kifu(&["convert", sgf.to_str().unwrap(), go.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The same model: writing the sample directly gives the same text.
    let direct = kifu(&["convert", sample().to_str().unwrap(), "-", "--to", "go"]);
    assert_eq!(direct.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&go).unwrap(), text(&direct.stdout));
    assert!(text(&direct.stdout).contains("VAR 8\r\nB 1 M7\r\n"));
}

#[test]
fn convert_stdin_to_stdout_needs_formats() {
    let out = kifu_stdin(
        &["convert", "-", "-", "--from", "go", "--to", "sgf"],
        b"B 1 Q3\nw 2 pass\n",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "(;FF[4]CA[UTF-8]GM[1];B[pq];W[])\n");
    let out = kifu_stdin(&["convert", "-", "-"], b"B 1 Q3\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--from"));
    let out = kifu(&["convert", "a.txt", "b.go"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn convert_sgf_to_go_warns_about_what_ishi_cannot_hold() {
    let out = kifu_stdin(
        &["convert", "-", "-", "--from", "sgf", "--to", "go"],
        b"(;FF[4]GM[1]SZ[9]PB[Lee]BR[9p]KM[6.5];B[ee]BL[30];W[cc]BL[20]C[hi])",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "BLACK Lee 9p\r\nKOMI 6.5\r\nBOARDSIZE 9\r\nB 1 E5\r\nW 2 C7\r\nCOM\r\nhi\r\nENDCOM\r\n"
    );
    assert_eq!(
        text(&out.stderr),
        "<stdin>: 1:38: warning I040: game 1: BL cannot be held in Ishi (2 dropped)\n"
    );
}

#[test]
fn ishi_check_reports_lines_and_fails_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.go");
    std::fs::write(&f, "B 1 Q3\nB 1 R4\nVAR\nENDVAR\nENDVAR\nW 3 Z9\n").unwrap();
    let out = kifu(&["ishi", "check", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let name = f.display();
    assert_eq!(
        text(&out.stdout),
        format!(
            "{name}:2:1: error I020: B 1: move number 1 again\n\
             {name}:3:1: warning I015: empty variation (dropped)\n\
             {name}:5:1: error I010: ENDVAR without VAR (ignored)\n\
             {name}:6:1: error I022: W 3: move(s) 2 missing\n\
             {name}:6:1: error I025: W Z9 is off the 19x19 board\n"
        )
    );
    let out = kifu(&["ishi", "check", "--json", sample().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "[]\n");
}

#[test]
fn sgf_stats_counts_go_files_in_folders() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(sample(), dir.path().join("a.go")).unwrap();
    std::fs::write(dir.path().join("b.sgf"), "(;FF[4];B[aa];W[bb])").unwrap();
    let out = kifu(&["sgf", "stats", "--json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 2);
    assert_eq!(v["games"], 4);
    // 110 Ishi moves in the sample, 2 in b.sgf.
    assert_eq!(v["moves"], 112);
    assert_eq!(v["errors"], 0);
}
