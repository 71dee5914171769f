//! The games of an index as searches hold them: a fixed-size [`GameEntry`] a game, whose texts,
//! bitmaps, Dyer signature and (for an index built in this process) cold part are in arenas the
//! games share ([`Games`]).
//!
//! Why arenas: every game's hot part stays in memory while the index is open, so its size a game
//! is what an index of millions of games costs. Held as owned values ([`GameRecord`]:
//! `GameInfo`'s five `Arc<str>`, a `Vec` of bitmaps, a `String` signature) a game took 208
//! bytes of structure and two allocations more. Here the texts are numbers into one table of
//! the distinct texts, the bitmaps an offset into one vector of words, the signature an offset
//! into one buffer of bytes: a million games 748-756 MB resident after opening before, 624 MB
//! after (`examples/open_timing.rs`).

use super::entry::{check_cold, CheckScratch, GameRecord, Hot};
use super::format::{Bytes, FormatError};
use crate::filter::{GameInfo, InfoView, Winner};
use std::collections::HashMap;
use std::sync::Arc;

/// One game of an opened index, its variable parts in its [`Games`]' arenas: read it through a
/// [`Game`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GameEntry {
    /// Its number in the database.
    pub id: u64,
    /// Its file (a number into [`super::PatternIndex`]'s files).
    pub file: u32,
    /// Its number in the file, from 0.
    pub game_in_file: u32,
    /// The year of its date and the winner its result names, read once: a search counts them
    /// for each game with a hit.
    pub facts: (Option<i32>, Winner),
    /// `HA` (0 when absent).
    pub handicap: u32,
    /// `KM`, when given.
    pub komi: Option<f64>,
    /// The board size of its information.
    pub size: u8,
    /// The board side of its nodes and bitmaps (0: not replayable, no nodes).
    pub side: u8,
    /// Units of the first and last nodes in the cold part's time tables: `1 << shift` nodes.
    pub shift: u8,
    /// Whether its bitmaps include a second pair over every variation.
    pub all: bool,
    /// Whether the cold part holds the time tables.
    pub times: bool,
    /// Whether the cold part is in [`Games`]' own buffer (else in the sidecar file).
    cold_here: bool,
    /// The length of its signature's text (0: none; a signature is never empty).
    dyer_len: u8,
    /// `PB PW DT EV RE`, numbers into [`Games`]' texts.
    texts: [u32; 5],
    /// Where its bitmaps begin in [`Games`]' words.
    words: u32,
    /// Where its signature begins in [`Games`]' signature bytes.
    dyer_at: u32,
    /// Its cold part's length.
    cold_len: u32,
    /// Where its cold part begins: in the sidecar (from the file's start) or in [`Games`]'
    /// buffer.
    cold_at: u64,
}

/// A game's cold part: where it is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ColdAt<'a> {
    /// In memory.
    Here(&'a [u8]),
    /// In the sidecar, `len` bytes from `offset`.
    File {
        /// From the start of the file.
        offset: u64,
        /// Its length.
        len: u32,
    },
}

/// The games of an index, in order, with the arenas their entries point into.
#[derive(Debug, Clone, Default)]
pub(crate) struct Games {
    entries: Vec<GameEntry>,
    /// The distinct texts of the games' information.
    texts: Vec<Arc<str>>,
    /// Each text's number, while games are added ([`Games::seal`] drops it).
    numbers: HashMap<Arc<str>, u32>,
    /// The games' bitmaps, one game's after another.
    words: Vec<u32>,
    /// The games' signatures' texts, one after another.
    dyers: Vec<u8>,
    /// The cold parts of games built in this process.
    cold: Vec<u8>,
}

/// One game of [`Games`], read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Game<'a> {
    entry: &'a GameEntry,
    games: &'a Games,
}

impl std::ops::Deref for Game<'_> {
    type Target = GameEntry;

    fn deref(&self) -> &GameEntry {
        self.entry
    }
}

