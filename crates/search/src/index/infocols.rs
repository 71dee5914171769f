//! The games' information as columns of text, for filters over a whole database: each field
//! (Black, White, event, date, result) of every game in one buffer, ASCII letters in lower case,
//! a NUL after each game's. A "contains" filter is one SIMD substring search over the buffer
//! (memchr's `memmem`) instead of one comparison per game, and only the games it finds are
//! then tested by [`Filters::accepts`], which stays the one definition of what passes.
//!
//! Exactness: [`crate::filter`] compares an ASCII needle with ASCII case folded, in place; the
//! buffer holds exactly that folding, so a game is found here if and only if it passes there,
//! except for fields holding a character whose Unicode lower case is ASCII (the Kelvin sign,
//! the dotted capital I) or a NUL: those games are kept apart and always tested one by one, as
//! is every game when the needle is not ASCII.

use super::Games;
use crate::filter::{DateKey, InfoView};
use crate::Filters;
use memchr::memmem;
use rayon::prelude::*;

/// One field of every game.
#[derive(Debug, Default)]
struct Field {
    /// Each game's field, ASCII lower case, then a NUL.
    bytes: Vec<u8>,
    /// Where each game's field starts, and the end (`games + 1` entries).
    starts: Vec<usize>,
    /// Games whose field a byte search cannot judge (see the module's comment).
    apart: Vec<u32>,
}

impl Field {
    fn new(games: &Games, get: for<'a> fn(&InfoView<'a>) -> &'a str) -> Field {
        let mut f = Field::default();
        f.starts.reserve(games.len() + 1);
        for (i, g) in games.iter().enumerate() {
            let text = get(&g.view());
            f.starts.push(f.bytes.len());
            if text.contains(['\u{212A}', '\u{130}', '\0']) {
                f.apart.push(i as u32);
            } else {
                f.bytes.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
            }
            f.bytes.push(0);
        }
        f.starts.push(f.bytes.len());
        f
    }

    /// Marks the games whose field may contain `needle` (ASCII, no NUL): all that do, and
    /// those kept apart.
    fn mark(&self, needle: &[u8], out: &mut [u64]) {
        let set = |out: &mut [u64], g: usize| out[g / 64] |= 1 << (g % 64);
        for &g in &self.apart {
            set(out, g as usize);
        }
        if needle.is_empty() {
            (0..self.starts.len() - 1).for_each(|g| set(out, g));
            return;
        }
        let finder = memmem::Finder::new(needle);
        let mut at = 0;
        while let Some(found) = finder.find(&self.bytes[at..]) {
            let pos = at + found;
            // The game whose field holds `pos`; then on from the next game's field.
            let g = self.starts.partition_point(|&s| s <= pos) - 1;
            set(out, g);
            at = self.starts[g + 1];
        }
    }
}

/// The text fields of every game of an index, in the index's order.
#[derive(Debug)]
pub(crate) struct InfoColumns {
    black: Field,
    white: Field,
    event: Field,
    date: Field,
    result: Field,
    /// Each game's date as the filters compare it (`DateKey`), one after the other.
    dates: Vec<u8>,
    /// Where each game's date starts, and the end.
    date_starts: Vec<usize>,
    games: usize,
}

impl InfoColumns {
    /// The columns of `games`.
    pub(crate) fn new(games: &Games) -> InfoColumns {
        InfoColumns {
            black: Field::new(games, |i| i.black),
            white: Field::new(games, |i| i.white),
            event: Field::new(games, |i| i.event),
            date: Field::new(games, |i| i.date),
            result: Field::new(games, |i| i.result),
            dates: games
                .iter()
                .flat_map(|g| DateKey::of_game(g.view().date).as_bytes().to_vec())
                .collect(),
            date_starts: std::iter::once(0)
                .chain(games.iter().scan(0, |end, g| {
                    *end += DateKey::of_game(g.view().date).as_bytes().len();
                    Some(*end)
                }))
                .collect(),
            games: games.len(),
        }
    }

    /// A bitset (one bit per game, in the index's order) holding every game that may pass the
    /// text conditions and the date range of `filters` (a superset: each is then tested by
    /// `accepts`); `None` when they do not narrow the games (no such condition, or only
    /// non-ASCII text).
    pub(crate) fn candidates(&self, filters: &Filters) -> Option<Vec<u64>> {
        let conditions: [(&Option<String>, Vec<&Field>); 6] = [
            (&filters.player, vec![&self.black, &self.white]),
            (&filters.black, vec![&self.black]),
            (&filters.white, vec![&self.white]),
            (&filters.event, vec![&self.event]),
            (&filters.result, vec![&self.result]),
            (
                &filters.text,
                vec![
                    &self.black,
                    &self.white,
                    &self.event,
                    &self.date,
                    &self.result,
                ],
            ),
        ];
        let words = self.games.div_ceil(64);
        let mut all: Option<Vec<u64>> = None;
        for (needle, fields) in conditions {
            let Some(needle) = needle else { continue };
            if !needle.is_ascii() || needle.contains('\0') {
                continue;
            }
            let needle = needle.to_ascii_lowercase();
            let mut these = vec![0u64; words];
            for f in fields {
                f.mark(needle.as_bytes(), &mut these);
            }
            match &mut all {
                None => all = Some(these),
                Some(a) => a.iter_mut().zip(&these).for_each(|(a, t)| *a &= t),
            }
        }
        if let Some(range) = filters.date_range() {
            // The dates read one after the other (not through each game's record), in parallel.
            let mut these = vec![0u64; words];
            these.par_iter_mut().enumerate().for_each(|(w, word)| {
                for j in 0..64.min(self.games - w * 64) {
                    let g = w * 64 + j;
                    let date = &self.dates[self.date_starts[g]..self.date_starts[g + 1]];
                    if range.contains(date) {
                        *word |= 1 << j;
                    }
                }
            });
            match &mut all {
                None => all = Some(these),
                Some(a) => a.iter_mut().zip(&these).for_each(|(a, t)| *a &= t),
            }
        }
        all
    }
}
