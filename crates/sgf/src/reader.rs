//! The streaming SGF reader: bytes in, events out to a [`Visitor`].
//!
//! The reader never recurses and never builds a tree: it reports game trees,
//! variations, nodes and properties in file order and keeps only a counter of
//! open parentheses, so 10,000 nested variations cost nothing on the stack.
//! The owned tree ([`crate::Collection`]) is one visitor; the position
//! extractor in kifu-go is another that never builds a tree.
//!
//! It is tolerant in the ways real archives need, each repair reported once as
//! a [`Diagnostic`] (see [`crate::diag`] for the codes):
//! text before the first `(;` or between game trees is skipped (S006 when it
//! looks like SGF); a missing `;` after `(` is assumed (S036/S067); a node
//! outside any tree opens one (S066); an extra `)` is ignored (S103); the end
//! of the file closes whatever is open (S010); values without an identifier
//! (S054), identifiers without values (S020), over-long identifiers (S011) and
//! stray characters (S008) are skipped; an unescaped `]` inside a text value is
//! kept as text when the bracket is balanced inside the value and what follows
//! it cannot be SGF (S102).

use crate::diag::{Code, Diagnostic};
use crate::props;

/// A byte range `start..end` in the text being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The span as a `usize` range.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One property as read: its identifier and the raw (still escaped) values.
/// Only the reader makes one.
#[derive(Debug)]
pub struct RawProperty<'a> {
    /// The whole text being read; the spans index into it.
    pub src: &'a [u8],
    /// The identifier with only its upper-case letters (FF\[3\] `LaBel` is `LB`).
    pub id: &'a [u8],
    /// The identifier as written.
    pub raw_id: &'a [u8],
    /// Byte offset of the identifier.
    pub offset: usize,
    /// See [`RawProperty::known`]. Not public, so that only the reader makes
    /// a `RawProperty` and a visitor may trust it without a check.
    pub(crate) known: Option<usize>,
    /// The values, without their brackets, still escaped.
    pub values: &'a [Span],
    /// True when `src[values[0].start - 1 .. values.last().end + 1]` is exactly
    /// the values in brackets with only white space between them, each value
    /// correctly escaped: a visitor may then keep that one range as it is.
    pub clean: bool,
}

impl<'a> RawProperty<'a> {
    /// The position of `id` in [`crate::props::PROPERTIES`] when kifu knows
    /// the identifier (what [`crate::props::index`] returns for `id`), so
    /// that a visitor need not look it up again.
    pub fn known(&self) -> Option<usize> {
        self.known
    }

    /// The raw bytes of value `i`.
    pub fn value(&self, i: usize) -> &'a [u8] {
        &self.src[self.values[i].range()]
    }

    /// The range from the first `[` to the last `]`, valid when [`Self::clean`].
    pub fn region(&self) -> Span {
        Span {
            start: self.values[0].start - 1,
            end: self.values[self.values.len() - 1].end + 1,
        }
    }
}

/// Whether the reader should report a variation's contents or skip them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Report everything inside.
    No,
    /// Skip to the matching `)` without reporting anything inside.
    Yes,
}

/// Receives the reader's events in file order. Every method has an empty default.
///
/// Order: `begin_game`, then for each node `begin_node` and its `property`
/// calls, with `begin_variation`/`end_variation` around each variation, and
/// `end_game`. Diagnostics come as they are found.
pub trait Visitor {
    /// A game tree starts (its `(` at `offset`).
    fn begin_game(&mut self, offset: usize) {
        let _ = offset;
    }
    /// The game tree ends.
    fn end_game(&mut self, offset: usize) {
        let _ = offset;
    }
    /// A variation starts: nodes that follow are children of the node before the `(`.
    fn begin_variation(&mut self, offset: usize) -> Skip {
        let _ = offset;
        Skip::No
    }
    /// The variation ends: the current node is again the one before its `(`.
    fn end_variation(&mut self, offset: usize) {
        let _ = offset;
    }
    /// A node starts (its `;` at `offset`).
    fn begin_node(&mut self, offset: usize) {
        let _ = offset;
    }
    /// A property of the current node.
    fn property(&mut self, prop: &RawProperty<'_>) {
        let _ = prop;
    }
    /// A problem found while reading.
    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        let _ = diagnostic;
    }
}

/// Whether `b` is `[`, `\\` or `]`: they are 0x5B..=0x5D, so one compare.
#[inline(always)]
fn is_special(b: u8) -> bool {
    b.wrapping_sub(b'[') <= b']' - b'['
}

