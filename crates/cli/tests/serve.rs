//! `kifu serve` as a process: it serves on the address asked, answers many clients at once,
//! stops a search whose client hung up without stopping the others, warns when it listens beyond
//! loopback, and shuts down cleanly on SIGTERM and SIGINT.
#![allow(clippy::disallowed_macros)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn index(dir: &Path) -> std::path::PathBuf {
    let games = dir.join("g.sgf");
    std::fs::write(
        &games,
        "(;GM[1]SZ[9]PB[Ann]PW[Bob]RE[B+R];B[cc];W[gg];B[cg];W[gc])\n(;GM[1]SZ[9]RE[W+1];B[cc];W[gg])",
    )
    .unwrap();
    let db = dir.join("g.kpx");
    let out = common::kifu(&[
        "pos",
        "index",
        games.to_str().unwrap(),
        "-o",
        db.to_str().unwrap(),
        "--size",
        "9",
    ]);
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    db
}

/// Starts `kifu serve ARGS` and returns it with the address it announced.
// The child is handed to the caller, which signals and waits for it.
#[allow(clippy::zombie_processes)]
fn start(args: &[&str]) -> (Child, String, BufReader<std::process::ChildStderr>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kifu"))
        .arg("serve")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kifu serve ended: {seen}");
        }
        seen.push_str(&line);
        if let Some(at) = line.find("http://") {
            let url = line[at + 7..].split('/').next().unwrap().to_string();
            return (child, url, err);
        }
    }
}

/// One HTTP/1.1 request; the status and body.
fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn serves_many_clients_and_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    let (mut child, addr, mut err) = start(&[db.to_str().unwrap(), "--bind", "127.0.0.1:0"]);
    let (status, body) = request(&addr, "GET", "/api/info", "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"games\":2"), "{body}");
    // Many clients at once, each with its own answer.
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let moves = if i % 2 == 0 {
                    r#"["C7"]"#
                } else {
                    r#"["C7", "G3"]"#
                };
                let (s, b) = request(
                    &addr,
                    "POST",
                    "/api/db/0/lookup",
                    &format!(r#"{{"moves": {moves}}}"#),
                );
                (i, s, b)
            })
        })
        .collect();
    for t in threads {
        let (i, s, b) = t.join().unwrap();
        assert_eq!(s, 200, "{b}");
        // Both games reached both positions.
        assert!(b.contains("\"games\":2"), "{b}");
        let to_play = if i % 2 == 0 { "W" } else { "B" };
        assert!(b.contains(&format!("\"to_play\":\"{to_play}\"")), "{b}");
    }
    // A client that sends half a request and hangs up does not disturb the others.
    {
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST /api/db/0/search HTTP/1.1\r\nContent-Length: 500\r\n\r\n{{\"qu"
        )
        .unwrap();
    }
    let (status, _) = request(&addr, "GET", "/api/info", "");
    assert_eq!(status, 200);
    signal(&child, "-TERM");
    let code = child.wait().unwrap();
    assert!(code.success(), "{code:?}");
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("server stopped"), "{rest}");

    // SIGINT (Ctrl-C) too, with the access log on.
    let (mut child, addr, mut err) = start(&[
        db.to_str().unwrap(),
        "--bind",
        "127.0.0.1:0",
        "--access-log",
    ]);
    let (status, _) = request(&addr, "GET", "/api/db/0/games/9", "");
    assert_eq!(status, 404);
    signal(&child, "-INT");
    assert!(child.wait().unwrap().success());
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(rest.contains("GET /api/db/0/games/9 404"), "{rest}");
}

