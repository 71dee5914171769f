//! Game information and the filters on it, combinable with any search or used alone.
//!
//! Names, event and free text match case-insensitively as substrings; dates compare as the
//! SGF `DT` text (ISO `YYYY-MM-DD`, so a prefix such as `1990` or `1990-05` is a range start or
//! end); ranges are inclusive.

pub use kifu_posdb::index::Winner;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The winner filter's names in JSON: `black`, `white`, `draw`, `unknown`.
mod winner_name {
    use super::Winner;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(w: &Option<Winner>, s: S) -> Result<S::Ok, S::Error> {
        match w {
            None => s.serialize_none(),
            Some(w) => s.serialize_str(super::winner_text(*w)),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Winner>, D::Error> {
        let Some(t) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        super::parse_winner(&t).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!("winner {t:?}: black, white, draw or unknown"))
        })
    }
}

/// `black`, `white`, `draw` or `unknown`.
pub fn winner_text(w: Winner) -> &'static str {
    match w {
        Winner::Black => "black",
        Winner::White => "white",
        Winner::Draw => "draw",
        Winner::Unknown => "unknown",
    }
}

/// The winner of a name (`black`/`b`, `white`/`w`, `draw`/`jigo`, `unknown`), any case.
pub fn parse_winner(text: &str) -> Option<Winner> {
    Some(match text.trim().to_ascii_lowercase().as_str() {
        "black" | "b" => Winner::Black,
        "white" | "w" => Winner::White,
        "draw" | "jigo" | "0" => Winner::Draw,
        "unknown" | "?" => Winner::Unknown,
        _ => return None,
    })
}

/// What a search knows of a game, from its root. The texts are shared (`Arc<str>`): an
/// opened index keeps one copy of each distinct name, date, event and result, since every
/// game's information stays in memory and the same few thousand names fill a collection.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameInfo {
    /// `PB`.
    pub black: Arc<str>,
    /// `PW`.
    pub white: Arc<str>,
    /// `DT`.
    pub date: Arc<str>,
    /// `EV`.
    pub event: Arc<str>,
    /// `RE`.
    pub result: Arc<str>,
    /// `HA` (0 when absent).
    pub handicap: u32,
    /// `KM`, when given.
    pub komi: Option<f64>,
    /// Board side.
    pub size: u8,
}

impl GameInfo {
    /// What the root of `game` says (`PB PW DT EV RE HA KM`, and the board size). A text
    /// property given twice in the root counts as its last occurrence says, as the replay
    /// reads a game's information for the full-board index (`kifu_go::replay::RootInfo`): one
    /// reading of a game's result, so that a lookup answered by the entries and one answered
    /// by the pattern search count the same wins.
    pub fn from_game(game: &kifu_sgf::GameTree<'_>) -> GameInfo {
        let root = game.root();
        let coll = root.collection();
        let value = |id: &str| {
            let pid = coll.prop_id(id)?;
            root.properties()
                .filter(|p| p.prop_id() == pid)
                .last()?
                .value()
        };
        let text = |id: &str| {
            let t = value(id).map(|v| v.simple_text()).unwrap_or_default();
            Arc::from(t.trim())
        };
        let komi = value("KM").and_then(|v| v.real());
        GameInfo {
            black: text("PB"),
            white: text("PW"),
            date: text("DT"),
            event: text("EV"),
            result: text("RE"),
            // (`HA`, as `SZ`, counts its first copy in the replay too.)
            handicap: root
                .number("HA")
                .and_then(|h| u32::try_from(h).ok())
                .unwrap_or(0),
            komi: komi.filter(|k| k.is_finite()),
            // A rectangular or unreadable size is no square board: 0 takes no pattern.
            size: match game.board_size() {
                Some((c, r)) if c == r => c.min(255) as u8,
                _ => 0,
            },
        }
    }

    /// The year of the date (its first four digits), if it has one.
    pub fn year(&self) -> Option<i32> {
        year_of(&self.date)
    }

