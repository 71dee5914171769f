//! Turning the bytes of a file into UTF-8 text before parsing.
//!
//! SGF's structure characters are ASCII, but in some charsets (Shift-JIS, Big5,
//! GBK) a `]` or `\` byte can be the second byte of a character, and UTF-16
//! puts NUL bytes everywhere. So, like SGFC, kifu decodes the whole file first
//! and parses the UTF-8 result. The charset is chosen in this order:
//!
//! 1. a byte-order mark (UTF-8, UTF-16 LE, UTF-16 BE) wins;
//! 2. UTF-16 without a BOM is recognised by its NUL bytes (an SGF file starts
//!    with ASCII text, so every other byte is 0);
//! 3. the first `CA[...]` value in the file (in any node: real files put it
//!    outside the root) names the charset, through the WHATWG label list of
//!    `encoding_rs` (so `ISO-8859-1` means windows-1252, as browsers do);
//!    an unknown name falls back to step 4 with warning S072;
//! 4. no `CA`: valid UTF-8 is UTF-8 (this covers ASCII); otherwise chardetng
//!    guesses and warning S101 names its guess.
//!
//! A declared charset is honoured even when the text happens to be valid UTF-8
//! in another reading, with one exception: a file that declares a single-byte
//! Latin charset but is valid UTF-8 with non-ASCII characters is read as UTF-8,
//! because such files are nearly always UTF-8 written by a program that put a
//! fixed `CA[ISO-8859-1]` in its header (SGFC's default does the same).
//! Bytes illegal in the chosen charset become U+FFFD with warning S071.

use crate::diag::{Code, Diagnostic};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};
use std::borrow::Cow;

/// The result of decoding: UTF-8 text and the charset it came from.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The text as UTF-8 (borrowed when the input was already UTF-8 without a BOM).
    pub text: Cow<'a, [u8]>,
    /// The charset the input was read in (its WHATWG name, e.g. `UTF-8`, `GBK`).
    pub charset: &'static str,
    /// Problems found while decoding (no offsets: they concern the whole file).
    pub diagnostics: Vec<Diagnostic>,
}

/// Decodes `bytes` to UTF-8 as the module docs describe.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    let mut diagnostics = Vec::new();
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return finish(&bytes[bom_len..], enc, diagnostics);
    }
    if let Some(enc) = sniff_utf16(bytes) {
        return finish(bytes, enc, diagnostics);
    }
    let declared = find_ca(bytes);
    if let Some(label) = declared {
        match label_to_encoding(trim(label)) {
            Some(enc) => {
                let latin = enc == WINDOWS_1252
                    || enc.name().starts_with("ISO-8859")
                    || enc.name().starts_with("windows-125");
                if latin && !bytes.is_ascii() && std::str::from_utf8(bytes).is_ok() {
                    return finish_valid_utf8(bytes, diagnostics);
                }
                // A UTF-16 label on a file that has no NULs cannot be right.
                let enc = if enc == UTF_16LE || enc == UTF_16BE {
                    UTF_8
                } else {
                    enc
                };
                // A declaration the bytes contradict (illegal sequences) loses to
                // UTF-8 when the bytes are valid UTF-8.
                if enc != UTF_8
                    && !bytes.is_ascii()
                    && std::str::from_utf8(bytes).is_ok()
                    && enc
                        .decode_without_bom_handling_and_without_replacement(bytes)
                        .is_none()
                {
                    return finish_valid_utf8(bytes, diagnostics);
                }
                return finish(bytes, enc, diagnostics);
            }
            None => diagnostics.push(Diagnostic::global(
                Code::UnknownCharset,
                format!(
                    "unknown charset '{}' in CA: the charset is detected instead",
                    String::from_utf8_lossy(trim(label))
                ),
            )),
        }
    }
    if std::str::from_utf8(bytes).is_ok() {
        return finish_valid_utf8(bytes, diagnostics);
    }
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(bytes, true);
    let enc = det.guess(None, chardetng::Utf8Detection::Allow);
    if declared.is_none() {
        diagnostics.push(Diagnostic::global(
            Code::CharsetDetected,
            format!("no CA and the text is not UTF-8: read as {}", enc.name()),
        ));
    }
    finish(bytes, enc, diagnostics)
}

/// Decodes with `enc`, then replaces NUL bytes with spaces as SGFC does
/// (S022): no value keeps a NUL, so written text never looks like UTF-16.
fn finish<'a>(
    bytes: &'a [u8],
    enc: &'static Encoding,
    diagnostics: Vec<Diagnostic>,
) -> Decoded<'a> {
    replace_nuls(decode_with(bytes, enc, diagnostics))
}

/// [`finish`] for bytes already checked to be UTF-8 (not checked again).
fn finish_valid_utf8(bytes: &[u8], diagnostics: Vec<Diagnostic>) -> Decoded<'_> {
    replace_nuls(Decoded {
        text: Cow::Borrowed(bytes),
        charset: UTF_8.name(),
        diagnostics,
    })
}

