//! The strings of stones behind [`Position`]: the padded board's indices, the rings of stones
//! and their heads' pseudo-liberties, merging, capture and the hashes kept with them (see the
//! module's guide).

use super::*;

impl Position {
    #[inline(always)]
    pub(super) fn pad(&self, p: Point) -> usize {
        (usize::from(p.row()) + 1) * self.stride + usize::from(p.col()) + 1
    }

    #[inline(always)]
    pub(super) fn checked_pad(&self, p: Point) -> Result<usize, IllegalMove> {
        if p.is_on(self.size) {
            Ok(self.pad(p))
        } else {
            Err(IllegalMove::OffBoard { point: p })
        }
    }

    pub(super) fn point_of(&self, pad: usize) -> Point {
        let row = pad / self.stride - 1;
        let col = pad % self.stride - 1;
        Point::from_raw(col as u8, row as u8)
    }

    #[inline(always)]
    pub(super) fn neighbours(&self, pad: usize) -> [usize; 4] {
        [pad - 1, pad + 1, pad - self.stride, pad + self.stride]
    }

    /// Legality of a stone at an on-board `pad`. `Ok(true)` when the move is a legal suicide.
    #[inline]
    pub(super) fn check_pad(&self, color: Color, pad: usize) -> Result<bool, IllegalMove> {
        let cell = self.cell[pad];
        if cell != EMPTY {
            return Err(IllegalMove::Occupied {
                point: self.point_of(pad),
                by: color_of(cell),
            });
        }
        if pad == self.ko && color == self.ko_color {
            return Err(IllegalMove::Ko {
                point: self.point_of(pad),
            });
        }
        let own = cell_of(color);
        let nb = self.neighbours(pad);
        let mut heads = [0usize; 4];
        let mut has_liberty = false;
        for i in 0..4 {
            match self.cell[nb[i]] {
                EMPTY => has_liberty = true,
                BORDER => {}
                _ => heads[i] = usize::from(self.head[nb[i]]),
            }
        }
        let mut captures = false;
        if !has_liberty {
            for i in 0..4 {
                let h = heads[i];
                if h == 0 {
                    continue;
                }
                let edges = heads.iter().filter(|&&x| x == h).count() as u16;
                if self.cell[nb[i]] == own {
                    has_liberty |= self.libs[h] > edges;
                } else {
                    captures |= self.libs[h] == edges;
                }
            }
        }
        let suicide = !has_liberty && !captures;
        if suicide && !self.rules.suicide_allowed {
            return Err(IllegalMove::Suicide {
                point: self.point_of(pad),
            });
        }
        if let Some(history) = &self.history {
            let after = self.hash_after(color, pad, &heads, suicide);
            if after == self.hashes[0] || history.contains(&after) {
                return Err(IllegalMove::Superko {
                    point: self.point_of(pad),
                });
            }
        }
        Ok(suicide)
    }

    /// The plain hash after `color` plays at `pad` (slow path, for superko only).
    fn hash_after(&self, color: Color, pad: usize, heads: &[usize; 4], suicide: bool) -> u64 {
        let own = cell_of(color);
        let nb = self.neighbours(pad);
        let mut h = self.hashes[0];
        if suicide {
            // The new stone and every own string touching it disappear.
            for i in 0..4 {
                let s = heads[i];
                if s != 0 && self.cell[nb[i]] == own && !heads[..i].contains(&s) {
                    h ^= self.string_hash(s);
                }
            }
            return h;
        }
        h ^= self.keys.at(pad, color)[0];
        for i in 0..4 {
            let s = heads[i];
            if s == 0 || self.cell[nb[i]] == own || heads[..i].contains(&s) {
                continue;
            }
            let edges = heads.iter().filter(|&&x| x == s).count() as u16;
            if self.libs[s] == edges {
                h ^= self.string_hash(s);
            }
        }
        h
    }

    fn string_hash(&self, head: usize) -> u64 {
        let color = color_of(self.cell[head]);
        let mut h = 0;
        let mut s = head;
        loop {
            h ^= self.keys.at(s, color)[0];
            s = usize::from(self.next[s]);
            if s == head {
                return h;
            }
        }
    }

