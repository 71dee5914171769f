//! The analysis-engine client against a scripted engine (Python, speaking KataGo's analysis
//! protocol): answers out of order, refusals, an engine that dies mid-batch and is started
//! again, and a stop. (Real KataGo is tested in the CLI's tests/katago.rs.)

use kifu_go::{Board, BoardSize, Color, Point};
use kifu_gtp::analysis::{analyze_all, AnalysisConfig, AnalysisEvent};
use kifu_gtp::{EngineConfig, Job};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The scripted engine: answers `query_version`; holds each odd-numbered query until the next
/// one has been answered (so answers come out of order), or until no other came for a second
/// (a last query is answered too); refuses boards with a stone on A1; the first process started
/// dies after reading its third query (a marker file tells later processes apart). The lead is the number of black stones minus white ones, the deviation 2.
const SCRIPT: &str = r#"
import json, os, select, sys
marker = sys.argv[1]
first = not os.path.exists(marker)
open(marker, "a").close()
held = None
seen = 0
def answer(q):
    stones = q["initialStones"]
    if any(p == "A1" for _, p in stones):
        print(json.dumps({"id": q["id"], "error": "no A1 please"}), flush=True)
        return
    lead = sum(1 if c == "B" else -1 for c, _ in stones)
    print(json.dumps({"id": q["id"], "isDuringSearch": False, "rootInfo": {
        "scoreLead": lead, "scoreStdev": 2.0, "winrate": 0.5, "visits": q["maxVisits"]}}), flush=True)
def lines():
    # Lines as they come; None when a query is held and no other came for a second.
    buf = b""
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            yield line
        ready, _, _ = select.select([0], [], [], 1.0 if held is not None else None)
        if not ready:
            yield None
            continue
        chunk = os.read(0, 65536)
        if not chunk:
            return
        buf += chunk
for line in lines():
    if line is None:
        answer(held)
        held = None
        continue
    q = json.loads(line)
    if q.get("action") == "query_version":
        print(json.dumps({"id": q["id"], "action": "query_version", "version": "9.9.9"}), flush=True)
        continue
    seen += 1
    if first and seen == 3:
        sys.exit(3)
    if held is None and seen % 2 == 1:
        held = q
        continue
    print(json.dumps({"warning": "a warning line is skipped"}), flush=True)
    answer(q)
    if held is not None:
        answer(held)
        held = None
if held is not None:
    answer(held)
"#;

fn engine(dir: &Path) -> EngineConfig {
    let script = dir.join("fake_analysis.py");
    std::fs::write(&script, SCRIPT).unwrap();
    let mut c = EngineConfig::from_command_line(&format!(
        "python3 '{}' '{}'",
        script.display(),
        dir.join("started").display()
    ))
    .unwrap();
    c.command_timeout = Duration::from_secs(10);
    c
}

/// Job `k`: `k` black stones along the first row from B1 (k = 0: an empty board), or a stone
/// on A1 when `a1`.
fn job(k: usize, a1: bool) -> Job<usize> {
    let size = BoardSize::NINE;
    let mut board = Board::new(size);
    for x in 0..k {
        board
            .set(
                Point::new(x as u32 + 1, 8, size).unwrap(),
                Some(Color::Black),
            )
            .unwrap();
    }
    if a1 {
        board
            .set(Point::new(0, 8, size).unwrap(), Some(Color::White))
            .unwrap();
    }
    Job {
        tag: k,
        board,
        to_play: Color::Black,
    }
}

