//! Property values: raw (escaped) bytes until one of the typed accessors
//! decodes them as the FF\[4\] value types say.

/// Iterator over the values of a stored property region `[a][b]...`.
#[derive(Debug, Clone)]
pub struct Values<'c> {
    rest: &'c [u8],
}

impl<'c> Values<'c> {
    pub(crate) fn new(region: &'c [u8]) -> Self {
        Values { rest: region }
    }
}

impl<'c> Iterator for Values<'c> {
    type Item = Value<'c>;

    fn next(&mut self) -> Option<Value<'c>> {
        let r = self.rest;
        let open = r.iter().position(|&b| b == b'[')?;
        let body = &r[open + 1..];
        let mut i = 0;
        while i < body.len() {
            match body[i] {
                b'\\' => i += 2,
                b']' => break,
                _ => i += 1,
            }
        }
        let end = i.min(body.len());
        self.rest = &body[(end + 1).min(body.len())..];
        Some(Value { raw: &body[..end] })
    }
}

/// One value of a property, still escaped as in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value<'c> {
    raw: &'c [u8],
}

/// A point on the board, `col` from the left and `row` from the top, both 0-based,
/// as SGF writes it (`a`..`z` = 0..25, `A`..`Z` = 26..51).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SgfPoint {
    /// Column from the left, 0-based.
    pub col: u8,
    /// Row from the top, 0-based.
    pub row: u8,
}

impl SgfPoint {
    /// The two SGF letters of the point.
    pub fn to_letters(self) -> [u8; 2] {
        [letter(self.col), letter(self.row)]
    }
}

fn coord(b: u8) -> Option<u8> {
    match b {
        b'a'..=b'z' => Some(b - b'a'),
        b'A'..=b'Z' => Some(b - b'A' + 26),
        _ => None,
    }
}

fn letter(c: u8) -> u8 {
    if c < 26 {
        b'a' + c
    } else {
        b'A' + (c - 26)
    }
}

/// A move value read for a board of a given size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgfMove {
    /// A play on a point.
    Play(SgfPoint),
    /// A pass: `[]`, or `[tt]` on boards up to 19x19.
    Pass,
}

impl<'c> Value<'c> {
    /// Wraps raw (escaped) bytes as a value.
    pub fn from_raw(raw: &'c [u8]) -> Self {
        Value { raw }
    }

    /// The bytes as stored (escaped).
    pub fn raw(&self) -> &'c [u8] {
        self.raw
    }

    /// Whether the value is `[]`.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Decodes as FF\[4\] Text: escapes removed, a `\` before a line break
    /// removes it (soft line break), line breaks (LF, CR-LF, LF-CR, CR) become
    /// `\n`, other white space becomes a space.
    pub fn text(&self) -> String {
        decode_text(self.raw, false)
    }

    /// Decodes as FF\[4\] SimpleText: as [`Value::text`], but line breaks
    /// become spaces too.
    pub fn simple_text(&self) -> String {
        decode_text(self.raw, true)
    }

    /// Splits a composed value `a:b` at its first unescaped `:`.
    pub fn compose(&self) -> Option<(Value<'c>, Value<'c>)> {
        let mut i = 0;
        while i < self.raw.len() {
            match self.raw[i] {
                b'\\' => i += 2,
                b':' => {
                    return Some((
                        Value {
                            raw: &self.raw[..i],
                        },
                        Value {
                            raw: &self.raw[i + 1..],
                        },
                    ));
                }
                _ => i += 1,
            }
        }
        None
    }

    fn trimmed(&self) -> Option<&'c str> {
        std::str::from_utf8(self.raw).ok().map(str::trim)
    }

    /// Decodes as Number: an optionally signed integer (white space around is tolerated).
    pub fn number(&self) -> Option<i64> {
        let s = self.trimmed()?;
        let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.trim_start_matches('+').parse().ok()
    }

    /// Decodes as Real: an optionally signed decimal number.
    pub fn real(&self) -> Option<f64> {
        let s = self.trimmed()?;
        let body = s.strip_prefix(['+', '-']).unwrap_or(s);
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        let ok = !(int.is_empty() && frac.is_empty())
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.bytes().all(|b| b.is_ascii_digit());
        if !ok {
            return None;
        }
        s.parse().ok()
    }

    /// Decodes as Double: `1` (normal) or `2` (emphasised).
    pub fn double(&self) -> Option<u8> {
        match self.trimmed()? {
            "1" => Some(1),
            "2" => Some(2),
            _ => None,
        }
    }

    /// Decodes as Color: `true` for black (`B`), `false` for white (`W`).
    pub fn color_is_black(&self) -> Option<bool> {
        match self.trimmed()? {
            "B" | "b" => Some(true),
            "W" | "w" => Some(false),
            _ => None,
        }
    }

    /// Decodes a single point (two letters). White space is not allowed.
    pub fn point(&self) -> Option<SgfPoint> {
        match self.raw {
            [c, r] => Some(SgfPoint {
                col: coord(*c)?,
                row: coord(*r)?,
            }),
            _ => None,
        }
    }

    /// Decodes a move for a board of `size` columns and rows: `[]` is a pass,
    /// and so is `[tt]` when both dimensions are at most 19.
    pub fn move_for(&self, cols: u32, rows: u32) -> Option<SgfMove> {
        if self.raw.is_empty() || (self.raw == b"tt" && cols <= 19 && rows <= 19) {
            return Some(SgfMove::Pass);
        }
        self.point().map(SgfMove::Play)
    }

    /// Decodes a point or a compressed rectangle `aa:cc` into its points, in
    /// row-major order from the top-left corner. `None` if not well formed.
    pub fn points(&self) -> Option<Vec<SgfPoint>> {
        match self.compose() {
            None => self.point().map(|p| vec![p]),
            Some((a, b)) => {
                let (a, b) = (a.point()?, b.point()?);
                let (c0, c1) = (a.col.min(b.col), a.col.max(b.col));
                let (r0, r1) = (a.row.min(b.row), a.row.max(b.row));
                let mut v = Vec::with_capacity((c1 - c0 + 1) as usize * (r1 - r0 + 1) as usize);
                for row in r0..=r1 {
                    for col in c0..=c1 {
                        v.push(SgfPoint { col, row });
                    }
                }
                Some(v)
            }
        }
    }

    /// Decodes SZ: `n` or `cols:rows`, each 1..=52.
    pub fn size(&self) -> Option<(u32, u32)> {
        let in_range = |n: i64| (1..=52).contains(&n).then_some(n as u32);
        match self.compose() {
            None => {
                let n = in_range(self.number()?)?;
                Some((n, n))
            }
            Some((a, b)) => Some((in_range(a.number()?)?, in_range(b.number()?)?)),
        }
    }
}

