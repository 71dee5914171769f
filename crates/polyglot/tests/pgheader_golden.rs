//! pgheader 1.0.5 golden files (`reference/pgheader-golden/`): every update case and every
//! command line, run through `kifu_polyglot::pgheader`. In the pgheader dialect every byte
//! must match; in kifu's dialect everything matches except the documented cases where
//! pgheader's variant-count bug makes it write or reject a header.
//!
//! The command lines name books that are not in the corpus; they are rebuilt from it:
//! `h.bin` = `books/comment.bin`, `plain.bin` = `books/test.bin`, `bad.bin` =
//! `books/variants_bug_crazyhouse.bin`, `empty.bin` = 0 bytes, `odd.bin` = test.bin plus
//! 5 bytes, `headeronly.bin` = the 7 header records of comment.bin, `missing.bin` absent.

use kifu_polyglot::pgheader::{parse_args, run, usage_message, Dialect, Outcome};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot/reference/pgheader-golden")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(golden_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs one pgheader command line against in-memory files; returns (stdout, stderr, rc).
fn invoke(
    args: &[&str],
    files: &mut BTreeMap<String, Vec<u8>>,
    dialect: Dialect,
) -> (String, String, i32) {
    let parsed = match parse_args(args) {
        Ok(a) => a,
        Err(e) => return (String::new(), usage_message("pgheader", &e), 1),
    };
    let book = match &parsed.file {
        Some(f) => files
            .get(f)
            .cloned()
            .ok_or_else(|| std::io::Error::from_raw_os_error(2)),
        None => Ok(Vec::new()),
    };
    let Outcome {
        stdout,
        stderr,
        code,
        new_book,
    } = run(&parsed, book, dialect, "pgheader");
    if let (Some(b), Some(f)) = (new_book, &parsed.file) {
        files.insert(f.clone(), b);
    }
    (
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
        code,
    )
}

/// Sections of golden.txt: name -> (stdout, stderr, `-s` after, `-S` after).
fn golden_cases() -> BTreeMap<String, [String; 4]> {
    let text = String::from_utf8(read("golden.txt")).unwrap();
    let mut out = BTreeMap::new();
    for block in text.split("### ").skip(1) {
        let name = block[..block.find(':').unwrap()].to_string();
        let body = &block[block.find('\n').unwrap() + 1..];
        let s1 = body.find("--- stdout:\n").unwrap() + 12;
        let s2 = body.find("--- stderr:\n").unwrap();
        let s3 = body.find("--- pgheader -s after:\n").unwrap();
        let s4 = body.find("--- pgheader -S after:\n").unwrap();
        let mut end = body.len();
        while body[..end].ends_with("\n\n") {
            end -= 1;
        }
        out.insert(
            name,
            [
                body[s1..s2].to_string(),
                body[s2 + 12..s3].to_string(),
                body[s3 + 23..s4].to_string(),
                body[s4 + 23..end].to_string(),
            ],
        );
    }
    out
}

/// What `pgheader -s`/`-S` printed, as captured in golden.txt (stdout, stderr, then rc).
fn show(flag: &str, book: &[u8], dialect: Dialect) -> String {
    let mut files = BTreeMap::from([("book.bin".to_string(), book.to_vec())]);
    let (o, e, rc) = invoke(&[flag, "book.bin"], &mut files, dialect);
    format!("{o}{e}rc={rc}\n")
}

/// Cases where kifu deliberately differs (pgheader's variant-count bug).
const KIFU_DEVIATIONS: [&str; 2] = ["variants_bug_crazyhouse", "variants_3"];

