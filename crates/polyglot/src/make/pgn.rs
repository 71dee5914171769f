//! A PGN reader shaped like Polyglot's (`pgn.c`): the same tokens, the same idea of a game
//! (tags, then main-line moves until a result token), so `--compat polyglot` reads exactly
//! the games and moves Polyglot reads.
//!
//! pgn-reader is not used here because it silently drops move tokens it cannot parse
//! (`g8Q+`, a promotion without `=`, which Polyglot and python-chess accept and which
//! Tal.pgn contains), which shifts every later move of the game.
//!
//! Moves are kept as text and parsed to moves by the workers. In kifu mode a syntax error
//! makes the game bad (skipped with a warning) and the reader resynchronises at the next
//! result token or tag line; in Polyglot mode it is an error, as in Polyglot.

use std::io::Read;

/// One game: tags that matter and the main-line move tokens.
#[derive(Debug, Default, Clone)]
pub struct PgnGame {
    /// 1-based game number in its file.
    pub number: u64,
    /// The `Result` tag: +1, -1, 0 (also for `*`, `1/2-1/2` and no tag).
    pub result_tag: Option<i8>,
    /// The result token that ended the movetext.
    pub result_token: Option<i8>,
    /// The `FEN` tag.
    pub fen: Option<String>,
    /// Move tokens, concatenated.
    pub text: String,
    /// (start, end, line, column) of each move in `text`.
    pub moves: Vec<(u32, u32, u32, u32)>,
    /// A syntax error (line and what), if the game is bad.
    pub error: Option<String>,
}

impl PgnGame {
    /// The `i`th move token.
    pub fn mv(&self, i: usize) -> &str {
        let (a, b, _, _) = self.moves[i];
        &self.text[a as usize..b as usize]
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Eof,
    Char(u8),
    Symbol,
    Integer,
    Str,
    Nag,
    Result(i8),
}

/// Tokenizer over any reader, with a refilled buffer.
pub struct PgnReader<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    line: u32,
    at_line_start: bool,
    token: Vec<u8>,
    token_line: u32,
    // Byte offset (in the whole input) where the current line starts, and the token's column.
    line_start: u64,
    token_column: u64,
    pushed: Option<Token>,
    game_number: u64,
    bytes: u64,
}

const CHUNK: usize = 1 << 20;