/// A slow or silent client does not hold a connection for ever: a body announced past the
/// limit is refused at once (413), and a connection whose headers never end is closed after
/// the server's header timeout (10 s), while other clients are served meanwhile.
#[test]
fn slow_clients_are_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    let (mut child, addr, _err) = start(&[db.to_str().unwrap(), "--bind", "127.0.0.1:0"]);
    let mut big = TcpStream::connect(&addr).unwrap();
    big.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        big,
        "POST /api/db/0/search HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n{{"
    )
    .unwrap();
    let mut answer = [0u8; 12];
    big.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 413");
    let started = std::time::Instant::now();
    let mut silent: Vec<TcpStream> = (0..20)
        .map(|i| {
            let mut s = TcpStream::connect(&addr).unwrap();
            if i % 2 == 1 {
                write!(s, "GET /api/info HTTP/1.1\r\nHost: x\r\n").unwrap();
            }
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            s
        })
        .collect();
    let (status, _) = request(&addr, "GET", "/api/info", "");
    assert_eq!(status, 200);
    for s in &mut silent {
        // Closed by the server (end of stream, or a 408 answer before it).
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        assert!(
            rest.is_empty() || rest.starts_with(b"HTTP/1.1 408"),
            "{rest:?}"
        );
    }
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(25),
        "{waited:?}"
    );
    // Told to stop, it does not wait for a client still sending its headers or its body.
    let mut stalled = TcpStream::connect(&addr).unwrap();
    write!(
        stalled,
        "POST /api/db/0/search HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{"
    )
    .unwrap();
    let _half = TcpStream::connect(&addr).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let stopping = std::time::Instant::now();
    signal(&child, "-TERM");
    assert!(child.wait().unwrap().success());
    assert!(
        stopping.elapsed() < Duration::from_secs(8),
        "{:?}",
        stopping.elapsed()
    );
}

/// Clients that hold every connection without a whole request keep no one out: with all 256
/// taken (some silent, some halfway through their headers, some halfway through a body), a
/// new client is answered at once, well before the 10 s header timeout (or the 30 s body
/// timeout) would free one.
#[test]
fn idle_connections_make_room_for_new_clients() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    let (mut child, addr, _err) = start(&[db.to_str().unwrap(), "--bind", "127.0.0.1:0"]);
    let silent: Vec<TcpStream> = (0..300)
        .map(|i| {
            let mut s = TcpStream::connect(&addr).unwrap();
            // More half-sent bodies than connections: they must not keep the new client out.
            match i {
                260..280 => write!(s, "GET /api/info HTTP/1.1\r\nHost: x\r\n").unwrap(),
                0..260 => write!(
                    s,
                    "POST /api/db/0/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
                )
                .unwrap(),
                _ => {}
            }
            s
        })
        .collect();
    for _ in 0..3 {
        let mut fresh = TcpStream::connect(&addr).unwrap();
        fresh
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        write!(
            fresh,
            "GET /api/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        fresh.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    drop(silent);
    signal(&child, "-INT");
    assert!(child.wait().unwrap().success());
}

#[test]
fn warns_beyond_loopback_and_refuses_bad_setups() {
    let dir = tempfile::tempdir().unwrap();
    let db = index(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(["serve", db.to_str().unwrap(), "--bind", "0.0.0.0:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(
        first.contains("warning") && first.contains("not a loopback"),
        "{first}"
    );
    // Signals are the server's once it serves (before that they end the process as usual).
    let mut line = String::new();
    while !line.contains("serving on") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "kifu serve ended");
    }
    signal(&child, "-TERM");
    assert!(child.wait().unwrap().success());

    // Nothing to serve, a missing database, a book that is not one: clear errors.
    let out = common::kifu(&["serve"]);
    assert_eq!(out.status.code(), Some(2));
    let out = common::kifu(&["serve", "missing.kpx"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(common::text(&out.stderr).contains("missing.kpx"));
    let bad = dir.path().join("bad.bin");
    std::fs::write(&bad, b"not a book").unwrap();
    let out = common::kifu(&["serve", "--book", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(common::text(&out.stderr).contains("bad.bin"));
    // An address already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().to_string();
    let out = common::kifu(&["serve", db.to_str().unwrap(), "--bind", &port]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        common::text(&out.stderr).contains("cannot listen"),
        "{}",
        common::text(&out.stderr)
    );
}
