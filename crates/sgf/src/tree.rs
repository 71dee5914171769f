//! The owned game-tree model: a [`Collection`] of game trees in flat arrays.
//!
//! Nodes are stored in file order (depth-first pre-order) in one array, and the
//! properties of each node are contiguous in another: a node costs 16 bytes and
//! a property 12, and values cost nothing beyond the text they came from,
//! because a property keeps only the byte range of its bracketed values in
//! that text. Values are decoded only when asked for ([`crate::Value`]), and a
//! value is written back exactly as it was read.

use crate::charset;
use crate::diag::{Diagnostic, DiagnosticSink, LineIndex};
use crate::props::{self, PropInfo};
use crate::reader::{self, RawProperty, Span, Visitor};
use crate::value::{Value, Values};
use std::collections::HashMap;

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct NodeRec {
    /// Index of the first property (the node's properties end where the next node's begin).
    props: u32,
    parent: u32,
    next_sibling: u32,
    /// Byte offset of the node's `;` in the decoded text.
    offset: u32,
}

#[derive(Debug, Clone, Copy)]
struct PropRec {
    id: PropId,
    /// The bracketed values, `[a][b]`, as a range of the collection's text.
    region: Span,
}

/// A property identifier interned in a collection. Identifiers kifu knows
/// ([`crate::props::PROPERTIES`]) have the same id in every collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PropId(u16);

/// Interned property identifiers: the known table's positions first (shared
/// by every collection, nothing allocated), then the unknown ones in order of
/// appearance.
#[derive(Debug, Clone, Default)]
struct Ids {
    /// As text once, so that naming an id (for every property of a replay) is a lookup.
    unknown: Vec<Box<str>>,
    lookup: HashMap<Box<[u8]>, u16>,
}

impl Ids {
    fn new() -> Self {
        Ids::default()
    }

    #[inline]
    fn get(&self, id: &[u8]) -> Option<PropId> {
        if let Some(i) = props::index(id) {
            return Some(PropId(i as u16));
        }
        if self.unknown.is_empty() {
            return None;
        }
        self.lookup.get(id).map(|&i| PropId(i))
    }

    /// Interns an identifier that is not in the known table.
    #[inline(never)]
    fn intern_unknown(&mut self, id: &[u8]) -> PropId {
        debug_assert!(props::index(id).is_none());
        if let Some(&i) = self.lookup.get(id) {
            return PropId(i);
        }
        let known = props::PROPERTIES.len();
        // More than 65,000 distinct identifiers is not a real file: fold the
        // excess into the last one rather than fail.
        if known + self.unknown.len() >= u16::MAX as usize - 1 {
            return PropId(u16::MAX - 2);
        }
        let i = (known + self.unknown.len()) as u16;
        // Identifiers are upper-case ASCII letters only.
        self.unknown
            .push(std::str::from_utf8(id).unwrap_or("?").into());
        self.lookup.insert(id.into(), i);
        PropId(i)
    }

    fn name(&self, id: PropId) -> &str {
        let i = id.0 as usize;
        match props::PROPERTIES.get(i) {
            Some(p) => p.id,
            None => self
                .unknown
                .get(i - props::PROPERTIES.len())
                .map_or("?", |b| b),
        }
    }
}

/// A parsed SGF file: any number of game trees, the text their values live in,
/// and the charset the file was read in.
#[derive(Debug, Clone)]
pub struct Collection {
    text: Vec<u8>,
    /// Values that were repaired or added after parsing live here, at offsets
    /// `text.len()..`.
    extra: Vec<u8>,
    nodes: Vec<NodeRec>,
    props: Vec<PropRec>,
    /// First node of each game tree; a game's nodes run to the next game's first.
    games: Vec<u32>,
    ids: Ids,
    charset: &'static str,
    /// Properties whose identifier had lower-case letters: (node, byte offset).
    renamed: Vec<(u32, u32)>,
}

/// What [`Collection::parse`] returns: the collection and what was found wrong.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The game trees that could be read.
    pub collection: Collection,
    /// Problems, in file order, with line and column filled in.
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