/// What does not fit an arena's `u32` offsets (more than 4 G words or bytes).
const TOO_MANY: FormatError = FormatError::Bad("more games than an index can hold in memory");

impl Games {
    /// An empty list, with room for `n` games.
    pub(crate) fn with_capacity(n: usize) -> Games {
        Games {
            entries: Vec::with_capacity(n),
            ..Games::default()
        }
    }

    /// The number of games.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Game `i`.
    ///
    /// # Panics
    /// If there is no game `i` (as indexing a slice).
    pub(crate) fn at(&self, i: usize) -> Game<'_> {
        Game {
            entry: &self.entries[i],
            games: self,
        }
    }

    /// Game `i`, if there is one.
    pub(crate) fn get(&self, i: usize) -> Option<Game<'_>> {
        self.entries.get(i).map(|entry| Game { entry, games: self })
    }

    /// The games in order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = Game<'_>> + ExactSizeIterator {
        self.entries
            .iter()
            .map(move |entry| Game { entry, games: self })
    }

    /// The games `range`, in order.
    pub(crate) fn range(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl DoubleEndedIterator<Item = Game<'_>> + ExactSizeIterator {
        self.entries[range]
            .iter()
            .map(move |entry| Game { entry, games: self })
    }

    /// The number of `text`, added if it is new.
    fn text(&mut self, text: &str) -> Result<u32, FormatError> {
        if let Some(&n) = self.numbers.get(text) {
            return Ok(n);
        }
        let n = u32::try_from(self.texts.len()).map_err(|_| TOO_MANY)?;
        let t: Arc<str> = Arc::from(text);
        self.texts.push(t.clone());
        self.numbers.insert(t, n);
        Ok(n)
    }

    /// Adds a game whose hot part is `hot`, bitmaps `words` (little-endian bytes) and cold
    /// part `cold`.
    fn push_hot(
        &mut self,
        hot: &Hot<'_>,
        words: impl Iterator<Item = u32>,
        cold: ColdAt<'_>,
    ) -> Result<(), FormatError> {
        let texts = [
            self.text(hot.texts[0])?,
            self.text(hot.texts[1])?,
            self.text(hot.texts[2])?,
            self.text(hot.texts[3])?,
            self.text(hot.texts[4])?,
        ];
        let at = u32::try_from(self.words.len()).map_err(|_| TOO_MANY)?;
        self.words.extend(words);
        let (dyer_at, dyer_len) = match hot.dyer {
            Some(d) if !d.is_empty() => {
                let len = u8::try_from(d.len()).map_err(|_| FormatError::Bad("signature"))?;
                let at = u32::try_from(self.dyers.len()).map_err(|_| TOO_MANY)?;
                self.dyers.extend_from_slice(d.as_bytes());
                (at, len)
            }
            Some(_) => return Err(FormatError::Bad("signature")),
            None => (0, 0),
        };
        let (cold_here, cold_at, cold_len) = match cold {
            ColdAt::File { offset, len } => (false, offset, len),
            ColdAt::Here(bytes) => {
                let at = self.cold.len() as u64;
                self.cold.extend_from_slice(bytes);
                let len = u32::try_from(bytes.len()).map_err(|_| TOO_MANY)?;
                (true, at, len)
            }
        };
        self.entries.push(GameEntry {
            id: hot.id,
            file: hot.file,
            game_in_file: hot.game_in_file,
            facts: (
                crate::filter::year_of(hot.texts[2]),
                Winner::from_result(hot.texts[4]),
            ),
            handicap: hot.handicap,
            komi: hot.komi,
            size: hot.size,
            side: hot.side,
            shift: hot.shift,
            all: hot.all,
            times: hot.times,
            cold_here,
            dyer_len,
            texts,
            words: at,
            dyer_at,
            cold_len,
            cold_at,
        });
        Ok(())
    }

    /// Adds a record just built (its cold part kept in memory).
    pub(crate) fn push_record(&mut self, g: &GameRecord) -> Result<(), FormatError> {
        let hot = g.hot();
        let words = g.bitmaps.iter().copied().take(hot.bitmap_words());
        self.push_hot(&hot, words, ColdAt::Here(&g.cold))
    }

    /// Reads a game's record from `b` (of a sidecar of `files` files) and adds it. Its cold
    /// part is copied when `base` is `None`, else left where it is: at `base` plus its place
    /// in `b` (`b` reads a file from `base` on).
    pub(crate) fn decode(
        &mut self,
        b: &mut Bytes<'_>,
        files: u32,
        base: Option<u64>,
    ) -> Result<(), FormatError> {
        let (hot, words) = Hot::decode(b, files)?;
        let start = b.position();
        let mut bytes = b.clone();
        let len = hot.skip_cold(b)?;
        let cold = match base {
            None => ColdAt::Here(bytes.take(len)?),
            Some(base) => ColdAt::File {
                offset: base + start as u64,
                len: u32::try_from(len).map_err(|_| FormatError::Bad("record too long"))?,
            },
        };
        let words = words
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        self.push_hot(&hot, words, cold)
    }

    /// Done adding games: the texts' numbers are dropped and the arenas lose their slack.
    pub(crate) fn seal(&mut self) {
        self.numbers = HashMap::new();
        self.entries.shrink_to_fit();
        self.words.shrink_to_fit();
        self.dyers.shrink_to_fit();
        self.cold.shrink_to_fit();
    }
}