    /// The information, borrowed.
    pub(crate) fn view(&self) -> InfoView<'_> {
        InfoView {
            black: &self.black,
            white: &self.white,
            date: &self.date,
            event: &self.event,
            result: &self.result,
            handicap: self.handicap,
            komi: self.komi,
            size: self.size,
        }
    }

    /// The winner its result names.
    pub fn winner(&self) -> Winner {
        Winner::from_result(&self.result)
    }
}

/// The year of a date (its first four digits), if it has one.
pub(crate) fn year_of(date: &str) -> Option<i32> {
    // The first four characters are ASCII digits exactly when the first four bytes are.
    let digits = date.trim().as_bytes().get(..4)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0i32, |y, &b| y * 10 + i32::from(b - b'0')),
    )
}

/// What [`Filters::validate`] finds wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// A date bound is not a date.
    #[error("{field} {value:?}: not a date (YYYY, YYYY-MM or YYYY-MM-DD)")]
    Date {
        /// `date_from` or `date_to`.
        field: &'static str,
        /// What was given.
        value: String,
    },
    /// A range's least is above its most.
    #[error("{field}: {least} is above {most}")]
    Range {
        /// `date`, `handicap` or `komi`.
        field: &'static str,
        /// The least.
        least: String,
        /// The most.
        most: String,
    },
}

impl FilterError {
    /// The field of [`Filters`] it is about (`date` for both bounds of the dates).
    pub fn field(&self) -> &'static str {
        match self {
            FilterError::Date { field, .. } | FilterError::Range { field, .. } => field,
        }
    }
}

/// A date as the filters compare it: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, zero-padded, whatever
/// separators (`-`, `.`, `/`) and widths the text used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateKey {
    bytes: [u8; 10],
    len: u8,
}

impl DateKey {
    /// The date a game's `DT` begins with (`1996-05-06,07` is the 6th; `2018.04.27` the 27th of
    /// April; `1996` a year): its year, then its month and day while they read as such. Empty
    /// when it does not begin with a four-digit year.
    pub(crate) fn of_game(text: &str) -> DateKey {
        Self::read(text.trim().as_bytes(), false).unwrap_or(DateKey {
            bytes: [0; 10],
            len: 0,
        })
    }

    /// A bound of a date range, which must be a date and nothing else (a real day of a real
    /// month: `2017-02-30` is none).
    pub(crate) fn of_bound(text: &str) -> Option<DateKey> {
        Self::read(text.trim().as_bytes(), true)
    }

    fn read(t: &[u8], whole: bool) -> Option<DateKey> {
        let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits(t) != 4 && (whole || digits(t) < 4) {
            return None;
        }
        let mut key = DateKey {
            bytes: *b"0000-00-00",
            len: 4,
        };
        key.bytes[..4].copy_from_slice(&t[..4]);
        let year: u32 = std::str::from_utf8(&t[..4]).ok()?.parse().ok()?;
        let mut at = 4;
        // Month, then day: a separator and one or two digits each.
        let mut month = 0;
        for part in 0..2 {
            let rest = &t[at..];
            let n = match rest.first() {
                Some(b'-' | b'.' | b'/') => digits(&rest[1..]),
                _ => break,
            };
            let value: u32 = match std::str::from_utf8(&rest[1..1 + n.min(2)]) {
                Ok(v) if (1..=2).contains(&n) => v.parse().ok()?,
                _ if whole => return None,
                _ => break,
            };
            let most = if part == 0 { 12 } else { days_in(year, month) };
            if value == 0 || value > most {
                if whole {
                    return None;
                }
                break;
            }
            if part == 0 {
                month = value;
            }
            let at_key = 5 + 3 * part;
            key.bytes[at_key] = b'0' + (value / 10) as u8;
            key.bytes[at_key + 1] = b'0' + (value % 10) as u8;
            key.len = (at_key + 2) as u8;
            at += 1 + n;
        }
        if whole && at != t.len() {
            return None;
        }
        Some(key)
    }

    /// Its bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl std::fmt::Display for DateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(std::str::from_utf8(self.as_bytes()).unwrap_or(""))
    }
}

