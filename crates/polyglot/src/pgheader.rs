//! `pgheader` 1.0.5, command for command: its options, messages, output bytes and
//! resulting files, so `kifu book header` can stand in for it.
//!
//! [`Dialect::Pgheader`] reproduces pgheader bug for bug (its wrong variant count, and
//! its refusal of the headers that count produces); [`Dialect::Kifu`] (the default) writes
//! the right count and reads pgheader's miscounted headers. Files are not written here:
//! [`Outcome::new_book`] holds the bytes for the caller to write safely.

use crate::book::header_data;
use crate::header::{self, Header, HeaderError, DEFAULT_COMMENT, KNOWN_VARIANTS};
use crate::record::RECORD_SIZE;

/// pgheader's `-h` text.
pub const HELP: &str = "pgheader <options> [<file>]\n\
Update a header, adding a default one if necessary\n\
<file>            input file\n\
Options:\n\
-h                print this help \n\
-l                print the known variant list \n\
-s                print the header\n\
-S                print the header data\n\
-d                delete the header\n\
-v  <variants>    comma separated list of supported variants\n\
-f                force inclusion of unknown variants\n\
-c  <comment>     free format string, may contain newlines encoded as\n                  two character strings \"\\n\"\n";

/// Which behaviour to follow where pgheader 1.0.5 has bugs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// Correct variant counts; pgheader's miscounted headers are read as meant.
    #[default]
    Kifu,
    /// Bug for bug pgheader 1.0.5.
    Pgheader,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `-h`.
    Help,
    /// `-l`.
    List,
    /// `-s`: print the parsed header.
    Show,
    /// `-S`: print the raw header data.
    ShowData,
    /// `-d`: delete the header.
    Delete,
    /// Add or update the header (no option, or `-v`/`-c`/`-f`).
    Update {
        /// `-v` as given.
        variants: Option<String>,
        /// `-c` as given (escapes not yet decoded).
        comment: Option<String>,
        /// `-f`.
        force: bool,
    },
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    /// What to do.
    pub action: Action,
    /// The book (absent only for `-h` and `-l`).
    pub file: Option<String>,
}

/// A command line pgheader would refuse; the text is its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    /// No file given.
    #[error("no input file specified.")]
    NoFile,
    /// A second file name (or an unknown option taken as one).
    #[error("{0}: unknown option.")]
    UnknownOption(String),
    /// `-v`/`-c` without a value (or with one starting with `-`).
    #[error("unable to parse options. ")]
    Unparsable,
}

/// Parses pgheader's options. Anything that is not an option is the file; a second one is
/// an "unknown option" (so `-x h.bin` complains about `h.bin`, as pgheader does).
pub fn parse_args<S: AsRef<str>>(args: &[S]) -> Result<Args, UsageError> {
    let (mut help, mut list, mut show, mut show_data, mut delete, mut force) =
        (false, false, false, false, false, false);
    let (mut variants, mut comment, mut file) = (None, None, None);
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_ref();
        match a {
            "-h" => help = true,
            "-l" => list = true,
            "-s" => show = true,
            "-S" => show_data = true,
            "-d" => delete = true,
            "-f" => force = true,
            "-v" | "-c" => {
                let v = args
                    .get(i + 1)
                    .map(AsRef::as_ref)
                    .filter(|v| !v.starts_with('-'));
                let v = v.ok_or(UsageError::Unparsable)?.to_string();
                if a == "-v" {
                    variants = Some(v);
                } else {
                    comment = Some(v);
                }
                i += 1;
            }
            _ if file.is_none() => file = Some(a.to_string()),
            _ => return Err(UsageError::UnknownOption(a.to_string())),
        }
        i += 1;
    }
    let action = if help {
        Action::Help
    } else if list {
        Action::List
    } else if show {
        Action::Show
    } else if show_data {
        Action::ShowData
    } else if delete {
        Action::Delete
    } else {
        Action::Update {
            variants,
            comment,
            force,
        }
    };
    if file.is_none() && !matches!(action, Action::Help | Action::List) {
        return Err(UsageError::NoFile);
    }
    Ok(Args { action, file })
}

/// What a run printed and produced.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// Bytes for stdout.
    pub stdout: Vec<u8>,
    /// Bytes for stderr.
    pub stderr: Vec<u8>,
    /// Exit code (0 or 1).
    pub code: i32,
    /// The new book, when the file is to be replaced.
    pub new_book: Option<Vec<u8>>,
}