fn is_symbol_start(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

fn is_symbol_next(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"_+#=:-/".contains(&c)
}

impl<R: Read> PgnReader<R> {
    /// A reader over `src`.
    pub fn new(src: R) -> Self {
        PgnReader {
            src,
            buf: vec![0; CHUNK],
            pos: 0,
            len: 0,
            eof: false,
            line: 1,
            at_line_start: true,
            token: Vec::with_capacity(64),
            token_line: 1,
            line_start: 0,
            token_column: 1,
            pushed: None,
            game_number: 0,
            bytes: 0,
        }
    }

    /// Bytes consumed from the source so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        if self.pos == self.len {
            if self.eof {
                return Ok(None);
            }
            self.pos = 0;
            self.len = 0;
            loop {
                match self.src.read(&mut self.buf) {
                    Ok(0) => {
                        self.eof = true;
                        return Ok(None);
                    }
                    Ok(n) => {
                        self.len = n;
                        self.bytes += n as u64;
                        break;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Some(self.buf[self.pos]))
    }

    /// Byte offset in the whole input of the next byte.
    fn offset(&self) -> u64 {
        self.bytes - (self.len - self.pos) as u64
    }

    /// Where the current token starts, for messages: `line L, column C` (C in bytes from 1).
    fn at(&self) -> String {
        format!("line {}, column {}", self.token_line, self.token_column)
    }

    fn bump(&mut self) {
        let c = self.buf[self.pos];
        self.pos += 1;
        if c == b'\n' {
            self.line_start = self.offset();
            self.line += 1;
            self.at_line_start = true;
        } else {
            self.at_line_start = false;
        }
    }

    /// Skips past the next `end` byte (scanning whole buffers, since comments in engine
    /// PGN are most of the bytes); `false` at the end of the input.
    fn skip_to(&mut self, end: u8) -> std::io::Result<bool> {
        loop {
            if self.peek()?.is_none() {
                return Ok(false);
            }
            let chunk = &self.buf[self.pos..self.len];
            let found = chunk.iter().position(|&c| c == end);
            let upto = found.map_or(chunk.len(), |i| i + 1);
            let skipped = &chunk[..upto];
            let newlines = skipped.iter().filter(|&&c| c == b'\n').count();
            if let Some(last) = skipped.iter().rposition(|&c| c == b'\n') {
                self.line_start = self.offset() + last as u64 + 1;
            }
            self.line += newlines as u32;
            self.at_line_start = skipped.last() == Some(&b'\n');
            self.pos += upto;
            if found.is_some() {
                return Ok(true);
            }
        }
    }

    /// Skips white space and comments; `Err(msg)` for a comment cut by the end of file.
    fn skip_blanks(&mut self) -> std::io::Result<Result<(), String>> {
        loop {
            let Some(c) = self.peek()? else {
                return Ok(Ok(()));
            };
            let line_start = self.at_line_start;
            match c {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.bump(),
                b';' => {
                    self.bump();
                    if !self.skip_to(b'\n')? {
                        return Ok(Err("end of file in a ; comment".into()));
                    }
                }
                b'%' if line_start => {
                    self.bump();
                    if !self.skip_to(b'\n')? {
                        return Ok(Err("end of file in a % line".into()));
                    }
                }
                b'{' => {
                    self.bump();
                    if !self.skip_to(b'}')? {
                        return Ok(Err("end of file in a { comment".into()));
                    }
                }
                _ => return Ok(Ok(())),
            }
        }
    }

    /// Reads a token; `Err(msg)` on a lexical error.
    fn next_token(&mut self) -> std::io::Result<Result<Token, String>> {
        if let Some(t) = self.pushed.take() {
            return Ok(Ok(t));
        }
        if let Err(e) = self.skip_blanks()? {
            return Ok(Err(e));
        }
        self.token.clear();
        self.token_line = self.line;
        let next = self.peek()?;
        self.token_column = self.offset() - self.line_start + 1;
        let Some(c) = next else {
            return Ok(Ok(Token::Eof));
        };
        let t = match c {
            b'.' | b'[' | b']' | b'(' | b')' | b'<' | b'>' => {
                self.bump();
                Token::Char(c)
            }
            b'*' => {
                self.bump();
                Token::Result(0)
            }
            b'!' | b'?' => {
                self.bump();
                if let Some(b'!' | b'?') = self.peek()? {
                    self.bump();
                }
                Token::Nag
            }
            b'$' => {
                self.bump();
                let mut digits = 0;
                while let Some(d) = self.peek()? {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    self.bump();
                    digits += 1;
                }
                if digits == 0 || digits > 3 {
                    return Ok(Err(format!("{}: malformed NAG", self.at())));
                }
                Token::Nag
            }
            b'"' => {
                self.bump();
                loop {
                    let Some(d) = self.peek()? else {
                        return Ok(Err(format!("{}: end of file in a string", self.at())));
                    };
                    self.bump();
                    match d {
                        b'"' => break,
                        b'\\' => {
                            let Some(e) = self.peek()? else {
                                return Ok(Err(format!("{}: end of file in a string", self.at())));
                            };
                            self.bump();
                            if e != b'"' && e != b'\\' {
                                self.token.push(b'\\');
                            }
                            self.token.push(e);
                        }
                        _ => self.token.push(d),
                    }
                }
                Token::Str
            }
            c if is_symbol_start(c) => {
                let mut integer = true;
                while let Some(d) = self.peek()? {
                    if !is_symbol_next(d) {
                        break;
                    }
                    integer &= d.is_ascii_digit();
                    self.token.push(d);
                    self.bump();
                }
                match &self.token[..] {
                    b"1-0" => Token::Result(1),
                    b"0-1" => Token::Result(-1),
                    b"1/2-1/2" => Token::Result(0),
                    _ if integer => Token::Integer,
                    _ => Token::Symbol,
                }
            }
            _ => {
                self.bump();
                return Ok(Err(format!("{}: lexical error (byte {c:#04x})", self.at())));
            }
        };
        Ok(Ok(t))
    }

    /// The next game, or `None` at the end of the input. With `strict`, the first syntax
    /// error is returned in `PgnGame::error` and the input is not read further.
    pub fn next_game(&mut self, strict: bool) -> std::io::Result<Option<PgnGame>> {
        let mut g = PgnGame::default();
        // Tags.
        loop {
            let t = match self.next_token()? {
                Ok(t) => t,
                Err(e) if strict => return Ok(Some(self.fail(g, e))),
                Err(_) => continue,
            };
            match t {
                Token::Char(b'[') if !strict => {
                    // Line-based, so a stray quote in a value cannot desynchronise the rest.
                    if let Err(e) = self.tag_line(&mut g)? {
                        g.error.get_or_insert(e);
                    }
                }
                Token::Char(b'[') => {
                    if let Err(e) = self.tag(&mut g)? {
                        if strict {
                            return Ok(Some(self.fail(g, e)));
                        }
                        g.error.get_or_insert(e);
                    }
                }
                // Tags without movetext at the end of the file are no game (as in Polyglot).
                Token::Eof => return Ok(None),
                t => {
                    self.pushed = Some(t);
                    break;
                }
            }
        }
        self.game_number += 1;
        g.number = self.game_number;
        // Movetext.
        let mut depth = 0u32;
        loop {
            let t = match self.next_token()? {
                Ok(t) => t,
                Err(e) => {
                    if strict {
                        return Ok(Some(self.fail(g, e)));
                    }
                    g.error.get_or_insert(e);
                    continue;
                }
            };
            let err = match t {
                Token::Eof => {
                    if strict {
                        return Ok(Some(self.fail(g, "end of file before the result".into())));
                    }
                    return Ok(Some(g));
                }
                Token::Char(b'(') => {
                    depth += 1;
                    continue;
                }
                Token::Char(b')') if depth > 0 => {
                    depth -= 1;
                    continue;
                }
                Token::Char(b')') => format!("{}: malformed variation", self.at()),
                Token::Result(r) if depth == 0 => {
                    g.result_token = Some(r);
                    return Ok(Some(g));
                }
                Token::Result(_) => format!("{}: malformed variation", self.at()),
                Token::Char(b'[') if !strict => {
                    // A game without a result: the next game's tags begin.
                    self.pushed = Some(Token::Char(b'['));
                    return Ok(Some(g));
                }
                Token::Nag if !strict => continue,
                Token::Integer | Token::Symbol => {
                    let mut t = t;
                    if t == Token::Integer {
                        loop {
                            match self.next_token()? {
                                Ok(Token::Char(b'.')) => continue,
                                Ok(next) => {
                                    t = next;
                                    break;
                                }
                                Err(e) => {
                                    if strict {
                                        return Ok(Some(self.fail(g, e)));
                                    }
                                    g.error.get_or_insert(e);
                                    t = Token::Nag;
                                    break;
                                }
                            }
                        }
                    }
                    match t {
                        Token::Symbol => {
                            if depth == 0 {
                                let start = g.text.len() as u32;
                                g.text.push_str(&String::from_utf8_lossy(&self.token));
                                g.moves.push((
                                    start,
                                    g.text.len() as u32,
                                    self.token_line,
                                    self.token_column as u32,
                                ));
                            }
                            // Polyglot skips the NAGs after a move.
                            loop {
                                match self.next_token()? {
                                    Ok(Token::Nag) => continue,
                                    Ok(next) => {
                                        self.pushed = Some(next);
                                        break;
                                    }
                                    Err(e) => {
                                        if strict {
                                            return Ok(Some(self.fail(g, e)));
                                        }
                                        g.error.get_or_insert(e);
                                        break;
                                    }
                                }
                            }
                            continue;
                        }
                        Token::Result(_) | Token::Char(b'(') | Token::Char(b')') | Token::Eof
                            if !strict =>
                        {
                            // "12." followed by something else: let the loop see it.
                            self.pushed = Some(t);
                            continue;
                        }
                        _ => format!("{}: malformed move", self.at()),
                    }
                }
                _ => format!("{}: malformed move", self.at()),
            };
            if strict {
                return Ok(Some(self.fail(g, err)));
            }
            g.error.get_or_insert(err);
        }
    }

    fn fail(&mut self, mut g: PgnGame, e: String) -> PgnGame {
        if g.number == 0 {
            self.game_number += 1;
            g.number = self.game_number;
        }
        g.error = Some(e);
        g
    }

    /// After `[` (kifu mode): the rest of the line is `Name "value"]`; a value with
    /// quotes inside is kept whole, and the game is marked bad.
    fn tag_line(&mut self, g: &mut PgnGame) -> std::io::Result<Result<(), String>> {
        let at = self.at();
        let mut raw = Vec::new();
        while let Some(c) = self.peek()? {
            if c == b'\n' {
                break;
            }
            raw.push(c);
            self.bump();
        }
        let text = String::from_utf8_lossy(&raw);
        let text = text.trim_end();
        let bad = || Ok(Err(format!("{at}: malformed tag")));
        let Some(body) = text.strip_suffix(']') else {
            return bad();
        };
        let body = body.trim_start();
        let name_end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let (name, rest) = body.split_at(name_end);
        let rest = rest.trim();
        if name.is_empty() || rest.len() < 2 || !rest.starts_with('"') || !rest.ends_with('"') {
            return bad();
        }
        let inner = &rest[1..rest.len() - 1];
        let value = inner.replace("\\\"", "\"").replace("\\\\", "\\");
        // A quote left after unescaping means the value was not a well-formed string.
        let well_formed = !inner.replace("\\\"", "").contains('"');
        match name {
            "Result" => {
                g.result_tag = Some(match value.as_str() {
                    "1-0" => 1,
                    "0-1" => -1,
                    _ => 0,
                })
            }
            "FEN" => g.fen = Some(value),
            _ => {}
        }
        if well_formed {
            Ok(Ok(()))
        } else {
            bad()
        }
    }

    /// After `[`: a symbol, a string and `]`.
    fn tag(&mut self, g: &mut PgnGame) -> std::io::Result<Result<(), String>> {
        let bad = format!("{}: malformed tag", self.at());
        if !matches!(self.next_token()?, Ok(Token::Symbol)) {
            return Ok(Err(bad));
        }
        let name = self.token.clone();
        if !matches!(self.next_token()?, Ok(Token::Str)) {
            return Ok(Err(bad));
        }
        let value = String::from_utf8_lossy(&self.token).into_owned();
        if !matches!(self.next_token()?, Ok(Token::Char(b']'))) {
            return Ok(Err(bad));
        }
        match &name[..] {
            b"Result" => {
                g.result_tag = Some(match value.as_str() {
                    "1-0" => 1,
                    "0-1" => -1,
                    _ => 0,
                })
            }
            b"FEN" => g.fen = Some(value),
            _ => {}
        }
        Ok(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(pgn: &str, strict: bool) -> Vec<PgnGame> {
        let mut r = PgnReader::new(pgn.as_bytes());
        let mut out = Vec::new();
        while let Some(g) = r.next_game(strict).unwrap() {
            let stop = strict && g.error.is_some();
            out.push(g);
            if stop {
                break;
            }
        }
        out
    }

    fn moves(g: &PgnGame) -> Vec<&str> {
        (0..g.moves.len()).map(|i| g.mv(i)).collect()
    }

    #[test]
    fn reads_like_polyglot() {
        let pgn = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 {c} e5 $1 2. Nf3!? (2. f4 exf4 (2... d5)) Nc6 ; rest\n% escape\n3. g8Q+ 1-0\n\n[Result \"*\"]\n1. d4 *\n";
        for strict in [true, false] {
            let g = games(pgn, strict);
            assert_eq!(g.len(), 2);
            assert_eq!(moves(&g[0]), ["e4", "e5", "Nf3", "Nc6", "g8Q+"]);
            assert_eq!(g[0].result_tag, Some(1));
            assert_eq!(g[1].result_tag, Some(0));
            assert_eq!(g[1].number, 2);
            assert!(g.iter().all(|g| g.error.is_none()));
        }
    }

    #[test]
    fn errors_and_recovery() {
        let pgn = "[White \"a\" junk]\n1. e4 *\n[Result \"0-1\"]\n1. d4 <> d5 0-1\n[Result \"1-0\"]\n1. c4 1-0\n";
        let strict = games(pgn, true);
        assert_eq!(strict.len(), 1);
        assert_eq!(
            strict[0].error.as_deref(),
            Some("line 1, column 1: malformed tag")
        );
        let lax = games(pgn, false);
        assert_eq!(lax.len(), 3);
        assert!(lax[0].error.is_some() && lax[1].error.is_some());
        assert_eq!(lax[2].error, None);
        assert_eq!(moves(&lax[2]), ["c4"]);
    }
}
