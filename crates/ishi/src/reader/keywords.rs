//! The lines the reader dispatches by keyword: headers, moves, setup, diagrams, targets and
//! `VAR`s, each turned into the model with its diagnostics.

use super::*;

impl Reader {
    pub(super) fn header(
        &mut self,
        k: &str,
        args: &[(u32, &str)],
        rest: String,
        lineno: u32,
        kcol: u32,
    ) {
        let late = self.event.as_ref().is_some_and(|e| !e.items.is_empty());
        if late {
            self.diag(
                Code::LateHeader,
                lineno,
                kcol,
                format!("{k} after the moves began (kept in the event header)"),
            );
        }
        if let Some(&once) = ONCE_HEADERS.iter().find(|&&h| h == k) {
            if self.seen_once.contains(&once) {
                self.diag(
                    Code::RepeatedHeader,
                    lineno,
                    kcol,
                    format!("{k} given again: the last one is kept"),
                );
            }
            self.seen_once.push(once);
        }
        let extra = |r: &mut Reader, used: usize| {
            if let Some(&(c, _)) = args.get(used) {
                r.diag(
                    Code::ExtraData,
                    lineno,
                    c,
                    format!("data after the {k} value ignored"),
                );
            }
        };
        let ev = self.ensure_event(lineno);
        let h = &mut ev.header;
        match k {
            "ANALYSIS" => h.analysis.push(rest),
            "DATE" => h.date.push(rest),
            "PLACE" => h.place.push(rest),
            "RECORDER" => h.recorder.push(rest),
            "SOURCE" => h.source.push(rest),
            "TIMELIMIT" => h.timelimit.push(rest),
            "BLACK" => h.black = Some(rest),
            "WHITE" => h.white = Some(rest),
            "RESULT" => h.result = Some(rest),
            "RULES" => h.rules = Some(rest),
            "KOMI" => {
                let ws: Vec<&str> = args.iter().map(|a| a.1).collect();
                match parse_komi(&ws) {
                    Some((v, used)) => {
                        h.komi = Some(v);
                        extra(self, used);
                    }
                    None => self.diag(
                        Code::BadValue,
                        lineno,
                        args.first().map_or(kcol, |a| a.0),
                        format!("KOMI {rest:?} is not a number like 5, 4.5, 3 1/2 or -2 (ignored)"),
                    ),
                }
            }
            "HANDICAP" => match args.first().and_then(|a| a.1.parse::<u32>().ok()) {
                Some(n) => {
                    h.handicap = Some(n);
                    extra(self, 1);
                }
                None => self.diag(
                    Code::BadValue,
                    lineno,
                    args.first().map_or(kcol, |a| a.0),
                    format!("HANDICAP {rest:?} is not a number (ignored)"),
                ),
            },
            _ => {
                // BOARDSIZE
                match args.first().and_then(|a| a.1.parse::<u8>().ok()) {
                    Some(n) if (2..=19).contains(&n) => {
                        ev.board_size = Some(n);
                        extra(self, 1);
                    }
                    _ => self.diag(
                        Code::BadValue,
                        lineno,
                        args.first().map_or(kcol, |a| a.0),
                        format!("BOARDSIZE {rest:?} is not a number from 2 to 19 (ignored)"),
                    ),
                }
            }
        }
    }

