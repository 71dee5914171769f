//! The pattern index: every game of a database as packed nodes (moves with their captures, so a
//! search replays without rules and without SGF), its information for the filters, and per
//! colour a bitmap of the points that colour ever held (a game that never held a variant's
//! stones at a place cannot match there). Built from the games' files (in parallel), kept in a
//! sidecar file beside the `kifu pos index` file, and searched by `walk`.
//!
//! The sidecar (`DB.kpp` for `DB.kpx`), all integers little-endian:
//! - header: magic `KIFUPAT\0`, format (u32), fingerprint of the `.kpx` game list (u64), body
//!   length (u64);
//! - body: varint file count, each file name (varint length, UTF-8); varint game count, each
//!   game (`Hot::encode_rest` and the cold part, in `entry/`); then the XXH3-64 of the body (u64; FNV-1a 64 up to format 6).
//!
//! A game: varint id, file number, game in file; `PB PW DT EV RE` (varint length, UTF-8 each),
//! varint handicap, the Dyer signature (a byte 0/1, then the text), komi (a byte 0/1, then f64
//! bits when 1), size (u8), board side (u8: 0 when the game has no board to replay), flags (u8,
//! bit 0: a second set of bitmaps for all variations follows the main line's; bit 1: the final
//! board and first and last nodes follow; bits 2-5: their shift), the bitmaps (`n` rows of u32
//! for Black then `n` for White, bit `c` of row `r` = point (c, r)). That much is the game's
//! hot part, kept in memory while the index is open. Its cold part follows (`entry::ColdView`,
//! read from the file when a search walks the game, `store.rs`): with bit 1 the main line's
//! time tables (`times/`: the final board as bitmaps above, then the node of each point's
//! first stone and last change, in units of `1 << shift` nodes, a byte only for the points that
//! held a stone or changed again, found through rank directories; format 7 had a byte per
//! point and table; since format 10 followed by the main line's length and trailing passes
//! when it is plain, `times::MainLine`; since format 11 with the parities of the points changed
//! again when units are two nodes, `times::Halves`; since format 12 with the changes of the
//! points changed again that did not hold one stone, `times::Changes`, and up to four passes
//! before the trailing ones in a plain main line), then varint node
//! count, varint byte count, the nodes (`format.rs`).

mod build;
mod bytemin;
mod columns;
mod dense;
mod entry;
pub(crate) mod format;
mod games;
mod infocols;
mod intervals;
mod levels;
mod names;
mod placements;
pub(crate) mod plan;
mod prune;
mod search;
mod store;
mod times;
pub(crate) mod walk;
mod window;
pub(crate) mod workspace;

use crate::collection::{CollectionFile, Failure};
pub use build::{BuiltSidecar, FileRecords, PatternIndexBuilder};
pub use dense::DensePrune;
pub(crate) use entry::GameRecord;
use format::{Bytes, FormatError};
pub(crate) use games::{Game, Games};
use kifu_go::BoardSize;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
pub use store::DEFAULT_CACHE_BYTES;

const MAGIC: &[u8; 8] = b"KIFUPAT\0";
const VERSION: u32 = 12;

/// Why a pattern index could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum PatternIndexError {
    /// Reading failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The sidecar.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing failed.
    #[error(transparent)]
    Write(#[from] kifu_fs::FsError),
    /// The file is not a pattern index, or a damaged one.
    #[error("{}: not a kifu pattern index, or a damaged one ({why}); delete it, or rebuild with `kifu pos index`", path.display())]
    Damaged {
        /// The sidecar.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// What every search asks of all the games, counted once: the board sides of their nodes,
/// and how many games have each board size of their information.
#[derive(Debug)]
pub(crate) struct Sizes {
    sides: Vec<u8>,
    infos: Vec<(u8, u64)>,
}

impl Sizes {
    fn new(games: &Games) -> Sizes {
        let mut sides: Vec<u8> = Vec::new();
        let mut infos: std::collections::BTreeMap<u8, u64> = Default::default();
        for g in games.iter() {
            if !sides.contains(&g.side) {
                sides.push(g.side);
            }
            *infos.entry(g.size).or_default() += 1;
        }
        sides.sort_unstable();
        Sizes {
            sides,
            infos: infos.into_iter().collect(),
        }
    }
}

/// Data derived from the games at its first use (columns, counts): not saved, so two indexes
/// with the same games are equal whatever either has made, and a clone starts empty.
pub(crate) struct Derived<T>(std::sync::OnceLock<T>);

impl<T> Derived<T> {
    fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(f)
    }
}

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Derived(std::sync::OnceLock::new())
    }
}