impl Collection {
    /// Parses SGF bytes in any charset (see [`crate::charset`]). Never fails:
    /// whatever cannot be read is skipped and reported in the diagnostics.
    pub fn parse(bytes: &[u8]) -> Parsed {
        let decoded = charset::decode(bytes);
        let charset = decoded.charset;
        let pre = decoded.diagnostics;
        Self::parse_text(decoded.text.into_owned(), charset, pre)
    }

    /// Like [`Collection::parse`], but takes ownership of the bytes so that a
    /// UTF-8 file is parsed without a copy.
    pub fn parse_vec(bytes: Vec<u8>) -> Parsed {
        let decoded = charset::decode(&bytes);
        let charset = decoded.charset;
        let pre = decoded.diagnostics;
        match decoded.text {
            std::borrow::Cow::Borrowed(b) if b.len() == bytes.len() => {
                Self::parse_text(bytes, charset, pre)
            }
            other => {
                let text = other.into_owned();
                drop(bytes);
                Self::parse_text(text, charset, pre)
            }
        }
    }

    fn parse_text(
        text: Vec<u8>,
        charset: &'static str,
        mut diagnostics: Vec<Diagnostic>,
    ) -> Parsed {
        let mut builder = Builder::with_capacity_for(&text);
        reader::read(&text, &mut builder);
        diagnostics.append(&mut std::mem::take(&mut builder.diagnostics).finish());
        if !diagnostics.is_empty() {
            LineIndex::new(&text).locate(&text, &mut diagnostics);
        }
        let mut collection = builder.finish_with_text(text);
        collection.charset = charset;
        Parsed {
            collection,
            diagnostics,
        }
    }

    /// An empty collection, to fill with a [`Builder`].
    pub fn new() -> Self {
        Builder::new().finish()
    }

    /// The charset the file was read in (`UTF-8` for built collections).
    pub fn charset(&self) -> &'static str {
        self.charset
    }

    /// The number of game trees.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether there is no game tree.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The number of nodes in all game trees.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The number of properties in all nodes.
    pub fn property_count(&self) -> usize {
        self.props.len()
    }

    /// Game tree `i`.
    pub fn game(&self, i: usize) -> Option<GameTree<'_>> {
        (i < self.games.len()).then_some(GameTree {
            coll: self,
            index: i,
        })
    }

    /// All game trees in file order.
    pub fn games(&self) -> impl ExactSizeIterator<Item = GameTree<'_>> + '_ {
        (0..self.games.len()).map(move |index| GameTree { coll: self, index })
    }

    /// The node with index `i` (indices are file order over the whole collection).
    pub fn node(&self, i: usize) -> Option<Node<'_>> {
        (i < self.nodes.len()).then_some(Node {
            coll: self,
            index: i as u32,
        })
    }

    /// The interned id of an identifier, if any property in the collection (or
    /// kifu's table) has it.
    pub fn prop_id(&self, id: &str) -> Option<PropId> {
        self.ids.get(id.as_bytes())
    }

    /// The identifier of an interned id.
    pub fn id_name(&self, id: PropId) -> &str {
        self.ids.name(id)
    }

    /// Bytes of a region of the text (or of the repaired values after it).
    fn bytes(&self, s: Span) -> &[u8] {
        let n = self.text.len() as u32;
        if s.start >= n {
            &self.extra[(s.start - n) as usize..(s.end - n) as usize]
        } else {
            &self.text[s.range()]
        }
    }

    /// Nodes with a property whose identifier was written with lower-case
    /// letters (FF\[3\] style), with the identifier's byte offset.
    pub fn renamed_ids(&self) -> impl Iterator<Item = (Node<'_>, usize)> + '_ {
        self.renamed.iter().map(move |&(n, off)| {
            (
                Node {
                    coll: self,
                    index: n,
                },
                off as usize,
            )
        })
    }

    /// Byte offset of a property in the text (its identifier), or of its node
    /// when the property was repaired or built.
    pub fn prop_offset(&self, prop: &Prop<'_>, node: &Node<'_>) -> usize {
        let r = self.props[prop.index as usize].region;
        if (r.start as usize) < self.text.len() && r.start as usize >= prop.id().len() {
            r.start as usize - prop.id().len()
        } else {
            node.offset()
        }
    }

    /// The decoded text the collection was parsed from (UTF-8).
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    fn game_end(&self, game: usize) -> u32 {
        self.games
            .get(game + 1)
            .copied()
            .unwrap_or(self.nodes.len() as u32)
    }

    fn props_of(&self, node: u32) -> std::ops::Range<usize> {
        let start = self.nodes[node as usize].props as usize;
        let end = self
            .nodes
            .get(node as usize + 1)
            .map_or(self.props.len(), |n| n.props as usize);
        start..end
    }
}

