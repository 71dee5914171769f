//! What kifu knows about each property: value type, context, and which file
//! formats define it (FF\[4\] plus the FF\[1\] and FF\[3\] properties that FF\[4\]
//! dropped). Unknown identifiers are not errors: they are kept as they are.

/// The type of one value, as the FF\[4\] specification names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// `[]` only.
    None,
    /// An integer, optionally signed.
    Number,
    /// A decimal number.
    Real,
    /// `1` (normal) or `2` (emphasised).
    Double,
    /// `B` or `W`.
    Color,
    /// Text where line breaks become spaces.
    SimpleText,
    /// Formatted text.
    Text,
    /// A point (two letters for Go).
    Point,
    /// A move: a point, or `[]` (or `tt` on boards up to 19x19) for a pass.
    Move,
    /// `point:point` (AR, LN).
    PointPair,
    /// `point:simpletext` (LB).
    PointText,
    /// `simpletext:simpletext` (AP).
    TextPair,
    /// `number` or `number:number` (SZ).
    Size,
    /// `[]` or `number:simpletext` (FG).
    Figure,
    /// FF\[1\]/FF\[3\] `triple` (like Double).
    Triple,
    /// The type is not known: the value is kept as raw text.
    Unknown,
}

/// Where a property may stand (FF\[4\] "property type").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Only in the root node.
    Root,
    /// Once on a path, in the game-info node.
    GameInfo,
    /// Setup (AB, AW, AE, PL): not together with a move.
    Setup,
    /// Move (B, W, KO, MN, timing): not together with setup.
    Move,
    /// Node annotation (C, N, DM, GB, …).
    NodeAnnotation,
    /// Move annotation (BM, DO, IT, TE): only with a move.
    MoveAnnotation,
    /// Markup (CR, MA, SQ, TR, SL, LB, AR, LN, DD).
    Markup,
    /// No restriction (FG, PM, VW, TB, TW, and obsolete properties).
    Free,
}

/// How many values a property takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// Exactly one.
    One,
    /// One or more (a "list of").
    List,
    /// Zero or more: a single `[]` means the empty list ("elist of").
    EList,
}

/// Facts about one known property identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PropInfo {
    /// The identifier, upper-case letters only.
    pub id: &'static str,
    /// A short English name.
    pub name: &'static str,
    /// The value type.
    pub value: ValueType,
    /// How many values.
    pub arity: Arity,
    /// Where it may stand.
    pub context: Context,
    /// Whether FF\[4\] defines it (false: an FF\[1\]/FF\[3\] property FF\[4\] dropped).
    pub ff4: bool,
    /// Whether only Go defines it (GM\[1\]).
    pub go_only: bool,
}

const fn p(
    id: &'static str,
    name: &'static str,
    value: ValueType,
    arity: Arity,
    context: Context,
    ff4: bool,
    go_only: bool,
) -> PropInfo {
    PropInfo {
        id,
        name,
        value,
        arity,
        context,
        ff4,
        go_only,
    }
}

use Arity::*;
use Context::*;
use ValueType as V;

/// Every property kifu knows, sorted by identifier.
pub static PROPERTIES: &[PropInfo] = TABLE;