/// Whether the first day of date key `a` comes no later than the last day of date key `b`
/// (a key of a year or month stands for all its days: its last day sorts as the key followed
/// by a byte above every digit and `-`).
fn until_end(a: &[u8], b: &[u8]) -> bool {
    match a.iter().zip(b).find(|(x, y)| x != y) {
        Some((x, y)) => x < y,
        // One is a prefix of the other: `a`'s first day is within `b`'s days or before.
        None => true,
    }
}

/// A date range's bounds, read ([`Filters::date_range`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DateRange {
    from: Option<DateKey>,
    to: Option<DateKey>,
    /// A bound is no date: no game passes.
    refused: bool,
}

impl DateRange {
    /// Whether a game whose date reads as `key` ([`DateKey::of_game`]: its bytes, empty
    /// when it has no date) passes. Bounds and dates are compared as their
    /// keys (`YYYY-MM-DD`, or a prefix of it), so that `2018.04.27` is the 27th of April
    /// 2018 as `2018-04-27` is; a date or bound of a year or month stands for all its days,
    /// and a game passes when some day of its date is in the range (a game of `2018` passes
    /// from `2018-06-01`, and up to `2018-01-01`); a game without a readable date passes no
    /// range.
    pub(crate) fn contains(&self, key: &[u8]) -> bool {
        !self.refused
            && !key.is_empty()
            && self.from.is_none_or(|f| until_end(f.as_bytes(), key))
            && self.to.is_none_or(|t| until_end(key, t.as_bytes()))
    }
}

/// The days of `month` (1-12) of `year`.
fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A game's information, borrowed: what the filters read, from a [`GameInfo`] or from a game
/// of the pattern index (whose texts are numbers into a table of them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct InfoView<'a> {
    /// `PB`.
    pub black: &'a str,
    /// `PW`.
    pub white: &'a str,
    /// `DT`.
    pub date: &'a str,
    /// `EV`.
    pub event: &'a str,
    /// `RE`.
    pub result: &'a str,
    /// `HA`.
    pub handicap: u32,
    /// `KM`.
    pub komi: Option<f64>,
    /// Board side.
    pub size: u8,
}

/// Conditions on games; empty conditions take every game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Filters {
    /// Either player's name contains this.
    pub player: Option<String>,
    /// Black's name contains this.
    pub black: Option<String>,
    /// White's name contains this.
    pub white: Option<String>,
    /// Dates from this on (compared as text, so `1990` means from 1990).
    pub date_from: Option<String>,
    /// Dates up to this (a prefix counts as its whole range: `1999` takes all of 1999).
    pub date_to: Option<String>,
    /// The event contains this.
    pub event: Option<String>,
    /// This colour won (or a draw, or unknown).
    #[serde(with = "winner_name")]
    pub winner: Option<Winner>,
    /// The result text contains this (`B+R`, `W+0.5`).
    pub result: Option<String>,
    /// Handicap at least this.
    pub handicap_min: Option<u32>,
    /// Handicap at most this.
    pub handicap_max: Option<u32>,
    /// Komi at least this.
    pub komi_min: Option<f64>,
    /// Komi at most this.
    pub komi_max: Option<f64>,
    /// Board side.
    pub size: Option<u8>,
    /// Players, event, date or result contains this.
    pub text: Option<String>,
}

fn contains(hay: &str, needle: &Option<String>) -> bool {
    match needle {
        None => true,
        // An ASCII needle is compared in place, byte by byte, as a filter over every game of a
        // database must be cheap: in Unicode lower case a non-ASCII letter stays non-ASCII
        // (its bytes never equal an ASCII byte), except the Kelvin sign (`k`) and the dotted
        // capital I (`i` and a combining dot), so a text holding one of them goes the long way.
        Some(n) if n.is_ascii() && !hay.contains(['\u{212A}', '\u{130}']) => {
            let (h, n) = (hay.as_bytes(), n.as_bytes());
            n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
        }
        Some(n) => hay.to_lowercase().contains(&n.to_lowercase()),
    }
}

