//! [`Builder`]: a collection built node by node, by the reader (as a [`Visitor`]) or by hand,
//! and the escaping of values it writes.

use super::*;

/// Builds a [`Collection`] from events: the parser uses it, and so can any
/// program that makes game trees (converters, transforms).
///
/// ```
/// use kifu_sgf::{Builder, write};
/// let mut b = Builder::new();
/// b.begin_game();
/// b.begin_node();
/// b.add_property("FF", ["4"]);
/// b.add_property("SZ", ["9"]);
/// b.begin_node();
/// b.add_text_property("C", ["a ] bracket"]);
/// b.end_game();
/// let c = b.finish();
/// assert_eq!(write(&c), "(;FF[4]SZ[9];C[a \\] bracket])\n");
/// ```
#[derive(Debug)]
pub struct Builder {
    nodes: Vec<NodeRec>,
    props: Vec<PropRec>,
    games: Vec<u32>,
    ids: Ids,
    extra: Vec<u8>,
    /// Offset at which `extra` will start once the text is known.
    base: u32,
    /// Open variations: (branch node, its last child so far).
    stack: Vec<(u32, u32)>,
    current: u32,
    /// The last child of `current` so far (its next child becomes that one's
    /// sibling). Only the current node and the branch nodes on the stack can
    /// still get children, so no per-node array is needed.
    current_last_child: u32,
    /// A node has been opened in the current game.
    game_has_root: bool,
    in_game: bool,
    pub(super) diagnostics: DiagnosticSink,
    renamed: Vec<(u32, u32)>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// An empty builder for a collection made from scratch.
    pub fn new() -> Self {
        Builder {
            nodes: Vec::new(),
            props: Vec::new(),
            games: Vec::new(),
            ids: Ids::new(),
            extra: Vec::new(),
            base: 0,
            stack: Vec::new(),
            current: NONE,
            current_last_child: NONE,
            game_has_root: false,
            in_game: false,
            diagnostics: DiagnosticSink::new(),
            renamed: Vec::new(),
        }
    }

    /// A builder sized for parsing `text`: counts of `;` and `[` bound the
    /// nodes and properties, so the arrays never grow (and never double).
    pub(super) fn with_capacity_for(text: &[u8]) -> Self {
        let mut b = Builder::new();
        let nodes = memchr::memchr_iter(b';', text).count() + 1;
        let values = memchr::memchr_iter(b'[', text).count();
        b.nodes.reserve_exact(nodes);
        b.props.reserve_exact(values);
        b.base = text.len() as u32;
        b
    }

    /// Starts a new game tree.
    pub fn begin_game(&mut self) {
        self.in_game = true;
        self.game_has_root = false;
        self.stack.clear();
        self.current = NONE;
        self.current_last_child = NONE;
    }

    /// Ends the current game tree.
    pub fn end_game(&mut self) {
        self.in_game = false;
        self.stack.clear();
        self.current = NONE;
    }

    /// Starts a variation: nodes that follow are children of the current node.
    pub fn begin_variation(&mut self) {
        self.stack.push((self.current, self.current_last_child));
    }

    /// Ends a variation: the current node is again the one before it began.
    pub fn end_variation(&mut self) {
        if let Some((node, last)) = self.stack.pop() {
            self.current = node;
            self.current_last_child = last;
        }
    }

    /// Adds a node after the current one (or a root) and makes it current.
    pub fn begin_node(&mut self) {
        self.begin_node_at(0);
    }

    #[inline(always)]
    fn begin_node_at(&mut self, offset: usize) {
        if !self.in_game {
            self.begin_game();
        }
        if self.current == NONE && self.game_has_root {
            // A second root in one tree, as in "((;a)(;b))": a new game tree.
            self.begin_game();
        }
        let index = self.nodes.len() as u32;
        if self.current == NONE {
            self.games.push(index);
            self.game_has_root = true;
        } else {
            if self.current_last_child != NONE {
                self.nodes[self.current_last_child as usize].next_sibling = index;
            }
            if let Some(top) = self.stack.last_mut() {
                if top.0 == self.current {
                    top.1 = index;
                }
            }
        }
        self.nodes.push(NodeRec {
            props: self.props.len() as u32,
            parent: self.current,
            next_sibling: NONE,
            offset: offset.min(u32::MAX as usize) as u32,
        });
        self.current = index;
        self.current_last_child = NONE;
    }

    #[inline]
    fn push_region(&mut self, id: &[u8], region: Span) {
        self.push_region_known(props::index(id), id, region);
    }

