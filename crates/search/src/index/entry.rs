//! One game of the pattern index: what it holds ([`GameEntry`]), how it is made from a game
//! tree (the replay, every variation, diffed node by node), and its bytes in the sidecar.

use super::format::{put_varint, state, Bytes, FormatError, Node, NodeReader, NodeWriter};
use super::times::{self, MainLine, TimeTables};
use crate::filter::{GameInfo, TextPool, Winner};
use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{BoardSize, Color, Move, PlayedMove, Point};
use std::cell::RefCell;

/// One game as the index holds it: what every search may read stays in memory, what only the
/// walk of the game reads ([`Cold`]) may stay in the sidecar file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GameEntry {
    /// Its number in the database.
    pub id: u64,
    /// Its file (a number into [`super::PatternIndex`]'s files).
    pub file: u32,
    /// Its number in the file, from 0.
    pub game_in_file: u32,
    /// What the filters and the answer's matches read.
    pub info: GameInfo,
    /// The year of `info`'s date and the winner its result names, read once: a search counts
    /// them for each game with a hit, and reading the texts there cost the 3x3 hane anywhere
    /// (95,000 games with hits at 100,000) 1.5% of its time.
    pub facts: (Option<i32>, Winner),
    /// Its Dyer signature ([`crate::dyer`]), for duplicates.
    pub dyer: Option<String>,
    /// The board side of its nodes and bitmaps (0: not replayable, no nodes).
    pub side: u8,
    /// The main line's bitmaps (Black rows, White rows: bit `c` of row `r` is point (c, r)
    /// held at some node), with `all` the same over every variation after them.
    pub bitmaps: Vec<u32>,
    /// Units of the first and last nodes in [`ColdView::times`]: `1 << shift` nodes.
    pub shift: u8,
    /// Whether `bitmaps` holds bitmaps over every variation (the game has variations).
    pub all: bool,
    /// Whether the cold part holds the final board and the first and last nodes (not for
    /// games of millions of main-line nodes).
    pub times: bool,
    /// The rest of the record, read by [`ColdView::parse`].
    pub cold: Cold,
}

/// Where the part of a game only its walk reads is: the record's bytes from the final board
/// on (see [`ColdView`]), the same bytes in memory or in the sidecar.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cold {
    /// In memory (built in this process, or read from bytes).
    Bytes(Vec<u8>),
    /// In the sidecar the index was opened from, `len` bytes at `offset`.
    File {
        /// From the start of the file.
        offset: u64,
        /// Its length.
        len: u32,
    },
}

/// A game's cold part, read: what the walk of one game needs beyond the bitmaps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColdView<'a> {
    /// The main line's final board and the nodes of each point's first stone and last change
    /// ([`TimeTables`]). After its last change a point keeps its final state, before its first
    /// stone it is empty: a place stands only between its stones' first nodes and the first
    /// last change that the final board contradicts. `None` for games without them.
    pub times: Option<TimeTables<'a>>,
    /// The node count and nodes, read by [`ColdView::nodes`] (only when the game is walked:
    /// most games a search looks at are left after `times`).
    rest: &'a [u8],
}

impl<'a> ColdView<'a> {
    /// Splits a cold part of a game of board side `side` (`times`: it has the final board and
    /// first and last nodes, in units of `1 << shift` nodes) without reading its nodes.
    pub(crate) fn split(
        bytes: &'a [u8],
        side: u8,
        times: bool,
        shift: u8,
    ) -> Result<Self, FormatError> {
        let n = usize::from(side);
        let mut b = Bytes::new(bytes);
        let times = if times && n > 0 {
            Some(TimeTables::read(&mut b, n, shift)?)
        } else {
            None
        };
        Ok(ColdView {
            times,
            rest: &bytes[b.position()..],
        })
    }

    /// Reads a cold part as [`ColdView::split`] does, checking that its nodes' length is
    /// right and every byte of `bytes` is used.
    pub(crate) fn parse(
        bytes: &'a [u8],
        side: u8,
        times: bool,
        shift: u8,
    ) -> Result<Self, FormatError> {
        let view = Self::split(bytes, side, times, shift)?;
        if let Some(t) = &view.times {
            t.check(usize::from(side))?;
        }
        let mut b = Bytes::new(view.rest);
        let (count, _) = Self::read_nodes(&mut b)?;
        if !b.is_empty() {
            return Err(FormatError::Bad("bytes after the nodes"));
        }
        if let Some(line) = view.times.and_then(|t| t.line) {
            if line.nodes > count {
                return Err(FormatError::Bad("main line longer than the nodes"));
            }
        }
        if side == 0 && count > 0 {
            return Err(FormatError::Bad("nodes without a board"));
        }
        Ok(view)
    }

    /// The number of nodes and their bytes.
    pub(crate) fn nodes(&self) -> Result<(u32, &'a [u8]), FormatError> {
        Self::read_nodes(&mut Bytes::new(self.rest))
    }

    fn read_nodes(b: &mut Bytes<'a>) -> Result<(u32, &'a [u8]), FormatError> {
        let count = b.varint_u32()?;
        let len = usize::try_from(b.varint()?).map_err(|_| FormatError::Truncated)?;
        Ok((count, b.take(len)?))
    }

