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

    /// Whether a game of date `date` (trimmed; compared as bytes, as text is) passes the date
    /// range.
    pub(crate) fn date_ok(&self, date: &[u8]) -> bool {
        let from_ok = self
            .date_from
            .as_deref()
            .is_none_or(|f| date >= f.trim().as_bytes());
        // A prefix bound takes its whole range: `1999` ends after `1999-12-31`.
        let to_ok = self.date_to.as_deref().is_none_or(|t| {
            let t = t.trim().as_bytes();
            date <= t || date.starts_with(t)
        });
        from_ok && to_ok
    }

    /// Whether `g` passes every condition.
    pub fn accepts(&self, g: &GameInfo) -> bool {
        self.accepts_view(&g.view())
    }

    /// [`Filters::accepts`] of borrowed information.
    pub(crate) fn accepts_view(&self, g: &InfoView<'_>) -> bool {
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
            && self.date_ok(g.date.trim().as_bytes())
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