fn decode_text(raw: &[u8], simple: bool) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    let newline = |out: &mut Vec<u8>| out.push(if simple { b' ' } else { b'\n' });
    while i < raw.len() {
        let b = raw[i];
        match b {
            b'\\' => {
                i += 1;
                match raw.get(i) {
                    None => {}
                    Some(b'\n') => i += if raw.get(i + 1) == Some(&b'\r') { 2 } else { 1 },
                    Some(b'\r') => i += if raw.get(i + 1) == Some(&b'\n') { 2 } else { 1 },
                    Some(&c) => {
                        out.push(if c == b'\t' || c == 0x0b || c == 0x0c {
                            b' '
                        } else {
                            c
                        });
                        i += 1;
                    }
                }
            }
            b'\n' => {
                newline(&mut out);
                i += if raw.get(i + 1) == Some(&b'\r') { 2 } else { 1 };
            }
            b'\r' => {
                newline(&mut out);
                i += if raw.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            }
            b'\t' | 0x0b | 0x0c => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Value<'_> {
        Value::from_raw(s.as_bytes())
    }

    #[test]
    fn values_iterate_over_a_region() {
        let vals: Vec<&[u8]> = Values::new(b"[aa] \n[b\\]b][]").map(|v| v.raw()).collect();
        assert_eq!(vals, [&b"aa"[..], b"b\\]b", b""]);
    }

    #[test]
    fn text_decoding() {
        assert_eq!(v("a\\]b\\\\c").text(), "a]b\\c");
        assert_eq!(v("soft\\\nbreak").text(), "softbreak");
        assert_eq!(v("line\r\nbreak\ttab").text(), "line\nbreak tab");
        assert_eq!(v("line\r\nbreak").simple_text(), "line break");
        assert_eq!(v("a\\:b").text(), "a:b");
    }

    #[test]
    fn numbers_and_reals() {
        assert_eq!(v("19").number(), Some(19));
        assert_eq!(v("-3").number(), Some(-3));
        assert_eq!(v("+3").number(), Some(3));
        assert_eq!(v("3.").number(), None);
        assert_eq!(v("6.5").real(), Some(6.5));
        assert_eq!(v("-.5").real(), Some(-0.5));
        assert_eq!(v("5 1/2").real(), None);
        assert_eq!(v("2").double(), Some(2));
        assert_eq!(v("W").color_is_black(), Some(false));
    }

    #[test]
    fn points_moves_and_rectangles() {
        assert_eq!(v("cd").point(), Some(SgfPoint { col: 2, row: 3 }));
        assert_eq!(v("Aa").point(), Some(SgfPoint { col: 26, row: 0 }));
        assert_eq!(v("tt").move_for(19, 19), Some(SgfMove::Pass));
        assert_eq!(
            v("tt").move_for(21, 21),
            Some(SgfMove::Play(SgfPoint { col: 19, row: 19 }))
        );
        assert_eq!(v("").move_for(9, 9), Some(SgfMove::Pass));
        let r = v("bb:ac").points().unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[0], SgfPoint { col: 0, row: 1 });
        assert_eq!(v("a").points(), None);
        assert_eq!(v("19:13").size(), Some((19, 13)));
        assert_eq!(v("53").size(), None);
        let (a, b) = v("aa:he\\:llo").compose().unwrap();
        assert_eq!((a.raw(), b.simple_text().as_str()), (&b"aa"[..], "he:llo"));
        assert_eq!(SgfPoint { col: 27, row: 3 }.to_letters(), *b"Bd");
    }
}