impl Filters {
    /// Whether no condition is set.
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }

    /// Checks what conditions read from a command line or JSON may get wrong: a date bound
    /// that is not a date, a range whose least is above its most.
    pub fn validate(&self) -> Result<(), FilterError> {
        for (field, bound) in [("date_from", &self.date_from), ("date_to", &self.date_to)] {
            if let Some(b) = bound {
                if DateKey::of_bound(b).is_none() {
                    return Err(FilterError::Date {
                        field,
                        value: b.clone(),
                    });
                }
            }
        }
        let (from, to) = (
            self.date_from.as_deref().and_then(DateKey::of_bound),
            self.date_to.as_deref().and_then(DateKey::of_bound),
        );
        if let (Some(f), Some(t)) = (from, to) {
            // (`1999` to `1999` is the whole year: a bound stands for every day it names.)
            if !until_end(f.as_bytes(), t.as_bytes()) {
                return Err(FilterError::Range {
                    field: "date",
                    least: f.to_string(),
                    most: t.to_string(),
                });
            }
        }
        if let (Some(lo), Some(hi)) = (self.handicap_min, self.handicap_max) {
            if lo > hi {
                return Err(FilterError::Range {
                    field: "handicap",
                    least: lo.to_string(),
                    most: hi.to_string(),
                });
            }
        }
        if let (Some(lo), Some(hi)) = (self.komi_min, self.komi_max) {
            if lo > hi || lo.is_nan() || hi.is_nan() {
                return Err(FilterError::Range {
                    field: "komi",
                    least: lo.to_string(),
                    most: hi.to_string(),
                });
            }
        }
        Ok(())
    }

    /// [`DateRange::contains`] of the filters' range (every date without one), for the tests.
    #[cfg(test)]
    pub(crate) fn date_ok(&self, key: &[u8]) -> bool {
        self.date_range().is_none_or(|r| r.contains(key))
    }

    /// The date range's bounds read once, for the many games a search tests; `None` without
    /// a bound.
    pub(crate) fn date_range(&self) -> Option<DateRange> {
        if self.date_from.is_none() && self.date_to.is_none() {
            return None;
        }
        let bound = |b: &Option<String>| b.as_deref().map(DateKey::of_bound);
        let (from, to) = (bound(&self.date_from), bound(&self.date_to));
        Some(DateRange {
            // (A bound that is no date, which `validate` refuses, takes no game.)
            refused: matches!(from, Some(None)) || matches!(to, Some(None)),
            from: from.flatten(),
            to: to.flatten(),
        })
    }

    /// Whether `g` passes every condition.
    pub fn accepts(&self, g: &GameInfo) -> bool {
        self.accepts_with(&g.view(), self.date_range().as_ref())
    }

    /// [`Filters::accepts`] of borrowed information, the date range read already
    /// ([`Filters::date_range`]).
    pub(crate) fn accepts_with(&self, g: &InfoView<'_>, dates: Option<&DateRange>) -> bool {
        let player_ok = match &self.player {
            None => true,
            Some(_) => contains(g.black, &self.player) || contains(g.white, &self.player),
        };
        let text_ok = match &self.text {
            None => true,
            Some(_) => [g.black, g.white, g.event, g.date, g.result]
                .iter()
                .any(|f| contains(f, &self.text)),
        };
        let komi_ok = match (self.komi_min, self.komi_max, g.komi) {
            (None, None, _) => true,
            (_, _, None) => false,
            (lo, hi, Some(k)) => lo.is_none_or(|lo| k >= lo) && hi.is_none_or(|hi| k <= hi),
        };
        player_ok
            && contains(g.black, &self.black)
            && contains(g.white, &self.white)
            && dates.is_none_or(|r| r.contains(DateKey::of_game(g.date).as_bytes()))
            && contains(g.event, &self.event)
            && self
                .winner
                .is_none_or(|w| Winner::from_result(g.result) == w)
            && contains(g.result, &self.result)
            && self.handicap_min.is_none_or(|h| g.handicap >= h)
            && self.handicap_max.is_none_or(|h| g.handicap <= h)
            && komi_ok
            && self.size.is_none_or(|s| g.size == s)
            && text_ok
    }
}

#[cfg(test)]
mod tests {