    /// Reads every node once, as a search would, so that a damaged record is found when the
    /// index is opened rather than halfway through a search.
    pub(crate) fn check(&self, side: u8, scratch: &mut CheckScratch) -> Result<(), FormatError> {
        let points = u16::from(side) * u16::from(side);
        let (count, nodes) = self.nodes()?;
        let CheckScratch { numbers, path } = scratch;
        path.clear();
        let mut r = NodeReader::new(nodes, count, points, numbers);
        let mut index = 0u32;
        while let Some(parent) = r.next_checked()? {
            while path.last().is_some_and(|&i| Some(i) != parent) {
                path.pop();
            }
            if parent.is_some() && path.is_empty() {
                return Err(FormatError::Bad("a parent off the path"));
            }
            path.push(index);
            index += 1;
        }
        Ok(())
    }
}

/// The buffers of [`check_cold`], reused from game to game: allocated per game on every
/// thread, they had the opening wait on the allocator's lock.
#[derive(Debug, Default)]
pub(crate) struct CheckScratch {
    numbers: Vec<u32>,
    path: Vec<u32>,
}

/// Checks the cold part (`bytes`) of a game of `side` (with time tables in units of
/// `1 << shift` nodes or not): its layout and every node, as a search reads them.
pub(crate) fn check_cold(
    bytes: &[u8],
    side: u8,
    (times, shift): (bool, u8),
    scratch: &mut CheckScratch,
) -> Result<(), FormatError> {
    ColdView::parse(bytes, side, times, shift)?.check(side, scratch)
}

impl GameEntry {
    /// Checks the game's cold part (`bytes`): its layout and every node, as a search reads
    /// them.
    pub(crate) fn check_cold(
        &self,
        bytes: &[u8],
        scratch: &mut CheckScratch,
    ) -> Result<(), FormatError> {
        check_cold(bytes, self.side, (self.times, self.shift), scratch)
    }

    /// The bitmaps of Black and White over the main line or every variation.
    pub(crate) fn bitmaps(&self, variations: bool) -> (&[u32], &[u32]) {
        let n = usize::from(self.side);
        let at = if variations && self.all { 2 * n } else { 0 };
        match self.bitmaps.get(at..at + 2 * n) {
            Some(b) => b.split_at(n),
            None => (&[], &[]),
        }
    }