    #[inline(always)]
    fn xor_keys(&mut self, pad: usize, color: Color) {
        // On copies, so that the compiler sees no aliasing and uses vector XORs.
        let k = *self.keys.at(pad, color);
        let mut h = self.hashes;
        for i in 0..8 {
            h[i] ^= k[i];
        }
        self.hashes = h;
    }

    /// Puts a stone on the empty `pad`, merging strings and updating liberties and hashes; no captures.
    #[inline(always)]
    pub(super) fn place_stone(&mut self, color: Color, pad: usize) {
        let own = cell_of(color);
        self.cell[pad] = own;
        self.next[pad] = pad as u16;
        self.head[pad] = pad as u16;
        self.count[pad] = 1;
        self.stones[color.index()] += 1;
        self.xor_keys(pad, color);
        let nb = self.neighbours(pad);
        // Without branches: what surrounds a point is unpredictable, and a mispredicted branch per
        // neighbour cost more than the arithmetic. `head` of an empty or border point is stale but
        // always a valid index, and such a point subtracts 0.
        let mut libs = 0;
        let mut friends = 0u32;
        for (i, &n) in nb.iter().enumerate() {
            let c = self.cell[n];
            libs += u16::from(c == EMPTY);
            friends |= u32::from(c == own) << i;
            let h = usize::from(self.head[n]);
            self.libs[h] -= u16::from(is_stone(c));
        }
        self.libs[pad] = libs;
        while friends != 0 {
            let i = friends.trailing_zeros() as usize;
            friends &= friends - 1;
            let a = usize::from(self.head[pad]);
            let b = usize::from(self.head[nb[i]]);
            if a != b {
                self.merge(a, b);
            }
        }
    }