impl<T> Clone for Derived<T> {
    fn clone(&self) -> Self {
        Derived::default()
    }
}

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> std::fmt::Debug for Derived<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Derived")
    }
}

/// The pattern index of a database: its games in the order of its files (the plain search's
/// order), each with its nodes, information and bitmaps.
#[derive(Debug, Clone, Default)]
pub struct PatternIndex {
    /// The games' files.
    pub(crate) files: names::Names,
    /// The games, file by file, each file's games in order.
    pub(crate) games: Games,
    /// The files that could not be read while building (their games are not in the index).
    pub(crate) failures: Vec<Failure>,
    /// The games' main-line bitmaps as columns, made at the first search that needs them.
    pub(crate) columns: Derived<columns::Columns>,
    /// The same over every variation.
    pub(crate) columns_all: Derived<columns::Columns>,
    /// The games' information as columns of text, for the filters.
    pub(crate) info_columns: Derived<infocols::InfoColumns>,
    /// Board sizes, counted at the first search.
    pub(crate) sizes: Derived<Sizes>,
    /// The file the games' cold parts are read from (an index opened from its sidecar).
    pub(crate) sidecar: Option<std::sync::Arc<store::Sidecar>>,
    /// How free patterns find their places ([`PatternIndex::set_dense_prune`]).
    pub(crate) dense_prune: dense::DenseSetting,
    /// The memory for cold parts and levels ([`PatternIndex::set_cache_limit`]).
    pub(crate) budget: store::Budget,
}

/// Equal indexes hold the same files, failures and games, wherever their cold parts are.
impl PartialEq for PatternIndex {
    fn eq(&self, other: &Self) -> bool {
        // The hot parts as the sidecar writes them: equal bytes, equal games.
        let hot = |g: Game<'_>| {
            let mut bytes = Vec::new();
            g.encode_hot(&mut bytes);
            bytes
        };
        let (mut a, mut b) = (
            store::ColdReader::new(self, false),
            store::ColdReader::new(other, false),
        );
        self.files == other.files
            && self.failures == other.failures
            && self.games.len() == other.games.len()
            && (0..self.games.len()).all(|i| {
                hot(self.games.at(i)) == hot(other.games.at(i))
                    && matches!((a.bytes(i), b.bytes(i)), (Ok(x), Ok(y)) if x == y)
            })
    }
}

impl PatternIndex {
    /// Builds the index of `files` (read and replayed in parallel, on rayon's current pool).
    pub fn build(files: &[CollectionFile]) -> PatternIndex {
        let parts = Self::build_files(files, 0);
        let mut index = PatternIndex {
            files: files
                .iter()
                .map(|f| f.source.path.display().to_string())
                .collect(),
            ..PatternIndex::default()
        };
        for (records, f) in parts {
            for g in &records {
                if let Err(e) = index.games.push_record(g) {
                    index.failures.push(Failure {
                        path: files[g.file as usize].source.path.clone(),
                        message: e.to_string(),
                    });
                }
            }
            index.failures.extend(f);
        }
        index.games.seal();
        index
    }