impl Outcome {
    fn fail(prog: &str, msg: &str) -> Outcome {
        Outcome {
            stderr: format!("{prog}: {msg}\n").into_bytes(),
            code: 1,
            ..Outcome::default()
        }
    }
}

/// pgheader's errors, with its messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PgError {
    BadFormat,
    NoHeader,
    BadParameter,
    BadHeader,
}

impl PgError {
    fn message(self) -> &'static str {
        match self {
            PgError::BadFormat => "Badly formatted input file.",
            PgError::NoHeader => "No header.",
            PgError::BadParameter => "Bad parameter.",
            PgError::BadHeader => "Bad header.",
        }
    }
}

/// Runs an action on a book's bytes (or the error reading it). `prog` prefixes messages
/// (`pgheader` for a bug-for-bug run, `kifu book header` in kifu).
pub fn run(args: &Args, book: std::io::Result<Vec<u8>>, dialect: Dialect, prog: &str) -> Outcome {
    match &args.action {
        Action::Help => {
            return Outcome {
                stdout: HELP.as_bytes().to_vec(),
                ..Outcome::default()
            }
        }
        Action::List => {
            let mut s = String::from("Known variants:\n");
            for v in KNOWN_VARIANTS {
                s.push_str(v);
                s.push('\n');
            }
            return Outcome {
                stdout: s.into_bytes(),
                ..Outcome::default()
            };
        }
        _ => {}
    }
    // pgheader checks `-v` names before it opens the file.
    let mut new_variants = None;
    if let Action::Update {
        variants: Some(v),
        force,
        ..
    } = &args.action
    {
        let mut names = Vec::new();
        for token in v.split(',').filter(|t| !t.is_empty()) {
            let name: String = token
                .chars()
                .filter(|&c| c != ' ')
                .collect::<String>()
                .to_ascii_lowercase();
            if !force && !KNOWN_VARIANTS[..KNOWN_VARIANTS.len() - 1].contains(&name.as_str()) {
                return Outcome {
                    stderr: format!("Error: unknown variant \"{name}\". Use -f.\n").into_bytes(),
                    code: 1,
                    ..Outcome::default()
                };
            }
            names.push(name);
        }
        new_variants = Some(names);
    }
    let bytes = match book {
        Ok(b) => b,
        Err(e) => return Outcome::fail(prog, &os_message(&e)),
    };
    match &args.action {
        Action::Show => match read_header(&bytes, dialect) {
            Ok(h) => Outcome {
                stdout: h.to_string().into_bytes(),
                ..Outcome::default()
            },
            Err(e) => Outcome::fail(prog, e.message()),
        },
        Action::ShowData => match read_raw(&bytes) {
            Err(e) => Outcome::fail(prog, e.message()),
            Ok(d) if d.is_empty() => Outcome::fail(prog, "No header data."),
            Ok(d) => Outcome {
                stdout: format_data(&d).into_bytes(),
                ..Outcome::default()
            },
        },
        Action::Delete => match rewrite(&bytes, None) {
            Ok(out) => Outcome {
                new_book: Some(out),
                ..Outcome::default()
            },
            Err(e) => Outcome::fail(prog, e.message()),
        },
        Action::Update { comment, .. } => {
            let (old_variants, old_comment) = match read_header(&bytes, dialect) {
                Ok(h) => (h.variants, h.comment),
                Err(PgError::NoHeader) => (
                    vec!["normal".to_string()],
                    DEFAULT_COMMENT.as_bytes().to_vec(),
                ),
                Err(e) => return Outcome::fail(prog, e.message()),
            };
            let variants = new_variants.unwrap_or(old_variants);
            let comment = comment
                .as_deref()
                .map(unescape_comment)
                .unwrap_or(old_comment);
            let text = match create(&variants, &comment, dialect) {
                Ok(t) => t,
                Err(e) => return Outcome::fail(prog, e.message()),
            };
            match rewrite(&bytes, Some(&text)) {
                Ok(out) => Outcome {
                    new_book: Some(out),
                    ..Outcome::default()
                },
                Err(e) => Outcome::fail(prog, e.message()),
            }
        }
        Action::Help | Action::List => Outcome::default(),
    }
}

