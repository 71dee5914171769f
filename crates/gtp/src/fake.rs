//! A fake GTP engine for testing controllers (kifu's own tests use it): it keeps a board, answers
//! `final_score` with a formula a test can compute, and can be told to crash, hang, answer garbage,
//! refuse or answer slowly when the position holds a stone on a given point.
//!
//! The score formula: with `b` black and `w` white stones on the board, the side to play taken from
//! the last `play` (Black if none, as GNU Go does) and the random seed `s`, the margin is
//! `b - w + (s % 3) + (2 if Black is to play else 0)`, written `B+m`, `W+m` or `0`.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

/// What the fake engine does wrong, and when. A trigger point (GTP vertex such as `A1`) fires at
/// `final_score` when the board has a stone of either colour on it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeOptions {
    /// Exit without answering (like a crash), every time.
    pub crash_on: Option<String>,
    /// Exit without answering, but only while `crash_once_marker` does not exist (the file is
    /// created when crashing), so the first attempt crashes and a retry succeeds.
    pub crash_once_on: Option<String>,
    /// The marker file of `crash_once_on`.
    pub crash_once_marker: Option<PathBuf>,
    /// Never answer (like a hang).
    pub hang_on: Option<String>,
    /// Answer with a line that is not GTP.
    pub garbage_on: Option<String>,
    /// Answer `? cannot score`.
    pub fail_on: Option<String>,
    /// Sleep this long before every `final_score` answer.
    pub slow: Duration,
    /// Exit at start-up without reading anything.
    pub die_at_start: bool,
}

/// Runs the fake engine on `input`/`output` until `quit` or the end of the input. Returns `Ok(true)`
/// when it should exit as if crashed (the caller exits with a failure code without answering).
pub fn serve(input: impl BufRead, mut output: impl Write, opts: &FakeOptions) -> io::Result<bool> {
    if opts.die_at_start {
        return Ok(true);
    }
    let mut size = 19u32;
    let mut stones: BTreeMap<String, char> = BTreeMap::new();
    let mut last: Option<char> = None;
    let mut seed: u64 = 0;
    for line in input.lines() {
        let line = line?;
        let mut words = line.split_whitespace().peekable();
        let id = match words.peek() {
            Some(w) if w.bytes().all(|b| b.is_ascii_digit()) => words.next().map(str::to_string),
            _ => None,
        };
        let id = id.unwrap_or_default();
        let Some(cmd) = words.next() else { continue };
        let args: Vec<&str> = words.collect();
        let has = |p: &Option<String>| p.as_ref().is_some_and(|p| stones.contains_key(p));
        let reply: Result<String, String> = match cmd {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("kifu fake engine".into()),
            "version" => Ok("1".into()),
            "list_commands" => Ok(
                "protocol_version\nname\nversion\nlist_commands\nknown_command\n\
                 boardsize\nclear_board\nkomi\nplay\nset_random_seed\nfinal_score\nkgs-rules\nquit"
                    .into(),
            ),
            "known_command" => Ok(if matches!(
                args.first().copied(),
                Some("boardsize" | "play" | "final_score" | "kgs-rules" | "set_random_seed")
            ) {
                "true"
            } else {
                "false"
            }
            .into()),
            "boardsize" => match args.first().and_then(|a| a.parse().ok()) {
                Some(n) if (2..=25).contains(&n) => {
                    size = n;
                    stones.clear();
                    last = None;
                    Ok(String::new())
                }
                _ => Err("unacceptable size".into()),
            },
            "clear_board" => {
                stones.clear();
                last = None;
                Ok(String::new())
            }
            "komi" | "kgs-rules" => Ok(String::new()),
            "set_random_seed" => match args.first().and_then(|a| a.parse().ok()) {
                Some(s) => {
                    seed = s;
                    Ok(String::new())
                }
                None => Err("invalid seed".into()),
            },
            "play" => match (args.first(), args.get(1)) {
                (Some(c), Some(v)) => {
                    let colour = match c.to_ascii_lowercase().as_str() {
                        "b" | "black" => Some('B'),
                        "w" | "white" => Some('W'),
                        _ => None,
                    };
                    let v = v.to_ascii_uppercase();
                    match colour {
                        None => Err("invalid color".into()),
                        Some(c) if v == "PASS" => {
                            last = Some(c);
                            Ok(String::new())
                        }
                        Some(c) if valid_vertex(&v, size) && !stones.contains_key(&v) => {
                            stones.insert(v, c);
                            last = Some(c);
                            Ok(String::new())
                        }
                        Some(_) => Err("illegal move".into()),
                    }
                }
                _ => Err("invalid color or coordinate".into()),
            },
            "final_score" => {
                if !opts.slow.is_zero() {
                    std::thread::sleep(opts.slow);
                }
                if has(&opts.crash_on) {
                    return Ok(true);
                }
                if has(&opts.crash_once_on) {
                    if let Some(m) = opts.crash_once_marker.as_ref().filter(|m| !m.exists()) {
                        std::fs::write(m, b"crashed\n")?;
                        return Ok(true);
                    }
                }
                if has(&opts.hang_on) {
                    loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    }
                }
                if has(&opts.garbage_on) {
                    output.write_all(b"this is not GTP\n\n")?;
                    output.flush()?;
                    continue;
                }
                if has(&opts.fail_on) {
                    Err("cannot score".into())
                } else {
                    let b = stones.values().filter(|&&c| c == 'B').count() as i64;
                    let w = stones.len() as i64 - b;
                    let black_next = last != Some('B');
                    let m = b - w + (seed % 3) as i64 + if black_next { 2 } else { 0 };
                    Ok(match m {
                        0 => "0".into(),
                        m if m > 0 => format!("B+{m}.0"),
                        m => format!("W+{}.0", -m),
                    })
                }
            }
            "quit" => {
                write!(output, "={id}\n\n")?;
                output.flush()?;
                return Ok(false);
            }
            _ => Err("unknown command".into()),
        };
        match reply {
            Ok(t) if t.is_empty() => write!(output, "={id}\n\n")?,
            Ok(t) => write!(output, "={id} {t}\n\n")?,
            Err(e) => write!(output, "?{id} {e}\n\n")?,
        }
        output.flush()?;
    }
    Ok(false)
}

