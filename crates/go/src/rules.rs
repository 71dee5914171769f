//! Rule settings and the reasons a move can be illegal.

use crate::coord::{Color, Point};

/// Which moves are legal. The default, [`Rules::SIMPLE_KO`], is what SGF replay expects: suicide
/// illegal, simple ko only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Whether a move that leaves its own string without liberties (and captures nothing) is legal;
    /// when it is, the string is removed and counted as prisoners of the opponent.
    pub suicide_allowed: bool,
    /// Whether a move may not recreate any earlier board of the game (positional superko: the board
    /// alone, whoever is to play), checked with the 64-bit plain Zobrist hash of each board.
    pub positional_superko: bool,
}

impl Rules {
    /// Simple ko, suicide illegal: Japanese and Korean rules, and kifu's default.
    pub const SIMPLE_KO: Rules = Rules {
        suicide_allowed: false,
        positional_superko: false,
    };
    /// Chinese and AGA rules as far as legality goes: positional superko, suicide illegal.
    pub const CHINESE: Rules = Rules {
        suicide_allowed: false,
        positional_superko: true,
    };
    /// New Zealand and Tromp-Taylor rules: suicide allowed, positional superko.
    /// (New Zealand rules use situational superko; positional superko is the stricter approximation.)
    pub const NEW_ZEALAND: Rules = Rules {
        suicide_allowed: true,
        positional_superko: true,
    };
}

impl Rules {
    /// The rules named by an SGF `RU` value, as far as legality goes; `None` for names not known.
    /// Case and spaces, `-` and `_` are ignored: `Japanese`, `Korean` give [`Rules::SIMPLE_KO`];
    /// `Chinese`, `AGA`, `BGA`, `French` give [`Rules::CHINESE`]; `NZ`, `New Zealand`,
    /// `Tromp-Taylor`, `GOE`, `Ing` give [`Rules::NEW_ZEALAND`] (suicide allowed, superko).
    pub fn from_sgf_ruleset(name: &str) -> Option<Rules> {
        let key: String = name
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .flat_map(char::to_lowercase)
            .collect();
        match key.as_str() {
            "japanese" | "jp" | "korean" => Some(Rules::SIMPLE_KO),
            "chinese" | "cn" | "aga" | "bga" | "french" => Some(Rules::CHINESE),
            "nz" | "newzealand" | "tromptaylor" | "tt" | "goe" | "ing" => Some(Rules::NEW_ZEALAND),
            _ => None,
        }
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules::SIMPLE_KO
    }
}

/// Why a move is illegal. [`crate::Position::play_forced`] plays it anyway.
/// Its message names the point as SGF does (`dd`); [`IllegalMove::naming`] names it as the
/// caller does (`D16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum IllegalMove {
    /// The point is not on this board (a point built for a larger board).
    OffBoard {
        /// The point.
        point: Point,
    },
    /// A stone is already there.
    Occupied {
        /// The point.
        point: Point,
        /// The colour of the stone already there.
        by: Color,
    },
    /// The move retakes a ko at once.
    Ko {
        /// The ko point.
        point: Point,
    },
    /// The move would leave its own string without liberties and captures nothing.
    Suicide {
        /// The point.
        point: Point,
    },
    /// The move would recreate an earlier board (positional superko).
    Superko {
        /// The point.
        point: Point,
    },
}

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.naming(&self.point().to_string()))
    }
}

impl IllegalMove {
    /// What is wrong, the point named `point` (as the user wrote it, or in the user's
    /// coordinates).
    pub fn naming(&self, point: &str) -> String {
        match self {
            IllegalMove::OffBoard { .. } => format!("point {point} is off the board"),
            IllegalMove::Occupied { by, .. } => {
                format!(
                    "{point} is occupied by a {} stone",
                    by.to_string().to_lowercase()
                )
            }
            IllegalMove::Ko { .. } => format!("{point} retakes the ko at once"),
            IllegalMove::Suicide { .. } => format!("{point} is suicide"),
            IllegalMove::Superko { .. } => {
                format!("{point} repeats an earlier position (superko)")
            }
        }
    }

    /// The point of the move.
    pub fn point(&self) -> Point {
        match *self {
            IllegalMove::OffBoard { point }
            | IllegalMove::Occupied { point, .. }
            | IllegalMove::Ko { point }
            | IllegalMove::Suicide { point }
            | IllegalMove::Superko { point } => point,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ruleset_names() {
        assert_eq!(Rules::from_sgf_ruleset("Japanese"), Some(Rules::SIMPLE_KO));
        assert_eq!(Rules::from_sgf_ruleset("Chinese"), Some(Rules::CHINESE));
        assert_eq!(
            Rules::from_sgf_ruleset("New Zealand"),
            Some(Rules::NEW_ZEALAND)
        );
        assert_eq!(
            Rules::from_sgf_ruleset("tromp-taylor"),
            Some(Rules::NEW_ZEALAND)
        );
        assert_eq!(Rules::from_sgf_ruleset("GOE"), Some(Rules::NEW_ZEALAND));
        assert_eq!(Rules::from_sgf_ruleset("Foo"), None);
        assert_eq!(Rules::default(), Rules::SIMPLE_KO);
    }
}