#[test]
fn answers_refusals_a_dead_engine_and_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = AnalysisConfig {
        visits: 8,
        rules: "chinese".into(),
        komi: 0.0,
    };
    let jobs: Vec<Job<usize>> = (1..=8).map(|k| job(k, false)).collect();
    let stop = AtomicBool::new(false);
    let mut events = Vec::new();
    let version = analyze_all(jobs, &engine(dir.path()), &config, 4, 1, &stop, |e| {
        events.push(match e {
            AnalysisEvent::Estimated { tag, estimate } => (tag, format!("lead {}", estimate.lead)),
            AnalysisEvent::Failed { tag, error } => (tag, format!("failed: {error}")),
            AnalysisEvent::Abandoned { tag } => (tag, "abandoned".into()),
        })
    })
    .unwrap();
    assert_eq!(version, "9.9.9");
    events.sort();
    // Every job is reported once.
    assert_eq!(
        events.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
        (1..=8).collect::<Vec<_>>()
    );
    // The first engine answered 2 then 1 and died on reading 3, with 3 and 4 outstanding and 5
    // and 6 sent (or being sent) after the answers: those fail; the engine started again
    // answers the rest.
    let failed: Vec<usize> = events
        .iter()
        .filter(|(_, e)| e.starts_with("failed"))
        .map(|(t, _)| *t)
        .collect();
    assert!(
        failed.starts_with(&[3, 4]) && failed.iter().all(|t| (3..=6).contains(t)),
        "{events:?}"
    );
    for (t, e) in &events {
        if !failed.contains(t) {
            assert_eq!(*e, format!("lead {t}"), "{events:?}");
        }
    }
    assert!([7, 8].iter().all(|t| !failed.contains(t)), "{events:?}");
    assert!(events[2].1.contains("died"), "{events:?}");

    // A second run: the marker makes every engine behave; out-of-order answers, the A1 refusal.
    let jobs = vec![job(0, false), job(2, false), job(3, true), job(7, false)];
    let mut events = Vec::new();
    analyze_all(jobs, &engine(dir.path()), &config, 2, 0, &stop, |e| {
        events.push(match e {
            AnalysisEvent::Estimated { tag, estimate } => (tag, format!("lead {}", estimate.lead)),
            AnalysisEvent::Failed { tag, error } => (tag, format!("failed: {error}")),
            AnalysisEvent::Abandoned { tag } => (tag, "abandoned".into()),
        })
    })
    .unwrap();
    // Answers in the order the engine gave them: the second before the first of each pair.
    assert_eq!(
        events,
        vec![
            (2, "lead 2".to_string()),
            (0, "lead 0".to_string()),
            (7, "lead 7".to_string()),
            (
                3,
                "failed: the engine refused the position: no A1 please".to_string()
            ),
        ]
    );
}

#[test]
fn a_stop_abandons_what_was_not_sent_and_a_non_engine_fails_at_start() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("started"), "").unwrap();
    let config = AnalysisConfig {
        visits: 8,
        rules: "chinese".into(),
        komi: 0.0,
    };
    let stop = AtomicBool::new(true);
    let mut abandoned = 0;
    analyze_all(
        (1..5).map(|k| job(k, false)),
        &engine(dir.path()),
        &config,
        2,
        0,
        &stop,
        |e| {
            assert!(matches!(e, AnalysisEvent::Abandoned { .. }));
            abandoned += 1;
        },
    )
    .unwrap();
    assert_eq!(abandoned, 4);
    let mut cat = EngineConfig::from_command_line("cat").unwrap();
    cat.startup_timeout = Duration::from_secs(5);
    let err = analyze_all(
        Vec::<Job<usize>>::new(),
        &cat,
        &config,
        2,
        0,
        &AtomicBool::new(false),
        |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("query_version"), "{err}");
}

/// An engine that closes its input after reading two queries, then answers both (the second
/// first) and lingers: the client's next send fails, and the answer still in the pipe is read,
/// so only the query never answered fails.
const CLOSES_INPUT: &str = r#"
import json, os, sys, time
def answer(q):
    lead = len(q["initialStones"])
    print(json.dumps({"id": q["id"], "isDuringSearch": False, "rootInfo": {
        "scoreLead": lead, "scoreStdev": 1.0, "winrate": 0.5, "visits": 1}}), flush=True)
v = json.loads(sys.stdin.readline())
print(json.dumps({"id": v["id"], "action": "query_version", "version": "1"}), flush=True)
q1 = json.loads(sys.stdin.readline())
q2 = json.loads(sys.stdin.readline())
os.close(0)
answer(q2)
answer(q1)
time.sleep(0.5)
"#;

#[test]
fn answers_written_before_the_engine_went_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("closes_input.py");
    std::fs::write(&script, CLOSES_INPUT).unwrap();
    let engine =
        EngineConfig::from_command_line(&format!("python3 '{}'", script.display())).unwrap();
    let config = AnalysisConfig {
        visits: 1,
        rules: "chinese".into(),
        komi: 0.0,
    };
    let mut events = Vec::new();
    analyze_all(
        (1..=3).map(|k| job(k, false)),
        &engine,
        &config,
        2,
        0,
        &AtomicBool::new(false),
        |e| {
            events.push(match e {
                AnalysisEvent::Estimated { tag, estimate } => {
                    (tag, format!("lead {}", estimate.lead))
                }
                AnalysisEvent::Failed { tag, error } => (tag, format!("failed: {error}")),
                AnalysisEvent::Abandoned { tag } => (tag, "abandoned".into()),
            })
        },
    )
    .unwrap();
    // Job 3 is sent once job 2's answer is read, into a closed input; job 1's answer was
    // written before the engine went.
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0], (2, "lead 2".to_string()));
    assert_eq!(events[1].0, 3);
    assert!(events[1].1.contains("input closed"), "{events:?}");
    assert_eq!(events[2], (1, "lead 1".to_string()));
}
