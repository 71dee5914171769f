//! One game of the pattern index: what it holds ([`GameEntry`]), how it is made from a game
//! tree (the replay, every variation, diffed node by node), and its bytes in the sidecar.

use super::format::{put_varint, Bytes, FormatError, Node, NodeReader, NodeWriter};
use crate::filter::GameInfo;
use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{BoardSize, Move};

/// One game as the index holds it.
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
    /// Its Dyer signature ([`crate::dyer`]), for duplicates.
    pub dyer: Option<String>,
    /// The board side of its nodes and bitmaps (0: not replayable, no nodes).
    pub side: u8,
    /// One allocation for the tables a search reads first, so a game costs few cache misses:
    /// the main line's bitmaps (Black rows, White rows: bit `c` of row `r` is point (c, r)
    /// held at some node), with `all` the same over every variation, with `times` the main
    /// line's final board (bitmaps), then bytes packed four to a word: per point the node of
    /// its first stone, then per point the node of its last change, both in units of
    /// `1 << shift` nodes (first rounded down, 255: never; last rounded up), so one byte each.
    /// After its last change a point keeps its final state, before its first stone it is
    /// empty: a place stands only between its stones' first nodes and the first last change
    /// that the final board contradicts.
    pub tables: Vec<u32>,
    /// See `tables`.
    pub shift: u8,
    /// Whether `tables` holds bitmaps over every variation (the game has variations).
    pub all: bool,
    /// Whether `tables` holds the final board and the first and last nodes (not for games of
    /// millions of main-line nodes).
    pub times: bool,
    /// The number of nodes.
    pub node_count: u32,
    /// The nodes ([`super::format`]).
    pub nodes: Vec<u8>,
}

impl GameEntry {
    /// The bitmaps of Black and White over the main line or every variation.
    pub(crate) fn bitmaps(&self, variations: bool) -> (&[u32], &[u32]) {
        let n = usize::from(self.side);
        let at = if variations && self.all { 2 * n } else { 0 };
        match self.tables.get(at..at + 2 * n) {
            Some(b) => b.split_at(n),
            None => (&[], &[]),
        }
    }

    /// The main line's final board (Black rows then White rows) and the packed first and last
    /// nodes (see [`time_byte`]), if the game has them.
    pub(crate) fn times(&self) -> Option<(&[u32], &[u32])> {
        let n = usize::from(self.side);
        if !self.times {
            return None;
        }
        let at = if self.all { 4 * n } else { 2 * n };
        let t = self.tables.get(at..)?;
        (t.len() == 2 * n + time_words(n)).then(|| t.split_at(2 * n))
    }

    /// The length of `tables` for a board side and flags.
    fn tables_len(side: u8, all: bool, times: bool) -> usize {
        let n = usize::from(side);
        2 * n + if all { 2 * n } else { 0 } + if times { 2 * n + time_words(n) } else { 0 }
    }