/// See [`finish`].
fn replace_nuls(mut d: Decoded<'_>) -> Decoded<'_> {
    if let Some(at) = memchr::memchr(0, &d.text) {
        let mut owned = std::mem::take(&mut d.text).into_owned();
        for b in owned.iter_mut().filter(|b| **b == 0) {
            *b = b' ';
        }
        d.text = Cow::Owned(owned);
        d.diagnostics.push(Diagnostic::new(
            Code::NulByte,
            at,
            "NUL byte (binary data?) replaced with a space",
        ));
    }
    d
}

fn decode_with<'a>(
    bytes: &'a [u8],
    enc: &'static Encoding,
    mut diagnostics: Vec<Diagnostic>,
) -> Decoded<'a> {
    if enc == UTF_8 {
        match std::str::from_utf8(bytes) {
            Ok(_) => {
                return Decoded {
                    text: Cow::Borrowed(bytes),
                    charset: UTF_8.name(),
                    diagnostics,
                }
            }
            Err(_) => {
                let s = String::from_utf8_lossy(bytes).into_owned();
                diagnostics.push(Diagnostic::global(
                    Code::IllegalByteSequence,
                    "bytes that are not UTF-8 were replaced with U+FFFD",
                ));
                return Decoded {
                    text: Cow::Owned(s.into_bytes()),
                    charset: UTF_8.name(),
                    diagnostics,
                };
            }
        }
    }
    let (s, had_errors) = enc.decode_without_bom_handling(bytes);
    if had_errors {
        diagnostics.push(Diagnostic::global(
            Code::IllegalByteSequence,
            format!(
                "bytes that are not {} were replaced with U+FFFD",
                enc.name()
            ),
        ));
    }
    Decoded {
        text: Cow::Owned(s.into_owned().into_bytes()),
        charset: enc.name(),
        diagnostics,
    }
}

/// WHATWG labels plus the names SGF files use that WHATWG lacks.
fn label_to_encoding(label: &[u8]) -> Option<&'static Encoding> {
    // Most files that declare a charset declare this one: skip the label table.
    if label.eq_ignore_ascii_case(b"UTF-8") {
        return Some(UTF_8);
    }
    Encoding::for_label(label).or_else(|| {
        let l = String::from_utf8_lossy(label)
            .to_ascii_lowercase()
            .replace('_', "-");
        let name: &[u8] = match l.as_str() {
            "euc-cn" | "cp936" | "ms936" | "gb-2312" | "gb2312-80" => b"gbk",
            "utf16le" | "utf-16-le" => b"utf-16le",
            "utf16be" | "utf-16-be" => b"utf-16be",
            "utf8" | "utf-8-bom" => b"utf-8",
            "cp932" | "ms932" | "windows-31j" | "sjis" | "shiftjis" | "shift-jis" => b"shift_jis",
            "cp949" | "uhc" | "ks-c-5601" | "ksc5601" => b"euc-kr",
            "cp950" | "big-5" => b"big5",
            "latin-1" | "iso8859-1" | "iso-8859-1:1987" => b"windows-1252",
            _ => return None,
        };
        Encoding::for_label(name)
    })
}

/// UTF-16 without a BOM: in the first 64 bytes, NULs stand at every odd (LE) or
/// every even (BE) position and nowhere else.
fn sniff_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(64) & !1];
    if head.len() < 4 {
        return None;
    }
    let even_nul = head.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd_nul = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    let half = head.len() / 2;
    if odd_nul == half && even_nul == 0 {
        Some(UTF_16LE)
    } else if even_nul == half && odd_nul == 0 {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// The raw value of the first `CA[...]` property in the file: an identifier
/// that is exactly `CA`, outside any value, followed by optional white space
/// and `[`. Values are skipped as SGF delimits them (up to an unescaped `]`),
/// so text such as `C[set CA[UTF-8] in the root]` is not taken for the property.
///
/// Candidates are found with a substring search (most files have none, or one
/// in the root), and the structure is followed only as far as each candidate.
fn find_ca(bytes: &[u8]) -> Option<&[u8]> {
    let n = bytes.len();
    // How far the structure has been followed, and whether that point is inside a value.
    let (mut pos, mut in_value) = (0usize, false);
    // Built once: setting up a searcher costs about as much as searching a
    // small file.
    static CA: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"CA"));
    for at in CA.find_iter(bytes) {
        // Already passed: the structure was followed to the end of a value that holds `at`
        // (found by fuzzing: a second `CA[` inside the value that held the first).
        if at < pos {
            continue;
        }
        // Follow the structure up to `at`.
        let mut inside = false;
        while pos <= at {
            if !in_value {
                match memchr::memchr(b'[', &bytes[pos..at]) {
                    None => {
                        pos = at;
                        break;
                    }
                    Some(k) => {
                        pos += k + 1;
                        in_value = true;
                    }
                }
            } else {
                // The end of the value that began before `at`.
                let mut j = pos;
                let end = loop {
                    match memchr::memchr2(b']', b'\\', &bytes[j.min(n)..]) {
                        None => break n,
                        Some(e) if bytes[j + e] == b'\\' => j += e + 2,
                        Some(e) => break j + e,
                    }
                };
                pos = (end + 1).min(n);
                in_value = end >= n;
                if end > at {
                    inside = true;
                    break;
                }
            }
        }
        if inside || in_value {
            continue;
        }
        let alone_before = at == 0 || !bytes[at - 1].is_ascii_alphabetic();
        if !alone_before || bytes.get(at + 2).is_some_and(|b| b.is_ascii_alphabetic()) {
            continue;
        }
        let mut j = at + 2;
        while j < n && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if bytes.get(j) != Some(&b'[') {
            continue;
        }
        let start = j + 1;
        let end = memchr::memchr(b']', &bytes[start..]).map(|e| start + e)?;
        return Some(&bytes[start..end]);
    }
    None
}

fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &s[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_borrowed() {
        let d = decode(b"(;CA[UTF-8]C[caf\xc3\xa9])");
        assert!(matches!(d.text, Cow::Borrowed(_)));
        assert_eq!(d.charset, "UTF-8");
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn bom_is_stripped() {
        let d = decode(b"\xef\xbb\xbf(;)");
        assert_eq!(&*d.text, b"(;)");
        let d = decode(b"\xff\xfe(\0;\0)\0");
        assert_eq!(&*d.text, b"(;)");
        assert_eq!(d.charset, "UTF-16LE");
    }

    #[test]
    fn utf16_without_bom() {
        let d = decode(b"\0(\0;\0C\0[\0x\0]\0)");
        assert_eq!(&*d.text, b"(;C[x])");
    }

    #[test]
    fn declared_gb2312_is_decoded() {
        // "中" in GB2312 is D6 D0.
        let d = decode(b"(;CA[gb2312]C[\xd6\xd0])");
        assert_eq!(d.charset, "GBK");
        assert_eq!(std::str::from_utf8(&d.text).unwrap(), "(;CA[gb2312]C[中])");
    }

    #[test]
    fn latin1_declared_but_utf8_content_is_utf8() {
        let d = decode("(;CA[ISO-8859-1]C[café])".as_bytes());
        assert_eq!(d.charset, "UTF-8");
        let d = decode(b"(;CA[ISO-8859-1]C[caf\xe9])");
        assert_eq!(
            std::str::from_utf8(&d.text).unwrap(),
            "(;CA[ISO-8859-1]C[café])"
        );
    }

    #[test]
    fn undeclared_non_utf8_is_detected_with_a_warning() {
        let d = decode(b"(;C[caf\xe9 cr\xe8me br\xfbl\xe9e])");
        assert_eq!(d.diagnostics[0].code, Code::CharsetDetected);
        assert_eq!(
            std::str::from_utf8(&d.text).unwrap(),
            "(;C[café crème brûlée])"
        );
    }

    #[test]
    fn labels_whatwg_lacks() {
        let d = decode(b"(;CA[EUC-CN]C[\xd6\xd0])");
        assert_eq!(std::str::from_utf8(&d.text).unwrap(), "(;CA[EUC-CN]C[中])");
        assert!(d.diagnostics.is_empty());
    }

    #[test]
    fn a_declaration_the_bytes_contradict_loses_to_utf8() {
        let d = decode("(;CA[ISO-2022-JP]C[café])".as_bytes());
        assert_eq!(d.charset, "UTF-8");
        assert_eq!(
            std::str::from_utf8(&d.text).unwrap(),
            "(;CA[ISO-2022-JP]C[café])"
        );
    }

    #[test]
    fn ca_inside_a_value_is_not_the_property() {
        let d = decode("(;C[write CA[ISO-2022-JP\\] in the root]PB[café])".as_bytes());
        assert_eq!(d.charset, "UTF-8");
        // Found by fuzzing: two `CA[` inside one value; the second is not a property either.
        let d = decode("(;C[a CA[GB23 b CA[GB2312]PB[峯])".as_bytes());
        assert_eq!(d.charset, "UTF-8");
        assert_eq!(
            std::str::from_utf8(&d.text).unwrap(),
            "(;C[a CA[GB23 b CA[GB2312]PB[峯])"
        );
        // Found by fuzzing: a Big5 character that swallows a ']' puts "CA[Big5"
        // inside a value of the decoded text; written as UTF-8, it must stay text.
        let d = decode("(;FF[弼CA[Big5]GM[1])".as_bytes());
        assert_eq!(d.charset, "UTF-8");
    }

    #[test]
    fn unknown_label_warns() {
        let d = decode(b"(;CA[unknown]C[x])");
        assert_eq!(d.diagnostics[0].code, Code::UnknownCharset);
        assert_eq!(d.charset, "UTF-8");
    }
}