/// The operating system's message without Rust's ` (os error N)` suffix, as `perror` prints it.
fn os_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Decodes `-c`: `\n` is a newline; a backslash and the character after it are otherwise
/// dropped (pgheader turns `a\tb\\c\qd` into `abcd`).
pub fn unescape_comment(c: &str) -> Vec<u8> {
    let b = c.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'n') {
                out.push(b'\n');
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// pgheader_read_raw: the data of the leading null records; a partial record among them
/// is a format error.
fn read_raw(bytes: &[u8]) -> Result<Vec<u8>, PgError> {
    let h = crate::book::count_header_records(bytes);
    let rest = bytes.len() - h * RECORD_SIZE;
    // pgheader reads 16 bytes at a time: a short read while still in null records.
    if rest > 0 && rest < RECORD_SIZE {
        return Err(PgError::BadFormat);
    }
    Ok(header_data(bytes))
}

fn read_header(bytes: &[u8], dialect: Dialect) -> Result<Header, PgError> {
    let data = read_raw(bytes)?;
    if data.is_empty() {
        return Err(PgError::NoHeader);
    }
    let logical = header::logical_header(&data).map_err(|_| PgError::BadHeader)?;
    let parsed = match dialect {
        Dialect::Kifu => Header::parse(logical),
        Dialect::Pgheader => header::parse_strict(logical),
    };
    parsed.map_err(|e| match e {
        HeaderError::NoHeader => PgError::NoHeader,
        _ => PgError::BadHeader,
    })
}

fn create(variants: &[String], comment: &[u8], dialect: Dialect) -> Result<Vec<u8>, PgError> {
    let joined = variants.join("\n");
    let count = match dialect {
        Dialect::Kifu => {
            if variants
                .iter()
                .any(|v| v.is_empty() || !header::is_variant(v.as_bytes()))
            {
                return Err(PgError::BadParameter);
            }
            variants.len()
        }
        Dialect::Pgheader => {
            if !header::pgheader_tokens(joined.as_bytes())
                .iter()
                .all(|t| header::is_variant(t))
            {
                return Err(PgError::BadParameter);
            }
            header::pgheader_variant_count(joined.as_bytes())
        }
    };
    if count > 998 {
        return Err(PgError::BadParameter);
    }
    Ok(header::build_text(&joined, count, comment))
}

/// pgheader_detect plus the copy: the size must be a multiple of 16, the first ten keys
/// must not decrease, and there must be an entry after the null records.
fn rewrite(bytes: &[u8], text: Option<&[u8]>) -> Result<Vec<u8>, PgError> {
    if !bytes.len().is_multiple_of(RECORD_SIZE) {
        return Err(PgError::BadFormat);
    }
    let mut prev = 0u64;
    for rec in bytes.chunks_exact(RECORD_SIZE).take(10) {
        let k = crate::record::key_at(rec, 0);
        if k < prev {
            return Err(PgError::BadFormat);
        }
        prev = k;
    }
    let h = crate::book::count_header_records(bytes);
    if h * RECORD_SIZE == bytes.len() {
        return Err(PgError::BadFormat);
    }
    let mut out = text.map(header::encode_records).unwrap_or_default();
    out.extend_from_slice(&bytes[h * RECORD_SIZE..]);
    Ok(out)
}

/// pgheader's `-S` layout: 8 bytes a line, each right-aligned in 5 columns; printable
/// ASCII as itself, C escapes for `\0 \a \b \t \n \v \f \r`, octal `\ooo` otherwise.
pub fn format_data(data: &[u8]) -> String {
    let mut s = String::new();
    for line in data.chunks(8) {
        for &b in line {
            let r = match b {
                0 => "\\0".to_string(),
                7 => "\\a".to_string(),
                8 => "\\b".to_string(),
                9 => "\\t".to_string(),
                10 => "\\n".to_string(),
                11 => "\\v".to_string(),
                12 => "\\f".to_string(),
                13 => "\\r".to_string(),
                0x20..=0x7e => (b as char).to_string(),
                _ => format!("\\{b:03o}"),
            };
            s.push_str(&format!("{r:>5}"));
        }
        s.push('\n');
    }
    s
}

/// The message pgheader prints for a bad command line (after `prog: `).
pub fn usage_message(prog: &str, e: &UsageError) -> String {
    format!("{prog}: {e}\nTry -h.\n")
}