    pub(super) fn mv(&mut self, kw: &str, args: &[(u32, &str)], lineno: u32, kcol: u32) {
        let color = if kw == "B" {
            Color::Black
        } else {
            Color::White
        };
        let number = match args.first() {
            None => {
                self.diag(
                    Code::BadMove,
                    lineno,
                    kcol,
                    format!("{kw} without a move number and location (ignored)"),
                );
                return;
            }
            Some(&(c, t)) => match parse_number(t) {
                Some(n) => n,
                None => {
                    self.diag(
                        Code::BadMove,
                        lineno,
                        c,
                        format!("{kw}: {t:?} is not a move number above 0 (move ignored)"),
                    );
                    return;
                }
            },
        };
        let point = match args.get(1) {
            None => {
                self.diag(
                    Code::BadMove,
                    lineno,
                    kcol,
                    format!("{kw} {number} without a location or PASS (ignored)"),
                );
                return;
            }
            Some(&(_, t)) if t.eq_ignore_ascii_case("PASS") => None,
            Some(&(c, t)) => {
                match Loc::parse(t) {
                    Some(l) => Some(l),
                    None => {
                        self.diag(Code::BadMove, lineno, c, format!("{kw} {number}: {t:?} is not a board location or PASS (move ignored)"));
                        return;
                    }
                }
            }
        };
        if let Some(&(c, t)) = args.get(2) {
            self.diag(
                Code::BadMove,
                lineno,
                c,
                format!("{kw} {number}: unexpected {t:?} after the location (ignored)"),
            );
        }
        let m = Move {
            remarks: std::mem::take(&mut self.remarks),
            color,
            number,
            point,
            notes: Notes::default(),
            line: SourceLine(lineno),
        };
        self.push_unit(Item::Move(Box::new(m)), lineno);
    }

    pub(super) fn setup(&mut self, args: &[(u32, &str)], lineno: u32, continues: bool) {
        let mut black = Vec::new();
        let mut white = Vec::new();
        let mut color: Option<Color> = None;
        for &(c, t) in args {
            if t.eq_ignore_ascii_case("B") {
                color = Some(Color::Black);
            } else if t.eq_ignore_ascii_case("W") {
                color = Some(Color::White);
            } else {
                match (color, Loc::parse(t)) {
                    (Some(Color::Black), Some(l)) => black.push(l),
                    (Some(Color::White), Some(l)) => white.push(l),
                    (None, Some(_)) => self.diag(
                        Code::BadItem,
                        lineno,
                        c,
                        format!("SETUP: {t:?} before B or W (ignored)"),
                    ),
                    (_, None) => self.diag(
                        Code::BadItem,
                        lineno,
                        c,
                        format!("SETUP: {t:?} is not B, W or a board location (ignored)"),
                    ),
                }
            }
        }
        self.prev_setup = true;
        // Stones join only a unit of this variation level: right after `VAR` the current unit
        // is the one before the variation, and the writer puts a variation's first `SETUP`
        // after its `VAR` line (found by fuzzing: "DIAGRAM / VAR / SETUP").
        let here = self.levels.last().and_then(|l| l.last_unit);
        let cur = self.cur.filter(|&c| Some(c) == here);
        let remarks = std::mem::take(&mut self.remarks);
        let ev = self.ensure_event(lineno);
        // A group with nothing after it yet goes on: the writer could not show a boundary
        // between two such groups (found by fuzzing: "SETUP / bad line / SETUP").
        let last = ev.items.len().checked_sub(1);
        let open_group = cur == last
            && matches!(cur.and_then(|i| ev.items.get(i)), Some(Item::Setup(s)) if s.notes.is_empty());
        let continues = continues || open_group;
        let target = match cur.and_then(|i| ev.items.get_mut(i)) {
            Some(Item::Diagram(d)) => Some((&mut d.remarks, &mut d.black, &mut d.white, false)),
            Some(Item::Setup(s)) if continues => {
                Some((&mut s.remarks, &mut s.black, &mut s.white, true))
            }
            _ => None,
        };
        match target {
            Some((r, b, w, series)) => {
                let warn = series && !remarks.is_empty();
                r.extend(remarks);
                b.extend(black);
                w.extend(white);
                if warn {
                    self.diag(
                        Code::RemarkInSetup,
                        lineno,
                        1,
                        "REMARK inside a series of SETUP lines (kept with the series)",
                    );
                }
            }
            None => {
                let s = Setup {
                    remarks,
                    black,
                    white,
                    notes: Notes::default(),
                    line: SourceLine(lineno),
                };
                self.push_unit(Item::Setup(Box::new(s)), lineno);
            }
        }
    }