impl<'a> Game<'a> {
    /// Text `k` of `PB PW DT EV RE`.
    fn text(&self, k: usize) -> &'a Arc<str> {
        &self.games.texts[self.entry.texts[k] as usize]
    }

    /// Its information.
    pub(crate) fn info(&self) -> GameInfo {
        GameInfo {
            black: self.text(0).clone(),
            white: self.text(1).clone(),
            date: self.text(2).clone(),
            event: self.text(3).clone(),
            result: self.text(4).clone(),
            handicap: self.handicap,
            komi: self.komi,
            size: self.size,
        }
    }

    /// Its information, borrowed.
    pub(crate) fn view(&self) -> InfoView<'a> {
        InfoView {
            black: self.text(0),
            white: self.text(1),
            date: self.text(2),
            event: self.text(3),
            result: self.text(4),
            handicap: self.entry.handicap,
            komi: self.entry.komi,
            size: self.entry.size,
        }
    }

    /// Its Dyer signature's text.
    pub(crate) fn dyer(&self) -> Option<&'a str> {
        if self.entry.dyer_len == 0 {
            return None;
        }
        let at = self.entry.dyer_at as usize;
        let bytes = self
            .games
            .dyers
            .get(at..at + usize::from(self.entry.dyer_len))?;
        // Pushed from a `str` whole: always UTF-8.
        std::str::from_utf8(bytes).ok()
    }

    /// All its bitmap words: Black's rows and White's over the main line, then over every
    /// variation when it has them.
    fn words(&self) -> &'a [u32] {
        let at = self.entry.words as usize;
        let n = usize::from(self.entry.side) * if self.entry.all { 4 } else { 2 };
        self.games.words.get(at..at + n).unwrap_or_default()
    }

    /// The bitmaps of Black and White over the main line or every variation.
    pub(crate) fn bitmaps(&self, variations: bool) -> (&'a [u32], &'a [u32]) {
        let n = usize::from(self.side);
        let at = if variations && self.all { 2 * n } else { 0 };
        match self.words().get(at..at + 2 * n) {
            Some(b) => b.split_at(n),
            None => (&[], &[]),
        }
    }

    /// Where its cold part is.
    pub(crate) fn cold(&self) -> ColdAt<'a> {
        let e = self.entry;
        if e.cold_here {
            let at = e.cold_at as usize;
            ColdAt::Here(
                self.games
                    .cold
                    .get(at..at + e.cold_len as usize)
                    .unwrap_or_default(),
            )
        } else {
            ColdAt::File {
                offset: e.cold_at,
                len: e.cold_len,
            }
        }
    }

    /// Its hot part, borrowed.
    pub(crate) fn hot(&self) -> Hot<'a> {
        let e = self.entry;
        Hot {
            id: e.id,
            file: e.file,
            game_in_file: e.game_in_file,
            texts: [
                self.text(0),
                self.text(1),
                self.text(2),
                self.text(3),
                self.text(4),
            ],
            handicap: e.handicap,
            dyer: self.dyer(),
            komi: e.komi,
            size: e.size,
            side: e.side,
            all: e.all,
            times: e.times,
            shift: e.shift,
        }
    }

    /// Appends its hot part as the sidecar holds it.
    pub(crate) fn encode_hot(&self, out: &mut Vec<u8>) {
        super::entry::encode_numbers(self.id, self.file, out);
        self.hot().encode_rest(self.words(), out);
    }

    /// Appends its whole record: the hot part, then `cold` (its cold bytes).
    pub(crate) fn encode_record(&self, cold: &[u8], out: &mut Vec<u8>) {
        self.encode_record_as((self.id, self.file), cold, out);
    }

    /// [`Game::encode_record`] as game `id` of file `file` (a merge renumbers them).
    pub(crate) fn encode_record_as(&self, (id, file): (u64, u32), cold: &[u8], out: &mut Vec<u8>) {
        super::entry::encode_numbers(id, file, out);
        self.hot().encode_rest(self.words(), out);
        out.extend_from_slice(cold);
    }

    /// Checks its cold part (`bytes`): its layout and every node, as a search reads them.
    pub(crate) fn check_cold(
        &self,
        bytes: &[u8],
        scratch: &mut CheckScratch,
    ) -> Result<(), FormatError> {
        check_cold(bytes, self.side, (self.times, self.shift), scratch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's fixed part is what an index of millions of games pays for each: it stays
    /// within 96 bytes (208 as owned values).
    #[test]
    fn an_entry_stays_small() {
        assert!(
            std::mem::size_of::<GameEntry>() <= 96,
            "{}",
            std::mem::size_of::<GameEntry>()
        );
    }

    /// A game pushed and read back gives its hot part's bytes again, texts shared.
    #[test]
    fn a_game_reads_back_as_it_was_pushed() {
        let mut games = Games::default();
        let hot = |id, dyer| Hot {
            id,
            file: 1,
            game_in_file: 2,
            texts: ["Black", "White", "2001-02-03", "Event", "B+R"],
            handicap: 3,
            dyer,
            komi: Some(6.5),
            size: 2,
            side: 2,
            all: true,
            times: false,
            shift: 0,
        };
        let words = [1u32, 2, 3, 0, 1, 2, 3, 0];
        for (id, dyer) in [(7, Some("aabb")), (8, None)] {
            let mut want = Vec::new();
            super::super::entry::encode_numbers(id, 1, &mut want);
            hot(id, dyer).encode_rest(&words, &mut want);
            want.extend_from_slice(&[0, 0]);
            let mut b = Bytes::new(&want);
            games.decode(&mut b, 2, None).unwrap();
            let g = games.at(games.len() - 1);
            let mut got = Vec::new();
            g.encode_record(&[0, 0], &mut got);
            assert_eq!(got, want);
            assert_eq!(g.dyer(), dyer);
            assert_eq!(g.bitmaps(true), (&words[4..6], &words[6..8]));
            assert_eq!(g.facts, (Some(2001), Winner::Black));
            assert_eq!(&*g.info().event, "Event");
            assert!(matches!(g.cold(), ColdAt::Here(&[0, 0])));
        }
        assert_eq!(games.texts.len(), 5, "each text once");
    }
}
