//! `kifu pos score`, `merge`, `compare` and `kifu gtp` end to end: the real binary against the
//! real GNU Go (level 0, a few dozen positions, compared with direct GTP sessions) and against
//! kifu's fake engine (crashes, hangs, garbage, refusals, slow answers, SIGKILL and resume).

#![allow(clippy::disallowed_macros)] // a test may print to its own output

use kifu_go::ZobristKeys;
use kifu_go::{Board, BoardSize, Color, Move, Point, Position};
use kifu_posdb::{
    read_positions, read_scored, Keyer, PositionRecord, PositionWriter, ScoredPosition,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const KIFU: &str = env!("CARGO_BIN_EXE_kifu");

fn kifu(args: &[&str]) -> Output {
    Command::new(KIFU).args(args).output().expect("kifu runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn fake(opts: &str) -> String {
    format!("'{KIFU}' fake-gtp-engine {opts}")
}

/// GNU Go: fail under CI=true when missing, otherwise skip with a message.
fn gnugo() -> Option<PathBuf> {
    for p in ["/usr/games/gnugo", "/usr/bin/gnugo"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("gnugo is not installed (apt-get install gnugo)");
    }
    eprintln!("skipping: gnugo is not installed");
    None
}

/// A tiny deterministic generator (splitmix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Positions from random legal games of `moves` moves: (board, side to play, captures happened).
fn random_positions(
    count: usize,
    seed: u64,
    moves: std::ops::Range<u32>,
) -> Vec<(Board, Color, bool)> {
    let size = BoardSize::NINE;
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::new(size);
        let n = moves.start + (rng.next() % u64::from(moves.end - moves.start)) as u32;
        let mut colour = Color::Black;
        for _ in 0..n {
            let mut played = false;
            for _ in 0..50 {
                let p = Point::from_index((rng.next() % 81) as usize, size).unwrap();
                if pos.play(colour, Move::Play(p)).is_ok() {
                    played = true;
                    break;
                }
            }
            if !played {
                break;
            }
            colour = colour.opponent();
        }
        let captured = pos.prisoners(Color::Black) + pos.prisoners(Color::White) > 0;
        // Alternate the side to play independently of the move count.
        let to_play = if out.len() % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        out.push((pos.board(), to_play, captured));
    }
    out
}

fn write_positions(path: &Path, positions: &[(Board, Color)]) -> Vec<PositionRecord> {
    let mut keyer = Keyer::new(ZobristKeys::default_for(BoardSize::NINE));
    let mut w = PositionWriter::new(Vec::new());
    let mut recs = Vec::new();
    for (b, c) in positions {
        let r = PositionRecord {
            id: keyer.key(b, *c).unwrap(),
            board: b.clone(),
            extra: None,
        };
        w.write(&r).unwrap();
        recs.push(r);
    }
    std::fs::write(path, w.into_inner()).unwrap();
    recs
}

/// The test's own reading of the score definition: lower median, clamp(floor, 3, 8), share agreeing.
fn expected(margins: &[f64]) -> (u8, u8) {
    let byte = |m: f64| m.floor().clamp(3.0, 8.0) as u8;
    let mut v = margins.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let score = byte(v[(v.len() - 1) / 2]);
    let agree = margins.iter().filter(|&&m| byte(m) == score).count();
    (score, (agree * 100 / margins.len()) as u8)
}

/// The fake engine's formula (kifu_gtp::fake).
fn fake_margins(board: &Board, to_play: Color, playouts: u32, seed: u32) -> Vec<f64> {
    let side = u32::from(to_play == Color::White);
    (0..playouts)
        .map(|k| {
            let s = seed + 2 * k + side;
            let m = board.count(Color::Black) as i64 - board.count(Color::White) as i64
                + i64::from(s % 3)
                + if to_play == Color::Black { 2 } else { 0 };
            m as f64
        })
        .collect()
}

fn scored_map(path: &Path) -> HashMap<kifu_posdb::PositionId, ScoredPosition> {
    let recs = read_scored(&std::fs::read(path).unwrap()).unwrap();
    let map: HashMap<_, _> = recs.iter().map(|r| (r.id, *r)).collect();
    assert_eq!(
        map.len(),
        recs.len(),
        "duplicate records in {}",
        path.display()
    );
    map
}

/// A direct GNU Go session, written independently of kifu-gtp: all black stones, then all white
/// stones, then a pass by the side not to play if the last stone was the side to play's; the board
/// as GNU Go sees it; then seed and final_score per playout.
/// Margins, then GNU Go's black and white stones after setup.
type Session = (Vec<f64>, String, String);

fn direct_session(
    gnugo: &Path,
    board: &Board,
    to_play: Color,
    playouts: u32,
    seed: u32,
) -> Session {
    let size = board.size();
    let mut script = String::from("boardsize 9\nclear_board\nkomi 0\n");
    let mut last = None;
    for colour in [Color::Black, Color::White] {
        for (p, c) in board.stones() {
            if c == colour {
                script += &format!("play {} {}\n", c.letter(), p.to_human(size));
                last = Some(c);
            }
        }
    }
    if last != Some(to_play.opponent()) {
        script += &format!("play {} pass\n", to_play.opponent().letter());
    }
    script += "list_stones black\nlist_stones white\n";
    let side = u32::from(to_play == Color::White);
    for k in 0..playouts {
        script += &format!("set_random_seed {}\nfinal_score\n", seed + 2 * k + side);
    }
    script += "quit\n";
    let mut child = Command::new(gnugo)
        .args(["--mode", "gtp", "--level", "0", "--chinese-rules"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    let answers: Vec<&str> = out
        .split("\n\n")
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    for a in &answers {
        assert!(
            a.starts_with('='),
            "GNU Go refused something: {a}\n{script}"
        );
    }
    let n = answers.len();
    assert_eq!(n, script.lines().count(), "{script}\n{out}");
    let p = playouts as usize;
    // ..., list_stones black, list_stones white, (set_random_seed, final_score) x p, quit.
    let margins = (0..p)
        .map(|k| answers[n - 2 * p + 2 * k])
        .map(|a| {
            let t = a.trim_start_matches('=').trim();
            if t == "0" {
                0.0
            } else if let Some(v) = t.strip_prefix("B+") {
                v.parse().unwrap()
            } else {
                -t.strip_prefix("W+")
                    .unwrap_or_else(|| panic!("{t:?} in {out}"))
                    .parse::<f64>()
                    .unwrap()
            }
        })
        .collect();
    let stones = |a: &str| {
        let mut v: Vec<String> = a
            .trim_start_matches('=')
            .split_whitespace()
            .map(str::to_string)
            .collect();
        v.sort();
        v.join(" ")
    };
    let black = stones(answers[n - 3 - 2 * p]);
    let white = stones(answers[n - 2 - 2 * p]);
    (margins, black, white)
}

fn stones_of(board: &Board, c: Color) -> String {
    let mut v: Vec<String> = board
        .stones()
        .filter(|&(_, s)| s == c)
        .map(|(p, _)| p.to_human(board.size()))
        .collect();
    v.sort();
    v.join(" ")
}

#[test]
fn gnugo_scores_equal_direct_sessions() {
    let Some(gnugo) = gnugo() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut positions = random_positions(14, 7, 25..50);
    // Positions from games with captures: setting them up by replaying the game would capture.
    let mut rng_seed = 100;
    while positions.iter().filter(|p| p.2).count() < 6 {
        let extra = random_positions(1, rng_seed, 40..60);
        rng_seed += 1;
        if extra[0].2 {
            let to_play = if positions.len().is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            };
            positions.push((extra[0].0.clone(), to_play, true));
        }
    }
    // The same board with both sides to play, and a White-to-play board with no white stone.
    let (b0, _, _) = positions[0].clone();
    positions.push((b0.clone(), Color::White, false));
    positions.push((b0, Color::Black, false));
    let mut lone = Board::new(BoardSize::NINE);
    lone.set(
        Point::from_human("E5", BoardSize::NINE).unwrap(),
        Some(Color::Black),
    )
    .unwrap();
    positions.push((lone, Color::White, false));
    let list: Vec<(Board, Color)> = positions.iter().map(|(b, c, _)| (b.clone(), *c)).collect();
    let input = dir.path().join("positions.dat");
    let recs = write_positions(&input, &list);
    let distinct: HashSet<_> = recs.iter().map(|r| r.id).collect();
    let out = dir.path().join("gnugo_chinese.dat");
    let t = Instant::now();
    let o = kifu(&[
        "pos",
        "score",
        s(&input),
        "--engine",
        "gnugo --mode gtp --level 0",
        "--rules",
        "chinese",
        "--playouts",
        "2",
        "-j",
        "2",
        "-o",
        s(&out),
        "--json",
    ]);
    let secs = t.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["scored"], distinct.len());
    assert_eq!(summary["failed"], 0);
    let scored = scored_map(&out);
    assert_eq!(scored.len(), distinct.len());
    // Direct sessions, two at a time.
    let mut seen = HashSet::new();
    let todo: Vec<&PositionRecord> = recs.iter().filter(|r| seen.insert(r.id)).collect();
    let results: Vec<(usize, Session)> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..2)
            .map(|w| {
                let todo = &todo;
                let gnugo = &gnugo;
                sc.spawn(move || {
                    (0..todo.len())
                        .filter(|i| i % 2 == w)
                        .map(|i| {
                            (
                                i,
                                direct_session(gnugo, &todo[i].board, todo[i].id.to_play, 2, 1),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut spread = HashSet::new();
    for (i, (margins, black, white)) in results {
        let r = todo[i];
        // The engine saw exactly the board: nothing was captured during setup.
        assert_eq!(black, stones_of(&r.board, Color::Black), "{}", r.id);
        assert_eq!(white, stones_of(&r.board, Color::White), "{}", r.id);
        let (score, confidence) = expected(&margins);
        let got = scored[&r.id];
        assert_eq!(
            (got.score, got.confidence),
            (score, confidence),
            "{} margins {margins:?}",
            r.id
        );
        spread.insert(got.score);
    }
    // The check can fail: the positions do not all get the same score.
    assert!(spread.len() >= 2, "{spread:?}");
    eprintln!(
        "GNU Go level 0: {} positions x 2 playouts, -j 2: {secs:.1}s",
        distinct.len()
    );
}

#[test]
fn faults_are_reported_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let mut list: Vec<(Board, Color)> = random_positions(16, 3, 5..30)
        .into_iter()
        .map(|(b, c, _)| (b, c))
        .collect();
    // Keep the trigger points (A9 B9 C9 D9 E9 on the top row) empty in the normal positions.
    for (b, _) in list.iter_mut() {
        for v in ["A9", "B9", "C9", "D9", "E9"] {
            b.set(Point::from_human(v, BoardSize::NINE).unwrap(), None)
                .unwrap();
        }
    }
    list.retain(|(b, _)| b.string_without_liberties().is_none());
    let normal = list.len();
    let with = |v: &str, c: Color| {
        let mut b = Board::new(BoardSize::NINE);
        b.set(
            Point::from_human(v, BoardSize::NINE).unwrap(),
            Some(Color::Black),
        )
        .unwrap();
        b.set(
            Point::from_human("E5", BoardSize::NINE).unwrap(),
            Some(Color::White),
        )
        .unwrap();
        (b, c)
    };
    // crash, hang, garbage, refusal, crash once (then fine), and a board with a dead string.
    list.push(with("A9", Color::Black));
    list.push(with("B9", Color::White));
    list.push(with("C9", Color::Black));
    list.push(with("D9", Color::White));
    list.push(with("E9", Color::Black));
    let dead = Board::from_rows(
        &[b"#O".as_slice(), &[b'.'; 7], b"O", &[b'.'; 71]].concat(),
        Some(BoardSize::NINE),
    )
    .unwrap();
    list.push((dead, Color::Black));
    let input = dir.path().join("p.dat");
    let recs = write_positions(&input, &list);
    let out = dir.path().join("fake.dat");
    let queue = dir.path().join("queue.dat");
    let marker = dir.path().join("crashed-once");
    let engine = fake(&format!(
        "--crash-on A9 --hang-on B9 --garbage-on C9 --fail-on D9 --slow-ms 5 \
         --crash-once-on E9 --crash-once '{}'",
        marker.display()
    ));
    let o = kifu(&[
        "pos",
        "score",
        s(&input),
        "--engine",
        &engine,
        "--playouts",
        "3",
        "--timeout",
        "1",
        "--retries",
        "1",
        "-j",
        "2",
        "-o",
        s(&out),
        "--queue-out",
        s(&queue),
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let failed: HashSet<String> = summary["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect();
    // A9 always crashes, B9 hangs, C9 answers garbage, D9 is refused, the dead string is refused
    // before the engine sees it; E9 crashed once and its retry succeeded.
    let expect_failed: HashSet<String> = [normal, normal + 1, normal + 2, normal + 3, normal + 5]
        .iter()
        .map(|&i| recs[i].id.to_string())
        .collect();
    assert_eq!(
        failed,
        expect_failed,
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let errors: Vec<&str> = summary["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["error"].as_str().unwrap())
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("the engine died (exit code 3)")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("no answer within")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("not a GTP response")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("cannot score")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("no liberties")),
        "{errors:?}"
    );
    assert!(marker.exists());
    let scored = scored_map(&out);
    assert_eq!(scored.len(), recs.len() - 5);
    for r in &recs {
        if let Some(got) = scored.get(&r.id) {
            let (score, confidence) = expected(&fake_margins(&r.board, r.id.to_play, 3, 1));
            assert_eq!((got.score, got.confidence), (score, confidence), "{}", r.id);
        }
    }
    // The queue holds exactly the failed positions, boards intact.
    let q = read_positions(&std::fs::read(&queue).unwrap(), BoardSize::NINE).unwrap();
    let qids: HashSet<String> = q.iter().map(|r| r.id.to_string()).collect();
    assert_eq!(qids, expect_failed);
    for r in &q {
        assert!(recs.contains(r));
    }
    // The faulty engine's file refuses scores of another engine ...
    let o = kifu(&[
        "pos",
        "score",
        s(&queue),
        "--engine",
        &fake(""),
        "--playouts",
        "3",
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("scores of different settings cannot share a file"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // ... so the queue is rescored with a sound engine into a file of its own, and merged: every
    // position but the dead board has its score (which stays failed).
    let fixed = dir.path().join("fixed.dat");
    let o = kifu(&[
        "pos",
        "score",
        s(&queue),
        "--engine",
        &fake(""),
        "--playouts",
        "3",
        "-o",
        s(&fixed),
        "--json",
    ]);
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["scored"], 4);
    assert_eq!(summary["failed"], 1);
    let o = kifu(&["pos", "merge", s(&out), s(&fixed), "-o", s(&out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(scored_map(&out).len(), recs.len() - 1);
}

#[test]
fn sigkill_mid_run_then_resume_gives_every_position_once() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<(Board, Color)> = random_positions(80, 11, 3..40)
        .into_iter()
        .map(|(b, c, _)| (b, c))
        .collect();
    let input = dir.path().join("p.dat");
    let recs = write_positions(&input, &list);
    let ids: HashSet<_> = recs.iter().map(|r| r.id).collect();
    let out = dir.path().join("s.dat");
    let args = |engine: &str| -> Vec<String> {
        [
            "pos",
            "score",
            s(&input),
            "--engine",
            engine,
            "--playouts",
            "1",
            "-j",
            "2",
            "-o",
            s(&out),
            "--json",
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    let mut child = Command::new(KIFU)
        .args(args(&fake("--slow-ms 20")))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    loop {
        let len = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
        if len >= 12 * 10 {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let partial = std::fs::read(&out).unwrap();
    assert_eq!(partial.len() % 12, 0);
    let before = read_scored(&partial).unwrap().len();
    assert!(before >= 10 && before < ids.len(), "{before}");
    // Simulate a torn write as well: half a record at the end.
    let mut f = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
    f.write_all(&partial[..5]).unwrap();
    drop(f);
    // Resumed with the same engine (a file is only ever continued by the engine and settings
    // that began it: its provenance sidecar says which).
    let o = Command::new(KIFU)
        .args(args(&fake("--slow-ms 20")))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["already_scored"], before);
    assert_eq!(summary["repaired"]["offset"], before * 12);
    assert_eq!(summary["repaired"]["bytes_cut"], 5);
    assert_eq!(summary["scored"], ids.len() - before);
    let scored = scored_map(&out); // panics on duplicates
    assert_eq!(scored.keys().copied().collect::<HashSet<_>>(), ids);
    for r in &recs {
        let (score, confidence) = expected(&fake_margins(&r.board, r.id.to_play, 1, 1));
        assert_eq!(
            (scored[&r.id].score, scored[&r.id].confidence),
            (score, confidence)
        );
    }
}

#[test]
fn shards_merge_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let mut list: Vec<(Board, Color)> = random_positions(30, 5, 3..30)
        .into_iter()
        .map(|(b, c, _)| (b, c))
        .collect();
    // Duplicates in the input are scored once.
    list.push(list[0].clone());
    list.push((list[1].0.transform(kifu_go::Symmetry::ALL[3]), list[1].1));
    let input = dir.path().join("p.dat");
    let recs = write_positions(&input, &list);
    let ids: HashSet<_> = recs.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 30);
    let mut parts = Vec::new();
    for i in 1..=3 {
        let out = dir.path().join(format!("part{i}.dat"));
        let o = kifu(&[
            "pos",
            "score",
            s(&input),
            "--engine",
            &fake(""),
            "--playouts",
            "1",
            "-j",
            "1",
            "--shard",
            &format!("{i}/3"),
            "-o",
            s(&out),
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let m = scored_map(&out);
        for id in m.keys() {
            assert_eq!(id.hash % 3, i - 1);
        }
        parts.push(out);
    }
    let merged = dir.path().join("merged.dat");
    let mut args = vec!["pos", "merge"];
    args.extend(parts.iter().map(|p| s(p)));
    args.extend(["-o", s(&merged), "--json"]);
    let o = kifu(&args);
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["written"], 30);
    assert_eq!(v["duplicates"], 0);
    let m = scored_map(&merged);
    assert_eq!(m.keys().copied().collect::<HashSet<_>>(), ids);

    // Conflicts: the higher confidence wins, then the first file.
    let id = |h: u64| kifu_posdb::PositionId {
        hash: h,
        tiebreak: 0,
        to_play: Color::Black,
    };
    let rec = |h, score, confidence| ScoredPosition {
        id: id(h),
        score,
        confidence,
    };
    let bytes = |v: &[ScoredPosition]| v.iter().flat_map(|r| r.to_bytes()).collect::<Vec<u8>>();
    let a = dir.path().join("a.dat");
    let b = dir.path().join("b.dat");
    std::fs::write(
        &a,
        bytes(&[rec(1, 5, 50), rec(2, 6, 90), rec(3, 7, 60), rec(4, 3, 100)]),
    )
    .unwrap();
    std::fs::write(
        &b,
        bytes(&[rec(1, 8, 70), rec(2, 4, 80), rec(3, 3, 60), rec(5, 8, 10)]),
    )
    .unwrap();
    let o = kifu(&["pos", "merge", s(&a), s(&b), "-o", s(&merged), "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["written"].as_u64(), v["conflicts"].as_u64()),
        (Some(5), Some(3))
    );
    assert_eq!(
        read_scored(&std::fs::read(&merged).unwrap()).unwrap(),
        [
            rec(1, 8, 70),
            rec(2, 6, 90),
            rec(3, 7, 60),
            rec(4, 3, 100),
            rec(5, 8, 10)
        ]
    );
    let o = kifu(&["pos", "compare", s(&a), s(&b), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["in_both"], 3);
    assert_eq!(v["agree"], 0);
    assert_eq!(v["only_in_a"], 1);
    assert_eq!(v["only_in_b"], 1);
    assert_eq!(v["by_difference"], serde_json::json!([0, 0, 1, 1, 1, 0]));
    let o = kifu(&["pos", "compare", s(&a), s(&a)]);
    assert_eq!(o.status.code(), Some(0));
    // A torn scored file is an error for compare (which never changes its inputs).
    std::fs::write(&b, &bytes(&[rec(1, 8, 70)])[..7]).unwrap();
    let o = kifu(&["pos", "compare", s(&a), s(&b)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("record 0 (byte offset 0): torn record"));
}

#[test]
fn gtp_debugging_aid() {
    let o = kifu(&[
        "gtp",
        "--engine",
        &fake(""),
        "boardsize 9",
        "play B E5",
        "final_score",
        "frob",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[2]["answer"], "B+1.0");
    assert_eq!(v[3]["ok"], false);
    assert_eq!(v[3]["answer"], "unknown command");
    let o = kifu(&["gtp", "--engine", &fake(""), "name"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout), "= kifu fake engine\n\n");
    let o = kifu(&["gtp", "--engine", "/nonexistent/engine", "name"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot start"));
}

#[test]
fn ctrl_c_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<(Board, Color)> = random_positions(60, 13, 3..30)
        .into_iter()
        .map(|(b, c, _)| (b, c))
        .collect();
    let input = dir.path().join("p.dat");
    let recs = write_positions(&input, &list);
    let out = dir.path().join("s.dat");
    let queue = dir.path().join("q.dat");
    let child = Command::new(KIFU)
        .args([
            "pos",
            "score",
            s(&input),
            "--engine",
            &fake("--slow-ms 30"),
            "--playouts",
            "1",
            "-j",
            "2",
            "-o",
            s(&out),
            "--queue-out",
            s(&queue),
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0) < 12 * 5 {
        assert!(t.elapsed() < Duration::from_secs(20), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["stopped"], true);
    let scored = scored_map(&out);
    let queued = read_positions(&std::fs::read(&queue).unwrap(), BoardSize::NINE).unwrap();
    assert!(!queued.is_empty() && !scored.is_empty());
    assert_eq!(summary["remaining"], queued.len());
    // Every position is either scored or in the queue, never both.
    let ids: HashSet<_> = recs.iter().map(|r| r.id).collect();
    let q: HashSet<_> = queued.iter().map(|r| r.id).collect();
    assert!(q.iter().all(|id| !scored.contains_key(id)));
    assert_eq!(q.len() + scored.len(), ids.len());
}

#[test]
fn ctrl_c_does_not_wait_for_a_slow_engine() {
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<(Board, Color)> = random_positions(4, 17, 3..20)
        .into_iter()
        .map(|(b, c, _)| (b, c))
        .collect();
    let input = dir.path().join("p.dat");
    write_positions(&input, &list);
    let out = dir.path().join("s.dat");
    let child = Command::new(KIFU)
        .args([
            "pos",
            "score",
            s(&input),
            "--engine",
            &fake("--slow-ms 20000"),
            "--playouts",
            "1",
            "-j",
            "2",
            "-o",
            s(&out),
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let t = Instant::now();
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["stopped"], true);
    assert_eq!(summary["scored"], 0);
    assert_eq!(summary["abandoned"], 2);
    assert_eq!(summary["remaining"], 4);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 0);
}
