//! Scoring as a Slurm array job on a real one-node cluster (started by `tools/slurm_up.sh`, as
//! `.ci/run` does), with real GNU Go: 4 shards merged by the dependent job give the one-process
//! run's bytes; a shard cancelled mid-way is resubmitted by running the command again and resumes
//! its part, with the same result; a sharded extraction, index and book equal one run. The
//! merge refuses parts that do not belong together (without
//! Slurm). When Slurm cannot start here, the cluster tests say why and skip.
#![allow(clippy::disallowed_macros)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const KIFU: &str = env!("CARGO_BIN_EXE_kifu");
const ENGINE: &str = "gnugo --mode gtp --level 0";

/// The cluster tests run one at a time (the cluster has the machine's CPUs only).
static CLUSTER: Mutex<()> = Mutex::new(());

fn kifu(args: &[&str], dir: &Path) -> Output {
    Command::new(KIFU)
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_games())
        .output()
        .unwrap()
}

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn path_with_games() -> String {
    format!("{}:/usr/games", std::env::var("PATH").unwrap_or_default())
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Starts (or finds) the cluster; `None` with the reason printed when it cannot run here.
fn cluster() -> Option<()> {
    if !Path::new("/usr/games/gnugo").exists() && !Path::new("/usr/bin/gnugo").exists() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "GNU Go is missing under CI"
        );
        println!("skipping: GNU Go is not installed");
        return None;
    }
    let up = Command::new("bash")
        .arg(root().join("tools/slurm_up.sh"))
        .output();
    match up {
        Ok(o) if o.status.success() => Some(()),
        Ok(o) => {
            println!(
                "skipping: Slurm cannot start here: {}{}",
                String::from_utf8_lossy(&o.stdout).trim(),
                String::from_utf8_lossy(&o.stderr).trim()
            );
            None
        }
        Err(e) => {
            println!("skipping: Slurm cannot start here: {e}");
            None
        }
    }
}

/// `n` distinct 9x9 positions of the shared corpus's games.
fn positions(dir: &Path, n: usize) -> PathBuf {
    let corpus = root().join("../shared/corpus/sgf/games");
    let all = dir.join("all.dat");
    ok(kifu(
        &[
            "pos",
            "extract",
            corpus.to_str().unwrap(),
            "--size",
            "9",
            "-o",
            all.to_str().unwrap(),
        ],
        dir,
    ));
    let bytes = std::fs::read(&all).unwrap();
    assert!(bytes.len() >= 92 * n);
    let p = dir.join("p.dat");
    std::fs::write(&p, &bytes[..92 * n]).unwrap();
    p
}

/// The one-process run, in canonical (sorted) order.
fn one_process(dir: &Path, positions: &Path) -> Vec<u8> {
    let one = dir.join("one.dat");
    let args = [
        "pos",
        "score",
        positions.to_str().unwrap(),
        "--engine",
        ENGINE,
        "--rules",
        "chinese",
        "--playouts",
        "1",
        "-j",
        "2",
        "-o",
        one.to_str().unwrap(),
    ];
    ok(kifu(&args, dir));
    let sorted = dir.join("one-sorted.dat");
    ok(kifu(
        &[
            "pos",
            "merge",
            "--sort",
            one.to_str().unwrap(),
            "-o",
            sorted.to_str().unwrap(),
        ],
        dir,
    ));
    std::fs::read(sorted).unwrap()
}