#[test]
fn update_cases() {
    let golden = golden_cases();
    let tsv = String::from_utf8(read("cases.tsv")).unwrap();
    let test_bin = read("books/test.bin");
    let mut seen = 0;
    for line in tsv.lines().filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (name, flags, value, rc) = (cols[0], cols[1], cols[2], cols[3].parse::<i32>().unwrap());
        let mut args: Vec<&str> = flags.split(' ').filter(|f| !f.is_empty()).collect();
        if !flags.is_empty() {
            args.push(value);
        }
        args.push("book.bin");
        let [g_out, g_err, g_show, g_data] = &golden[name];
        let expected_book = read(&format!("books/{name}.bin"));
        for dialect in [Dialect::Pgheader, Dialect::Kifu] {
            if dialect == Dialect::Kifu && KIFU_DEVIATIONS.contains(&name) {
                continue;
            }
            let mut files = BTreeMap::from([("book.bin".to_string(), test_bin.clone())]);
            let (out, err, code) = invoke(&args, &mut files, dialect);
            assert_eq!((&out, &err, code), (g_out, g_err, rc), "{name} {dialect:?}");
            assert_eq!(
                files["book.bin"], expected_book,
                "{name} {dialect:?}: resulting book"
            );
            assert_eq!(
                &show("-s", &files["book.bin"], dialect),
                g_show,
                "{name} {dialect:?}: -s after"
            );
            if dialect == Dialect::Pgheader || name != "variants_bug_crazyhouse" {
                assert_eq!(
                    &show("-S", &files["book.bin"], dialect),
                    g_data,
                    "{name} {dialect:?}: -S after"
                );
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 16);

    // kifu's dialect on the two bug cases: the right count, readable by pgheader itself.
    let mut files = BTreeMap::from([("book.bin".to_string(), test_bin.clone())]);
    let (_, err, rc) = invoke(
        &["-v", "normal,crazyhouse", "book.bin"],
        &mut files,
        Dialect::Kifu,
    );
    assert_eq!((err.as_str(), rc), ("", 0));
    let b = &files["book.bin"];
    assert_eq!(&b[b.len() - 96..], &test_bin[..]);
    assert_eq!(
        show("-s", b, Dialect::Pgheader),
        "Variants supported:\nnormal\ncrazyhouse\nComment:\n(default comment created by pgheader)\nrc=0\n"
    );
    let (_, err, rc) = invoke(
        &["-v", "normal,suicide,losers", "book.bin"],
        &mut files,
        Dialect::Kifu,
    );
    assert_eq!((err.as_str(), rc), ("", 0));
    assert_eq!(
        show("-s", &files["book.bin"], Dialect::Pgheader),
        "Variants supported:\nnormal\nsuicide\nlosers\nComment:\n(default comment created by pgheader)\nrc=0\n"
    );
    // And kifu reads the header pgheader wrote for normal,crazyhouse.
    assert_eq!(
        show("-s", &read("books/variants_bug_crazyhouse.bin"), Dialect::Kifu),
        "Variants supported:\nnormal\ncrazyhouse\nComment:\n(default comment created by pgheader)\nrc=0\n"
    );
}

/// The blocks of golden-cli.txt: (args, stdout, stderr, rc), and the `### after` notes.
fn golden_cli() -> Vec<(Vec<String>, String, String, i32)> {
    let text = String::from_utf8(read("golden-cli.txt")).unwrap();
    let mut out = Vec::new();
    for block in text.split("### ").skip(1) {
        let first = &block[..block.find('\n').unwrap_or(block.len())];
        let Some(arrow) = first.find("  -> rc=") else {
            continue;
        };
        let args: Vec<String> = first[..arrow]
            .split(' ')
            .skip(1)
            .filter(|a| !a.is_empty())
            .map(String::from)
            .collect();
        let rc = first[arrow + 8..].parse().unwrap();
        let s1 = block.find("--- stdout:\n").unwrap() + 12;
        let s2 = block.find("--- stderr:\n").unwrap();
        let err = &block[s2 + 12..];
        let err = err.strip_suffix('\n').unwrap_or(err);
        out.push((args, block[s1..s2].to_string(), err.to_string(), rc));
    }
    out
}

fn cli_files() -> BTreeMap<String, Vec<u8>> {
    let test_bin = read("books/test.bin");
    let h = read("books/comment.bin");
    let mut odd = test_bin.clone();
    odd.extend_from_slice(b"odd!!");
    BTreeMap::from([
        ("h.bin".to_string(), h.clone()),
        ("plain.bin".to_string(), test_bin.clone()),
        (
            "bad.bin".to_string(),
            read("books/variants_bug_crazyhouse.bin"),
        ),
        ("empty.bin".to_string(), Vec::new()),
        ("odd.bin".to_string(), odd),
        (
            "headeronly.bin".to_string(),
            h[..h.len() - test_bin.len()].to_vec(),
        ),
    ])
}

#[test]
fn command_lines() {
    let cases = golden_cli();
    assert_eq!(
        cases.len(),
        29,
        "29 command lines (plus 3 notes on the resulting files)"
    );
    let test_bin = read("books/test.bin");
    for dialect in [Dialect::Pgheader, Dialect::Kifu] {
        let mut files = cli_files();
        for (args, g_out, g_err, g_rc) in &cases {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let got = invoke(&a, &mut files, dialect);
            let line = args.join(" ");
            if dialect == Dialect::Kifu && line == "-s bad.bin" {
                assert_eq!(got.0, "Variants supported:\nnormal\ncrazyhouse\nComment:\n(default comment created by pgheader)\n");
                continue;
            }
            if dialect == Dialect::Kifu && line == "-c x bad.bin" {
                assert_eq!((got.1.as_str(), got.2), ("", 0));
                files.insert("bad.bin".into(), read("books/variants_bug_crazyhouse.bin"));
                continue;
            }
            assert_eq!(
                (&got.0, &got.1, got.2),
                (g_out, g_err, *g_rc),
                "pgheader {line} ({dialect:?})"
            );
        }
        // "### after -d h.bin: identical to test.bin", "### after -d plain.bin: unchanged".
        assert_eq!(files["h.bin"], test_bin);
        assert_eq!(files["plain.bin"], test_bin);
    }
}
