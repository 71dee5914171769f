//! The Polyglot book header (`../shared/specs/polyglot-book-header.txt`), read and written
//! the way pgheader 1.0.5 does.
//!
//! The header data is bytes 8-15 of the leading null-key records; the logical header is
//! that data up to the first NUL. It is a list of fields separated by `\n`:
//! `@PG@`, a version `N.M`, the number of predefined fields that follow (variants count
//! field + variants + later predefined fields), the number of variants, the variant names,
//! then free comment fields.
//!
//! Choices, following pgheader 1.0.5 where the spec is silent:
//! - Empty fields are skipped when parsing (pgheader splits with `strtok`), so a comment
//!   `a\n\nb` reads back as `a\nb`.
//! - Any version `N.M` (no leading zeros) is accepted, and predefined fields after the
//!   variants (from later versions) are skipped if they have no leading/trailing spaces.
//! - pgheader counts variants wrongly (it splits on the characters `0`, `x`, `a` after the
//!   first name), so `-v normal,crazyhouse` makes it write `4\n3\nnormal\ncrazyhouse`,
//!   which it then rejects. kifu writes the right count and, when reading, recognises a
//!   header whose count is exactly pgheader's wrong count for the names that follow and
//!   reads it as pgheader meant it.

use std::fmt;

/// The magic first field.
pub const MAGIC: &str = "@PG@";
/// The format version kifu writes.
pub const VERSION: &str = "1.0";
/// The comment pgheader writes when none is given.
pub const DEFAULT_COMMENT: &str = "(default comment created by pgheader)";

/// The variant names pgheader 1.0.5 knows (as `pgheader -l` prints them; `unknown` last).
pub const KNOWN_VARIANTS: [&str; 28] = [
    "normal",
    "wildcastle",
    "nocastle",
    "fischerandom",
    "bughouse",
    "crazyhouse",
    "losers",
    "suicide",
    "giveaway",
    "twokings",
    "kriegspiel",
    "atomic",
    "3check",
    "xiangqi",
    "shogi",
    "capablanca",
    "gothic",
    "falcon",
    "shatranj",
    "courier",
    "knightmate",
    "berolina",
    "janus",
    "caparandom",
    "cylinder",
    "super",
    "great",
    "unknown",
];

/// Why a header could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The book has no null records, or their data has no NUL.
    #[error("No header.")]
    NoHeader,
    /// The logical header does not follow the format.
    #[error("Bad header.")]
    BadHeader,
    /// A variant name with a space, an upper-case letter or a non-printable character.
    #[error(
        "bad variant name {0:?}: variant names are printable ASCII without spaces or upper case"
    )]
    BadVariant(String),
    /// More than 998 variants (pgheader's limit, kept for compatibility).
    #[error("too many variants ({0}; at most 998)")]
    TooManyVariants(usize),
}

/// A parsed header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Format version, `1.0` for headers kifu writes.
    pub version: String,
    /// Variant names (`normal`, `suicide`, ...).
    pub variants: Vec<String>,
    /// Free comment fields joined with `\n` (raw bytes; usually UTF-8).
    pub comment: Vec<u8>,
}

impl Header {
    /// A version 1.0 header.
    pub fn new(variants: Vec<String>, comment: impl Into<Vec<u8>>) -> Header {
        Header {
            version: VERSION.to_string(),
            variants,
            comment: comment.into(),
        }
    }

    /// The comment as text (invalid UTF-8 replaced).
    pub fn comment_text(&self) -> String {
        String::from_utf8_lossy(&self.comment).into_owned()
    }

    /// Parses a logical header (without the NUL).
    pub fn parse(logical: &[u8]) -> Result<Header, HeaderError> {
        parse_strict(logical).or_else(|e| parse_pgheader_miscount(logical).ok_or(e))
    }

    /// The logical header text as kifu writes it:
    /// `@PG@\n1.0\n<n+1>\n<n>\n<variants>\n<comment>` (byte for byte what pgheader writes
    /// whenever its variant count is right). Fails on a bad variant name.
    pub fn to_text(&self) -> Result<Vec<u8>, HeaderError> {
        for v in &self.variants {
            if !is_variant(v.as_bytes()) || v.is_empty() {
                return Err(HeaderError::BadVariant(v.clone()));
            }
        }
        if self.variants.len() > 998 {
            return Err(HeaderError::TooManyVariants(self.variants.len()));
        }
        Ok(build_text(
            &self.variants.join("\n"),
            self.variants.len(),
            &self.comment,
        ))
    }

    /// The header as null records, ready to put in front of the book's entries.
    pub fn to_records(&self) -> Result<Vec<u8>, HeaderError> {
        Ok(encode_records(&self.to_text()?))
    }
}

