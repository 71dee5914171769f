//! The reader: bytes to a [`Document`], never failing; problems are
//! [`Diagnostic`]s with line and column.
//!
//! One pass over the lines, no recursion: `VAR` nesting is a stack of small
//! level records, so any depth costs heap, not stack. Choices where the spec
//! is loose:
//! - A file that is not UTF-8 is read as Windows-1252 (old DOS/Mac archives),
//!   with a warning. Characters below 32 other than tab, and DEL, are removed
//!   ("can be ignored"); other characters outside 32-126 are kept; both warn.
//! - `COM` and `USER` blocks end at the first line whose first word is
//!   `ENDCOM`/`ENDUSER` (any case); every line in between is text, even one
//!   that looks like a keyword. An unclosed block runs to the end of the file.
//! - Repeated text headers (`ANALYSIS`, `DATE`, `PLACE`, `RECORDER`, `SOURCE`,
//!   `TIMELIMIT`) keep every line; once-only ones (`BLACK`, `WHITE`, `RESULT`,
//!   `RULES`, `KOMI`, `HANDICAP`, `BOARDSIZE`) keep the last, with a warning.
//! - A series of `SETUP` lines is consecutive `SETUP` lines; `SETUP` lines
//!   after a `DIAGRAM` belong to the diagram.
//! - `COM`, `MARK`, `USER`... go to the current event, setup, move or diagram;
//!   data after a move's variations goes back to that move (with a warning).
//! - Extra data after a keyword's fields is ignored with a warning, except
//!   where the fields are a list (`B`/`W` locations, `SETUP`, `MARK`...),
//!   where a bad item is an error, as the spec's "B 22 Q3 R7" example asks.
//! - An empty `VAR`/`ENDVAR` pair is dropped with a warning.

use crate::diag::{Code, Diagnostic, DiagnosticSink};
use crate::model::*;
use kifu_go::Color;
use std::borrow::Cow;

/// The result of reading: the document and what was found on the way.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Everything that could be read.
    pub document: Document,
    /// Problems, in line order: at most [`DiagnosticSink::DEFAULT_LIMIT`], then an
    /// I044 counting the rest.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Reads an Ishi Standard Format file.
pub fn read(bytes: &[u8]) -> Parsed {
    let mut diags = DiagnosticSink::new();
    let text: Cow<'_, str> = match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(e) => {
            let before = &bytes[..e.valid_up_to()];
            let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            diags.push(Diagnostic::new(
                Code::NotUtf8,
                line,
                0,
                "the file is not UTF-8: read as Windows-1252",
            ));
            encoding_rs::WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // Lines are taken one at a time, not collected: a list of them would take 16 bytes
    // per line, four times the size of a file of `VAR` lines.
    let mut lines = Lines {
        it: text.lines(),
        read: 0,
    };
    let mut r = Reader {
        doc: Document::default(),
        diags,
        remarks: Vec::new(),
        event: None,
        levels: vec![Level::default()],
        cur: None,
        prev_setup: false,
        seen_once: Vec::new(),
    };
    while let Some((i, l)) = lines.next() {
        r.line(l, i, &mut lines);
    }
    r.finish_event(lines.read as u32);
    r.doc.trailing_remarks = std::mem::take(&mut r.remarks);
    r.diags.sort();
    Parsed {
        document: r.doc,
        diagnostics: r.diags.finish(),
    }
}

/// The file's lines with their 0-based indices, and how many have been read.
struct Lines<'a> {
    it: std::str::Lines<'a>,
    read: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let l = self.it.next()?;
        self.read += 1;
        Some((self.read - 1, l))
    }
}

#[derive(Debug, Default, Clone)]
struct Level {
    /// Index of the last setup, move or diagram of this sequence.
    last_unit: Option<usize>,
    last_is_move: bool,
    /// Variations have been closed after `last_unit`.
    after_vars: bool,
    /// Line of the `VAR` that opened this level.
    var_line: u32,
}

struct Reader {
    doc: Document,
    diags: DiagnosticSink,
    remarks: Vec<String>,
    event: Option<Event>,
    levels: Vec<Level>,
    /// The unit that notes attach to (an index into the event's items), or the event.
    cur: Option<usize>,
    /// The previous keyword line was `SETUP`.
    prev_setup: bool,
    /// Once-only header keywords seen in this event.
    seen_once: Vec<&'static str>,
}

