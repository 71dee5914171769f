//! Looking at position files: statistics, the histogram by number of stones (with an SVG bar
//! chart), and scored files named after their program and ruleset, shown side by side.

use crate::id::PositionId;
use crate::io::{ReadError, ScoredReader};
use crate::record::{PositionRecord, ScoredPosition};
use kifu_go::Color;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;

/// Counts over the records of a position file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileStats {
    /// Whole records read.
    pub records: u64,
    /// Bytes of whole records.
    pub bytes: u64,
    /// Records with a PositionExtraInfo block.
    pub with_extra: u64,
    /// Records with Black to play.
    pub black_to_play: u64,
    /// Records with White to play.
    pub white_to_play: u64,
    /// Distinct ids.
    pub distinct_ids: u64,
    /// Records whose id came earlier in the file.
    pub duplicate_ids: u64,
    /// Records with a tiebreaker above 0.
    pub tiebroken: u64,
    /// Records by number of stones on the board.
    pub by_stones: BTreeMap<usize, u64>,
}

impl FileStats {
    /// Adds one record. Keeps a set of the ids seen (memory grows with the distinct ids).
    pub fn add(&mut self, r: &PositionRecord, seen: &mut HashSet<PositionId>) {
        self.records += 1;
        self.bytes += r.encoded_len() as u64;
        self.with_extra += u64::from(r.extra.is_some());
        match r.id.to_play {
            Color::Black => self.black_to_play += 1,
            Color::White => self.white_to_play += 1,
        }
        if seen.insert(r.id) {
            self.distinct_ids += 1;
        } else {
            self.duplicate_ids += 1;
        }
        self.tiebroken += u64::from(r.id.tiebreak > 0);
        *self.by_stones.entry(r.board.stone_count()).or_default() += 1;
    }

    /// The mean number of stones (0 for an empty file).
    pub fn mean_stones(&self) -> f64 {
        if self.records == 0 {
            return 0.0;
        }
        let sum: f64 = self
            .by_stones
            .iter()
            .map(|(&s, &n)| s as f64 * n as f64)
            .sum();
        sum / self.records as f64
    }
}

/// An SVG bar chart of positions by number of stones: one bar per stone count from the lowest to
/// the highest present (absent counts are empty slots), bars scaled to the largest.
pub fn histogram_svg(by_stones: &BTreeMap<usize, u64>) -> String {
    let (lo, hi) = match (by_stones.keys().next(), by_stones.keys().next_back()) {
        (Some(&lo), Some(&hi)) => (lo, hi),
        _ => (0, 0),
    };
    let slots = hi - lo + 1;
    let max = by_stones.values().copied().max().unwrap_or(0).max(1);
    let (bar, gap, height, left, bottom, top) = (8.0, 2.0, 200.0, 60.0, 30.0, 20.0);
    let width = left + slots as f64 * (bar + gap) + 20.0;
    let total_h = top + height + bottom;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" height=\"{total_h}\" \
         viewBox=\"0 0 {width} {total_h}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\">"
    );
    let _ = writeln!(
        s,
        "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{total_h}\" fill=\"white\"/>"
    );
    let base = top + height;
    let _ = writeln!(
        s,
        "<line x1=\"{left}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\" stroke=\"black\"/>",
        width - 10.0
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{max}</text>",
        left - 4.0,
        top + 4.0
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>",
        left - 4.0,
        base
    );
    for (&stones, &n) in by_stones {
        let i = stones - lo;
        let x = left + i as f64 * (bar + gap) + gap / 2.0;
        let h = height * n as f64 / max as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{x}\" y=\"{:.2}\" width=\"{bar}\" height=\"{h:.2}\" fill=\"#4a6fa5\"><title>{stones} stones: {n}</title></rect>",
            base - h
        );
    }
    // Stone-count labels every 10 slots.
    for stones in (lo..=hi).filter(|s| s % 10 == 0) {
        let x = left + (stones - lo) as f64 * (bar + gap) + gap / 2.0 + bar / 2.0;
        let _ = writeln!(
            s,
            "<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{stones}</text>",
            base + 14.0
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">stones on the board</text>",
        left + slots as f64 * (bar + gap) / 2.0,
        base + 27.0
    );
    s.push_str("</svg>\n");
    s
}