impl fmt::Display for Header {
    /// pgheader's `-s` layout: `Variants supported:`, the names, `Comment:`, the comment.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Variants supported:")?;
        writeln!(f, "{}", self.variants.join("\n"))?;
        writeln!(f, "Comment:")?;
        writeln!(f, "{}", self.comment_text())
    }
}

pub(crate) fn build_text(variants_joined: &str, count: usize, comment: &[u8]) -> Vec<u8> {
    let mut t = format!(
        "{MAGIC}\n{VERSION}\n{}\n{count}\n{variants_joined}\n",
        count + 1
    )
    .into_bytes();
    t.extend_from_slice(comment);
    t
}

/// Splits a logical header into null records: `ceil((len + 1) / 8)` records of 8 zero
/// bytes and 8 bytes of text, the last padded with NULs (so there is always a NUL).
/// Text after an embedded NUL would be invisible to readers, so it is cut there.
pub fn encode_records(text: &[u8]) -> Vec<u8> {
    let text = match text.iter().position(|&b| b == 0) {
        Some(i) => &text[..i],
        None => text,
    };
    let n = (text.len() + 1).div_ceil(8);
    let mut out = vec![0u8; n * 16];
    for (i, chunk) in text.chunks(8).enumerate() {
        out[i * 16 + 8..i * 16 + 8 + chunk.len()].copy_from_slice(chunk);
    }
    out
}

/// The logical header in `header_data` (the data of the null records): the bytes before
/// the first NUL. `Err(NoHeader)` when there is no data or no NUL.
pub fn logical_header(header_data: &[u8]) -> Result<&[u8], HeaderError> {
    match header_data.iter().position(|&b| b == 0) {
        Some(i) => Ok(&header_data[..i]),
        None => Err(HeaderError::NoHeader),
    }
}

fn fields(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| b == b'\n').filter(|f| !f.is_empty())
}

fn is_number(f: &[u8]) -> bool {
    f == b"0" || (!f.is_empty() && f[0] != b'0' && f.iter().all(u8::is_ascii_digit))
}

fn is_version(f: &[u8]) -> bool {
    let mut parts = f.splitn(2, |&b| b == b'.');
    matches!((parts.next(), parts.next()), (Some(a), Some(b)) if is_number(a) && is_number(b))
}

/// pgheader's variant test: printable ASCII, no space, no upper case.
pub(crate) fn is_variant(f: &[u8]) -> bool {
    f.iter()
        .all(|&c| c.is_ascii_graphic() && !c.is_ascii_uppercase())
}

/// A predefined field: no leading or trailing space.
fn is_predef(f: &[u8]) -> bool {
    f.first() != Some(&b' ') && f.last() != Some(&b' ')
}

fn small_number(f: &[u8]) -> Option<usize> {
    if !is_number(f) || f.len() > 9 {
        return None;
    }
    std::str::from_utf8(f).ok()?.parse().ok()
}

pub(crate) fn parse_strict(text: &[u8]) -> Result<Header, HeaderError> {
    let bad = HeaderError::BadHeader;
    let mut it = fields(text);
    if it.next() != Some(MAGIC.as_bytes()) {
        return Err(bad);
    }
    let version = it.next().filter(|v| is_version(v)).ok_or(bad.clone())?;
    let predefs = it.next().and_then(small_number).ok_or(bad.clone())?;
    let nvariants = it.next().and_then(small_number).ok_or(bad.clone())?;
    if predefs == 0 || predefs <= nvariants {
        return Err(bad);
    }
    // The count comes from the file: each variant needs a field of at least one byte,
    // so the text bounds how many there can be (no allocation from a hostile count).
    let mut variants = Vec::with_capacity(nvariants.min(text.len() / 2 + 1));
    for _ in 0..nvariants {
        let v = it.next().filter(|v| is_variant(v)).ok_or(bad.clone())?;
        variants.push(String::from_utf8_lossy(v).into_owned());
    }
    for _ in 0..predefs - 1 - nvariants {
        it.next().filter(|f| is_predef(f)).ok_or(bad.clone())?;
    }
    let comment = it.collect::<Vec<_>>().join(&b'\n');
    Ok(Header {
        version: String::from_utf8_lossy(version).into_owned(),
        variants,
        comment,
    })
}

/// The variant names pgheader 1.0.5 sees in a `\n`-joined list: the first name, then the
/// pieces of the rest split on the characters `0`, `x` and `a` (its `strtok` delimiter
/// string is `"0x0a"` instead of `"\x0a"`, so later newlines stay inside the pieces).
pub(crate) fn pgheader_tokens(joined: &[u8]) -> Vec<&[u8]> {
    let start = joined
        .iter()
        .position(|&b| b != b'\n')
        .unwrap_or(joined.len());
    let joined = &joined[start..];
    if joined.is_empty() {
        return Vec::new();
    }
    let (first, rest) = match joined.iter().position(|&b| b == b'\n') {
        Some(i) => (&joined[..i], &joined[i + 1..]),
        None => (joined, &[][..]),
    };
    let mut tokens = vec![first];
    tokens.extend(
        rest.split(|&b| matches!(b, b'0' | b'x' | b'a'))
            .filter(|p| !p.is_empty()),
    );
    tokens
}