/// A line's words with their 1-based character columns.
fn words(line: &str) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    let mut col = 0u32;
    let mut start: Option<(u32, usize)> = None;
    for (off, ch) in line.char_indices() {
        col += 1;
        let space = ch == ' ' || ch == '\t';
        match (space, start) {
            (true, Some((c, s))) => {
                out.push((c, &line[s..off]));
                start = None;
            }
            (false, None) => start = Some((col, off)),
            _ => {}
        }
    }
    if let Some((c, s)) = start {
        out.push((c, &line[s..]));
    }
    out
}

/// The text after the first word, trimmed.
fn rest_after_keyword(line: &str) -> &str {
    let t = line.trim_start_matches([' ', '\t']);
    let end = t.find([' ', '\t']).unwrap_or(t.len());
    t[end..].trim_matches([' ', '\t'])
}

fn first_word_is(line: &str, kw: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    let end = t.find([' ', '\t']).unwrap_or(t.len());
    t[..end].eq_ignore_ascii_case(kw)
}

/// Removes control characters (keeping tab) and warns about characters outside 32-126.
pub(crate) fn clean<'a>(line: &'a str, lineno: u32, diags: &mut DiagnosticSink) -> Cow<'a, str> {
    let odd = |c: char| !(c == '\t' || (' '..='~').contains(&c));
    let Some(pos) = line.find(odd) else {
        return Cow::Borrowed(line);
    };
    let col = line[..pos].chars().count() as u32 + 1;
    let control = |c: char| (c < ' ' && c != '\t') || c == '\u{7f}';
    let has_control = line.contains(control);
    diags.push(Diagnostic::new(
        Code::OddCharacters,
        lineno,
        col,
        if has_control {
            "characters outside ASCII 32-126: control characters removed"
        } else {
            "characters outside ASCII 32-126 (kept)"
        },
    ));
    if has_control {
        Cow::Owned(line.chars().filter(|&c| !control(c)).collect())
    } else {
        Cow::Borrowed(line)
    }
}

/// Parses a mark item (`ALL`, `Q8`, `#21`, `#3-9`, `\t@Q5`, `a@R3`, `x@#81-90`).
pub(crate) fn parse_marking(tok: &str, unmark: bool) -> Result<Marking, String> {
    if tok.eq_ignore_ascii_case("ALL") {
        return Ok(if unmark {
            Marking::UnmarkAll
        } else {
            Marking::NumbersAll
        });
    }
    if let Some(at) = tok.rfind('@').filter(|_| !unmark) {
        let (label, target) = (&tok[..at], &tok[at + 1..]);
        let target = parse_target(target, true)?;
        let chars: Vec<char> = label.chars().collect();
        if chars.is_empty() || chars.len() > 2 || chars.iter().any(|c| !('!'..='~').contains(c)) {
            return Err(format!(
                "mark label {label:?} is not one or two characters from ASCII 33-126"
            ));
        }
        if chars[0] == '\\' {
            return match chars.get(1).and_then(|&c| Symbol::from_letter(c)) {
                Some(s) => Ok(Marking::Symbol(s, target)),
                None => Err(format!(
                    "special mark {label:?} is not \\d, \\t, \\c or \\s"
                )),
            };
        }
        return Ok(Marking::Text(label.to_string(), target));
    }
    let t = parse_target(tok, true)?;
    Ok(if unmark {
        Marking::Unmark(t)
    } else {
        Marking::Number(t)
    })
}

fn parse_number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u32>().ok().filter(|&n| n > 0)
}

/// Parses `loc`, `#n` or (when `range`) `#n-n`.
pub(crate) fn parse_target(tok: &str, range: bool) -> Result<Target, String> {
    if let Some(num) = tok.strip_prefix('#') {
        if let Some((a, b)) = num.split_once('-').filter(|_| range) {
            let (Some(a), Some(b)) = (parse_number(a), parse_number(b)) else {
                return Err(format!("{tok:?} is not a move range #n-n"));
            };
            if a > b {
                return Err(format!("{tok:?}: the range must increase"));
            }
            return Ok(Target::Range(a, b));
        }
        return parse_number(num)
            .map(Target::Move)
            .ok_or_else(|| format!("{tok:?} is not a move number #n"));
    }
    Loc::parse(tok)
        .map(Target::Point)
        .ok_or_else(|| format!("{tok:?} is not a board location (A-T without I, row from 1)"))
}