    /// The games of `files`, numbered as files `first_file`, `first_file + 1`...
    fn build_files(
        files: &[CollectionFile],
        first_file: usize,
    ) -> Vec<(Vec<GameRecord>, Vec<Failure>)> {
        files
            .par_iter()
            .enumerate()
            .map(|(fi, f)| {
                let fi = first_file + fi;
                let mut games = Vec::new();
                // A FIFO (or a device) was read once by the `.kpx` build; reading it again
                // would wait for a writer that never comes.
                if !std::fs::metadata(&f.source.path).is_ok_and(|m| m.is_file()) {
                    let failure = Failure {
                        path: f.source.path.clone(),
                        message: "not a regular file: its games cannot be read again".into(),
                    };
                    return (games, vec![failure]);
                }
                let failures = f.each_game(|source, tree| {
                    games.push(GameRecord::build(
                        source.id,
                        fi as u32,
                        source.game_in_file,
                        tree,
                    ));
                });
                (games, failures)
            })
            .collect()
    }

    /// Groups of duplicate games (equal Dyer signatures: the same game in any orientation),
    /// each group's numbers in order, groups in the order of their first game.
    pub fn duplicate_groups(&self) -> Vec<Vec<u64>> {
        let mut by_sig: std::collections::HashMap<&str, Vec<u64>> =
            std::collections::HashMap::new();
        for g in self.games.iter() {
            if let Some(d) = g.dyer() {
                by_sig.entry(d).or_default().push(g.id);
            }
        }
        let mut groups: Vec<Vec<u64>> = by_sig
            .into_values()
            .filter(|g| g.len() > 1)
            .map(|mut g| {
                g.sort_unstable();
                g
            })
            .collect();
        groups.sort();
        groups
    }

    /// The games whose information passes `filters`, leaving out those `skip` holds: counts,
    /// results, games per year, and one page of them in database order. A pass over the games'
    /// information only (no nodes are read), on rayon's current pool.
    pub fn filter_games(
        &self,
        filters: &crate::Filters,
        page: crate::scan::Page,
        skip: Option<&std::collections::HashSet<u64>>,
    ) -> crate::answer::GamesAnswer {
        use crate::answer::{GameRow, GamesAnswer, Tally, YearCount};
        use crate::filter::Winner;
        let mut answer = GamesAnswer {
            games_searched: 0,
            games: 0,
            results: Tally::default(),
            by_year: Vec::new(),
            no_year: 0,
            matches: Vec::new(),
            offset: page.offset,
        };
        let mut years: std::collections::BTreeMap<i32, u64> = std::collections::BTreeMap::new();
        let end = page.offset.saturating_add(page.limit);
        answer.games_searched = match skip {
            None => self.games.len() as u64,
            Some(skip) => (0..self.games.len())
                .into_par_iter()
                .filter(|&i| !skip.contains(&self.games.at(i).id))
                .count() as u64,
        };
        let passing = self.passing(filters, skip);
        let passed: Box<dyn Iterator<Item = usize>> = match &passing {
            None => Box::new(0..self.games.len()),
            Some(bits) => Box::new(columns::ones(bits)),
        };
        for g in passed.map(|i| self.games.at(i)) {
            let n = answer.games;
            answer.games += 1;
            let (year, w) = g.facts;
            answer.results.add(w == Winner::Black, w == Winner::White);
            match year {
                Some(y) => *years.entry(y).or_default() += 1,
                None => answer.no_year += 1,
            }
            if n >= page.offset && n < end {
                answer.matches.push(GameRow {
                    game: g.id,
                    info: g.info(),
                    file: self
                        .files
                        .get(g.file as usize)
                        .map(str::to_string)
                        .unwrap_or_default(),
                    game_in_file: g.game_in_file + 1,
                });
            }
        }
        answer.by_year = years
            .into_iter()
            .map(|(year, games)| YearCount {
                year,
                games,
                hits: games,
            })
            .collect();
        answer.results = answer.results.with_rates();
        answer
    }

    /// The board sides and sizes of the games.
    fn sizes(&self) -> &Sizes {
        self.sizes.get_or_init(|| Sizes::new(&self.games))
    }