fn submit(dir: &Path, positions: &Path, out: &Path) -> serde_json::Value {
    let o = ok(kifu(
        &[
            "slurm",
            "score",
            positions.to_str().unwrap(),
            "--engine",
            ENGINE,
            "--rules",
            "chinese",
            "--playouts",
            "1",
            "--shards",
            "4",
            "-o",
            out.to_str().unwrap(),
            "--json",
        ],
        dir,
    ));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Waits until Slurm no longer lists job `id`.
fn wait_for(id: &str) {
    let started = Instant::now();
    loop {
        let o = Command::new("squeue")
            .args(["-h", "-j", id])
            .output()
            .unwrap();
        if !o.status.success() || o.stdout.is_empty() {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "job {id} still queued: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn records(path: &Path) -> usize {
    std::fs::metadata(path).map_or(0, |m| m.len() as usize / 12)
}

#[test]
fn four_shards_merged_by_the_dependent_job_equal_one_process() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    if cluster().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = positions(dir.path(), 40);
    let want = one_process(dir.path(), &p);
    assert_eq!(want.len(), 40 * 12);
    let out = dir.path().join("slurm.dat");
    let jobs = submit(dir.path(), &p, &out);
    assert_eq!(jobs["submitted_shards"], serde_json::json!([1, 2, 3, 4]));
    // The jobs carry names squeue shows.
    let names = Command::new("squeue")
        .args(["-h", "-o", "%j"])
        .output()
        .unwrap();
    let names = String::from_utf8_lossy(&names.stdout);
    assert!(names.is_empty() || names.contains("kifu-"), "{names}");
    wait_for(jobs["merge_job"].as_str().unwrap());
    let got = std::fs::read(&out).unwrap_or_else(|e| {
        let log = std::fs::read_to_string(dir.path().join("slurm.dat.slurm/logs/merge.log"));
        panic!("no merged file ({e}): {log:?}")
    });
    assert!(
        got == want,
        "the sharded run differs from the one-process run"
    );
    let prov: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("slurm.dat.json")).unwrap()).unwrap();
    assert_eq!(prov["complete"], true);
    assert_eq!(prov["in_shard"], 40);
    assert_eq!(prov["engine"]["name"], "GNU Go");
}

#[test]
fn a_cancelled_shard_is_resubmitted_and_resumes_its_part() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    if cluster().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = positions(dir.path(), 120);
    let want = one_process(dir.path(), &p);
    let out = dir.path().join("slurm.dat");
    let jobs = submit(dir.path(), &p, &out);
    let array = jobs["array_job"].as_str().unwrap().to_string();
    let part = dir.path().join("slurm.dat.slurm/part-00002-of-00004.dat");
    let started = Instant::now();
    while records(&part) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "shard 2 never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Cancelled mid-way.
    let o = Command::new("scancel")
        .arg(format!("{array}_2"))
        .output()
        .unwrap();
    assert!(o.status.success());
    wait_for(&array);
    std::thread::sleep(Duration::from_millis(500));
    let kept = records(&part);
    assert!(kept >= 2, "the cancelled shard kept its whole records");
    assert!(!out.exists(), "no merge of an incomplete run");
    // The same command again: only shard 2 is resubmitted, and it resumes its part.
    let jobs = submit(dir.path(), &p, &out);
    assert_eq!(jobs["submitted_shards"], serde_json::json!([2]));
    wait_for(jobs["merge_job"].as_str().unwrap());
    let log = std::fs::read_to_string(dir.path().join("slurm.dat.slurm/logs/score-2.log")).unwrap();
    assert!(log.contains(&format!("{kept} already scored")), "{log}");
    assert!(
        std::fs::read(&out).unwrap() == want,
        "the resumed run differs"
    );
}