/// The first `]`, `\\` or `[` in `s`. Most values are a few bytes long
/// (points, numbers), where a plain loop beats setting up a vector search.
#[inline(always)]
fn find_special(s: &[u8]) -> Option<usize> {
    let head = &s[..s.len().min(16)];
    if let Some(i) = head.iter().position(|&b| is_special(b)) {
        return Some(i);
    }
    if s.len() <= 16 {
        return None;
    }
    find_special_long(&s[16..]).map(|i| i + 16)
}

#[inline(never)]
fn find_special_long(s: &[u8]) -> Option<usize> {
    memchr::memchr3(b']', b'\\', b'[', s)
}

/// What [`Reader::read_values`] found (with `Reader::clean` and
/// `Reader::literal`, kept in the reader so that this stays in registers).
#[derive(Clone, Copy)]
struct ValuesRead {
    /// The first value (the only one unless `multi`).
    first: Span,
    /// There are several values, in `Reader::spans`.
    multi: bool,
}

/// The longest identifier kept (SGFC's limit).
const MAX_ID: usize = 100;

/// Reads SGF `text` (UTF-8 or any ASCII-compatible text), reporting to `visitor`.
///
/// Inputs over 4 GiB cannot be addressed with the reader's 32-bit offsets and
/// are refused with S104 (nothing else is reported).
pub fn read<V: Visitor + ?Sized>(text: &[u8], visitor: &mut V) {
    if text.len() >= u32::MAX as usize - 1 {
        visitor.diagnostic(Diagnostic::new(
            Code::TooLarge,
            0,
            "the file is larger than 4 GiB",
        ));
        return;
    }
    Reader {
        src: text,
        pos: 0,
        depth: 0,
        skip_depth: 0,
        implicit: false,
        node_open: false,
        after_open: false,
        after_close: false,
        games: 0,
        // Lists and lower-case identifiers are rare: allocate on first use.
        spans: Vec::new(),
        id_buf: Vec::new(),
        clean: true,
        literal: None,
    }
    .run(visitor);
}

struct Reader<'a> {
    src: &'a [u8],
    pos: usize,
    /// Open parentheses of the current game tree (0: between trees).
    depth: usize,
    /// While > 0, the depth at which a skipped variation started.
    skip_depth: usize,
    /// The current tree was opened by a node outside any tree (S066).
    implicit: bool,
    /// A node is open and may take properties.
    node_open: bool,
    /// Just after `(`, before the first `;`.
    after_open: bool,
    /// Just after a `)` that closed a variation inside a tree.
    after_close: bool,
    games: usize,
    spans: Vec<Span>,
    id_buf: Vec<u8>,
    /// The values just read are clean (see [`RawProperty::clean`]).
    clean: bool,
    /// Where the first `]` kept as text in the values just read is.
    literal: Option<usize>,
}

#[inline(always)]
fn is_ws(b: u8) -> bool {
    // Every white-space byte is at most b' ': one compare rejects the rest.
    b <= b' ' && matches!(b, b' ' | b'\n' | b'\r' | b'\t' | 0x0b | 0x0c)
}

impl<'a> Reader<'a> {
    fn diag<V: Visitor + ?Sized>(
        &self,
        v: &mut V,
        code: Code,
        offset: usize,
        msg: impl Into<String>,
    ) {
        if self.skip_depth == 0 {
            v.diagnostic(Diagnostic::new(code, offset, msg));
        }
    }

    fn quiet(&self) -> bool {
        self.skip_depth > 0
    }