    pub(super) fn diagram(&mut self, args: &[(u32, &str)], lineno: u32) {
        let parse_size = |t: &str| -> Option<u8> {
            let (a, b) = t.split_once(['x', 'X'])?;
            let (a, b) = (a.parse::<u8>().ok()?, b.parse::<u8>().ok()?);
            (a == b && (2..=19).contains(&a)).then_some(a)
        };
        let mut used = 0;
        let region = match args {
            [] => Region::Board,
            [(_, a), (_, b), ..] if Loc::parse(a).is_some() && Loc::parse(b).is_some() => {
                used = 2;
                Region::Corners(
                    Loc::parse(a).expect("checked"),
                    Loc::parse(b).expect("checked"),
                )
            }
            [(c, a), ..] => match parse_size(a) {
                Some(n) => {
                    used = 1;
                    Region::Size(n)
                }
                None => {
                    used = args.len();
                    self.diag(
                        Code::BadField,
                        lineno,
                        *c,
                        format!("DIAGRAM region {a:?} is not nXn (2-19) or two locations (whole board used)"),
                    );
                    Region::Board
                }
            },
        };
        if let Some(&(c, _)) = args.get(used) {
            self.diag(
                Code::ExtraData,
                lineno,
                c,
                "data after the DIAGRAM region ignored",
            );
        }
        let d = Diagram {
            remarks: std::mem::take(&mut self.remarks),
            region,
            black: Vec::new(),
            white: Vec::new(),
            notes: Notes::default(),
            line: SourceLine(lineno),
        };
        self.push_unit(Item::Diagram(Box::new(d)), lineno);
    }

    pub(super) fn targets(&mut self, kw: &str, args: &[(u32, &str)], lineno: u32, kcol: u32) {
        let hide = kw == "HIDE";
        let mut items = Vec::new();
        for &(c, t) in args {
            match parse_target(t, hide) {
                Ok(x) => items.push(x),
                Err(e) => self.diag(Code::BadItem, lineno, c, format!("{kw}: {e}")),
            }
        }
        let ok = {
            let ev = self.event.as_ref();
            let unit = self.cur.and_then(|i| ev.and_then(|e| e.items.get(i)));
            if hide {
                matches!(unit, Some(Item::Diagram(_)))
            } else {
                matches!(unit, Some(Item::Move(_)))
            }
        };
        if !ok {
            self.diag(
                Code::Misplaced,
                lineno,
                kcol,
                if hide {
                    "HIDE outside a diagram (kept)"
                } else {
                    "PRISONER without a current move (kept)"
                },
            );
        }
        let notes = self.notes(lineno, kw);
        if hide {
            notes.hides.extend(items);
        } else {
            notes.prisoners.extend(items);
        }
    }

    pub(super) fn var(&mut self, args: &[(u32, &str)], lineno: u32, kcol: u32) {
        let mut marker = None;
        if let Some(&(c, t)) = args.first() {
            let n = t.chars().count();
            if n <= 2 && t.chars().all(|ch| ('!'..='~').contains(&ch)) {
                marker = Some(t.to_string());
            } else {
                self.diag(
                    Code::BadField,
                    lineno,
                    c,
                    format!("VAR marker {t:?} is not one or two characters (ignored)"),
                );
            }
            if let Some(&(c, _)) = args.get(1) {
                self.diag(
                    Code::ExtraData,
                    lineno,
                    c,
                    "data after the VAR marker ignored",
                );
            }
        }
        let lv = self.levels.last().expect("level 0 stays");
        if !lv.last_is_move {
            self.diag(
                Code::VarWithoutMove,
                lineno,
                kcol,
                "VAR without a current B or W move (kept)",
            );
        }
        self.ensure_event(lineno).items.push(Item::BeginVar(marker));
        self.levels.push(Level {
            var_line: lineno,
            ..Level::default()
        });
    }
}