const TABLE: &[PropInfo] = &[
    p("AB", "add black", V::Point, List, Setup, true, false),
    p("AE", "add empty", V::Point, List, Setup, true, false),
    p(
        "AN",
        "annotation by",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
    p("AP", "application", V::TextPair, One, Root, true, false),
    p("AR", "arrow", V::PointPair, List, Markup, true, false),
    p("AW", "add white", V::Point, List, Setup, true, false),
    p("B", "black move", V::Move, One, Move, true, false),
    p("BL", "black time left", V::Real, One, Move, true, false),
    p(
        "BM",
        "bad move",
        V::Double,
        One,
        MoveAnnotation,
        true,
        false,
    ),
    p(
        "BR",
        "black rank",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
    p("BS", "black species", V::Number, One, Free, false, false),
    p(
        "BT",
        "black team",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
    p("C", "comment", V::Text, One, NodeAnnotation, true, false),
    p("CA", "charset", V::SimpleText, One, Root, true, false),
    p("CH", "check mark", V::Triple, One, Free, false, false),
    p("CP", "copyright", V::SimpleText, One, GameInfo, true, false),
    p("CR", "circle", V::Point, List, Markup, true, false),
    p("DD", "dim points", V::Point, EList, Markup, true, false),
    p("DG", "diagram", V::Unknown, List, Free, false, false),
    p(
        "DM",
        "even position",
        V::Double,
        One,
        NodeAnnotation,
        true,
        false,
    ),
    p("DO", "doubtful", V::None, One, MoveAnnotation, true, false),
    p("DT", "date", V::SimpleText, One, GameInfo, true, false),
    p("EL", "evaluation", V::Number, One, Free, false, false),
    p("EV", "event", V::SimpleText, One, GameInfo, true, false),
    p("EX", "expected move", V::Move, One, Free, false, false),
    p("FF", "file format", V::Number, One, Root, true, false),
    p("FG", "figure", V::Figure, One, Free, true, false),
    p(
        "GB",
        "good for black",
        V::Double,
        One,
        NodeAnnotation,
        true,
        false,
    ),
    p("GC", "game comment", V::Text, One, GameInfo, true, false),
    p("GM", "game", V::Number, One, Root, true, false),
    p("GN", "game name", V::SimpleText, One, GameInfo, true, false),
    p(
        "GW",
        "good for white",
        V::Double,
        One,
        NodeAnnotation,
        true,
        false,
    ),
    p("HA", "handicap", V::Number, One, GameInfo, true, true),
    p("HO", "hotspot", V::Double, One, NodeAnnotation, true, false),
    p("ID", "game id", V::SimpleText, One, GameInfo, false, false),
    p(
        "IT",
        "interesting",
        V::None,
        One,
        MoveAnnotation,
        true,
        false,
    ),
    p("KI", "integer komi", V::Number, One, GameInfo, false, true),
    p("KM", "komi", V::Real, One, GameInfo, true, true),
    p("KO", "ko", V::None, One, Move, true, false),
    p("L", "letters", V::Point, List, Markup, false, false),
    p("LB", "label", V::PointText, List, Markup, true, false),
    p("LN", "line", V::PointPair, List, Markup, true, false),
    p("LT", "lose on time", V::None, One, GameInfo, false, false),
    p("M", "marked points", V::Point, List, Markup, false, false),
    p("MA", "mark", V::Point, List, Markup, true, false),
    p("MN", "move number", V::Number, One, Move, true, false),
    p(
        "N",
        "node name",
        V::SimpleText,
        One,
        NodeAnnotation,
        true,
        false,
    ),
    p("OB", "black moves left", V::Number, One, Move, true, false),
    p(
        "OM",
        "moves per overtime",
        V::Number,
        One,
        GameInfo,
        false,
        false,
    ),
    p("ON", "opening", V::SimpleText, One, GameInfo, true, false),
    p(
        "OP",
        "overtime length",
        V::Real,
        One,
        GameInfo,
        false,
        false,
    ),
    p("OT", "overtime", V::SimpleText, One, GameInfo, true, false),
    p(
        "OV",
        "operator overhead",
        V::Real,
        One,
        GameInfo,
        false,
        false,
    ),
    p("OW", "white moves left", V::Number, One, Move, true, false),
    p(
        "PB",
        "black player",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
    p("PC", "place", V::SimpleText, One, GameInfo, true, false),
    p("PL", "player to play", V::Color, One, Setup, true, false),
    p("PM", "print move mode", V::Number, One, Free, true, false),
    p(
        "PW",
        "white player",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
    p("RE", "result", V::SimpleText, One, GameInfo, true, false),
    p("RG", "region", V::Point, List, Free, false, true),
    p("RO", "round", V::SimpleText, One, GameInfo, true, false),
    p("RU", "rules", V::SimpleText, One, GameInfo, true, false),
    p("SC", "secure stones", V::Point, List, Free, false, true),
    p("SE", "self-test moves", V::Point, List, Free, false, false),
    p("SI", "sigma", V::Triple, One, Free, false, false),
    p("SL", "selected", V::Point, List, Markup, true, false),
    p("SO", "source", V::SimpleText, One, GameInfo, true, false),
    p("SQ", "square", V::Point, List, Markup, true, false),
    p("ST", "style", V::Number, One, Root, true, false),
    p("SZ", "size", V::Size, One, Root, true, false),
    p("TB", "black territory", V::Point, EList, Free, true, true),
    p("TC", "territory count", V::Number, One, Free, false, true),
    p("TE", "tesuji", V::Double, One, MoveAnnotation, true, false),
    p("TM", "time limit", V::Real, One, GameInfo, true, false),
    p("TR", "triangle", V::Point, List, Markup, true, false),
    p("TW", "white territory", V::Point, EList, Free, true, true),
    p("UC", "unclear", V::Double, One, NodeAnnotation, true, false),
    p("US", "user", V::SimpleText, One, GameInfo, true, false),
    p("V", "value", V::Real, One, NodeAnnotation, true, false),
    p("VW", "view", V::Point, EList, Free, true, false),
    p("W", "white move", V::Move, One, Move, true, false),
    p("WL", "white time left", V::Real, One, Move, true, false),
    p(
        "WR",
        "white rank",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
    p("WS", "white species", V::Number, One, Free, false, false),
    p(
        "WT",
        "white team",
        V::SimpleText,
        One,
        GameInfo,
        true,
        false,
    ),
];

/// All known identifiers have one or two letters: a direct table indexed by
/// the letters (0 = none, 1..=26 = A..Z) finds them without comparing strings.
const fn short_key(id: &[u8]) -> Option<usize> {
    match id {
        [a] if a.is_ascii_uppercase() => Some((*a - b'A' + 1) as usize * 27),
        [a, b] if a.is_ascii_uppercase() && b.is_ascii_uppercase() => {
            Some((*a - b'A' + 1) as usize * 27 + (*b - b'A' + 1) as usize)
        }
        _ => None,
    }
}

const fn build_index() -> [u8; 27 * 27] {
    let mut t = [u8::MAX; 27 * 27];
    let mut i = 0;
    while i < TABLE.len() {
        match short_key(TABLE[i].id.as_bytes()) {
            Some(k) => t[k] = i as u8,
            None => panic!("known identifiers have one or two letters"),
        }
        i += 1;
    }
    t
}

static INDEX: [u8; 27 * 27] = build_index();

/// The position of a known identifier in [`PROPERTIES`].
#[inline]
pub fn index(id: &[u8]) -> Option<usize> {
    match INDEX[short_key(id)?] {
        u8::MAX => None,
        i => Some(i as usize),
    }
}

/// For an identifier the reader has seen to be upper-case letters only (no
/// letter checks; anything else finds nothing): its position in
/// [`PROPERTIES`] and [`texty_at`] of it, in one table load.
#[inline(always)]
pub(crate) fn lookup_upper(id: &[u8]) -> (Option<usize>, bool) {
    let k = match *id {
        [a] => (a.wrapping_sub(b'@') as usize) * 27,
        [a, b] => (a.wrapping_sub(b'@') as usize) * 27 + b.wrapping_sub(b'@') as usize,
        _ => return (None, true),
    };
    match INDEX_TEXTY.get(k) {
        Some(&i) if i != u8::MAX => (Some((i & 0x7f) as usize), i & 0x80 != 0),
        _ => (None, true),
    }
}

/// [`INDEX`] with bit 7 set for the properties [`texty_at`] accepts.
static INDEX_TEXTY: [u8; 27 * 27] = {
    let mut t = build_index();
    let mut k = 0;
    while k < t.len() {
        if t[k] != u8::MAX && TEXTY[t[k] as usize] {
            t[k] |= 0x80;
        }
        k += 1;
    }
    t
};

const _: () = assert!(TABLE.len() < 0x7f, "INDEX_TEXTY keeps the index in 7 bits");

/// Looks up a property by its (upper-case) identifier.
#[inline]
pub fn info(id: &[u8]) -> Option<&'static PropInfo> {
    index(id).map(|i| &TABLE[i])
}

const fn build_texty() -> [bool; TABLE.len()] {
    let mut t = [false; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        t[i] = matches!(
            TABLE[i].value,
            V::Text | V::SimpleText | V::PointText | V::TextPair | V::Figure | V::Unknown
        );
        i += 1;
    }
    t
}

static TEXTY: [bool; TABLE.len()] = build_texty();

/// Whether text-like values of the property at `index` in [`PROPERTIES`]
/// may hold an unescaped `]` that the reader should try to keep as text
/// (never for points, moves or numbers). `None` is an unknown identifier,
/// whose values may be anything.
#[inline]
pub(crate) fn texty_at(index: Option<usize>) -> bool {
    match index {
        Some(i) => TEXTY[i],
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in PROPERTIES.windows(2) {
            assert!(w[0].id < w[1].id, "{} before {}", w[0].id, w[1].id);
        }
        assert_eq!(info(b"LB").unwrap().value, ValueType::PointText);
        assert!(info(b"XX").is_none());
        assert!(!info(b"KI").unwrap().ff4);
    }
}
