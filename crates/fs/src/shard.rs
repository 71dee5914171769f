//! The contract of sharded jobs, shared by every heavy command (scoring, extraction, indexing,
//! book making) and by the schedulers that run them (Slurm array tasks, Kubernetes Indexed Jobs).
//!
//! A job split `N` ways runs as `N` tasks; task `I` (1-based, as people and `--shard I/N` count)
//! does the share of the work whose stable key (a position's hash, a game's number in the input)
//! modulo `N` is `I - 1`, so a task that is run again redoes exactly its own share. Each task
//! writes one *part*; a merge takes the `N` parts, in any order, and refuses to go on unless
//! every shard `1..=N` is there exactly once and complete ([`check_set`]).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// One share of a job: shard `index + 1` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// The most shards a job may be split into: far above any cluster's array size limit (Slurm's
/// default `MaxArraySize` is 1,001), far below what makes a merge's bookkeeping the problem.
pub const MAX_SHARDS: u64 = 1 << 20;

/// Why a shard or a set of parts is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// `--shard` text that is not `I/N` with `1 <= I <= N <= MAX_SHARDS`.
    #[error("{0:?}: expected I/N with 1 <= I <= N <= {MAX_SHARDS}, e.g. 1/4")]
    Syntax(String),
    /// A part of a merge is missing, repeated, incomplete or from another split.
    #[error("{0}")]
    Parts(String),
}

impl Shard {
    /// Shard `number` (1-based) of `count`.
    pub fn new(number: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 || count > MAX_SHARDS || number == 0 || number > count {
            return Err(ShardError::Syntax(format!("{number}/{count}")));
        }
        Ok(Shard {
            index: number - 1,
            count,
        })
    }

    /// The whole job as one shard (1/1).
    pub fn whole() -> Shard {
        Shard { index: 0, count: 1 }
    }

    /// The 1-based number, as `--shard` and the scheduler's task ids count.
    pub fn number(self) -> u64 {
        self.index + 1
    }

    /// The 0-based index.
    pub fn index(self) -> u64 {
        self.index
    }

    /// The number of shards.
    pub fn count(self) -> u64 {
        self.count
    }

    /// Whether the work item with stable key `key` belongs to this shard.
    pub fn contains(self, key: u64) -> bool {
        key % self.count == self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.number(), self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Syntax(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i = i.trim().parse::<u64>().map_err(|_| bad())?;
        let n = n.trim().parse::<u64>().map_err(|_| bad())?;
        Shard::new(i, n).map_err(|_| bad())
    }
}

/// What a merge knows of one part before it reads it: where it is, which shard it says it is
/// (from its own header or sidecar; `None` if it is not a part of a sharded run), and whether the
/// task that wrote it finished.
#[derive(Debug, Clone)]
pub struct PartInfo {
    /// The part's file.
    pub path: PathBuf,
    /// The shard it was made as.
    pub shard: Option<Shard>,
    /// Whether its task finished its whole share.
    pub complete: bool,
}

/// Checks that `parts` are one whole split: each is a shard, all of the same `N`, every shard
/// `1..=N` is there exactly once, and each is complete. Returns `N`. Errors name the part.
pub fn check_set(parts: &[PartInfo]) -> Result<u64, ShardError> {
    let err = |m: String| Err(ShardError::Parts(m));
    let Some(first) = parts.first() else {
        return err("no parts to merge".to_string());
    };
    let Some(first_shard) = first.shard else {
        return err(format!(
            "{}: not a part of a sharded run (made without --shard)",
            first.path.display()
        ));
    };
    let n = first_shard.count();
    let mut seen: Vec<Option<&PathBuf>> = vec![None; usize::try_from(n).unwrap_or(usize::MAX)];
    for part in parts {
        let p = part.path.display();
        let Some(shard) = part.shard else {
            return err(format!(
                "{p}: not a part of a sharded run (made without --shard)"
            ));
        };
        if shard.count() != n {
            return err(format!(
                "{p}: shard {shard}, but {} is shard {first_shard}: parts of different splits",
                first.path.display()
            ));
        }
        if !part.complete {
            return err(format!(
                "{p}: shard {shard} is not complete (its task stopped early): run it again"
            ));
        }
        let slot = &mut seen[shard.index() as usize];
        if let Some(other) = slot {
            return err(format!(
                "{p}: shard {shard} is given twice (also {})",
                other.display()
            ));
        }
        *slot = Some(&part.path);
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .take(10)
        .map(|(i, _)| format!("{}/{n}", i + 1))
        .collect();
    if !missing.is_empty() {
        return err(format!(
            "missing shard{} {} of {n}",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, shard: Option<(u64, u64)>, complete: bool) -> PartInfo {
        PartInfo {
            path: PathBuf::from(name),
            shard: shard.map(|(i, n)| Shard::new(i, n).unwrap()),
            complete,
        }
    }

    #[test]
    fn parse() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard::new(2, 4).unwrap());
        assert_eq!(" 1 / 1 ".parse::<Shard>().unwrap(), Shard::whole());
        for bad in [
            "0/4",
            "5/4",
            "1/0",
            "a/4",
            "4",
            "",
            "1/2/3",
            "-1/4",
            "1/2000000",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let s = Shard::new(3, 4).unwrap();
        assert_eq!(s.to_string(), "3/4");
        assert_eq!((s.index(), s.number(), s.count()), (2, 3, 4));
        assert!(s.contains(6) && s.contains(2) && !s.contains(3));
    }

    #[test]
    fn sets() {
        let ok = [part("b", Some((2, 2)), true), part("a", Some((1, 2)), true)];
        assert_eq!(check_set(&ok), Ok(2));
        let e = |parts: &[PartInfo]| check_set(parts).unwrap_err().to_string();
        assert_eq!(e(&[]), "no parts to merge");
        assert!(e(&[part("a", None, true)]).starts_with("a: not a part"));
        assert_eq!(
            e(&[part("a", Some((1, 2)), true)]),
            "missing shard 2/2 of 2"
        );
        assert!(
            e(&[part("a", Some((1, 2)), true), part("b", Some((1, 3)), true)])
                .starts_with("b: shard 1/3, but a is shard 1/2")
        );
        assert!(
            e(&[part("a", Some((1, 2)), true), part("b", Some((1, 2)), true)])
                .starts_with("b: shard 1/2 is given twice (also a)")
        );
        assert!(e(&[
            part("a", Some((1, 2)), true),
            part("b", Some((2, 2)), false)
        ])
        .starts_with("b: shard 2/2 is not complete"));
    }
}

/// A part's checksum in its JSON metadata (a counts file's trailer, a part's manifest): 16
/// lowercase hexadecimal digits in a string, not a JSON number, since JSON tools (`jq`,
/// JavaScript) round integers past 2^53 and a checksum read back rounded would blame intact
/// data. For `#[serde(default, with = "kifu_fs::shard::hex_checksum")]` on an `Option<u64>`.
pub mod hex_checksum {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `Some(v)` as `"%016x"` (`None` is skipped by the field's
    /// `skip_serializing_if`, or written as null).
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.serialize_str(&format!("{v:016x}")),
            None => s.serialize_none(),
        }
    }

    /// Reads 16 hexadecimal digits (or null).
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        let Some(text) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        if text.len() != 16 {
            return Err(serde::de::Error::custom(format!(
                "checksum {text:?}: 16 hexadecimal digits"
            )));
        }
        u64::from_str_radix(&text, 16)
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("checksum {text:?}: not hexadecimal")))
    }
}