    #[inline(always)]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if !is_ws(b) {
                break;
            }
            self.pos += 1;
        }
    }

    #[inline(always)]
    fn peek_after_ws(&self, mut i: usize) -> Option<(usize, u8)> {
        while let Some(&b) = self.src.get(i) {
            if !is_ws(b) {
                return Some((i, b));
            }
            i += 1;
        }
        None
    }

    /// Whether an identifier followed by `[` starts at `i`.
    fn property_at(&self, i: usize) -> bool {
        let mut j = i;
        while j < self.src.len() && self.src[j].is_ascii_alphabetic() && j - i <= MAX_ID {
            j += 1;
        }
        j > i && matches!(self.peek_after_ws(j), Some((_, b'[')))
    }

    fn run<V: Visitor + ?Sized>(mut self, v: &mut V) {
        let len = self.src.len();
        loop {
            self.skip_ws();
            if self.pos >= len {
                break;
            }
            let b = self.src[self.pos];
            if self.depth == 0 {
                self.top_level(v, b);
                continue;
            }
            match b {
                b'(' => {
                    self.open_variation(v);
                    continue;
                }
                b')' => {
                    self.close(v);
                    continue;
                }
                b'[' => {
                    let at = self.pos;
                    self.pos = self.read_values(false, at).1;
                    self.diag(
                        v,
                        Code::ValuesWithoutId,
                        at,
                        "values without a property identifier (deleted)",
                    );
                    continue;
                }
                // Read by the loop below.
                b';' => {}
                b if b.is_ascii_alphabetic() => {}
                _ => {
                    self.illegal_run(v);
                    continue;
                }
            }
            // Nodes and their properties, the bulk of a file, are read here
            // rather than going round the loop above for each. (Neither
            // closes the game tree, so `depth` stays above 0.)
            self.nodes(v);
        }
        if self.depth > 0 {
            if !self.implicit {
                let open = self.depth;
                self.diag(
                    v,
                    Code::UnexpectedEof,
                    len,
                    format!("unexpected end of file: {open} open game tree or variation(s) closed"),
                );
            }
            while self.depth > 0 {
                self.depth -= 1;
                if self.skip_depth > self.depth {
                    self.skip_depth = 0;
                    if self.depth > 0 {
                        v.end_variation(len);
                    }
                    continue;
                }
                if self.skip_depth > 0 {
                    continue;
                }
                if self.depth == 0 {
                    v.end_game(len);
                } else {
                    v.end_variation(len);
                }
            }
        }
        if self.games == 0 {
            v.diagnostic(Diagnostic::new(
                Code::NoSgfData,
                0,
                "no SGF game tree found",
            ));
        }
    }

    /// Between game trees: a `(` that starts a tree, a node outside any tree,
    /// or text to skip.
    fn top_level<V: Visitor + ?Sized>(&mut self, v: &mut V, b: u8) {
        match b {
            b'(' => {
                if let Some((i, nb)) = self.peek_after_ws(self.pos + 1) {
                    if nb == b';' || nb == b'(' {
                        self.open_game(v, false);
                        return;
                    }
                    if nb.is_ascii_alphabetic() && self.property_at(i) {
                        self.open_game(v, false);
                        self.diag(
                            v,
                            Code::MissingSemicolon,
                            i,
                            "missing ';' at the start of the game tree (assumed)",
                        );
                        self.start_node(v, i);
                        self.after_open = false;
                        return;
                    }
                }
                self.skip_junk(v);
            }
            b';' => {
                self.diag(
                    v,
                    Code::NodeOutsideTree,
                    self.pos,
                    "node outside any game tree: missing '(' assumed",
                );
                self.open_game(v, true);
                // open_game moved past one byte; this was the ';' itself.
                self.pos -= 1;
            }
            b')' => {
                self.diag(
                    v,
                    Code::UnmatchedParen,
                    self.pos,
                    "')' without a matching '(' (ignored)",
                );
                self.pos += 1;
            }
            _ => self.skip_junk(v),
        }
    }

    fn open_game<V: Visitor + ?Sized>(&mut self, v: &mut V, implicit: bool) {
        self.games += 1;
        self.depth = 1;
        self.implicit = implicit;
        self.after_open = true;
        self.after_close = false;
        self.node_open = false;
        v.begin_game(self.pos);
        self.pos += 1;
    }

    /// Skips text outside game trees up to the next `(`.
    fn skip_junk<V: Visitor + ?Sized>(&mut self, v: &mut V) {
        let start = self.pos;
        let next =
            memchr::memchr(b'(', &self.src[start + 1..]).map_or(self.src.len(), |i| start + 1 + i);
        let junk = &self.src[start..next];
        if let Some(b) = memchr::memchr(b'[', junk) {
            // Point at the line that holds the first value, as SGFC does.
            let line_start =
                memchr::memrchr2(b'\n', b'\r', &junk[..b]).map_or(start, |i| start + i + 1);
            let what = if self.games == 0 {
                "before the first game tree"
            } else {
                "between game trees"
            };
            self.diag(
                v,
                Code::JunkBeforeTree,
                line_start,
                format!("text that looks like SGF {what} (ignored)"),
            );
        }
        self.pos = next;
    }

    fn open_variation<V: Visitor + ?Sized>(&mut self, v: &mut V) {
        let at = self.pos;
        self.pos += 1;
        if self.after_open {
            // "((": a variation with no node before it has no parent. SGFC
            // ignores the second '(' (its ')' then closes the outer one).
            self.diag(
                v,
                Code::NodeAfterVariation,
                at,
                "illegal variation start '(' before any node (ignored)",
            );
            return;
        }
        self.depth += 1;
        self.after_close = false;
        self.node_open = false;
        // Inside a skipped variation the text is still read the same way (only the visitor
        // hears nothing), so that where the skipped part ends does not depend on skipping: a
        // "((" there is ignored as it is elsewhere.
        if !self.quiet() && v.begin_variation(at) == Skip::Yes {
            self.skip_depth = self.depth;
        }
        self.after_open = true;
        match self.peek_after_ws(self.pos) {
            Some((_, b';')) | Some((_, b'(')) | Some((_, b')')) | None => {}
            Some((i, c)) if c.is_ascii_alphabetic() && self.property_at(i) => {
                self.diag(
                    v,
                    Code::CharsAfterParen,
                    i,
                    "characters after '(' before ';' (missing ';' assumed)",
                );
                self.start_node(v, i);
            }
            Some(_) => {}
        }
    }

    fn close<V: Visitor + ?Sized>(&mut self, v: &mut V) {
        let at = self.pos;
        self.pos += 1;
        if self.after_open && !self.quiet() {
            self.diag(
                v,
                Code::EmptyVariation,
                at,
                "empty variation '()' (ignored)",
            );
        }
        self.depth -= 1;
        self.node_open = false;
        self.after_open = false;
        self.after_close = self.depth > 0;
        if self.skip_depth > 0 {
            if self.depth < self.skip_depth {
                self.skip_depth = 0;
                v.end_variation(at);
            }
            return;
        }
        if self.depth == 0 {
            v.end_game(at);
        } else {
            v.end_variation(at);
        }
    }

    /// A node right after a variation's `)`: SGFC assumes a missing `(`, so the
    /// node starts a new variation and a later extra `)` closes it.
    fn implicit_variation<V: Visitor + ?Sized>(&mut self, v: &mut V, at: usize) {
        self.diag(
            v,
            Code::NodeOutsideTree,
            at,
            "node outside a variation: missing '(' assumed",
        );
        self.depth += 1;
        self.after_close = false;
        if !self.quiet() && v.begin_variation(at) == Skip::Yes {
            self.skip_depth = self.depth;
        }
    }

    /// Reads nodes and properties from `self.pos` up to anything else.
    ///
    /// The position is kept in a local here and handed along: kept in
    /// `self.pos` it goes through memory at every step, and the store-to-load
    /// latency lies on the loop's critical path.
    #[inline(always)]
    fn nodes<V: Visitor + ?Sized>(&mut self, v: &mut V) {
        let src = self.src;
        let mut pos = self.pos;
        loop {
            while let Some(&b) = src.get(pos) {
                if !is_ws(b) {
                    break;
                }
                pos += 1;
            }
            match src.get(pos) {
                Some(b';') => {
                    if self.after_close {
                        self.implicit_variation(v, pos);
                    }
                    self.start_node(v, pos);
                    pos += 1;
                    if let Some(after) = self.short_property(v, pos) {
                        pos = after;
                    }
                }
                Some(b) if b.is_ascii_alphabetic() => pos = self.property(v, pos),
                _ => break,
            }
        }
        self.pos = pos;
    }

    fn start_node<V: Visitor + ?Sized>(&mut self, v: &mut V, at: usize) {
        self.node_open = true;
        self.after_open = false;
        self.after_close = false;
        if !self.quiet() {
            v.begin_node(at);
        }
    }

    fn illegal_run<V: Visitor + ?Sized>(&mut self, v: &mut V) {
        let start = self.pos;
        while self.pos < self.src.len() {
            let b = self.src[self.pos];
            if is_ws(b) || matches!(b, b'(' | b')' | b';' | b'[') {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            self.pos += 1;
        }
        let text = String::from_utf8_lossy(&self.src[start..self.pos.min(start + 40)]).into_owned();
        self.diag(
            v,
            Code::IllegalChars,
            start,
            format!("illegal characters \"{text}\" (ignored)"),
        );
    }

    /// Most nodes are a move, `;B[pd]`: when one follows the `;` just read
    /// (a one-letter identifier that takes no text, one two-letter value with
    /// nothing special in it, and no further value), reads it and returns
    /// the position after it. It is then exactly what [`Self::property`]
    /// would report, in a fraction of the steps.
    #[inline(always)]
    fn short_property<V: Visitor + ?Sized>(&mut self, v: &mut V, pos: usize) -> Option<usize> {
        let src = self.src;
        let &[id, b'[', a, b, b']', next] = src.get(pos..pos + 6)? else {
            return None;
        };
        if !id.is_ascii_uppercase() || is_special(a) || is_special(b) || next == b'[' || is_ws(next)
        {
            return None;
        }
        let raw_id: &'a [u8] = &src[pos..pos + 1];
        let (known, texty) = props::lookup_upper(raw_id);
        if texty {
            return None;
        }
        self.clean = true;
        self.literal = None;
        let values = ValuesRead {
            first: Span {
                start: (pos + 2) as u32,
                end: (pos + 4) as u32,
            },
            multi: false,
        };
        self.emit_property(v, pos, raw_id, raw_id, known, false, values);
        Some(pos + 5)
    }

    /// A property whose identifier starts at `start`; returns the position
    /// after it.
    #[inline(always)]
    fn property<V: Visitor + ?Sized>(&mut self, v: &mut V, start: usize) -> usize {
        let src = self.src;
        let mut end = start;
        while end < src.len() && src[end].is_ascii_uppercase() {
            end += 1;
        }
        let upper_end = end;
        if src.get(end).is_some_and(u8::is_ascii_lowercase) {
            while end < src.len() && src[end].is_ascii_alphabetic() {
                end += 1;
            }
        }
        let raw_id: &'a [u8] = &src[start..end];
        // The common case: the values follow the identifier directly.
        let at = if src.get(end) == Some(&b'[') {
            end
        } else {
            match self.peek_after_ws(end) {
                Some((i, b'[')) => i,
                Some((_, c)) if src[end] == c && !matches!(c, b'(' | b')' | b';') => {
                    // Letters run straight into other characters: not an identifier.
                    self.pos = start;
                    self.illegal_run(v);
                    return self.pos;
                }
                _ => {
                    let id = String::from_utf8_lossy(raw_id).into_owned();
                    self.diag(
                        v,
                        Code::NoValues,
                        start,
                        format!("property {id} without any value (ignored)"),
                    );
                    return end;
                }
            }
        };
        let too_long = raw_id.len() > MAX_ID;
        if upper_end != end {
            // Lower-case letters (FF[3] `AddBlack`): the id is the upper-case ones.
            return self.property_lowercase(v, start, raw_id, too_long, at);
        }
        let (known, texty) = props::lookup_upper(raw_id);
        let (values, after) = self.read_values(texty, at);
        self.emit_property(v, start, raw_id, raw_id, known, too_long, values);
        after
    }

    #[cold]
    #[inline(never)]
    fn property_lowercase<V: Visitor + ?Sized>(
        &mut self,
        v: &mut V,
        start: usize,
        raw_id: &'a [u8],
        too_long: bool,
        at: usize,
    ) -> usize {
        let mut id_buf = std::mem::take(&mut self.id_buf);
        id_buf.clear();
        id_buf.extend(raw_id.iter().filter(|b| b.is_ascii_uppercase()));
        let known = props::index(&id_buf);
        let (values, after) = self.read_values(props::texty_at(known), at);
        self.emit_property(v, start, raw_id, &id_buf, known, too_long, values);
        self.id_buf = id_buf;
        after
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn emit_property<V: Visitor + ?Sized>(
        &mut self,
        v: &mut V,
        start: usize,
        raw_id: &[u8],
        id: &[u8],
        known: Option<usize>,
        too_long: bool,
        values: ValuesRead,
    ) {
        let no_upper = id.is_empty();
        // Inside a skipped variation only the visitor is kept quiet: the node structure (a
        // property after ')' opening a variation) is followed as anywhere else, so that the
        // skipped part ends where it would end when read.
        if too_long {
            self.diag(
                v,
                Code::IdTooLong,
                start,
                "property identifier longer than 100 characters (deleted)",
            );
            return;
        }
        if no_upper {
            let s = String::from_utf8_lossy(raw_id).into_owned();
            self.diag(
                v,
                Code::IllegalChars,
                start,
                format!("property identifier \"{s}\" without upper-case letters (deleted)"),
            );
            return;
        }
        if !self.node_open {
            if self.after_close {
                self.implicit_variation(v, start);
            } else {
                self.diag(
                    v,
                    Code::MissingSemicolon,
                    start,
                    "property before any node: missing ';' assumed",
                );
            }
            self.start_node(v, start);
        }
        if self.quiet() {
            return;
        }
        if let Some(at) = self.literal {
            self.diag(
                v,
                Code::UnescapedBracket,
                at,
                "unescaped ']' inside a text value (kept as text)",
            );
        }
        let prop = RawProperty {
            src: self.src,
            id,
            raw_id,
            offset: start,
            known,
            values: if values.multi {
                &self.spans
            } else {
                std::slice::from_ref(&values.first)
            },
            clean: self.clean,
        };
        v.property(&prop);
    }
}

mod values;

#[cfg(test)]
mod tests;