fn valid_vertex(v: &str, size: u32) -> bool {
    let mut chars = v.chars();
    let Some(col) = chars.next() else {
        return false;
    };
    let cols: Vec<char> = "ABCDEFGHJKLMNOPQRSTUVWXYZ".chars().collect();
    let Some(c) = cols.iter().position(|&x| x == col) else {
        return false;
    };
    let row: u32 = match chars.as_str().parse() {
        Ok(r) => r,
        Err(_) => return false,
    };
    (c as u32) < size && (1..=size).contains(&row)
}

/// Parses fake-engine options from command-line words: `--crash-on V`, `--crash-once-on V`,
/// `--crash-once FILE`,
/// `--hang-on V`, `--garbage-on V`, `--fail-on V`, `--slow-ms N`, `--die-at-start`.
pub fn parse_args(args: &[String]) -> Result<FakeOptions, String> {
    let mut o = FakeOptions::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value"))
        };
        match a.as_str() {
            "--crash-on" => o.crash_on = Some(val()?),
            "--crash-once-on" => o.crash_once_on = Some(val()?),
            "--crash-once" => o.crash_once_marker = Some(PathBuf::from(val()?)),
            "--hang-on" => o.hang_on = Some(val()?),
            "--garbage-on" => o.garbage_on = Some(val()?),
            "--fail-on" => o.fail_on = Some(val()?),
            "--slow-ms" => {
                o.slow = Duration::from_millis(val()?.parse().map_err(|_| "bad --slow-ms")?)
            }
            "--die-at-start" => o.die_at_start = true,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str, opts: &FakeOptions) -> (String, bool) {
        let mut out = Vec::new();
        let crashed = serve(input.as_bytes(), &mut out, opts).unwrap();
        (String::from_utf8(out).unwrap(), crashed)
    }

    #[test]
    fn formula_and_ids() {
        let (out, crashed) = run(
            "1 boardsize 9\n2 play B C3\n3 play B D4\n4 play W E5\n5 set_random_seed 4\n6 final_score\n\
             7 play B pass\n8 final_score\n9 play W Z9\n10 quit\n",
            &FakeOptions::default(),
        );
        assert!(!crashed);
        // 2 - 1 + 4 % 3 = 2, plus 2 with Black to play (after W E5): B+4; after Black's pass
        // White is to play: B+2.
        assert_eq!(
            out,
            "=1\n\n=2\n\n=3\n\n=4\n\n=5\n\n=6 B+4.0\n\n=7\n\n=8 B+2.0\n\n?9 illegal move\n\n=10\n\n"
        );
        let (out, _) = run("final_score\n", &FakeOptions::default());
        assert_eq!(out, "= B+2.0\n\n");
    }

    #[test]
    fn triggers() {
        let o = FakeOptions {
            fail_on: Some("A1".into()),
            crash_on: Some("B2".into()),
            garbage_on: Some("C3".into()),
            ..Default::default()
        };
        assert_eq!(
            run("play W A1\nfinal_score\n", &o).0,
            "=\n\n? cannot score\n\n"
        );
        assert_eq!(
            run("play W B2\nfinal_score\nname\n", &o),
            ("=\n\n".into(), true)
        );
        assert_eq!(
            run("play W C3\nfinal_score\n", &o).0,
            "=\n\nthis is not GTP\n\n"
        );
    }
}