    #[inline]
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.count[a] >= self.count[b] {
            (a, b)
        } else {
            (b, a)
        };
        if self.count[small] == 1 {
            // A lone stone joining a string (most merges): no ring to walk, and no loop exit
            // to mispredict.
            self.head[small] = big as u16;
        } else {
            let mut s = small;
            loop {
                self.head[s] = big as u16;
                s = usize::from(self.next[s]);
                if s == small {
                    break;
                }
            }
        }
        self.next.swap(big, small);
        self.libs[big] += self.libs[small];
        self.count[big] += self.count[small];
    }

    /// Removes the whole string whose head is `head`; returns the number of stones.
    fn remove_string(&mut self, head: usize) -> u32 {
        let color = color_of(self.cell[head]);
        let mut s = head;
        let mut n = 0;
        loop {
            self.cell[s] = EMPTY;
            self.xor_keys(s, color);
            n += 1;
            s = usize::from(self.next[s]);
            if s == head {
                break;
            }
        }
        // A second pass, now that the string's points are empty, gives each adjacent string back one
        // pseudo-liberty per edge.
        loop {
            for nb in self.neighbours(s) {
                let h = usize::from(self.head[nb]);
                self.libs[h] += u16::from(is_stone(self.cell[nb]));
            }
            s = usize::from(self.next[s]);
            if s == head {
                break;
            }
        }
        self.stones[color.index()] -= n;
        n
    }

    /// Removes the single stone on `pad`, splitting its string if needed (setup and forced moves).
    pub(super) fn remove_one(&mut self, pad: usize) {
        let color = color_of(self.cell[pad]);
        let head = usize::from(self.head[pad]);
        let mut others = [0u16; BoardSize::MAX as usize * BoardSize::MAX as usize];
        let mut k = 0;
        let mut s = usize::from(self.next[pad]);
        while s != pad {
            others[k] = s as u16;
            k += 1;
            s = usize::from(self.next[s]);
        }
        self.remove_string(head);
        for &o in &others[..k] {
            self.place_stone(color, usize::from(o));
        }
    }

    /// Places a stone on the empty `pad` and resolves captures, then suicide; sets the ko.
    #[inline(always)]
    pub(super) fn resolve(&mut self, color: Color, pad: usize) -> (u32, u32) {
        self.place_stone(color, pad);
        let opp = cell_of(color.opponent());
        let mut captured = 0;
        let mut last_captured = 0;
        // Which neighbours are opponent strings left without liberties, as a bit mask built without
        // branches: the mask is almost always 0, so the one branch on it is predictable, where a
        // test per neighbour is not.
        let nb = self.neighbours(pad);
        let mut dead = 0u32;
        for (i, &n) in nb.iter().enumerate() {
            let h = usize::from(self.head[n]);
            dead |= (u32::from(self.cell[n] == opp) & u32::from(self.libs[h] == 0)) << i;
        }
        while dead != 0 {
            let i = dead.trailing_zeros() as usize;
            dead &= dead - 1;
            let h = usize::from(self.head[nb[i]]);
            // Two neighbours of one string: the second finds its points already empty.
            if self.cell[nb[i]] == opp {
                captured += self.remove_string(h);
                last_captured = h;
            }
        }
        self.prisoners[color.index()] += captured;
        let h = usize::from(self.head[pad]);
        let mut suicided = 0;
        self.ko = 0;
        if self.libs[h] == 0 {
            suicided = self.remove_string(h);
            self.prisoners[color.opponent().index()] += suicided;
        } else if captured == 1 && self.count[h] == 1 && self.libs[h] == 1 {
            // A lone stone that took one stone and whose only liberty is that point: a ko.
            self.ko = last_captured;
            self.ko_color = color.opponent();
        }
        (captured, suicided)
    }

    /// Adds the current board to the superko history (before a move changes it).
    #[inline(always)]
    pub(super) fn remember(&mut self) {
        if let Some(h) = self.history.as_mut() {
            h.insert(self.hashes[0]);
        }
    }

    #[inline]
    pub(super) fn after_play(&mut self, color: Color, mv: Move) {
        self.to_play = color.opponent();
        self.move_number += 1;
        self.passes = 0;
        self.last_move = Some(PlayedMove { color, mv });
    }

    pub(super) fn pass(&mut self, color: Color) {
        self.ko = 0;
        self.to_play = color.opponent();
        self.move_number += 1;
        self.passes += 1;
        self.last_move = Some(PlayedMove {
            color,
            mv: Move::Pass,
        });
    }

    /// Checks the internal string bookkeeping against a from-scratch flood fill (tests only).
    #[cfg(test)]
    pub(crate) fn assert_consistent(&self) {
        let n = usize::from(self.size.get());
        let mut seen = vec![false; CAP];
        let mut stones = [0u32; 2];
        for row in 0..n {
            for col in 0..n {
                let pad = (row + 1) * self.stride + col + 1;
                let c = self.cell[pad];
                if c == BLACK || c == WHITE {
                    stones[usize::from(c - 1)] += 1;
                }
                if (c != BLACK && c != WHITE) || seen[pad] {
                    continue;
                }
                // Flood fill the string.
                let mut stack = vec![pad];
                let mut members = vec![];
                seen[pad] = true;
                while let Some(s) = stack.pop() {
                    members.push(s);
                    for nb in self.neighbours(s) {
                        if self.cell[nb] == c && !seen[nb] {
                            seen[nb] = true;
                            stack.push(nb);
                        }
                    }
                }
                let head = usize::from(self.head[pad]);
                let mut pseudo = 0;
                for &m in &members {
                    assert_eq!(usize::from(self.head[m]), head, "one head per string");
                    pseudo += self
                        .neighbours(m)
                        .iter()
                        .filter(|&&x| self.cell[x] == EMPTY)
                        .count();
                }
                assert_eq!(usize::from(self.count[head]), members.len());
                assert_eq!(usize::from(self.libs[head]), pseudo, "pseudo-liberties");
                let mut ring = 0;
                let mut s = head;
                loop {
                    ring += 1;
                    assert!(members.contains(&s));
                    s = usize::from(self.next[s]);
                    if s == head || ring > members.len() {
                        break;
                    }
                }
                assert_eq!(ring, members.len(), "ring covers the string");
            }
        }
        assert_eq!(stones, self.stones);
    }
}