    /// A bitset of the games (in the index's order) that pass `filters`, leaving out those
    /// `skip` holds; `None` when every game passes. The text conditions narrow the games
    /// through the information's columns first; `Filters::accepts` decides each one left.
    pub(crate) fn passing(
        &self,
        filters: &crate::Filters,
        skip: Option<&std::collections::HashSet<u64>>,
    ) -> Option<Vec<u64>> {
        if filters.is_empty() && skip.is_none() {
            return None;
        }
        let words = self.games.len().div_ceil(64);
        let mut bits = self
            .info_columns
            .get_or_init(|| infocols::InfoColumns::new(&self.games))
            .candidates(filters)
            .unwrap_or_else(|| {
                let mut all = vec![!0u64; words];
                if !self.games.len().is_multiple_of(64) {
                    all[words - 1] = (1 << (self.games.len() % 64)) - 1;
                }
                all
            });
        let unfiltered = filters.is_empty();
        let dates = filters.date_range();
        bits.par_chunks_mut(64)
            .enumerate()
            .for_each(|(part, words)| {
                for (w, word) in words.iter_mut().enumerate() {
                    let mut m = *word;
                    while m != 0 {
                        let j = m.trailing_zeros() as usize;
                        m &= m - 1;
                        let g = self.games.at((part * 64 + w) * 64 + j);
                        let out = skip.is_some_and(|s| s.contains(&g.id))
                            || !(unfiltered || filters.accepts_with(&g.view(), dates.as_ref()));
                        if out {
                            *word &= !(1 << j);
                        }
                    }
                }
            });
        Some(bits)
    }

    /// The number of games.
    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// Why the sidecar's games can no longer be read (it changed in place since it was
    /// opened, or a read failed): then searches left games out, and their answers are not
    /// whole. `None` while it is readable (or the index is in memory).
    pub fn unreadable(&self) -> Option<String> {
        let (path, why) = self.sidecar.as_ref().and_then(|s| s.broken())?;
        Some(format!("{}: {why}", path.display()))
    }

    /// The files that could not be read when the index was built, and the sidecar if its
    /// games could not be read during a search (changed in place since it was opened).
    pub fn failures(&self) -> Vec<Failure> {
        let mut all = self.failures.clone();
        if let Some((path, why)) = self.sidecar.as_ref().and_then(|s| s.broken()) {
            all.push(Failure {
                path: path.to_path_buf(),
                message: format!("{}: {why}", path.display()),
            });
        }
        all
    }

    /// Keeps at most `bytes` ([`DEFAULT_CACHE_BYTES`] unless set) of what searches read or
    /// make beyond the games' hot parts and stones' columns: the games' cold parts (nodes,
    /// final boards) read from the sidecar, and the columns of when points were first held
    /// and settled, which free patterns and repeated searches make and which may take three
    /// quarters of it (past that, blocks of games are searched without them: the same
    /// answers, more games pruned one by one). An index built in this process holds its cold
    /// parts all.
    /// Levels already made stay: set the limit before searching.
    pub fn set_cache_limit(&self, bytes: usize) {
        self.budget.set_limit(bytes);
        self.fit_cache();
    }

    /// The bytes of the columns of when points were first held and settled made so far
    /// (at most three quarters of [`PatternIndex::set_cache_limit`]'s limit).
    pub fn levels_bytes(&self) -> usize {
        self.budget.levels()
    }

    /// Gives the cold parts' cache what the budget leaves it.
    pub(crate) fn fit_cache(&self) {
        if let Some(s) = &self.sidecar {
            s.set_limit(self.budget.cache_room());
        }
    }

    /// How searches find a free pattern's places ([`DensePrune::Auto`] unless set): the
    /// answers are the same either way, only the time differs.
    pub fn set_dense_prune(&self, mode: DensePrune) {
        self.dense_prune.set(mode);
    }