impl Default for Collection {
    fn default() -> Self {
        Self::new()
    }
}

/// One game tree of a collection.
#[derive(Debug, Clone, Copy)]
pub struct GameTree<'c> {
    coll: &'c Collection,
    index: usize,
}

impl<'c> GameTree<'c> {
    /// The game's number in the collection (0-based).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The root node.
    pub fn root(&self) -> Node<'c> {
        Node {
            coll: self.coll,
            index: self.coll.games[self.index],
        }
    }

    /// Every node of the tree in file (depth-first pre-) order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = Node<'c>> + 'c {
        let coll = self.coll;
        (coll.games[self.index]..coll.game_end(self.index)).map(move |index| Node { coll, index })
    }

    /// The main line: the root, then each first child.
    pub fn main_line(&self) -> impl Iterator<Item = Node<'c>> + 'c {
        std::iter::successors(Some(self.root()), |n| n.first_child())
    }

    /// The number of nodes in the tree.
    pub fn node_count(&self) -> usize {
        (self.coll.game_end(self.index) - self.coll.games[self.index]) as usize
    }

    /// `FF` of the root (1 when absent, as the standard says).
    pub fn file_format(&self) -> u32 {
        self.root()
            .number("FF")
            .map_or(1, |n| n.clamp(0, 1000) as u32)
    }

    /// `GM` of the root (1, Go, when absent).
    pub fn game_type(&self) -> i64 {
        self.root().number("GM").unwrap_or(1)
    }

    /// The board size from `SZ` (19x19 when absent); `(columns, rows)`.
    /// `None` when SZ is present but unreadable.
    pub fn board_size(&self) -> Option<(u32, u32)> {
        match self.root().get("SZ") {
            None => Some((19, 19)),
            Some(p) => p.value().and_then(|v| v.size()),
        }
    }
}

/// One step of [`GameTree::walk`].
#[derive(Debug, Clone, Copy)]
pub enum WalkEvent<'c> {
    /// A variation starts (SGF's `(`); the next node is its first.
    BeginVariation,
    /// A node, in file order.
    Node(Node<'c>),
    /// The innermost open variation ends (SGF's `)`).
    EndVariation,
}

impl<'c> GameTree<'c> {
    /// Walks the tree in file order, reporting nodes and the variations
    /// around them as SGF nests them (without the game's own parentheses).
    /// No recursion: any depth is fine.
    pub fn walk<E>(&self, mut f: impl FnMut(WalkEvent<'c>) -> Result<(), E>) -> Result<(), E> {
        for node in self.nodes() {
            if node.starts_variation() {
                f(WalkEvent::BeginVariation)?;
            }
            f(WalkEvent::Node(node))?;
            if node.first_child().is_none() {
                // Close every variation whose last node this leaf is.
                let mut x = node;
                loop {
                    if x.starts_variation() {
                        f(WalkEvent::EndVariation)?;
                        if x.next_sibling().is_some() {
                            break;
                        }
                    }
                    match x.parent() {
                        Some(p) => x = p,
                        None => break,
                    }
                }
            }
        }
        Ok(())
    }
}

/// A node of a game tree.
#[derive(Debug, Clone, Copy)]
pub struct Node<'c> {
    coll: &'c Collection,
    index: u32,
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.coll, other.coll) && self.index == other.index
    }
}