    /// Reads a game's tree into an entry (what the replay makes of it, every variation).
    pub(crate) fn build(
        id: u64,
        file: u32,
        game_in_file: u32,
        tree: kifu_sgf::GameTree<'_>,
    ) -> GameEntry {
        let mut b = GameBuilder::new(id, file, game_in_file, &tree);
        if b.size.is_some() {
            let opts = ReplayOptions {
                scope: Scope::AllVariations,
                ..ReplayOptions::default()
            };
            let _ = replay_game(tree, &opts, |step: &Step<'_>| b.step(step));
        }
        b.finish(&tree)
    }

    /// The number of bitmap words the record holds.
    fn bitmap_words(&self) -> usize {
        let n = usize::from(self.side);
        if self.all {
            4 * n
        } else {
            2 * n
        }
    }

    /// Appends the whole record: the hot part, then `cold` (the game's cold bytes).
    pub(crate) fn encode_record(&self, cold: &[u8], out: &mut Vec<u8>) {
        self.encode_hot(out);
        out.extend_from_slice(cold);
    }

    /// Appends the record's part that stays in memory; its cold bytes follow it in the file.
    pub(crate) fn encode_hot(&self, out: &mut Vec<u8>) {
        encode_numbers(self.id, self.file, out);
        self.encode_rest(out);
    }

    /// Appends the hot part after its numbers ([`encode_numbers`]), which only the writer
    /// knows; where the Dyer signature's text is in `out`, if the game has one.
    pub(crate) fn encode_rest(&self, out: &mut Vec<u8>) -> Option<std::ops::Range<usize>> {
        put_varint(out, u64::from(self.game_in_file));
        let i = &self.info;
        for s in [&i.black, &i.white, &i.date, &i.event, &i.result] {
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        put_varint(out, u64::from(i.handicap));
        let dyer = match &self.dyer {
            None => {
                out.push(0);
                None
            }
            Some(d) => {
                out.push(1);
                put_varint(out, d.len() as u64);
                out.extend_from_slice(d.as_bytes());
                Some(out.len() - d.len()..out.len())
            }
        };
        match i.komi {
            None => out.push(0),
            Some(k) => {
                out.push(1);
                out.extend_from_slice(&k.to_bits().to_le_bytes());
            }
        }
        out.push(i.size);
        out.push(self.side);
        let (all, times) = if self.side == 0 {
            (false, false)
        } else {
            (self.all, self.times)
        };
        out.push(u8::from(all) | (u8::from(times) << 1) | (self.shift.min(15) << 2));
        for b in self.bitmaps.iter().take(self.bitmap_words()) {
            out.extend_from_slice(&b.to_le_bytes());
        }
        dyer
    }

    /// Reads a game's record, its texts shared through `texts`. Its cold part is copied when
    /// `base` is `None`, else left where it is: at `base` plus its place in `b` (`b` reads a
    /// file from `base` on).
    pub(crate) fn decode(
        b: &mut Bytes<'_>,
        files: u32,
        base: Option<u64>,
        texts: &mut TextPool,
    ) -> Result<GameEntry, FormatError> {
        let mut g = Self::decode_hot(b, files, texts)?;
        let start = b.position();
        let mut bytes = b.clone();
        let n = usize::from(g.side);
        if g.times && n > 0 {
            TimeTables::read(b, n, g.shift)?;
        }
        ColdView::read_nodes(b)?;
        let len = b.position() - start;
        g.cold = match base {
            None => Cold::Bytes(bytes.take(len)?.to_vec()),
            Some(base) => Cold::File {
                offset: base + start as u64,
                len: u32::try_from(len).map_err(|_| FormatError::Bad("record too long"))?,
            },
        };
        Ok(g)
    }

    fn decode_hot(
        b: &mut Bytes<'_>,
        files: u32,
        texts: &mut TextPool,
    ) -> Result<GameEntry, FormatError> {
        let id = b.varint()?;
        let file = b.varint_u32()?;
        if file >= files {
            return Err(FormatError::Bad("file number"));
        }
        let game_in_file = b.varint_u32()?;
        let (black, white, date, event, result) = (
            texts.get(b.str()?),
            texts.get(b.str()?),
            texts.get(b.str()?),
            texts.get(b.str()?),
            texts.get(b.str()?),
        );
        let handicap = b.varint_u32()?;
        let dyer = match b.byte()? {
            0 => None,
            1 => Some(b.string()?),
            _ => return Err(FormatError::Bad("signature flag")),
        };
        let komi = match b.byte()? {
            0 => None,
            1 => Some(f64::from_bits(b.u64_le()?)),
            _ => return Err(FormatError::Bad("komi flag")),
        };
        let size = b.byte()?;
        let side = b.byte()?;
        if side != 0 && (side != size || BoardSize::new(u32::from(side)).is_err()) {
            return Err(FormatError::Bad("board side"));
        }
        let flags = b.byte()?;
        if flags >> 6 != 0 || (side == 0 && flags != 0) {
            return Err(FormatError::Bad("bitmap flags"));
        }
        let (all, times, shift) = (flags & 1 != 0, flags & 2 != 0, (flags >> 2) & 15);
        let info = GameInfo {
            black,
            white,
            date,
            event,
            result,
            handicap,
            komi,
            size,
        };
        let mut g = GameEntry {
            id,
            file,
            game_in_file,
            dyer,
            facts: (info.year(), info.winner()),
            info,
            side,
            bitmaps: Vec::new(),
            all,
            times,
            shift,
            cold: Cold::Bytes(Vec::new()),
        };
        // Read whole (at most 4 x 25 words), so that the vector is allocated once.
        let bytes = b.take(4 * g.bitmap_words())?;
        g.bitmaps = bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        Ok(g)
    }
}

/// A game's entry made from its replay's steps (every variation, in the replay's order), so
/// that the steps may come from a replay made for something else too (`kifu pos index`
/// replays each file once for both indexes): [`GameBuilder::step`] for each, then
/// [`GameBuilder::finish`]. What the tree says (information, Dyer signature) is read from it
/// at [`GameBuilder::new`].
pub(crate) struct GameBuilder {
    entry: GameEntry,
    /// The board the information names; `None`: no square board, no nodes.
    size: Option<BoardSize>,
    node_count: u32,
    writer: NodeWriter,
    main: Vec<u32>,
    all: Vec<u32>,
    variations: bool,
    last: Vec<u32>,
    first: Vec<u32>,
    fin: Vec<u8>,
    /// Per point, its changes on the main line (up to 255) and its first stone's state.
    changed: Vec<(u8, u8)>,
    /// The main line's changes (point, node, state), in node order.
    log: Vec<(u16, u32, u8)>,
    differ: Differ,
    changes: Vec<(u16, u8)>,
    broken: bool,
    dyer: DyerMoves,
    /// [`super::point_xy`] of the game's board (empty without one).
    xy: &'static [[u8; 2]],
    /// The main line's shape so far, while it is plain ([`super::times::MainLine`]), and the
    /// nodes without a move or a change since its last node ([`follow_line`]).
    line: (Option<MainLine>, u32),
    /// The working tables of [`times::encode`], and its points held once ([`Self::finish`]).
    times: times::Scratch,
    twice: Vec<u8>,
}

/// A builder's working buffers, left by [`GameBuilder::finish`] for the next game built on
/// the same thread. Made anew for each game they were about a quarter of `kifu pos index`'s
/// allocations (counted with DHAT, 105 a game before session 35's changes, 61 after), and
/// glibc's allocator took about a tenth of the build's time on two threads.
#[derive(Default)]
struct Spare {
    all: Vec<u32>,
    last: Vec<u32>,
    first: Vec<u32>,
    fin: Vec<u8>,
    changed: Vec<(u8, u8)>,
    log: Vec<(u16, u32, u8)>,
    changes: Vec<(u16, u8)>,
    dyer: Vec<Option<Point>>,
    writer: NodeWriter,
    differ: Differ,
    times: times::Scratch,
    twice: Vec<u8>,
}

thread_local! {
    static SPARE: RefCell<Spare> = RefCell::default();
}

/// `v` emptied and filled with `len` times `fill`.
fn refill<T: Clone>(mut v: Vec<T>, len: usize, fill: T) -> Vec<T> {
    v.clear();
    v.resize(len, fill);
    v
}

/// The last move a Dyer signature reads.
const DYER_LAST: usize = crate::dyer::DYER_MOVES[crate::dyer::DYER_MOVES.len() - 1];

/// The main line's first moves as the replay played them, for the Dyer signature without a
/// second reading of the tree (which cost 5% of `kifu pos index`'s instructions). The replay
/// reads the tree's moves as [`crate::dyer::signature`] does where a node has one move and
/// nothing to report; at any other node (two moves, a move not on the board, a rule broken)
/// the signature is read from the tree after all.
struct DyerMoves {
    moves: Vec<Option<Point>>,
    exact: bool,
}

impl GameBuilder {
    /// A builder of the entry of game `tree`.
    pub(crate) fn new(
        id: u64,
        file: u32,
        game_in_file: u32,
        tree: &kifu_sgf::GameTree<'_>,
    ) -> GameBuilder {
        let info = GameInfo::from_game(tree);
        let size = BoardSize::new(u32::from(info.size)).ok();
        let n = size.map_or(0, |s| usize::from(s.get()));
        let nodes = tree.node_count();
        let Spare {
            all,
            last,
            first,
            fin,
            changed,
            mut log,
            mut changes,
            mut dyer,
            writer,
            differ,
            times,
            twice,
        } = SPARE.with(RefCell::take);
        // Room for a change a node and some captures.
        log.clear();
        log.reserve(nodes + nodes / 8 + 8);
        changes.clear();
        dyer.clear();
        dyer.reserve(DYER_LAST);
        GameBuilder {
            entry: GameEntry {
                id,
                file,
                game_in_file,
                // From the steps, or the tree, at `finish`.
                dyer: None,
                side: 0,
                bitmaps: Vec::new(),
                all: false,
                times: false,
                shift: 0,
                // No board: no nodes.
                cold: Cold::Bytes(vec![0, 0]),
                facts: (info.year(), info.winner()),
                info,
            },
            size,
            node_count: 0,
            writer: NodeWriter::reusing(writer, nodes),
            main: vec![0u32; 2 * n],
            all: refill(all, 2 * n, 0),
            variations: false,
            last: refill(last, n * n, 0),
            first: refill(first, n * n, u32::MAX),
            fin: refill(fin, n * n, 0),
            changed: refill(changed, n * n, (0, 0)),
            log,
            differ: Differ::reusing(differ, n, nodes),
            changes,
            broken: false,
            xy: size.map_or(&[], super::point_xy),
            dyer: DyerMoves {
                moves: dyer,
                exact: true,
            },
            times,
            twice,
            line: (Some(MainLine::new(0, 0)), 0),
        }
    }

    /// The game's next step.
    pub(crate) fn step(&mut self, step: &Step<'_>) {
        let Some(size) = self.size else { return };
        if self.broken {
            return;
        }
        if step.position.size() != size
            || step.node_index != self.node_count as usize
            || !self.differ.changes(step, &mut self.changes)
        {
            self.broken = true;
            return;
        }
        let n = usize::from(size.get());
        let xy = self.xy;
        for &(q, s) in &self.changes {
            let q = usize::from(q);
            if step.variation == 0 {
                self.last[q] = step.node_index as u32;
                self.fin[q] = s;
                let changed = &mut self.changed[q];
                if s != 0 {
                    if self.first[q] == u32::MAX {
                        changed.1 = s;
                    }
                    self.first[q] = self.first[q].min(step.node_index as u32);
                }
                changed.0 = changed.0.saturating_add(1);
                self.log.push((q as u16, step.node_index as u32, s));
            }
            if s != 0 {
                let [col, row] = xy[q].map(usize::from);
                let k = usize::from(s - 1) * n + row;
                self.all[k] |= 1 << col;
                if step.variation == 0 {
                    self.main[k] |= 1 << col;
                }
            }
        }
        self.variations |= step.variation > 0;
        if step.variation == 0 && self.dyer.exact && self.dyer.moves.len() < DYER_LAST {
            if !step.diagnostics.is_empty() || (step.mv.is_some() && !step.only_move) {
                self.dyer.exact = false;
            } else if let Some(pm) = step.mv {
                self.dyer.moves.push(match pm.mv {
                    Move::Play(p) => Some(p),
                    Move::Pass => None,
                });
            }
        }
        let node = Node {
            parent: step.parent.map(|p| p as u32),
            mv: step.mv.map(|pm| {
                (
                    pm.color,
                    match pm.mv {
                        Move::Play(p) => {
                            Some((usize::from(p.row()) * n + usize::from(p.col())) as u16)
                        }
                        Move::Pass => None,
                    },
                )
            }),
            to_play: step.to_play,
            move_number: step.move_number,
            in_variation: step.variation > 0,
        };
        if step.variation == 0 {
            let (line, tail) = &mut self.line;
            follow_line(line, tail, step.node_index as u32, &node, &self.changes);
        }
        self.writer
            .push(step.node_index as u32, &node, &self.changes);
        self.node_count += 1;
        self.differ.push(step, &self.changes);
    }

    /// The entry, once every step of `tree` has come.
    pub(crate) fn finish(self, tree: &kifu_sgf::GameTree<'_>) -> GameEntry {
        let GameBuilder {
            mut entry,
            size,
            node_count,
            writer,
            main,
            all,
            variations,
            last,
            first,
            fin,
            changed,
            mut log,
            differ,
            changes,
            broken,
            dyer,
            xy: _,
            line,
            mut times,
            mut twice,
        } = self;
        let signature = match size {
            Some(size) if dyer.exact && !broken => {
                crate::dyer::signature_of_moves(size, &dyer.moves)
            }
            _ => crate::dyer::signature(tree),
        };
        entry.dyer = signature.map(|s| s.as_str().to_string());
        // Without a board, no nodes. A broken replay cannot happen as it is; a game the index
        // cannot hold exactly is better left without nodes than searched wrong.
        if let (Some(size), false) = (size, broken) {
            let n = usize::from(size.get());
            entry.side = size.get();
            entry.bitmaps = main;
            if variations {
                entry.all = true;
                entry.bitmaps.extend_from_slice(&all);
            }
            // Sized for the time tables (at most 2 bytes a point and the board's and bit
            // words) and the nodes.
            let mut cold = Vec::with_capacity(2 * n * n + 32 * n + writer.bytes.len() + 32);
            let longest = last.iter().copied().max().unwrap_or(0);
            let shift = (0u8..16).find(|&s| longest.div_ceil(1 << s) <= 254);
            if let Some(shift) = shift {
                entry.times = true;
                entry.shift = shift;
                // The points that held one stone and were emptied for good: two changes.
                twice.clear();
                twice.extend(
                    (changed.iter().zip(&fin))
                        .map(|(&(k, s), &f)| if k == 2 && f == 0 { s } else { 0 }),
                );
                // The changes of the points changed again, by point (a stable sort keeps each
                // point's in node order).
                log.retain(|c| changed[usize::from(c.0)].0 > 1);
                log.sort_by_key(|c| c.0);
                times::encode(
                    &fin,
                    (&first, &last, &twice),
                    &log,
                    (n, shift),
                    line.0,
                    (&mut cold, &mut times),
                );
            }
            put_varint(&mut cold, u64::from(node_count));
            put_varint(&mut cold, writer.bytes.len() as u64);
            cold.extend_from_slice(&writer.bytes);
            entry.cold = Cold::Bytes(cold);
        }
        SPARE.with(|s| {
            s.replace(Spare {
                all,
                last,
                first,
                fin,
                changed,
                log,
                changes,
                dyer: dyer.moves,
                writer,
                differ,
                times,
                twice,
            })
        });
        entry
    }
}

/// Follows the main line's shape with its node `i` (`node`, which changed `changes`): the
/// line stays plain ([`MainLine`]) while each node is as it says.
///
/// Nodes without a move or a change at the end (a comment, territory marks: 103 of the
/// corpus's 1,578 19x19 games of 60 nodes or more end so) are left out of the line and
/// counted in `tail`: a search finds their parent's hits again at such a node, which stands
/// for its parent, and there they end the line as they would at the parent, with the same
/// move number. So the line without them gives the same hits; a node after them makes it not
/// plain. (With them the line was not plain, and every candidate of such a game was walked.)
fn follow_line(
    line: &mut Option<MainLine>,
    tail: &mut u32,
    i: u32,
    node: &Node,
    changes: &[(u16, u8)],
) {
    let Some(l) = line else { return };
    if i > 0 && node.mv.is_none() && changes.is_empty() {
        *tail += 1;
        return;
    }
    let plain = *tail == 0
        && node.move_number == i
        && match node.mv {
            None => i == 0,
            Some(_) if i == 0 => false,
            Some((_, None)) => {
                l.passes += 1;
                changes.is_empty()
            }
            Some((color, Some(q))) => {
                // Its stone on its point, nothing else put on the board.
                let own = (q, state(Some(color)));
                l.play(i)
                    && match changes {
                        [only] => *only == own,
                        more => more.contains(&own) && more.iter().all(|&(p, s)| s == 0 || p == q),
                    }
            }
        };
    l.nodes += 1;
    if !plain {
        *line = None;
    }
}

/// Each node's changes against its parent's board. `cur` is the board after the last node of
/// the path from the root, and `undo` the old states of the points each node on the path
/// changed (from its mark on), so that going back up to a variation's parent costs the changes
/// undone, not a copy of every board on the path. Each path entry also keeps the stones of each
/// colour after its node: a move that adds one stone of its colour and leaves the other
/// colour's count as it was changed its own point only (no capture, no suicide), which spares
/// writing and comparing the whole board for most nodes.
#[derive(Default)]
struct Differ {
    n: usize,
    path: Vec<(usize, usize, [u32; 2])>,
    undo: Vec<(u16, u8)>,
    cur: Vec<u8>,
    rows: Vec<u8>,
}

impl Differ {
    /// `d`'s buffers made ready for a game of side `n` and about `nodes` nodes: the path and
    /// the undo list sized once (grown node by node they were most of a build's
    /// reallocations).
    fn reusing(mut d: Differ, n: usize, nodes: usize) -> Differ {
        d.n = n;
        d.path.clear();
        d.path.reserve(nodes);
        d.undo.clear();
        d.undo.reserve(nodes + 8);
        for v in [&mut d.cur, &mut d.rows] {
            v.clear();
            v.resize(n * n, 0);
        }
        d
    }

    /// Goes back to `step`'s parent and puts the points `step` changed (point, new state) in
    /// `changes`; false when the parent is not on the path (the replay's pre-order broken).
    fn changes(&mut self, step: &Step<'_>, changes: &mut Vec<(u16, u8)>) -> bool {
        while let Some(&(node, mark, _)) = self.path.last() {
            if Some(node) == step.parent {
                break;
            }
            self.path.pop();
            for (q, old) in self.undo.drain(mark..).rev() {
                self.cur[usize::from(q)] = old;
            }
        }
        if step.parent.is_some() && self.path.is_empty() {
            return false;
        }
        changes.clear();
        if let Some(q) = self.lone_move(step) {
            changes.push(q);
            return true;
        }
        // Cell codes are the index's point states (0 empty, 1 black, 2 white).
        step.position.write_cells(&mut self.rows);
        // Most of the board is as it was: compare blocks first.
        const BLOCK: usize = 32;
        let blocks = self.rows.chunks(BLOCK).zip(self.cur.chunks(BLOCK));
        for (bi, (now, was)) in blocks.enumerate() {
            if now != was {
                changes.extend(
                    now.iter().zip(was).enumerate().filter_map(|(j, (&s, &a))| {
                        (s != a).then_some(((bi * BLOCK + j) as u16, s))
                    }),
                );
            }
        }
        true
    }

    /// The one change of a move that took nothing off the board, if `step` is one.
    fn lone_move(&self, step: &Step<'_>) -> Option<(u16, u8)> {
        let PlayedMove {
            color,
            mv: Move::Play(p),
        } = step.mv?
        else {
            return None;
        };
        let before = self.path.last().map_or([0, 0], |e| e.2);
        let (own, other) = (color.index(), color.opponent().index());
        let q = usize::from(p.row()) * self.n + usize::from(p.col());
        (step.only_move
            && self.cur[q] == 0
            && step.position.stone_count(color) == before[own] + 1
            && step.position.stone_count(color.opponent()) == before[other])
            .then_some((q as u16, state(Some(color))))
    }

    /// `step`, whose `changes` [`Differ::changes`] gave, joins the path.
    fn push(&mut self, step: &Step<'_>, changes: &[(u16, u8)]) {
        let stones = [
            step.position.stone_count(Color::Black),
            step.position.stone_count(Color::White),
        ];
        self.path.push((step.node_index, self.undo.len(), stones));
        for &(q, s) in changes {
            let q = usize::from(q);
            self.undo.push((q as u16, self.cur[q]));
            self.cur[q] = s;
        }
    }
}

/// Appends a record's first part: the game's number in the database and its file's.
pub(crate) fn encode_numbers(id: u64, file: u32, out: &mut Vec<u8>) {
    put_varint(out, id);
    put_varint(out, u64::from(file));
}

/// Words of a board's points as one bitmap (25 x 25 points).
pub(crate) const FLAT_WORDS: usize = 10;

/// Rows of `n` bits (`row(i)`) as one bitmap of the board's points, row after row.
pub(crate) fn flat(n: usize, row: impl Fn(usize) -> u32) -> [u64; FLAT_WORDS] {
    let [out] = flats(n, |r| [row(r)]);
    out
}

/// [`flat`] of `K` bitmaps at once (`rows(i)`: row `i` of each): the dense prune turns four
/// a game into flat bitmaps, and one pass shares the rows' places among them (one pass each
/// was 5% of a 7x3 lone stone anywhere's instructions). Inlined: out of line (as the release
/// build left it) its words went through memory and it cost what the four passes did.
#[inline(always)]
pub(crate) fn flats<const K: usize>(
    n: usize,
    rows: impl Fn(usize) -> [u32; K],
) -> [[u64; FLAT_WORDS]; K] {
    let mut out = [[0u64; FLAT_WORDS]; K];
    let full = if n >= 32 {
        u64::from(u32::MAX)
    } else {
        (1 << n) - 1
    };
    // The bits of the word being filled; a row's bits that pass its end (a row is at most 25
    // bits, so it spans two words at most) begin the next.
    let mut acc = [0u64; K];
    let (mut filled, mut w) = (0usize, 0usize);
    for r in 0..n.min(25) {
        let row = rows(r);
        let bits = row.map(|b| u64::from(b) & full);
        for k in 0..K {
            acc[k] |= bits[k] << filled;
        }
        if filled + n < 64 {
            filled += n;
            continue;
        }
        for k in 0..K {
            out[k][w % FLAT_WORDS] = acc[k];
            // (No shift by 64 when the row ends the word exactly.)
            acc[k] = bits[k] >> 1 >> (63 - filled);
        }
        filled = filled + n - 64;
        w += 1;
    }
    if filled > 0 {
        for k in 0..K {
            out[k][w % FLAT_WORDS] = acc[k];
        }
    }
    out
}

/// Row `i` of bitmaps stored as little-endian u32 words.
#[inline]
pub(crate) fn row_word(bytes: &[u8], i: usize) -> u32 {
    match bytes.get(4 * i..4 * i + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_go::replay::replay_game;

    /// `flats` puts bit `c` of row `r` at point `r * n + c`, for every side up to 25, and
    /// leaves the bits past a row's `n` out.
    #[test]
    fn flat_bitmaps_are_the_rows_bit_by_bit() {
        let mut rng = super::super::xorshift();
        for n in 1..=25usize {
            let rows: Vec<[u32; 2]> = (0..n).map(|_| [rng() as u32, rng() as u32]).collect();
            let got = flats(n, |r| rows[r]);
            for (k, bits) in got.iter().enumerate() {
                for p in 0..64 * FLAT_WORDS {
                    let want = p < n * n && rows[p / n][k] >> (p % n) & 1 != 0;
                    assert_eq!(
                        bits[p / 64] >> (p % 64) & 1 != 0,
                        want,
                        "side {n}, point {p}"
                    );
                }
            }
            assert_eq!(flat(n, |r| rows[r][1]), got[1]);
        }
    }

    /// Every node's board, as the replay has it (cells 0 empty, 1 black, 2 white), with its
    /// move number, move and side to play.
    type Replayed = (Vec<u8>, u32, Option<PlayedMove>, Color);

    fn replayed(tree: kifu_sgf::GameTree<'_>) -> Vec<Replayed> {
        let opts = ReplayOptions {
            scope: Scope::AllVariations,
            ..ReplayOptions::default()
        };
        let mut nodes = Vec::new();
        let _ = replay_game(tree, &opts, |step: &Step<'_>| {
            let mut cells = vec![0u8; step.position.size().points()];
            step.position.write_cells(&mut cells);
            nodes.push((cells, step.move_number, step.mv, step.to_play));
        });
        nodes
    }

    /// The main line's shape is kept only for the lines the tables alone can count.
    #[test]
    fn plain_main_lines_are_told_apart() {
        let line = |nodes, passes| Some(MainLine::new(nodes, passes));
        let mid = |nodes, trailing, passes: &[u32]| {
            let mut l = MainLine::new(nodes, trailing);
            for (k, &p) in passes.iter().enumerate() {
                l.mid |= u64::from(p) << (16 * k);
            }
            Some(l)
        };
        let games = [
            // Captures, a point played again after its capture, trailing passes, variations.
            ("(;SZ[5];B[ba];W[aa];B[ab];W[dd];B[aa];W[];B[])", line(8, 2)),
            ("(;SZ[5]AB[ba][ab];W[cc](;B[dd])(;B[ee];W[aa]))", line(3, 0)),
            ("(;SZ[5])", line(1, 0)),
            // A stone played onto one of the other colour, a stone taken off by setup beside a
            // move (as a capture would): no point gets a stone but the move's.
            ("(;SZ[5];B[cc];W[cc];B[dd])", line(4, 0)),
            ("(;SZ[5];B[aa];W[bb]AE[aa])", line(3, 0)),
            // Passes before a play (up to four).
            ("(;SZ[5];B[ba];W[];B[ab])", mid(4, 0, &[2])),
            ("(;SZ[5];B[];W[];B[ab];W[];B[];W[])", mid(7, 3, &[1, 2])),
            (
                "(;SZ[5];B[];W[];B[ab];W[];B[];W[cc];B[])",
                mid(8, 1, &[1, 2, 4, 5]),
            ),
            // Nodes without a move or a change at the end: left out of the line.
            ("(;SZ[5];B[aa];W[bb];C[x]TB[cc];)", line(3, 0)),
            ("(;SZ[5];B[aa];W[];C[x])", line(3, 1)),
            ("(;SZ[5];C[x])", line(1, 0)),
            // Five passes before a play, a suicide, a move onto a stone of its colour, setup
            // after the root, a node without a move (before a move, or with a change), a move
            // in the root.
            ("(;SZ[5];B[];W[];B[ab];W[];B[];W[cc];B[];W[dd])", None),
            ("(;SZ[5];B[ba];W[cc];B[ab];W[aa])", None),
            ("(;SZ[5];B[cc];B[cc];W[dd])", None),
            ("(;SZ[5];B[aa];W[bb]AB[cc])", None),
            ("(;SZ[5];B[aa];AB[cc];W[bb])", None),
            ("(;SZ[5];B[aa];C[x];W[bb])", None),
            ("(;SZ[5];B[aa];W[bb];C[x];;B[cc])", None),
            ("(;SZ[5];B[aa];W[bb];AE[aa])", None),
            ("(;SZ[5]B[cc];W[dd])", None),
        ];
        for (sgf, want) in games {
            let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
            let entry = GameEntry::build(0, 0, 0, parsed.collection.games().next().unwrap());
            let Cold::Bytes(cold) = &entry.cold else {
                panic!("built in memory")
            };
            let view = ColdView::parse(cold, entry.side, entry.times, entry.shift).unwrap();
            assert_eq!(view.times.unwrap().line, want, "{sgf}");
        }
    }

    #[test]
    fn nodes_applied_along_their_parents_give_every_replayed_board() {
        // Captures of one stone and of a group, a suicide, a move onto a stone, setup (adding,
        // removing, over a stone) after moves, two moves in one node, passes, and variations
        // that capture before the line goes back up to their parent.
        let games = [
            "(;SZ[5];B[ba];W[aa];B[ab])",
            "(;SZ[5];B[ba];W[bb];B[ab];W[ca];B[cb];W[aa])",
            "(;SZ[5]AB[ba][ab];W[aa])",
            "(;SZ[5];B[cc];W[cc];B[dd])",
            "(;SZ[5];B[aa];W[bb]AE[aa]AB[ee];B[bb]AW[cc];W[dd]B[de])",
            "(;SZ[5];B[ba];W[];B[ab](;W[aa];B[bb])(;W[ca];B[aa](;W[bb])(;W[cb];B[db]))(;W[dd]))",
            "(;SZ[5];B[ab];W[ac];B[bb];W[bc];B[cb];W[cc];B[db];W[dc];B[eb];W[ec];B[ba];W[aa];B[ca])",
            // A move in the root (never a short play: it has no parent), a move number set
            // (the plays after it count from it), points past 511 (a short play's ten bits).
            "(;SZ[5]B[cc];W[dd];B[ee]MN[7];W[aa];B[bb])",
            "(;SZ[25];B[yy];W[ya];B[ay];W[xy];B[xx])",
        ];
        for sgf in games {
            let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
            let tree = parsed.collection.games().next().unwrap();
            let boards = replayed(tree);
            let entry = GameEntry::build(0, 0, 0, parsed.collection.games().next().unwrap());
            let Cold::Bytes(cold) = &entry.cold else {
                panic!("built in memory")
            };
            let view = ColdView::parse(cold, entry.side, entry.times, entry.shift).unwrap();
            let (count, nodes) = view.nodes().unwrap();
            assert_eq!(count as usize, boards.len(), "{sgf}");
            let mut numbers = Vec::new();
            let points = u16::from(entry.side) * u16::from(entry.side);
            let mut reader = NodeReader::new(nodes, count, points, &mut numbers);
            let mut changes = Vec::new();
            let mut seen: Vec<Vec<u8>> = Vec::new();
            while let Some(node) = reader.next(&mut changes).unwrap() {
                let mut board = node
                    .parent
                    .map_or(vec![0; usize::from(points)], |p| seen[p as usize].clone());
                for &(q, s) in &changes {
                    assert_ne!(board[usize::from(q)], s, "{sgf}: a change that is none");
                    board[usize::from(q)] = s;
                }
                let (want, number, mv, to_play) = &boards[seen.len()];
                assert_eq!(&board, want, "{sgf}: node {}", seen.len());
                assert_eq!(node.move_number, *number, "{sgf}: node {}", seen.len());
                assert_eq!(node.to_play, *to_play, "{sgf}: node {}", seen.len());
                let n = u16::from(entry.side);
                let want_mv = mv.map(|pm| {
                    let p = match pm.mv {
                        Move::Play(p) => Some(u16::from(p.row()) * n + u16::from(p.col())),
                        Move::Pass => None,
                    };
                    (pm.color, p)
                });
                assert_eq!(node.mv, want_mv, "{sgf}: node {}", seen.len());
                seen.push(board);
            }
            assert_eq!(seen.len(), boards.len());
        }
    }

    /// The signature [`GameBuilder`] makes from the replay's steps is the one
    /// [`crate::dyer::signature`] reads from the tree.
    fn signatures_agree(sgf: &[u8], name: &str) -> usize {
        let parsed = kifu_sgf::Collection::parse(sgf);
        let mut games = 0;
        for tree in parsed.collection.games() {
            let want = crate::dyer::signature(&tree).map(|s| s.as_str().to_string());
            let entry = GameEntry::build(0, 0, 0, tree);
            assert_eq!(entry.dyer, want, "{name}: game {games}");
            games += 1;
        }
        games
    }

    #[test]
    fn dyer_signatures_from_the_steps_are_the_trees() {
        // Two moves in a node, a move and setup, passes written both ways, a value with
        // spaces, a point off the board, upper-case letters, a move onto a stone, a suicide,
        // a repeated property, moves in the root, a short game, a game on a board that is
        // not square, and one without moves.
        let odd = [
            "(;SZ[9];B[aa]W[bb];B[cc])",
            "(;SZ[9];B[aa];W[bb]AB[ee];B[cc])",
            "(;SZ[9];B[];W[tt];B[cc])",
            "(;SZ[9];B[ ];W[bb])",
            "(;SZ[9];B[zz];W[bb])",
            "(;SZ[9];B[AB];W[bb])",
            "(;SZ[9];B[aa];W[aa];B[bb])",
            "(;SZ[9]AW[ba][ab];B[aa];W[cc])",
            "(;SZ[9];B[aa]B[bb];W[cc])",
            "(;SZ[9]B[aa]W[bb];B[cc])",
            "(;SZ[9];B[aa])",
            "(;SZ[9:7];B[aa];W[bb])",
            "(;SZ[9]C[nothing])",
        ];
        for sgf in odd {
            assert_eq!(signatures_agree(sgf.as_bytes(), sgf), 1);
        }
        // The steps serve where they can, the tree where they cannot.
        let from_steps = |sgf: &str| {
            let parsed = kifu_sgf::Collection::parse(sgf.as_bytes());
            let tree = parsed.collection.games().next().unwrap();
            let mut b = GameBuilder::new(0, 0, 0, &tree);
            let opts = ReplayOptions {
                scope: Scope::AllVariations,
                ..ReplayOptions::default()
            };
            let _ = replay_game(tree, &opts, |step: &Step<'_>| b.step(step));
            b.dyer.exact && !b.broken
        };
        assert!(from_steps("(;SZ[9];B[aa];W[];B[cc](;W[dd])(;W[ee]B[ff]))"));
        assert!(!from_steps("(;SZ[9];B[aa]W[bb];B[cc])"));
        assert!(!from_steps("(;SZ[9];B[zz];W[bb])"));
        // A game of 80 moves with two moves in one node after move 71 (read by neither).
        let mut long = String::from("(;SZ[19]");
        for i in 0..80u8 {
            let p = [b'a' + i % 19, b'a' + i / 19];
            let p = std::str::from_utf8(&p).unwrap().to_string();
            long.push_str(&format!(";{}[{p}]", if i % 2 == 0 { "B" } else { "W" }));
        }
        long.push_str("B[ss]W[rs])");
        assert_eq!(signatures_agree(long.as_bytes(), "long"), 1);
        // Every game of the shared corpus.
        let dir = kifu_testdata::corpus().join("sgf/games");
        let mut games = 0;
        for path in kifu_testdata::sgf_files(&dir) {
            let bytes = std::fs::read(&path).unwrap();
            games += signatures_agree(&bytes, &path.display().to_string());
        }
        assert!(games > 9000, "{games} games");
    }
}