/// The number of variants pgheader 1.0.5 writes for a `\n`-joined list: the first name, then
/// the pieces of the rest split on the characters `0`, `x` and `a` (its `strtok` delimiter
/// string is `"0x0a"` instead of `"\x0a"`): 3 for `normal\ncrazyhouse`.
pub fn pgheader_variant_count(joined: &[u8]) -> usize {
    pgheader_tokens(joined).len()
}

/// Reads a header written by pgheader with its wrong variant count: the count field is
/// pgheader's count of the variant fields that follow rather than their number.
fn parse_pgheader_miscount(text: &[u8]) -> Option<Header> {
    let all: Vec<&[u8]> = fields(text).collect();
    if all.len() < 4 || all[0] != MAGIC.as_bytes() || !is_version(all[1]) {
        return None;
    }
    let predefs = small_number(all[2])?;
    let declared = small_number(all[3])?;
    if predefs != declared + 1 {
        return None;
    }
    let names: Vec<&[u8]> = all[4..]
        .iter()
        .copied()
        .take_while(|f| is_variant(f))
        .collect();
    for k in (1..=names.len()).rev() {
        if k != declared && pgheader_variant_count(&names[..k].join(&b'\n')) == declared {
            return Some(Header {
                version: String::from_utf8_lossy(all[1]).into_owned(),
                variants: names[..k]
                    .iter()
                    .map(|v| String::from_utf8_lossy(v).into_owned())
                    .collect(),
                comment: all[4 + k..].join(&b'\n'),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_from_spec() {
        let h =
            Header::parse(b"@PG@\n1.0\n3\n2\nnormal\nsuicide\n(normally comments here)").unwrap();
        assert_eq!(h.variants, ["normal", "suicide"]);
        assert_eq!(h.comment, b"(normally comments here)");
        let h = Header::parse(b"@PG@\n1.1\n4\n2\nnormal\nsuicide\n[somenewfield]\n(c)").unwrap();
        assert_eq!(h.version, "1.1");
        assert_eq!(h.comment, b"(c)");
        assert_eq!(
            Header::parse(b"@PG@\n1.0\n2\n2\nnormal\nsuicide"),
            Err(HeaderError::BadHeader)
        );
        assert_eq!(
            Header::parse(b"@PG@\n01.0\n2\n1\nnormal"),
            Err(HeaderError::BadHeader)
        );
        assert_eq!(
            Header::parse(b"@PG@\n1.0\n0\n0\n"),
            Err(HeaderError::BadHeader)
        );
    }

    #[test]
    fn a_huge_declared_count_allocates_nothing_big() {
        // Found by fuzzing: "@PG@\n0.0\n808518888\n188888518" asked for 4.5 GB.
        assert!(parse_strict(b"@PG@\n0.0\n808518888\n188888518").is_err());
    }

    #[test]
    fn pgheader_count_bug() {
        assert_eq!(pgheader_variant_count(b"normal\nsuicide"), 2);
        assert_eq!(pgheader_variant_count(b"normal\natomic"), 2);
        assert_eq!(pgheader_variant_count(b"normal\ncrazyhouse"), 3);
        assert_eq!(pgheader_variant_count(b"xiangqi"), 1);
        assert_eq!(pgheader_variant_count(b""), 0);
        // What pgheader writes for `-v normal,crazyhouse`, read as it was meant.
        let h = Header::parse(
            b"@PG@\n1.0\n4\n3\nnormal\ncrazyhouse\n(default comment created by pgheader)",
        )
        .unwrap();
        assert_eq!(h.variants, ["normal", "crazyhouse"]);
        assert_eq!(h.comment, DEFAULT_COMMENT.as_bytes());
    }

    #[test]
    fn records_layout() {
        let r = encode_records(b"1234567");
        assert_eq!(r.len(), 16);
        let r = encode_records(b"12345678");
        assert_eq!(r.len(), 32);
        assert_eq!(&r[8..16], b"12345678");
        assert_eq!(&r[24..32], &[0u8; 8]);
        let h = Header::new(vec!["normal".into()], "x");
        assert_eq!(h.to_text().unwrap(), b"@PG@\n1.0\n2\n1\nnormal\nx");
        assert!(Header::new(vec!["Normal".into()], "").to_text().is_err());
    }
}