    /// The index as the bytes of a sidecar file for a database of `fingerprint` (an error if
    /// the cold parts of an index opened from its sidecar cannot be read again).
    pub fn to_bytes(&self, fingerprint: u64) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        store::write(self, fingerprint, &mut out)?;
        Ok(out)
    }

    /// Reads a sidecar file's bytes: `Ok(None)` if it was made for another database (another
    /// fingerprint, or an older format), an error if it is damaged.
    pub fn from_bytes(bytes: &[u8], fingerprint: u64) -> Result<Option<PatternIndex>, String> {
        let err = |e: FormatError| e.to_string();
        let head = bytes.get(..28).unwrap_or(bytes);
        let Some(len) = store::header(head, fingerprint)? else {
            return Ok(None);
        };
        let mut b = Bytes::new(bytes);
        b.take(28).map_err(err)?;
        let len = usize::try_from(len).map_err(|_| "body length")?;
        let body = b.take(len).map_err(err)?;
        let sum = b.u64_le().map_err(err)?;
        if !b.is_empty() {
            return Err("bytes after the checksum".into());
        }
        if format::Checksum::of(body) != sum {
            return Err("checksum mismatch".into());
        }
        let mut b = Bytes::new(body);
        let nfiles = b.varint_u32().map_err(err)?;
        let mut files = names::Names::default();
        for _ in 0..nfiles {
            files.push(b.str().map_err(err)?);
        }
        let ngames = b.varint().map_err(err)?;
        // (A damaged count is not trusted with the room it asks for: a record is at least
        // a dozen bytes.)
        let mut games = Games::with_capacity(usize::try_from(ngames).unwrap_or(0).min(len / 12));
        for _ in 0..ngames {
            games.decode(&mut b, nfiles, None).map_err(err)?;
        }
        games.seal();
        if !b.is_empty() {
            return Err("bytes after the last game".into());
        }
        let index = PatternIndex {
            files,
            games,
            ..PatternIndex::default()
        };
        if let Some(e) = (0..index.games.len())
            .into_par_iter()
            .map_init(entry::CheckScratch::default, |scratch, i| {
                let g = index.games.at(i);
                let mut cold = store::ColdReader::new(&index, false);
                let checked = cold
                    .bytes(i)
                    .and_then(|b| g.check_cold(b, scratch).map_err(err));
                checked.err().map(|e| format!("game {}: {e}", g.id))
            })
            .find_map_first(|found| found)
        {
            return Err(e);
        }
        Ok(Some(index))
    }

    /// Opens the sidecar at `path` for searching: `Ok(None)` if there is none or it belongs to
    /// another database. Only the games' hot parts stay in memory; their cold parts are read
    /// from the file when a search walks them, through a bounded cache.
    pub fn load(path: &Path, fingerprint: u64) -> Result<Option<PatternIndex>, PatternIndexError> {
        store::open(path, fingerprint)
    }

    /// Writes the sidecar at `path` (atomically: a reader sees the old file or the new one).
    pub fn save(&self, path: &Path, fingerprint: u64) -> Result<(), PatternIndexError> {
        let mut f = kifu_fs::atomic::AtomicFile::create(path)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut f);
        let written = store::write(self, fingerprint, &mut w)
            .and_then(|()| std::io::Write::flush(&mut w).map_err(|e| e.to_string()));
        drop(w);
        written.map_err(|why| PatternIndexError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(why),
        })?;
        f.commit()?;
        Ok(())
    }
}

/// The column and row of each point of a board of `size`, by index (`row * n + col`), made
/// once per side: the builder and the search's walks read a change's column and row from it,
/// since dividing by the board's side for every change was a real division (tens of cycles)
/// each time.
pub(crate) fn point_xy(size: BoardSize) -> &'static [[u8; 2]] {
    static TABLES: [std::sync::OnceLock<Box<[[u8; 2]]>>; BoardSize::MAX as usize + 1] =
        [const { std::sync::OnceLock::new() }; BoardSize::MAX as usize + 1];
    let n = usize::from(size.get());
    TABLES[n].get_or_init(|| (0..n * n).map(|p| [(p % n) as u8, (p / n) as u8]).collect())
}