/// The program and ruleset a scored file's name gives: `gnugo_chinese.dat` is GNU Go under
/// Chinese rules. The name is split at its last `_`; a name without one is a program with an
/// empty ruleset.
pub fn program_and_ruleset(path: &Path) -> (String, String) {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('_') {
        Some((p, r)) => (p.to_string(), r.to_string()),
        None => (stem, String::new()),
    }
}

/// One scored file in memory, for showing scores beside positions.
#[derive(Debug, Clone)]
pub struct ScoreTable {
    /// The program, from the file name.
    pub program: String,
    /// The ruleset, from the file name.
    pub ruleset: String,
    scores: HashMap<PositionId, ScoredPosition>,
}

impl ScoreTable {
    /// Reads a scored file; the first record of an id is kept. A torn last record is an error
    /// here (kifu pos score repairs its own files).
    pub fn read(path: &Path, input: impl Read) -> Result<ScoreTable, ReadError> {
        let (program, ruleset) = program_and_ruleset(path);
        let mut scores = HashMap::new();
        for s in ScoredReader::new(input) {
            let s = s?;
            scores.entry(s.id).or_insert(s);
        }
        Ok(ScoreTable {
            program,
            ruleset,
            scores,
        })
    }

    /// `program x ruleset` (or the program alone).
    pub fn label(&self) -> String {
        if self.ruleset.is_empty() {
            self.program.clone()
        } else {
            format!("{} x {}", self.program, self.ruleset)
        }
    }

    /// The score of `id`, if the file has one.
    pub fn get(&self, id: &PositionId) -> Option<&ScoredPosition> {
        self.scores.get(id)
    }

    /// The scores of every id with this hash and side to play (any tiebreaker), lowest
    /// tiebreaker first.
    pub fn by_hash(&self, hash: u64, to_play: Color) -> Vec<ScoredPosition> {
        (0..=255u8)
            .filter_map(|tiebreak| {
                self.scores
                    .get(&PositionId {
                        hash,
                        tiebreak,
                        to_play,
                    })
                    .copied()
            })
            .collect()
    }

    /// Records held.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether the file had no records.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_chart() {
        assert_eq!(
            program_and_ruleset(Path::new("/x/gnugo_chinese.dat")),
            ("gnugo".to_string(), "chinese".to_string())
        );
        assert_eq!(
            program_and_ruleset(Path::new("fuego_l0_japanese.dat")),
            ("fuego_l0".to_string(), "japanese".to_string())
        );
        assert_eq!(
            program_and_ruleset(Path::new("scores.dat")),
            ("scores".to_string(), String::new())
        );
        let mut h = BTreeMap::new();
        h.insert(3usize, 10u64);
        h.insert(5, 5);
        let svg = histogram_svg(&h);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains("height=\"200.00\""));
        assert!(svg.contains("height=\"100.00\""));
        assert!(svg.contains("<title>5 stones: 5</title>"));
    }

    #[test]
    fn scores_by_hash() {
        let id = |t| PositionId {
            hash: 9,
            tiebreak: t,
            to_play: Color::Black,
        };
        let mut bytes = Vec::new();
        for t in [1u8, 0, 0] {
            bytes.extend_from_slice(
                &ScoredPosition {
                    id: id(t),
                    score: 4 + t,
                    confidence: 50,
                }
                .to_bytes(),
            );
        }
        let st = ScoreTable::read(Path::new("a_b.dat"), &bytes[..]).unwrap();
        assert_eq!(st.len(), 2);
        assert_eq!(st.label(), "a x b");
        let v = st.by_hash(9, Color::Black);
        assert_eq!(v.iter().map(|s| s.score).collect::<Vec<_>>(), vec![4, 5]);
        assert!(st.by_hash(9, Color::White).is_empty());
    }
}
