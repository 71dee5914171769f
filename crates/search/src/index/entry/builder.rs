//! How a game's entry is made from its replay's steps: [`GameBuilder`], which diffs the
//! nodes ([`Differ`]) and follows the main line's shape ([`follow_line`]).

use super::GameRecord;
use crate::filter::GameInfo;
use crate::index::format::{put_varint, state, Node, NodeWriter};
use crate::index::times::{self, MainLine};
use kifu_go::replay::Step;
use kifu_go::{BoardSize, Color, Move, PlayedMove, Point};
use std::cell::RefCell;

/// A game's entry made from its replay's steps (every variation, in the replay's order), so
/// that the steps may come from a replay made for something else too (`kifu pos index`
/// replays each file once for both indexes): [`GameBuilder::step`] for each, then
/// [`GameBuilder::finish`]. What the tree says (information, Dyer signature) is read from it
/// at [`GameBuilder::new`].
pub(crate) struct GameBuilder {
    entry: GameRecord,
    /// The board the information names; `None`: no square board, no nodes.
    pub(super) size: Option<BoardSize>,
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
    pub(super) broken: bool,
    pub(super) dyer: DyerMoves,
    /// [`crate::index::point_xy`] of the game's board (empty without one).
    xy: &'static [[u8; 2]],
    /// The main line's shape so far, while it is plain ([`crate::index::times::MainLine`]), and the
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
pub(super) struct DyerMoves {
    moves: Vec<Option<Point>>,
    pub(super) exact: bool,
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
            entry: GameRecord {
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
                cold: vec![0, 0],
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
            xy: size.map_or(&[], crate::index::point_xy),
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
    pub(crate) fn finish(self, tree: &kifu_sgf::GameTree<'_>) -> GameRecord {
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
            entry.cold = cold;
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