/// The checksum a sidecar ends with, of its body (the bytes after the 28-byte header and
/// before the checksum): for tools and fuzzers that make sidecars to be read past it.
pub fn sidecar_checksum(body: &[u8]) -> u64 {
    format::Checksum::of(body)
}

/// The sidecar of the index at `db`: `DB.kpp`.
pub fn sidecar_path(db: &Path) -> PathBuf {
    db.with_extension("kpp")
}

/// A fingerprint of a database's game list (each game's file and place in it, in order): a
/// sidecar made for another list is not used.
pub fn fingerprint(files: &[CollectionFile]) -> u64 {
    let mut hash = Fingerprint::default();
    for f in files {
        // A path's text as `display` gives it, without a copy when it is UTF-8.
        match f.source.path.to_str() {
            Some(text) => hash.file(text, &f.ids),
            None => hash.file(&f.source.path.display().to_string(), &f.ids),
        }
    }
    hash.value()
}

/// [`fingerprint`] fed a file at a time, so that a list need not be held to be hashed (the
/// sidecar's builder hashes the files as they are appended, [`index_fingerprint`] as it
/// reads them): hashed as it goes, the same hash as of all the bytes at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(format::fnv64(&[]))
    }
}

impl Fingerprint {
    /// Adds a file named `name` whose games have the numbers `ids` (by their place in it).
    pub(crate) fn file(&mut self, name: &str, ids: &[Option<u64>]) {
        let mut hash = format::fnv64_more(self.0, name.as_bytes());
        hash = format::fnv64_more(hash, &[0]);
        for id in ids {
            hash = format::fnv64_more(hash, &id.map_or(u64::MAX, |i| i).to_le_bytes());
        }
        self.0 = hash;
    }

    /// The fingerprint of the files added.
    pub(crate) fn value(self) -> u64 {
        self.0
    }
}

/// The [`fingerprint`] of the files of the index `db`, as
/// [`crate::collection::index_files`] lists them, read without holding that list when the
/// index is as a build writes it (each file's games together, files in the order of their
/// games, no path twice among the files with games): a million files' list was about 250 MB
/// at the end of `kifu pos index`. Any other index is listed whole.
pub fn index_fingerprint(
    db: &kifu_posdb::index::IndexReader,
) -> Result<u64, kifu_posdb::index::IndexError> {
    use std::hash::BuildHasher;
    let places = db.game_places()?;
    // The games in order must go through the files in order (a file's games together).
    if places.windows(2).any(|w| w[1].0 < w[0].0) {
        return Ok(fingerprint(&crate::collection::index_files(db)?));
    }
    let mut hash = Fingerprint::default();
    // The hashes of the paths with games: a path seen twice (or two paths whose hashes are
    // alike) is left to the whole list, which groups a path's files.
    let state = std::collections::hash_map::RandomState::new();
    let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let (mut at, mut twice) = (0usize, false);
    let mut ids: Vec<Option<u64>> = Vec::new();
    db.each_file_path(|n, path| {
        ids.clear();
        while let Some(&(_, place)) = places.get(at).filter(|p| p.0 == n) {
            let place = place as usize;
            if ids.len() <= place {
                ids.resize(place + 1, None);
            }
            ids[place] = Some(at as u64);
            at += 1;
        }
        // A file without games is not in the list.
        if ids.is_empty() || twice {
            return Ok(());
        }
        twice |= !seen.insert(state.hash_one(path));
        hash.file(path, &ids);
        Ok(())
    })?;
    if twice {
        return Ok(fingerprint(&crate::collection::index_files(db)?));
    }
    Ok(hash.value())
}

/// The unit tests' source of random words (xorshift64, from a fixed seed: a failure repeats).
#[cfg(test)]
pub(crate) fn xorshift() -> impl FnMut() -> u64 {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
mod tests;
