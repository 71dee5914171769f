//! A node's setup and move applied to the position: forced moves, their violations and the
//! unusual moves (passes written as points, a colour out of turn) reported as the replay's
//! diagnostics.

use super::*;

impl<S: ReplaySink> Replayer<S> {
    pub(super) fn pos_mut(&mut self) -> &mut Position {
        self.pos
            .as_mut()
            .expect("the board is set up before any node is applied")
    }

    #[inline(never)]
    pub(super) fn apply_setup(&mut self) {
        let mut i = 0;
        while i < self.setup.len() {
            // One property at a time, so that its findings make one diagnostic each.
            let prop = self.setup[i].prop;
            let offset = self.setup[i].offset as usize;
            let kind = self.setup[i].kind;
            let mut no_effect: (usize, Vec<Point>) = (0, Vec::new());
            let mut overwritten: (usize, Vec<Point>) = (0, Vec::new());
            let mut off_board = 0usize;
            while i < self.setup.len() && self.setup[i].prop == prop {
                let s = self.setup[i];
                i += 1;
                let stone = match s.kind {
                    SetupKind::Black => Some(Color::Black),
                    SetupKind::White => Some(Color::White),
                    SetupKind::Empty => None,
                };
                for row in s.r0..=s.r1 {
                    for col in s.c0..=s.c1 {
                        let Some(p) = self.point(col, row) else {
                            off_board += 1;
                            continue;
                        };
                        let old = self.pos_mut().setup(p, stone).ok().flatten();
                        // Only the first few points are named: memory stays bounded.
                        if old == stone {
                            no_effect.0 += 1;
                            if no_effect.1.len() < 10 {
                                no_effect.1.push(p);
                            }
                        } else if old.is_some() && stone.is_some() {
                            overwritten.0 += 1;
                            if overwritten.1.len() < 10 {
                                overwritten.1.push(p);
                            }
                        }
                    }
                }
            }
            let id = match kind {
                SetupKind::Black => "AB",
                SetupKind::White => "AW",
                SetupKind::Empty => "AE",
            };
            if no_effect.0 > 0 {
                let what = if kind == SetupKind::Empty {
                    "the point is already empty"
                } else {
                    "a stone of that colour is already there"
                };
                self.diags.push(Diagnostic::new(
                    Code::SetupNoEffect,
                    offset,
                    format!("{id} has no effect on {} ({what})", list(&no_effect)),
                ));
            }
            if overwritten.0 > 0 {
                self.diags.push(Diagnostic::new(
                    Code::SetupOverwrites,
                    offset,
                    format!(
                        "{id} replaces a stone of the other colour on {}",
                        list(&overwritten)
                    ),
                ));
            }
            if off_board > 0 {
                self.diags.push(Diagnostic::new(
                    Code::OffBoard,
                    offset,
                    format!(
                        "{id}: {off_board} point(s) off the {}x{} board (ignored)",
                        self.cols, self.rows
                    ),
                ));
            }
        }
    }

    // Forced inline (as `emit`): once `finish_node` had two instances, the compiler outlined
    // them, and the replay took 5-8% more instructions (callgrind, corpus main lines).
    #[inline(always)]
    pub(super) fn apply_move(&mut self, m: MoveItem) -> Option<PlayedMove> {
        let [c, r] = m.text;
        // The common case first: two lowercase letters naming a point of this board.
        let on_board = m.len == 2
            && c.is_ascii_lowercase()
            && r.is_ascii_lowercase()
            && c - b'a' < self.cols
            && r - b'a' < self.rows;
        let mv = if on_board {
            Move::Play(Point::from_raw(c - b'a', r - b'a'))
        } else {
            self.unusual_move(m)?
        };
        let pl_pending = std::mem::replace(&mut self.pl_pending, false);
        if pl_pending && Some(m.color) != self.pos.as_ref().map(|p| p.to_play()) {
            self.color_surprise(m);
        }
        let out = self.pos.as_mut()?.play_forced(m.color, mv).ok()?;
        if let (Some(v), false) = (out.violation, self.ko_decree) {
            self.report_violation(m, v);
        }
        Some(PlayedMove { color: m.color, mv })
    }

    /// A move value that is not a point of the board: a pass (empty, or `tt` on boards up to
    /// 19x19), or a finding and `None` (not played).
    #[cold]
    #[inline(never)]
    fn unusual_move(&mut self, m: MoveItem) -> Option<Move> {
        match m.len {
            0 => Some(Move::Pass),
            2 if &m.text == b"tt" && self.cols <= 19 && self.rows <= 19 => Some(Move::Pass),
            2 => {
                self.diags.push(Diagnostic::new(
                    Code::OffBoard,
                    m.offset as usize,
                    format!(
                        "move {} is not on the {}x{} board (not played)",
                        String::from_utf8_lossy(&m.text),
                        self.cols,
                        self.rows
                    ),
                ));
                None
            }
            _ => {
                self.diags.push(Diagnostic::new(
                    Code::OffBoard,
                    m.offset as usize,
                    "move value is not a point (not played)",
                ));
                None
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn color_surprise(&mut self, m: MoveItem) {
        let Some(expected) = self.pos.as_ref().map(|p| p.to_play()) else {
            return;
        };
        self.diags.push(Diagnostic::new(
            Code::ColorSurprise,
            m.offset as usize,
            format!("PL says {expected} is to play, but {} plays", m.color),
        ));
    }

    #[cold]
    #[inline(never)]
    fn report_violation(&mut self, m: MoveItem, v: IllegalMove) {
        let Some(size) = self.pos.as_ref().map(|p| p.size()) else {
            return;
        };
        let at = v.point().to_human(size);
        let (code, msg) = match v {
            IllegalMove::Occupied { by, .. } => (
                Code::MoveOnOccupied,
                format!(
                    "{} {at} is played onto a {} stone (the stone is replaced)",
                    m.color,
                    by.to_string().to_lowercase()
                ),
            ),
            IllegalMove::Ko { .. } => (
                Code::KoViolation,
                format!("{} {at} retakes the ko at once", m.color),
            ),
            IllegalMove::Superko { .. } => (
                Code::KoViolation,
                format!("{} {at} repeats an earlier position (superko)", m.color),
            ),
            IllegalMove::Suicide { .. } => (
                Code::Suicide,
                format!("{} {at} is suicide (the string is removed)", m.color),
            ),
            IllegalMove::OffBoard { .. } => (Code::OffBoard, format!("{at} is off the board")),
        };
        self.diags
            .push(Diagnostic::new(code, m.offset as usize, msg));
    }
}