    /// `known`: the position of `id` in the known table, when it is there.
    #[inline(always)]
    fn push_region_known(&mut self, known: Option<usize>, id: &[u8], region: Span) {
        if self.current == NONE {
            self.begin_node();
        }
        let id = match known {
            Some(i) => PropId(i as u16),
            None => self.ids.intern_unknown(id),
        };
        self.props.push(PropRec { id, region });
    }

    /// Adds a property to the current node from raw values, which must already
    /// be escaped as SGF needs (`]` and `\` preceded by `\`). An unescaped `]`
    /// or a trailing lone `\` is escaped here, so the result is always valid.
    pub fn add_property<I, V>(&mut self, id: &str, raw_values: I)
    where
        I: IntoIterator<Item = V>,
        V: AsRef<[u8]>,
    {
        let start = self.base + self.extra.len() as u32;
        for v in raw_values {
            self.extra.push(b'[');
            push_escaped_raw(&mut self.extra, v.as_ref());
            self.extra.push(b']');
        }
        if self.base + self.extra.len() as u32 == start {
            self.extra.extend_from_slice(b"[]");
        }
        let end = self.base + self.extra.len() as u32;
        self.push_region(id.as_bytes(), Span { start, end });
    }

    /// Adds a property to the current node from plain text values, escaping them.
    pub fn add_text_property<I, V>(&mut self, id: &str, values: I)
    where
        I: IntoIterator<Item = V>,
        V: AsRef<str>,
    {
        let escaped: Vec<Vec<u8>> = values.into_iter().map(|v| escape(v.as_ref())).collect();
        self.add_property(id, escaped);
    }

    /// Copies a property from another collection unchanged.
    pub fn copy_property(&mut self, prop: Prop<'_>) {
        let start = self.base + self.extra.len() as u32;
        self.extra.extend_from_slice(prop.raw());
        let end = self.base + self.extra.len() as u32;
        self.push_region(prop.id().as_bytes(), Span { start, end });
    }

    /// The finished collection (the builder's values become its text).
    pub fn finish(self) -> Collection {
        self.finish_with_text(Vec::new())
    }

    pub(super) fn finish_with_text(mut self, text: Vec<u8>) -> Collection {
        debug_assert_eq!(text.len() as u32, self.base);
        let (text, extra) = if text.is_empty() {
            (std::mem::take(&mut self.extra), Vec::new())
        } else {
            (text, std::mem::take(&mut self.extra))
        };
        Collection {
            text,
            extra,
            nodes: self.nodes,
            props: self.props,
            games: self.games,
            ids: self.ids,
            charset: "UTF-8",
            renamed: self.renamed,
        }
    }
}

impl Visitor for Builder {
    fn begin_game(&mut self, _offset: usize) {
        Builder::begin_game(self);
    }
    fn end_game(&mut self, _offset: usize) {
        Builder::end_game(self);
    }
    fn begin_variation(&mut self, _offset: usize) -> reader::Skip {
        Builder::begin_variation(self);
        reader::Skip::No
    }
    fn end_variation(&mut self, _offset: usize) {
        Builder::end_variation(self);
    }
    #[inline(always)]
    fn begin_node(&mut self, offset: usize) {
        self.begin_node_at(offset);
    }
    #[inline(always)]
    fn property(&mut self, p: &RawProperty<'_>) {
        if p.raw_id.len() != p.id.len() && self.current != NONE {
            self.renamed.push((self.current, p.offset as u32));
        }
        if p.clean {
            self.push_region_known(p.known, p.id, p.region());
        } else {
            let start = self.base + self.extra.len() as u32;
            for s in p.values {
                self.extra.push(b'[');
                push_escaped_raw(&mut self.extra, &p.src[s.range()]);
                self.extra.push(b']');
            }
            let end = self.base + self.extra.len() as u32;
            self.push_region_known(p.known, p.id, Span { start, end });
        }
    }
    fn diagnostic(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }
}

/// Appends a raw value, escaping any `]` that is not already escaped and a
/// trailing lone `\`, so that the stored form always reads back as one value.
fn push_escaped_raw(out: &mut Vec<u8>, raw: &[u8]) {
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'\\' if i + 1 < raw.len() => {
                out.extend_from_slice(&raw[i..i + 2]);
                i += 2;
            }
            b'\\' | b']' => {
                out.push(b'\\');
                out.push(raw[i]);
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// Escapes plain text for an SGF value: `\` and `]` get a backslash (and `:`
/// too when `composed` parts are being written, see [`escape_part`]).
pub fn escape(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2);
    for &b in text.as_bytes() {
        if b == b']' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out
}

/// Escapes text that is one part of a composed `a:b` value (`:` escaped too).
pub fn escape_part(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2);
    for &b in text.as_bytes() {
        if b == b']' || b == b'\\' || b == b':' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out
}