impl<'c> Node<'c> {
    /// The node's index in the collection (file order).
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// The collection the node belongs to.
    pub fn collection(&self) -> &'c Collection {
        self.coll
    }

    /// Byte offset of the node in the decoded text (0 for built nodes).
    pub fn offset(&self) -> usize {
        self.coll.nodes[self.index as usize].offset as usize
    }

    /// The parent, `None` for a root.
    pub fn parent(&self) -> Option<Node<'c>> {
        match self.coll.nodes[self.index as usize].parent {
            NONE => None,
            p => Some(Node {
                coll: self.coll,
                index: p,
            }),
        }
    }

    /// The first child (the main line continues here).
    pub fn first_child(&self) -> Option<Node<'c>> {
        let next = self.index + 1;
        match self.coll.nodes.get(next as usize) {
            Some(n) if n.parent == self.index => Some(Node {
                coll: self.coll,
                index: next,
            }),
            _ => None,
        }
    }

    /// The next sibling (the next variation at the parent).
    pub fn next_sibling(&self) -> Option<Node<'c>> {
        match self.coll.nodes[self.index as usize].next_sibling {
            NONE => None,
            s => Some(Node {
                coll: self.coll,
                index: s,
            }),
        }
    }

    /// The children in order: the first continues the main line.
    pub fn children(&self) -> impl Iterator<Item = Node<'c>> + 'c {
        std::iter::successors(self.first_child(), |n| n.next_sibling())
    }

    /// Whether the node is the first of a variation: its parent has several children.
    pub fn starts_variation(&self) -> bool {
        self.parent()
            .and_then(|p| p.first_child())
            .is_some_and(|first| first.next_sibling().is_some())
    }

    /// The number of children.
    pub fn child_count(&self) -> usize {
        self.children().count()
    }

    /// The properties in file order.
    pub fn properties(&self) -> impl ExactSizeIterator<Item = Prop<'c>> + 'c {
        let coll = self.coll;
        coll.props_of(self.index).map(move |i| Prop {
            coll,
            index: i as u32,
        })
    }

    /// The first property with identifier `id` (upper-case, e.g. `"PB"`).
    pub fn get(&self, id: &str) -> Option<Prop<'c>> {
        let pid = self.coll.ids.get(id.as_bytes())?;
        self.get_id(pid)
    }

    /// The first property with an interned id.
    pub fn get_id(&self, id: PropId) -> Option<Prop<'c>> {
        let coll = self.coll;
        coll.props_of(self.index)
            .find(|&i| coll.props[i].id == id)
            .map(|i| Prop {
                coll,
                index: i as u32,
            })
    }

    /// Whether the node has a property `id`.
    pub fn has(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// The first value of property `id` read as simple text (line breaks become spaces).
    pub fn simple_text(&self, id: &str) -> Option<String> {
        self.get(id)?.value().map(|v| v.simple_text())
    }

    /// The first value of property `id` read as text.
    pub fn text(&self, id: &str) -> Option<String> {
        self.get(id)?.value().map(|v| v.text())
    }

    /// The first value of property `id` read as a number.
    pub fn number(&self, id: &str) -> Option<i64> {
        self.get(id)?.value()?.number()
    }

    /// The path from the root: the child index taken at each step (empty for a root).
    pub fn path(&self) -> Vec<usize> {
        let mut path = Vec::new();
        let mut n = *self;
        while let Some(p) = n.parent() {
            path.push(p.children().position(|c| c == n).unwrap_or(0));
            n = p;
        }
        path.reverse();
        path
    }
}

/// A property of a node: an identifier and one or more values.
#[derive(Debug, Clone, Copy)]
pub struct Prop<'c> {
    coll: &'c Collection,
    index: u32,
}

impl<'c> Prop<'c> {
    fn rec(&self) -> PropRec {
        self.coll.props[self.index as usize]
    }

    /// The identifier (upper-case letters).
    pub fn id(&self) -> &'c str {
        self.coll.id_name(self.rec().id)
    }

    /// The interned id.
    pub fn prop_id(&self) -> PropId {
        self.rec().id
    }

    /// What kifu knows about the property, `None` for unknown identifiers.
    pub fn info(&self) -> Option<&'static PropInfo> {
        let id = self.rec().id.0 as usize;
        props::PROPERTIES.get(id)
    }

    /// The bracketed values exactly as stored, e.g. `[aa][bb]`.
    pub fn raw(&self) -> &'c [u8] {
        self.coll.bytes(self.rec().region)
    }

    /// The values, raw (still escaped) until decoded.
    pub fn values(&self) -> Values<'c> {
        Values::new(self.raw())
    }

    /// The first value.
    pub fn value(&self) -> Option<Value<'c>> {
        self.values().next()
    }

    /// The number of values.
    pub fn value_count(&self) -> usize {
        self.values().count()
    }
}

mod builder;
pub use builder::{escape, escape_part, Builder};

#[cfg(test)]
mod tests;