/// Parses a komi: `5`, `4.5`, `3 1/2`, `-2`, `1/2`. Returns the value and the words used.
pub(crate) fn parse_komi(words: &[&str]) -> Option<(f64, usize)> {
    let first = *words.first()?;
    let (neg, body) = match first.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, first.strip_prefix('+').unwrap_or(first)),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    if body == "1/2" {
        return Some((sign * 0.5, 1));
    }
    let digits_ok = !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && body.bytes().filter(|&b| b == b'.').count() <= 1
        && body.bytes().any(|b| b.is_ascii_digit());
    if !digits_ok {
        return None;
    }
    let v: f64 = body.parse().ok().filter(|v: &f64| v.is_finite())?;
    if !body.contains('.') && words.get(1) == Some(&"1/2") {
        return Some((sign * (v + 0.5), 2));
    }
    Some((sign * v, 1))
}

const TEXT_HEADERS: [&str; 6] = [
    "ANALYSIS",
    "DATE",
    "PLACE",
    "RECORDER",
    "SOURCE",
    "TIMELIMIT",
];
const ONCE_HEADERS: [&str; 7] = [
    "BLACK",
    "WHITE",
    "RESULT",
    "RULES",
    "KOMI",
    "HANDICAP",
    "BOARDSIZE",
];

impl Reader {
    fn diag(&mut self, code: Code, line: u32, col: u32, msg: impl Into<String>) {
        self.diags.push(Diagnostic::new(code, line, col, msg));
    }

    fn ensure_event(&mut self, line: u32) -> &mut Event {
        self.event.get_or_insert_with(|| Event {
            line: SourceLine(line),
            ..Event::default()
        })
    }

    fn finish_event(&mut self, line: u32) {
        while self.levels.len() > 1 {
            let lv = self.levels.pop().expect("checked");
            self.diag(
                Code::UnbalancedVar,
                lv.var_line,
                1,
                format!("VAR not closed before line {line} (closed there)"),
            );
            self.close_var(lv.var_line);
        }
        if let Some(ev) = self.event.take() {
            // An implicit event left empty (its only data was dropped, as in a lone `VAR`)
            // is the empty file's default event: not stored.
            if ev.title.is_some() || ev != Event::default() {
                self.doc.events.push(ev);
            }
        }
        self.levels = vec![Level::default()];
        self.cur = None;
        self.prev_setup = false;
        self.seen_once.clear();
    }

    /// Closes the innermost variation in the items (the level is already popped).
    fn close_var(&mut self, var_line: u32) {
        let Some(ev) = self.event.as_mut() else {
            return;
        };
        if matches!(ev.items.last(), Some(Item::BeginVar(_))) {
            ev.items.pop();
            self.diags.push(Diagnostic::new(
                Code::EmptyVariation,
                var_line,
                1,
                "empty variation (dropped)",
            ));
        } else {
            ev.items.push(Item::EndVar);
        }
        let lv = self.levels.last_mut().expect("level 0 stays");
        self.cur = lv.last_unit;
        if lv.last_unit.is_some() {
            lv.after_vars = true;
        }
    }

    /// The notes of the current unit (or the event), warning when they are out of place.
    fn notes(&mut self, line: u32, what: &str) -> &mut Notes {
        let lv = self.levels.last().expect("level 0 stays");
        let odd = lv.after_vars || (self.levels.len() > 1 && lv.last_unit.is_none());
        if odd && self.cur.is_some() {
            self.diag(
                Code::OutOfPlace,
                line,
                1,
                format!("{what} out of place (attached to the current move)"),
            );
        }
        let cur = self.cur;
        let ev = self.ensure_event(line);
        match cur.and_then(|i| ev.items.get_mut(i)) {
            Some(Item::Setup(s)) => &mut s.notes,
            Some(Item::Move(m)) => &mut m.notes,
            Some(Item::Diagram(d)) => &mut d.notes,
            _ => &mut ev.notes,
        }
    }

    fn push_unit(&mut self, item: Item, line: u32) {
        let is_move = matches!(item, Item::Move(_));
        let ev = self.ensure_event(line);
        ev.items.push(item);
        let idx = ev.items.len() - 1;
        let lv = self.levels.last_mut().expect("level 0 stays");
        lv.last_unit = Some(idx);
        lv.last_is_move = is_move;
        lv.after_vars = false;
        self.cur = Some(idx);
    }

