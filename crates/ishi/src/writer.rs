//! The writer: a [`Document`] to Ishi Standard Format text, CR-LF line ends
//! as the spec asks, keywords in upper case, locations as `Q16`.
//!
//! Within a unit the lines come in a fixed order the spec allows: remarks,
//! the defining line, prisoners, hidden stones, marks, commentary, user data,
//! then variations. `SETUP` and `MARK` items are written at most 12 to a line.
//! Reading the output gives back an equal model for every model the reader
//! can produce (the round-trip tests check it): the first event only may be
//! implicit, and texts hold no line breaks, no control characters and no
//! block line that starts with `ENDCOM`/`ENDUSER`.

use crate::model::*;
use kifu_go::Color;
use std::fmt::Write as _;

const PER_LINE: usize = 12;

/// Writes a document as Ishi text.
pub fn write(doc: &Document) -> String {
    let mut w = W(String::new());
    for (i, ev) in doc.events.iter().enumerate() {
        w.remarks(&ev.remarks);
        match &ev.title {
            Some(t) => w.kw("EVENT", t),
            None if i > 0 => w.kw("EVENT", ""),
            None => {}
        }
        w.header(&ev.header);
        if let Some(n) = ev.board_size {
            w.kw("BOARDSIZE", &n.to_string());
        }
        w.notes(&ev.notes);
        for item in &ev.items {
            match item {
                Item::Setup(s) => {
                    w.remarks(&s.remarks);
                    w.stones("SETUP", &s.black, &s.white, true);
                    w.notes(&s.notes);
                }
                Item::Move(m) => {
                    w.remarks(&m.remarks);
                    let c = if m.color == Color::Black { "B" } else { "W" };
                    let at = m
                        .point
                        .map_or_else(|| "PASS".to_string(), |l| l.to_string());
                    w.kw(c, &format!("{} {at}", m.number));
                    w.notes(&m.notes);
                }
                Item::Diagram(d) => {
                    w.remarks(&d.remarks);
                    w.kw("DIAGRAM", &d.region.to_string());
                    w.stones("SETUP", &d.black, &d.white, false);
                    w.notes(&d.notes);
                }
                Item::BeginVar(m) => w.kw("VAR", m.as_deref().unwrap_or("")),
                Item::EndVar => w.kw("ENDVAR", ""),
            }
        }
    }
    w.remarks(&doc.trailing_remarks);
    w.0
}

struct W(String);

impl W {
    fn kw(&mut self, kw: &str, data: &str) {
        self.0.push_str(kw);
        if !data.is_empty() {
            self.0.push(' ');
            self.0.push_str(data);
        }
        self.0.push_str("\r\n");
    }

    fn raw(&mut self, line: &str) {
        self.0.push_str(line);
        self.0.push_str("\r\n");
    }

    fn remarks(&mut self, r: &[String]) {
        for x in r {
            self.kw("REMARK", x);
        }
    }

    fn header(&mut self, h: &Header) {
        let once = [
            ("BLACK", &h.black),
            ("WHITE", &h.white),
            ("RESULT", &h.result),
            ("RULES", &h.rules),
        ];
        for (k, v) in once {
            if let Some(v) = v {
                self.kw(k, v);
            }
        }
        if let Some(k) = h.komi {
            self.kw("KOMI", &k.to_string());
        }
        if let Some(n) = h.handicap {
            self.kw("HANDICAP", &n.to_string());
        }
        let many = [
            ("ANALYSIS", &h.analysis),
            ("DATE", &h.date),
            ("PLACE", &h.place),
            ("RECORDER", &h.recorder),
            ("SOURCE", &h.source),
            ("TIMELIMIT", &h.timelimit),
        ];
        for (k, v) in many {
            for x in v {
                self.kw(k, x);
            }
        }
    }

    /// Writes setup stones; `always` writes a bare `SETUP` for an empty group.
    fn stones(&mut self, kw: &str, black: &[Loc], white: &[Loc], always: bool) {
        if black.is_empty() && white.is_empty() {
            if always {
                self.kw(kw, "");
            }
            return;
        }
        for (c, list) in [("B", black), ("W", white)] {
            for chunk in list.chunks(PER_LINE) {
                let mut s = String::from(c);
                for l in chunk {
                    let _ = write!(s, " {l}");
                }
                self.kw(kw, &s);
            }
        }
    }

    fn list<T: std::fmt::Display>(&mut self, kw: &str, items: &[T]) {
        for chunk in items.chunks(PER_LINE) {
            let s: Vec<String> = chunk.iter().map(|x| x.to_string()).collect();
            self.kw(kw, &s.join(" "));
        }
    }

    fn notes(&mut self, n: &Notes) {
        self.list("PRISONER", &n.prisoners);
        self.list("HIDE", &n.hides);
        let mut i = 0;
        while i < n.marks.len() {
            let unmark = n.marks[i].is_unmark();
            let mut j = i;
            while j < n.marks.len() && n.marks[j].is_unmark() == unmark && j - i < PER_LINE {
                j += 1;
            }
            self.list(if unmark { "UNMARK" } else { "MARK" }, &n.marks[i..j]);
            i = j;
        }
        for c in &n.comments {
            self.kw("COM", &c.title);
            for l in &c.lines {
                self.raw(l);
            }
            self.kw("ENDCOM", "");
        }
        for u in &n.users {
            self.kw("USER", &u.data);
            for l in &u.lines {
                self.raw(l);
            }
            self.kw("ENDUSER", "");
        }
    }
}