#[test]
fn the_merge_refuses_parts_that_do_not_belong_together() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Positions without GNU Go: the fake engine scores any board.
    let p = positions(d, 12);
    let fake = format!("'{KIFU}' fake-gtp-engine");
    let part = |name: &str, shard: &str, playouts: &str| {
        ok(kifu(
            &[
                "pos",
                "score",
                p.to_str().unwrap(),
                "--engine",
                &fake,
                "--playouts",
                playouts,
                "--shard",
                shard,
                "-o",
                d.join(name).to_str().unwrap(),
            ],
            d,
        ));
        d.join(name).to_str().unwrap().to_string()
    };
    let a = part("a.dat", "1/3", "3");
    let b = part("b.dat", "2/3", "3");
    let c = part("c.dat", "3/3", "3");
    let merge = |parts: &[&str]| {
        let mut args = vec!["pos", "merge", "--shards"];
        args.extend_from_slice(parts);
        args.extend_from_slice(&["-o", "m.dat"]);
        kifu(&args, d)
    };
    ok(merge(&[&c, &a, &b]));
    let fails = |o: Output, says: &str| {
        assert_eq!(o.status.code(), Some(1));
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(e.contains(says), "{e} lacks {says}");
    };
    fails(merge(&[&a, &b]), "missing shard 3/3 of 3");
    fails(merge(&[&a, &b, &b]), "b.dat: shard 2/3 is given twice");
    let w = part("w.dat", "2/4", "3");
    fails(merge(&[&a, &w, &c]), "w.dat: shard 2/4, but");
    let other = part("o.dat", "2/3", "5");
    fails(merge(&[&a, &other, &c]), "playouts");
    // A part cut short by a kill: its sidecar says incomplete.
    let sidecar = d.join("b.dat.json");
    let text = std::fs::read_to_string(&sidecar).unwrap();
    std::fs::write(
        &sidecar,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    fails(merge(&[&a, &b, &c]), "b.dat: shard 2/3 is not complete");
    std::fs::remove_file(&sidecar).unwrap();
    fails(merge(&[&a, &b, &c]), "b.dat: no provenance sidecar");
}

/// Runs a `kifu slurm` job of 3 shards and waits for its merge; the merged file's bytes.
fn run_job(dir: &Path, args: &[&str], out: &Path) -> Vec<u8> {
    let mut all = vec!["slurm"];
    all.extend_from_slice(args);
    all.extend(["--shards", "3", "-o", out.to_str().unwrap(), "--json"]);
    let o = ok(kifu(&all, dir));
    let jobs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(jobs["submitted_shards"], serde_json::json!([1, 2, 3]));
    wait_for(jobs["merge_job"].as_str().unwrap());
    std::fs::read(out).unwrap_or_else(|e| {
        // Every task's log (a shard that failed cancels the merge, which then has none).
        let work = PathBuf::from(jobs["work"].as_str().unwrap());
        let mut logs = String::new();
        if let Ok(dir) = std::fs::read_dir(work.join("logs")) {
            let mut names: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
            names.sort();
            for p in names {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                logs.push_str(&format!("--- {}\n{text}\n", p.display()));
            }
        }
        panic!(
            "no merged file {} ({e}); the tasks' logs:\n{logs}",
            out.display()
        )
    })
}

#[test]
fn sharded_extraction_index_and_book_on_the_cluster_equal_one_process() {
    let _one = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    if cluster().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = root().join("../shared/corpus/sgf/games/fuego-regression");
    let games = games.to_str().unwrap();
    let one = d.join("one.dat");
    ok(kifu(
        &[
            "pos",
            "extract",
            games,
            "--variations",
            "-o",
            one.to_str().unwrap(),
        ],
        d,
    ));
    let got = run_job(
        d,
        &["extract", games, "--variations"],
        &d.join("sharded.dat"),
    );
    assert!(got.len() > 10_000);
    assert!(
        got == std::fs::read(&one).unwrap(),
        "the sharded extraction differs"
    );

    let pgn = root().join("../shared/corpus/polyglot/pgn/Fischer.pgn");
    let pgn = pgn.to_str().unwrap();
    let book = d.join("one.bin");
    ok(kifu(
        &[
            "book",
            "make",
            pgn,
            "--min-game",
            "2",
            "-o",
            book.to_str().unwrap(),
        ],
        d,
    ));
    let got = run_job(d, &["book", pgn, "--min-game", "2"], &d.join("sharded.bin"));
    assert!(got.len() > 1_000);
    // The header names the PGN files as given: both runs were given the same path.
    assert!(
        got == std::fs::read(&book).unwrap(),
        "the sharded book differs"
    );
}