    /// Dates are compared as days, whatever the record's separators; a bound must be a real
    /// date; a game without a readable date passes no range.
    #[test]
    fn dates_compare_as_days() {
        use super::{DateKey, FilterError, Filters};
        let game = |t: &str| DateKey::of_game(t).to_string();
        assert_eq!(game("2018.04.27"), "2018-04-27");
        assert_eq!(game(" 2001/2/3 "), "2001-02-03");
        assert_eq!(game("1996-05-06,07"), "1996-05-06");
        assert_eq!(game("1996-5"), "1996-05");
        assert_eq!(game("1996"), "1996");
        assert_eq!(game("2017-13-01"), "2017");
        assert_eq!(game("2017-02-30"), "2017-02");
        assert_eq!(game("19960506"), "1996");
        assert_eq!(game("Spring 1996"), "");
        assert_eq!(game("96-05-06"), "");
        let bound = |t: &str| DateKey::of_bound(t).map(|k| k.to_string());
        assert_eq!(bound("2017-1").as_deref(), Some("2017-01"));
        assert_eq!(bound("2016-02-29").as_deref(), Some("2016-02-29"));
        for bad in [
            "abc",
            "zzz",
            "2017-13",
            "2017-02-30",
            "2017-02-29",
            "2017-01-32",
            "17",
        ] {
            assert_eq!(bound(bad), None, "{bad}");
        }
        assert_eq!(bound("2017-01-01x"), None);
        let range = |from: &str, to: &str| Filters {
            date_from: (!from.is_empty()).then(|| from.to_string()),
            date_to: (!to.is_empty()).then(|| to.to_string()),
            ..Filters::default()
        };
        let day = DateKey::of_game("2018.04.27");
        assert!(range("2018-04-27", "2018-04-27").date_ok(day.as_bytes()));
        assert!(range("2018-4", "2018").date_ok(day.as_bytes()));
        assert!(!range("2018-04-28", "").date_ok(day.as_bytes()));
        assert!(!range("", "2018-04-26").date_ok(day.as_bytes()));
        assert!(!range("", "2030").date_ok(DateKey::of_game("?").as_bytes()));
        // A year stands for its days, on either side.
        let year = DateKey::of_game("2018");
        assert!(range("2018-01-01", "2018-12-31").date_ok(year.as_bytes()));
        assert!(range("2018-06", "").date_ok(year.as_bytes()));
        assert!(range("", "2018-01-01").date_ok(year.as_bytes()));
        assert!(!range("2019", "").date_ok(year.as_bytes()));
        assert!(!range("", "2017-12-31").date_ok(year.as_bytes()));
        assert!(range("", "").date_ok(DateKey::of_game("?").as_bytes()));
        assert!(range("1999", "1999").validate().is_ok());
        assert!(matches!(
            range("2000", "1999-12").validate(),
            Err(FilterError::Range { field: "date", .. })
        ));
        assert!(matches!(
            range("abc", "").validate(),
            Err(FilterError::Date {
                field: "date_from",
                ..
            })
        ));
        let komi = Filters {
            komi_min: Some(7.5),
            komi_max: Some(6.5),
            ..Filters::default()
        };
        assert_eq!(komi.validate().unwrap_err().field(), "komi");
    }

