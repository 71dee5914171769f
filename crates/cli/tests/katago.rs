//! Scoring with KataGo, for real: its JSON analysis engine (`--protocol analysis`) and its GTP
//! (`final_score`), against GNU Go on the same positions. KataGo runs on the CPU through OpenCL
//! (pocl) as `tools/katago/install.sh` sets it up in /opt/katago (`.ci/run` does it through
//! `tools/setup_tests.sh`). Without it the tests skip, saying why; under CI=true they fail.
#![allow(clippy::disallowed_macros)]

mod common;
use common::{fails, kifu_in as kifu, ok};

use serde_json::Value;
use std::path::{Path, PathBuf};

const HOME: &str = "/opt/katago";

fn katago() -> Option<(String, String)> {
    let bin = Path::new(HOME).join("katago");
    if !bin.exists() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "KataGo is missing under CI (bash tools/katago/install.sh {HOME})"
        );
        println!("skipping: KataGo is not installed (bash tools/katago/install.sh {HOME})");
        return None;
    }
    let cmd = |mode: &str| {
        format!("{HOME}/katago {mode} -model {HOME}/model.bin.gz -config {HOME}/{mode}.cfg")
    };
    Some((cmd("analysis"), cmd("gtp")))
}

/// A 9x9 board where one colour fills every point but single-point eyes ((row + col) % 3 == 0):
/// alive everywhere, the other colour cannot play anywhere; the owner leads by the whole board.
fn owned_by(stone: char) -> String {
    (0..81)
        .map(|i| if (i / 9 + i % 9) % 3 == 0 { '.' } else { stone })
        .collect()
}

fn json(o: &std::process::Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap()
}

/// The 12 positions: the two owned boards (Black to play on Black's, White on White's) and the
/// first 10 9x9 positions of the shared corpus's fuego regression games.
fn positions(d: &Path) -> PathBuf {
    std::fs::write(
        d.join("owned.txt"),
        format!("{} W\n{} B\n", owned_by('#'), owned_by('O')),
    )
    .unwrap();
    ok(&kifu(
        &["pos", "extract", "owned.txt", "-o", "owned.dat"],
        d,
    ));
    let games = common::corpus().join("sgf/games/fuego-regression");
    ok(&kifu(
        &[
            "pos",
            "extract",
            games.to_str().unwrap(),
            "-o",
            "corpus.dat",
        ],
        d,
    ));
    let mut bytes = std::fs::read(d.join("owned.dat")).unwrap();
    bytes.extend_from_slice(&std::fs::read(d.join("corpus.dat")).unwrap()[..92 * 10]);
    let p = d.join("p.dat");
    std::fs::write(&p, bytes).unwrap();
    p
}

/// (score byte, confidence) of each record, in file order.
fn records(path: &Path) -> Vec<(u8, u8)> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(12)
        .map(|r| (r[10], r[11]))
        .collect()
}

#[test]
fn analysis_engine_scores_resumes_refuses_and_compares_with_gnugo() {
    let Some((analysis, _)) = katago() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    positions(d);
    let score = |out: &str, visits: &str| {
        kifu(
            &[
                "pos",
                "score",
                "p.dat",
                "--protocol",
                "analysis",
                "--visits",
                visits,
                "--rules",
                "chinese",
                "--engine",
                &analysis,
                "-o",
                out,
                "--json",
                "--timeout",
                "300",
            ],
            d,
        )
    };
    let v = json(&score("katago_chinese.dat", "16"));
    assert_eq!(
        (v["scored"].as_u64(), v["failed"].as_u64()),
        (Some(12), Some(0))
    );
    let got = records(&d.join("katago_chinese.dat"));
    assert_eq!(got.len(), 12);
    assert!(got.iter().all(|&(s, c)| (3..=8).contains(&s) && c <= 100));
    // The owned boards: records come as answers come, so find them by their ids.
    let view = json(&kifu(
        &[
            "pos",
            "view",
            "owned.dat",
            "--scores",
            "katago_chinese.dat",
            "--json",
        ],
        d,
    ));
    let text = view.to_string();
    assert!(
        text.contains("\"score\":8") && text.contains("\"score\":3"),
        "{text}"
    );
    let prov: Value =
        serde_json::from_slice(&std::fs::read(d.join("katago_chinese.dat.json")).unwrap()).unwrap();
    assert_eq!(prov["engine"]["name"], "KataGo");
    assert_eq!(prov["engine"]["version"], "1.18.1");
    assert_eq!(prov["protocol"], "analysis");
    assert_eq!(prov["visits"], 16);
    assert_eq!(prov["complete"], true);
    // Resumed: nothing left to do.
    let again = json(&score("katago_chinese.dat", "16"));
    assert_eq!(
        (again["already_scored"].as_u64(), again["scored"].as_u64()),
        (Some(12), Some(0))
    );
    // Another setting is refused and the file is left as it is.
    let err = fails(&score("katago_chinese.dat", "8"), 1);
    assert!(err.contains("made with visits 16, not 8"), "{err}");
    assert_eq!(records(&d.join("katago_chinese.dat")), got);
    // GNU Go on the same positions, and the comparison.
    ok(&kifu(
        &[
            "pos",
            "score",
            "p.dat",
            "--rules",
            "chinese",
            "--engine",
            "gnugo --mode gtp --level 0",
            "--playouts",
            "1",
            "-o",
            "gnugo_chinese.dat",
        ],
        d,
    ));
    let c = kifu(
        &[
            "pos",
            "compare",
            "gnugo_chinese.dat",
            "katago_chinese.dat",
            "--json",
        ],
        d,
    );
    assert!(matches!(c.status.code(), Some(0 | 1)));
    let c: Value = serde_json::from_slice(&c.stdout).unwrap();
    assert_eq!(c["in_both"], 12);
    assert_eq!(c["only_in_a"], 0);
    let by: u64 = c["by_difference"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(by, 12);
    // A command that is not an analysis engine fails at once, naming it.
    let err = fails(
        &kifu(
            &[
                "pos",
                "score",
                "p.dat",
                "--protocol",
                "analysis",
                "--engine",
                "gnugo --mode gtp",
                "-o",
                "x.dat",
            ],
            d,
        ),
        1,
    );
    assert!(
        err.contains("cannot start the engine") && err.contains("query_version"),
        "{err}"
    );
}

#[test]
fn katago_through_gtp_scores_an_owned_board() {
    let Some((_, gtp)) = katago() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("one.txt"), format!("{} W\n", owned_by('#'))).unwrap();
    ok(&kifu(&["pos", "extract", "one.txt", "-o", "one.dat"], d));
    let v = json(&kifu(
        &[
            "pos",
            "score",
            "one.dat",
            "--rules",
            "chinese",
            "--engine",
            &gtp,
            "--playouts",
            "1",
            "-o",
            "katago_gtp.dat",
            "--json",
            "--timeout",
            "600",
        ],
        d,
    ));
    assert_eq!(v["scored"], 1, "{v}");
    assert_eq!(records(&d.join("katago_gtp.dat")), vec![(8, 100)]);
    let prov: Value =
        serde_json::from_slice(&std::fs::read(d.join("katago_gtp.dat.json")).unwrap()).unwrap();
    assert_eq!(prov["protocol"], "gtp");
    assert!(prov["engine"]["version"]
        .as_str()
        .unwrap()
        .starts_with("1.18.1"));
}
