//! Reading a property's values: where each ends (escapes, and the repairs of a `]` missing
//! or written unescaped inside a text), for [`Reader`].

use super::*;

impl Reader<'_> {
    /// Reads the `[..]` values from `at` (the first `[`) and returns them
    /// with the position after the last. A single value is returned in
    /// [`ValuesRead::first`]; a list also goes to `self.spans`. `texty`: the
    /// values may keep an unescaped `]` (see [`props::texty_at`]).
    #[inline(always)]
    pub(super) fn read_values(&mut self, texty: bool, at: usize) -> (ValuesRead, usize) {
        self.clean = true;
        self.literal = None;
        let first = self.read_value(texty, at);
        match self.next_value(first.end as usize) {
            Err(after) => (
                ValuesRead {
                    first,
                    multi: false,
                },
                after,
            ),
            Ok(next) => {
                let after = self.read_more_values(texty, first, next);
                (ValuesRead { first, multi: true }, after)
            }
        }
    }

    /// Values after the first, from the `[` at `at`: most properties have
    /// one, so lists are read out of line.
    #[inline(never)]
    fn read_more_values(&mut self, texty: bool, first: Span, mut at: usize) -> usize {
        self.spans.clear();
        self.spans.push(first);
        loop {
            let span = self.read_value(texty, at);
            self.spans.push(span);
            match self.next_value(span.end as usize) {
                Ok(next) => at = next,
                Err(after) => return after,
            }
        }
    }

    /// Reads one value whose `[` is at `at`.
    #[inline(always)]
    fn read_value(&mut self, texty: bool, at: usize) -> Span {
        let src = self.src;
        let vstart = at + 1;
        // Moves and points (two letters) are most values: check that shape
        // first, then scan for the first special byte.
        let end = match src.get(vstart..vstart + 3) {
            Some(&[a, b, b']'])
                if !is_special(a)
                    && !is_special(b)
                    && (!texty || self.plausible_after(vstart + 3)) =>
            {
                vstart + 2
            }
            _ => match find_special(&src[vstart..]) {
                Some(k)
                    if src[vstart + k] == b']'
                        && (!texty || self.plausible_after(vstart + k + 1)) =>
                {
                    vstart + k
                }
                _ => self.value_end(vstart, texty),
            },
        };
        Span {
            start: vstart as u32,
            end: end as u32,
        }
    }

    /// After a value that ends at `end` (its `]`, or the end of the text):
    /// `Ok` with the next value's `[`, or `Err` with the position past the `]`.
    #[inline(always)]
    fn next_value(&self, end: usize) -> Result<usize, usize> {
        let src = self.src;
        let next = end + 1;
        if src.get(next) == Some(&b'[') {
            return Ok(next);
        }
        let after = next.min(src.len());
        match self.peek_after_ws(after) {
            Some((i, b'[')) => Ok(i),
            _ => Err(after),
        }
    }

    /// The end of the value that starts at `vstart` when it holds escapes,
    /// `[`, a `]` kept as text, or runs to the end of the text.
    #[inline(never)]
    fn value_end(&mut self, vstart: usize, texty: bool) -> usize {
        let src = self.src;
        let mut i = vstart;
        let mut open_brackets = 0usize;
        loop {
            match find_special(&src[i..]) {
                None => {
                    self.clean = false;
                    return src.len();
                }
                Some(k) => {
                    let j = i + k;
                    match src[j] {
                        b'\\' => i = j + 2,
                        b'[' => {
                            open_brackets += 1;
                            i = j + 1;
                        }
                        _ => {
                            if texty && !self.plausible_after(j + 1) {
                                // A ']' inside a bracketed aside, or one
                                // after which the value plainly goes on.
                                let keep = if open_brackets > 0 {
                                    open_brackets -= 1;
                                    true
                                } else {
                                    self.closes_later(j + 1)
                                };
                                if keep {
                                    self.clean = false;
                                    self.literal.get_or_insert(j);
                                    i = j + 1;
                                    continue;
                                }
                            }
                            return j;
                        }
                    }
                    if i >= src.len() {
                        self.clean = false;
                        return src.len();
                    }
                }
            }
        }
    }

    /// Whether the text from `i` reaches another unescaped `]` with no `[`
    /// on the way, after which SGF plausibly goes on: then a `]` just before
    /// `i` was meant as text.
    fn closes_later(&self, mut i: usize) -> bool {
        let src = self.src;
        while let Some(k) = memchr::memchr3(b']', b'\\', b'[', &src[i.min(src.len())..]) {
            let j = i + k;
            match src[j] {
                b'\\' => i = j + 2,
                b'[' => return false,
                _ => return self.plausible_after(j + 1),
            }
        }
        false
    }

    /// Whether what follows a `]` at `i` is a plausible SGF continuation.
    #[inline]
    fn plausible_after(&self, i: usize) -> bool {
        match self.peek_after_ws(i) {
            None => true,
            Some((_, b'[' | b';' | b'(' | b')')) => true,
            Some((j, c)) if c.is_ascii_uppercase() => self.property_at(j),
            Some(_) => false,
        }
    }
}