    /// Reads the lines of a block (`COM`/`USER`) that starts at line index `i`, up to its end line.
    fn block(&mut self, lines: &mut Lines<'_>, i: usize, end: &str, code: Code) -> Vec<String> {
        let mut out = Vec::new();
        for (j, line) in lines.by_ref() {
            let l = clean(line, j as u32 + 1, &mut self.diags);
            if first_word_is(&l, end) {
                if !rest_after_keyword(&l).is_empty() {
                    self.diag(
                        Code::ExtraData,
                        j as u32 + 1,
                        1,
                        format!("data after {end} ignored"),
                    );
                }
                return out;
            }
            out.push(l.into_owned());
        }
        let kw = if code == Code::UnclosedComment {
            "COM"
        } else {
            "USER"
        };
        self.diag(
            code,
            i as u32 + 1,
            1,
            format!("{kw} without {end}: the block runs to the end of the file"),
        );
        out
    }

    /// Handles `line`, the line at index `i`; blocks take their lines from `lines`.
    fn line(&mut self, line: &str, i: usize, lines: &mut Lines<'_>) {
        let lineno = i as u32 + 1;
        let line = clean(line, lineno, &mut self.diags);
        let w = words(&line);
        let Some(&(kcol, kw)) = w.first() else {
            return;
        };
        let upper = kw.to_ascii_uppercase();
        let args: Vec<(u32, &str)> = w[1..].to_vec();
        let rest = rest_after_keyword(&line).to_string();
        let was_setup = std::mem::replace(&mut self.prev_setup, false);
        match upper.as_str() {
            "REMARK" => {
                self.remarks.push(rest);
                self.prev_setup = was_setup;
            }
            "EVENT" => {
                self.finish_event(lineno);
                self.event = Some(Event {
                    remarks: std::mem::take(&mut self.remarks),
                    title: Some(rest),
                    line: SourceLine(lineno),
                    ..Event::default()
                });
            }
            "B" | "W" => self.mv(&upper, &args, lineno, kcol),
            "SETUP" => self.setup(&args, lineno, was_setup),
            "DIAGRAM" => self.diagram(&args, lineno),
            "COM" => {
                let body = self.block(lines, i, "ENDCOM", Code::UnclosedComment);
                let c = Comment {
                    title: rest,
                    lines: body,
                    line: SourceLine(lineno),
                };
                self.notes(lineno, "COM").comments.push(c);
            }
            "USER" => {
                let body = self.block(lines, i, "ENDUSER", Code::UnclosedUser);
                let u = UserBlock {
                    data: rest,
                    lines: body,
                    line: SourceLine(lineno),
                };
                self.notes(lineno, "USER").users.push(u);
            }
            "ENDCOM" | "ENDUSER" => self.diag(
                Code::StrayEnd,
                lineno,
                kcol,
                format!("{upper} without a block to end (ignored)"),
            ),
            "MARK" | "UNMARK" => {
                let unmark = upper == "UNMARK";
                let mut items = Vec::new();
                for &(c, t) in &args {
                    match parse_marking(t, unmark) {
                        Ok(m) => items.push(m),
                        Err(e) => self.diag(Code::BadItem, lineno, c, format!("{upper}: {e}")),
                    }
                }
                self.notes(lineno, &upper).marks.extend(items);
            }
            "PRISONER" | "HIDE" => self.targets(&upper, &args, lineno, kcol),
            "VAR" => self.var(&args, lineno, kcol),
            "ENDVAR" => {
                if !args.is_empty() {
                    self.diag(
                        Code::ExtraData,
                        lineno,
                        args[0].0,
                        "data after ENDVAR ignored",
                    );
                }
                if self.levels.len() == 1 {
                    self.diag(
                        Code::UnbalancedVar,
                        lineno,
                        kcol,
                        "ENDVAR without VAR (ignored)",
                    );
                } else {
                    let lv = self.levels.pop().expect("checked");
                    self.close_var(lv.var_line);
                }
            }
            k if TEXT_HEADERS.contains(&k) || ONCE_HEADERS.contains(&k) => {
                self.header(k, &args, rest, lineno, kcol)
            }
            _ => self.diag(
                Code::UnknownKeyword,
                lineno,
                kcol,
                format!("unknown keyword {kw:?} (line ignored)"),
            ),
        }
    }
}

mod keywords;

#[cfg(test)]
mod tests;