    /// A root that gives a text property twice (a `kifu sgf check` error, S028) reads as its
    /// last copy, as the replay's `RootInfo` (the full-board index's reading) takes it; `HA`
    /// as its first. Before session 45 the pattern index took the first `RE` here (a control
    /// character and spaces before `B+2.5`: unknown) where the `.kpx` took the last (Black),
    /// so a lookup answered by the pattern search counted no Black win where the entries
    /// counted one (found by the fuzz target `posdb_index_build`).
    #[test]
    fn a_repeated_root_property_reads_as_the_replay_reads_it() {
        use kifu_go::replay::{
            replay_text, InfoProperty, ReplayOptions, ReplaySink, RootInfo, Step,
        };
        #[derive(Default)]
        struct Roots(Vec<RootInfo>);
        impl ReplaySink for Roots {
            const GAME_INFO: bool = true;
            fn position(&mut self, _: &Step<'_>) {}
            fn game_info(&mut self, _: usize, info: &RootInfo) {
                self.0.push(info.clone());
            }
        }
        let text = "(;GM[1]SZ[9]PB[a]PW[c]RE[\u{1}  B+2.5]TM[9]PB[b]RE[B+2.5]KM[5]KM[6.5]\
                    HA[2]HA[3]DT[1999]DT[2001-02-03]EV[x]EV[y];B[ee];W[dd])";
        let tree = kifu_sgf::Collection::parse(text.as_bytes()).collection;
        let info = super::GameInfo::from_game(&tree.games().next().unwrap());
        let roots = replay_text(text.as_bytes(), &ReplayOptions::default(), Roots::default());
        let root = &roots.0[0];
        assert_eq!(&*info.black, root.text(InfoProperty::Black));
        assert_eq!(&*info.white, root.text(InfoProperty::White));
        assert_eq!(&*info.result, root.text(InfoProperty::Result));
        assert_eq!(&*info.date, root.text(InfoProperty::Date));
        assert_eq!(&*info.event, root.text(InfoProperty::Event));
        assert_eq!(i64::from(info.handicap), root.handicap());
        assert_eq!(
            (&*info.black, &*info.result, &*info.date, &*info.event),
            ("b", "B+2.5", "2001-02-03", "y")
        );
        assert_eq!((info.handicap, info.komi), (2, Some(6.5)));
        assert_eq!(info.winner(), super::Winner::Black);
    }

    #[test]
    fn contains_ignores_case_in_place_and_in_unicode() {
        let n = |s: &str| Some(s.to_string());
        assert!(contains("Honinbo Shusaku", &n("shusaku")));
        assert!(contains("Honinbo Shusaku", &n("NBO s")));
        assert!(contains("anything", &n("")));
        assert!(contains("anything", &None));
        assert!(!contains("Honinbo", &n("Honinbo Shusaku")));
        assert!(contains("Lee Sedol (9p)", &n("sEdOl")));
        assert!(contains("ÉCOLE", &n("école")));
        assert!(
            contains("\u{212A}ato", &n("kato")),
            "the Kelvin sign is a K in lower case"
        );
        assert!(!contains("Cho Chikun", &n("chikun ")));
        assert!(contains("李昌鎬 Lee Changho", &n("changho")));
        assert!(
            contains("\u{130}yama", &n("i")),
            "the dotted capital I lowers to an i"
        );
        assert!(contains("本因坊秀策", &n("秀策")));
    }
    use super::*;

    fn game() -> GameInfo {
        GameInfo {
            black: "Go Seigen".into(),
            white: "Kitani Minoru".into(),
            date: "1933-10-16".into(),
            event: "Jiji Shimpo".into(),
            result: "B+2".into(),
            handicap: 0,
            komi: None,
            size: 19,
        }
    }

    #[test]
    fn each_condition() {
        let g = game();
        let f = |f: Filters| f.accepts(&g);
        assert!(f(Filters::default()));
        assert!(f(Filters {
            player: Some("kitani".into()),
            ..Default::default()
        }));
        assert!(!f(Filters {
            black: Some("kitani".into()),
            ..Default::default()
        }));
        assert!(f(Filters {
            date_from: Some("1933".into()),
            date_to: Some("1933".into()),
            ..Default::default()
        }));
        assert!(!f(Filters {
            date_from: Some("1934".into()),
            ..Default::default()
        }));
        assert!(!f(Filters {
            date_to: Some("1933-09".into()),
            ..Default::default()
        }));
        assert!(f(Filters {
            winner: Some(Winner::Black),
            ..Default::default()
        }));
        assert!(!f(Filters {
            winner: Some(Winner::White),
            ..Default::default()
        }));
        assert!(f(Filters {
            text: Some("shimpo".into()),
            ..Default::default()
        }));
        assert!(
            !f(Filters {
                komi_min: Some(0.0),
                ..Default::default()
            }),
            "no komi given"
        );
        assert!(f(Filters {
            size: Some(19),
            handicap_max: Some(0),
            ..Default::default()
        }));
        assert_eq!(g.year(), Some(1933));
        assert_eq!(parse_winner("W"), Some(Winner::White));
        assert_eq!(parse_winner("nobody"), None);
    }
}
