//! The boards of one hash read back and grouped by their canonical rows, the payloads kept
//! in memory to a budget and spilled past it.

use super::*;

/// Boards from the store, canonical rows from the canonicalizer.
pub(super) struct Boards<'a> {
    pub(super) store: &'a mut PayloadStore,
    pub(super) canon: &'a Canonicalizer,
    pub(super) payload: Vec<u8>,
    pub(super) rows: Vec<u8>,
    pub(super) n2: usize,
}

impl BoardSource for Boards<'_> {
    fn board(&mut self, occ: u64, out: &mut Vec<u8>) -> Result<(), ExtractError> {
        self.store.read(occ, &mut self.payload)?;
        let p = self.n2.div_ceil(4);
        out.clear();
        out.extend_from_slice(&self.payload[9..9 + p]);
        Ok(())
    }

    fn form(&mut self, packed: &[u8], out: &mut Vec<u8>) {
        self.rows.clear();
        unpack(packed, self.n2, &mut self.rows);
        out.resize(self.n2, 0);
        self.canon.canonical_into(&self.rows, out);
    }
}

/// The occurrences of one hash, as they come in key order (side to move, then input order).
#[derive(Default)]
pub(super) struct Group {
    pub(super) hash: Option<u64>,
    /// A lone occurrence so far: a hash seen once needs no board read.
    pub(super) first: Option<(u8, u64)>,
    /// The distinct boards (forms) and the first occurrence of each.
    classes: Vec<(Vec<u8>, u64)>,
    /// (class, side) pairs seen: the distinct positions.
    pub(super) seen: Vec<(usize, u8)>,
    /// Occurrences written: (occurrence, class).
    pub(super) kept: Vec<(u64, usize)>,
    /// Boards as played (packed) already classified, and their class: most repeats of a
    /// position are the same board in the same orientation, so they need no canonical rows.
    seen_boards: Vec<(Vec<u8>, usize)>,
    pub(super) board: Vec<u8>,
    form: Vec<u8>,
}

/// Where a group's boards come from.
pub(super) trait BoardSource {
    /// The board of occurrence `occ`, packed rows as played.
    fn board(&mut self, occ: u64, out: &mut Vec<u8>) -> Result<(), ExtractError>;
    /// The canonical rows of packed rows.
    fn form(&mut self, packed: &[u8], out: &mut Vec<u8>);
}

/// At most this many boards as played are remembered per hash.
const SEEN_BOARDS: usize = 64;

pub(super) type ReadForm<'a> = dyn BoardSource + 'a;

impl Group {
    pub(super) fn add(
        &mut self,
        side: u8,
        occ: u64,
        all: bool,
        boards: &mut ReadForm<'_>,
    ) -> Result<(), ExtractError> {
        if self.first.is_none() && self.classes.is_empty() {
            self.first = Some((side, occ));
            return Ok(());
        }
        if let Some((s0, o0)) = self.first.take() {
            self.classify(s0, o0, all, boards)?;
        }
        self.classify(side, occ, all, boards)
    }

    fn classify(
        &mut self,
        side: u8,
        occ: u64,
        all: bool,
        boards: &mut ReadForm<'_>,
    ) -> Result<(), ExtractError> {
        boards.board(occ, &mut self.board)?;
        let known = self
            .seen_boards
            .iter()
            .find(|(b, _)| *b == self.board)
            .map(|&(_, c)| c);
        let c = match known {
            Some(c) => Some(c),
            None => {
                boards.form(&self.board, &mut self.form);
                self.classes.iter().position(|(f, _)| *f == self.form)
            }
        };
        if known.is_none() && self.seen_boards.len() < SEEN_BOARDS {
            let c = c.unwrap_or(self.classes.len());
            self.seen_boards.push((self.board.clone(), c));
        }
        let c = match c {
            Some(c) => {
                self.classes[c].1 = self.classes[c].1.min(occ);
                c
            }
            None => {
                if self.classes.len() == 256 {
                    return Err(ExtractError::TooManyCollisions(self.hash.unwrap_or(0)));
                }
                self.classes.push((self.form.clone(), occ));
                self.classes.len() - 1
            }
        };
        let new = !self.seen.contains(&(c, side));
        if new {
            self.seen.push((c, side));
        }
        if new || all {
            self.kept.push((occ, c));
        }
        Ok(())
    }