    /// Reads a game's tree into an entry (what the replay makes of it, every variation).
    pub(crate) fn build(
        id: u64,
        file: u32,
        game_in_file: u32,
        tree: kifu_sgf::GameTree<'_>,
    ) -> GameEntry {
        let info = GameInfo::from_game(&tree);
        let mut entry = GameEntry {
            id,
            file,
            game_in_file,
            dyer: crate::dyer::signature(&tree).map(|s| s.as_str().to_string()),
            side: 0,
            tables: Vec::new(),
            all: false,
            times: false,
            shift: 0,
            node_count: 0,
            nodes: Vec::new(),
            info,
        };
        let Ok(size) = BoardSize::new(u32::from(entry.info.size)) else {
            return entry;
        };
        let n = usize::from(size.get());
        let mut writer = NodeWriter::default();
        let mut main = vec![0u32; 2 * n];
        let mut all = vec![0u32; 2 * n];
        let mut variations = false;
        let mut last = vec![0u32; n * n];
        let mut first = vec![u32::MAX; n * n];
        let mut fin = vec![0u8; n * n];
        // Each node is diffed against its parent's board: `cur` is the board after the last
        // node of the path from the root, and `undo` the old states of the points each node on
        // the path changed (from its mark on), so that going back up to a variation's parent
        // costs the changes undone, not a copy of every board on the path.
        let mut path: Vec<(usize, usize)> = Vec::new();
        let mut undo: Vec<(u16, u8)> = Vec::new();
        let mut cur = vec![0u8; n * n];
        let mut rows = vec![0u8; n * n];
        let mut changes: Vec<(u16, u8)> = Vec::new();
        let mut broken = false;
        let opts = ReplayOptions {
            scope: Scope::AllVariations,
            ..ReplayOptions::default()
        };
        let _ = replay_game(tree, &opts, |step: &Step<'_>| {
            if broken {
                return;
            }
            if step.position.size() != size || step.node_index != entry.node_count as usize {
                broken = true;
                return;
            }
            while let Some(&(node, mark)) = path.last() {
                if Some(node) == step.parent {
                    break;
                }
                path.pop();
                for (q, old) in undo.drain(mark..).rev() {
                    cur[usize::from(q)] = old;
                }
            }
            if step.parent.is_some() && path.is_empty() {
                broken = true;
                return;
            }
            let parent_rows = &cur;
            // Cell codes are the index's point states (0 empty, 1 black, 2 white).
            step.position.write_cells(&mut rows);
            changes.clear();
            // Most of the board is as it was: compare blocks first.
            const BLOCK: usize = 32;
            for (bi, (now, before)) in rows
                .chunks(BLOCK)
                .zip(parent_rows.chunks(BLOCK))
                .enumerate()
            {
                if now == before {
                    continue;
                }
                for (j, (&s, &a)) in now.iter().zip(before).enumerate() {
                    let q = bi * BLOCK + j;
                    if s == a {
                        continue;
                    }
                    changes.push((q as u16, s));
                    if step.variation == 0 {
                        last[q] = step.node_index as u32;
                        fin[q] = s;
                        if s != 0 {
                            first[q] = first[q].min(step.node_index as u32);
                        }
                    }
                    if s != 0 {
                        let (col, row) = (q % n, q / n);
                        let k = usize::from(s - 1) * n + row;
                        all[k] |= 1 << col;
                        if step.variation == 0 {
                            main[k] |= 1 << col;
                        }
                    }
                }
            }
            variations |= step.variation > 0;
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
            writer.push(step.node_index as u32, &node, &changes);
            entry.node_count += 1;
            path.push((step.node_index, undo.len()));
            for &(q, _) in &changes {
                undo.push((q, cur[usize::from(q)]));
            }
            std::mem::swap(&mut cur, &mut rows);
        });
        if broken {
            // Cannot happen with the replay as it is; a game the index cannot hold exactly is
            // better left without nodes than searched wrong.
            entry.node_count = 0;
            return entry;
        }
        entry.side = size.get();
        entry.tables = main;
        if variations {
            entry.all = true;
            entry.tables.extend_from_slice(&all);
        }
        entry.nodes = writer.bytes;
        let longest = last.iter().copied().max().unwrap_or(0);
        let shift = (0u8..16).find(|&s| longest.div_ceil(1 << s) <= 254);
        if let Some(shift) = shift {
            entry.times = true;
            entry.shift = shift;
            let mut board = vec![0u32; 2 * n];
            for (q, &s) in fin.iter().enumerate() {
                if s != 0 {
                    board[usize::from(s - 1) * n + q / n] |= 1 << (q % n);
                }
            }
            entry.tables.extend_from_slice(&board);
            let bytes: Vec<u8> = first
                .iter()
                .map(|&f| {
                    if f == u32::MAX {
                        255
                    } else {
                        (f >> shift) as u8
                    }
                })
                .chain(last.iter().map(|&l| l.div_ceil(1 << shift) as u8))
                .collect();
            entry.tables.extend(bytes.chunks(4).map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u32, |w, (i, &b)| w | (u32::from(b) << (8 * i)))
            }));
        }
        entry
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.id);
        put_varint(out, u64::from(self.file));
        put_varint(out, u64::from(self.game_in_file));
        let i = &self.info;
        for s in [&i.black, &i.white, &i.date, &i.event, &i.result] {
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        put_varint(out, u64::from(i.handicap));
        match &self.dyer {
            None => out.push(0),
            Some(d) => {
                out.push(1);
                put_varint(out, d.len() as u64);
                out.extend_from_slice(d.as_bytes());
            }
        }
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
        for b in self
            .tables
            .iter()
            .take(Self::tables_len(self.side, all, times))
        {
            out.extend_from_slice(&b.to_le_bytes());
        }
        put_varint(out, u64::from(self.node_count));
        put_varint(out, self.nodes.len() as u64);
        out.extend_from_slice(&self.nodes);
    }

    pub(crate) fn decode(b: &mut Bytes<'_>, files: u32) -> Result<GameEntry, FormatError> {
        let id = b.varint()?;
        let file = b.varint_u32()?;
        if file >= files {
            return Err(FormatError::Bad("file number"));
        }
        let game_in_file = b.varint_u32()?;
        let (black, white, date, event, result) = (
            b.string()?,
            b.string()?,
            b.string()?,
            b.string()?,
            b.string()?,
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
        let len = Self::tables_len(side, all, times);
        let mut tables = Vec::with_capacity(len);
        for _ in 0..len {
            tables.push(b.u32_le()?);
        }
        let node_count = b.varint_u32()?;
        if side == 0 && node_count > 0 {
            return Err(FormatError::Bad("nodes without a board"));
        }
        let len = usize::try_from(b.varint()?).map_err(|_| FormatError::Truncated)?;
        let nodes = b.take(len)?.to_vec();
        Ok(GameEntry {
            id,
            file,
            game_in_file,
            dyer,
            info: GameInfo {
                black,
                white,
                date,
                event,
                result,
                handicap,
                komi,
                size,
            },
            side,
            tables,
            all,
            times,
            shift,
            node_count,
            nodes,
        })
    }

    /// Reads every node once, as a search would, so that a damaged record is found when the
    /// index is opened rather than halfway through a search.
    pub(crate) fn check(&self) -> Result<(), FormatError> {
        let points = u16::from(self.side) * u16::from(self.side);
        let mut numbers = Vec::new();
        let mut r = NodeReader::new(&self.nodes, self.node_count, points, &mut numbers);
        let mut changes = Vec::new();
        let mut path: Vec<u32> = Vec::new();
        let mut index = 0u32;
        while let Some(node) = r.next(&mut changes)? {
            while path.last().is_some_and(|&i| Some(i) != node.parent) {
                path.pop();
            }
            if node.parent.is_some() && path.is_empty() {
                return Err(FormatError::Bad("a parent off the path"));
            }
            path.push(index);
            index += 1;
        }
        Ok(())
    }
}

/// The words of the packed first and last nodes of an `n` x `n` board.
fn time_words(n: usize) -> usize {
    (2 * n * n).div_ceil(4)
}

/// Byte `i` of the packed first (`i < n * n`) and last nodes.
#[inline]
pub(crate) fn time_byte(words: &[u32], i: usize) -> u32 {
    words.get(i / 4).map_or(0, |w| (w >> (8 * (i % 4))) & 0xff)
}