    /// Marks the group's written occurrences, gives tiebreakers to its boards in order of first
    /// appearance (only those above 0 are kept), and starts a new group.
    pub(super) fn finish(
        &mut self,
        kept: &mut [u64],
        tiebreaks: &mut HashMap<u64, u8>,
        summary: &mut ExtractSummary,
    ) {
        let mut mark = |o: u64| {
            if let Some(w) = kept.get_mut((o / 64) as usize) {
                *w |= 1 << (o % 64);
            }
        };
        if let Some((_, o)) = self.first.take() {
            mark(o);
            summary.distinct += 1;
        } else if !self.classes.is_empty() {
            summary.distinct += self.seen.len() as u64;
            summary.collisions += self.classes.len() as u64 - 1;
            let mut order: Vec<usize> = (0..self.classes.len()).collect();
            order.sort_by_key(|&c| self.classes[c].1);
            let mut tb = vec![0u8; self.classes.len()];
            for (t, &c) in order.iter().enumerate() {
                tb[c] = t as u8;
            }
            for &(o, c) in &self.kept {
                mark(o);
                if tb[c] > 0 {
                    tiebreaks.insert(o, tb[c]);
                }
            }
        }
        self.hash = None;
        self.classes.clear();
        self.seen.clear();
        self.kept.clear();
        self.seen_boards.clear();
    }
}

/// The occurrence records in input order: in memory up to a budget, then appended to an unnamed
/// temporary file; read back one by one (boards of repeated hashes) or in order (the output).
pub(super) struct PayloadStore {
    record_len: usize,
    budget: usize,
    pub(super) mem: Vec<u8>,
    pub(super) file: Option<std::fs::File>,
    on_disk: u64,
    spills: u64,
    dir: Option<PathBuf>,
}

impl PayloadStore {
    pub(super) fn new(record_len: usize, budget: usize, opts: &ExtractOptions) -> PayloadStore {
        PayloadStore {
            record_len,
            budget: budget.max(record_len),
            mem: Vec::new(),
            file: None,
            on_disk: 0,
            spills: 0,
            dir: opts.temp_dir.clone(),
        }
    }

    /// Records stored.
    pub(super) fn len(&self) -> u64 {
        self.on_disk + (self.mem.len() / self.record_len) as u64
    }

    /// Times the buffer was written to the temporary file.
    pub(super) fn spilled(&self) -> u64 {
        self.spills
    }

    pub(super) fn push(&mut self, r: &[u8]) -> io::Result<()> {
        self.mem.extend_from_slice(r);
        if self.mem.len() >= self.budget {
            let file = match &mut self.file {
                Some(f) => f,
                None => self.file.insert(match &self.dir {
                    Some(d) => tempfile::tempfile_in(d)?,
                    None => tempfile::tempfile()?,
                }),
            };
            file.seek(SeekFrom::End(0))?;
            file.write_all(&self.mem)?;
            self.on_disk += (self.mem.len() / self.record_len) as u64;
            self.mem.clear();
            self.spills += 1;
        }
        Ok(())
    }

    /// Record number `i` into `out`.
    pub(super) fn read(&mut self, i: u64, out: &mut [u8]) -> io::Result<()> {
        let n = self.record_len;
        match &mut self.file {
            Some(f) if i < self.on_disk => {
                f.seek(SeekFrom::Start(i * n as u64))?;
                f.read_exact(out)
            }
            _ => {
                let at = (i - self.on_disk) as usize * n;
                out.copy_from_slice(&self.mem[at..at + n]);
                Ok(())
            }
        }
    }

    /// Every record in order.
    pub(super) fn for_each(
        &mut self,
        mut f: impl FnMut(&[u8]) -> Result<(), ExtractError>,
    ) -> Result<(), ExtractError> {
        let n = self.record_len;
        if let Some(file) = &mut self.file {
            file.seek(SeekFrom::Start(0))?;
            let mut r = io::BufReader::with_capacity(1 << 20, &*file);
            let mut rec = vec![0u8; n];
            for _ in 0..self.on_disk {
                r.read_exact(&mut rec)?;
                f(&rec)?;
            }
        }
        for rec in self.mem.chunks_exact(n) {
            f(rec)?;
        }
        Ok(())
    }
}
