//! Conformance over every SGF file in `../shared/corpus/sgf/`: parsing never
//! fails, write-then-parse gives the same tree, and conversion is a fixed point.

mod common;
use kifu_sgf::{convert, write, Code, Collection};

#[test]
fn parse_write_parse_is_identical_for_every_corpus_file() {
    let files = common::sgf_files(&common::corpus().join("sgf"));
    assert!(
        files.len() > 9_000,
        "corpus not found: {} files",
        files.len()
    );
    let mut games = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let first = Collection::parse(&bytes);
        let text = write(&first.collection);
        let second = Collection::parse(text.as_bytes());
        let name = f.display();
        assert_eq!(
            common::dump(&first.collection, true),
            common::dump(&second.collection, true),
            "{name}"
        );
        // What was written is clean SGF: nothing for the reader to repair.
        let structural: Vec<_> = second
            .diagnostics
            .iter()
            .filter(|d| !matches!(d.code, Code::NulByte | Code::UnescapedBracket))
            .collect();
        assert!(
            structural.is_empty() || first.collection.is_empty(),
            "{name}: {structural:?}"
        );
        games += first.collection.len();
    }
    assert!(games > 9_500, "{games}");
}

#[test]
fn conversion_is_a_fixed_point_and_leaves_nothing_to_repair() {
    let files = common::sgf_files(&common::corpus().join("sgf"));
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let parsed = Collection::parse(&bytes);
        if parsed.collection.is_empty() {
            continue;
        }
        let once = convert::to_ff4(&parsed.collection);
        let text = write(&once.collection);
        let reparsed = Collection::parse(text.as_bytes());
        let name = f.display();
        let left: Vec<_> = convert::check(&reparsed.collection)
            .into_iter()
            .chain(reparsed.diagnostics)
            .filter(|d| {
                // Kept on purpose: unknown and old properties, formats kifu does not
                // rewrite, game info on two levels, and what only rules can fix.
                !matches!(
                    d.code,
                    Code::UnknownProperty
                        | Code::LongId
                        | Code::NotInFf4
                        | Code::GameInfoFormat
                        | Code::GameInfoOutside
                        | Code::NotGo
                        | Code::MixedGameTypes
                        | Code::NulByte
                        | Code::DuplicateProperty
                )
            })
            .collect();
        assert!(left.is_empty(), "{name}: after conversion {left:?}");
        let twice = convert::to_ff4(&reparsed.collection);
        assert_eq!(write(&twice.collection), text, "{name}");
        // Every converted root says FF[4] and UTF-8.
        for g in once.collection.games() {
            assert_eq!(g.root().number("FF"), Some(4), "{name}");
            assert_eq!(
                g.root().simple_text("CA").as_deref(),
                Some("UTF-8"),
                "{name}"
            );
        }
    }
}

#[test]
fn corpus_oddities_are_read() {
    let c = common::corpus().join("sgf");
    // The FF[4] example file from the conformance data parses without errors.
    let files = common::sgf_files(&c.join("conformance"));
    let ff4 = files
        .iter()
        .find(|p| p.file_name().is_some_and(|n| n == "ff4_ex.sgf"));
    if let Some(p) = ff4 {
        let parsed = Collection::parse(&std::fs::read(p).unwrap());
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        assert!(parsed.collection.len() >= 2);
    }
    // A 0-byte file: no game, one S007 error, no panic.
    let p = Collection::parse(b"");
    assert_eq!(
        p.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        [Code::NoSgfData]
    );
}

/// The charset fixtures of libsgfc++ and @sabaki/sgf decode to the text their
/// authors wrote (checked here on one known string per file).
#[test]
fn charset_fixtures_decode() {
    let c = common::corpus().join("sgf/conformance");
    let lib = c.join("libsgfcplusplus/test/test-files");
    let text_of = |p: std::path::PathBuf| {
        let parsed = kifu_sgf::parse_file(&p).unwrap();
        let mut all = String::new();
        for g in parsed.collection.games() {
            for n in g.nodes() {
                for pr in n.properties() {
                    for v in pr.values() {
                        all.push_str(&v.text());
                        all.push('\n');
                    }
                }
            }
        }
        (parsed.collection.charset(), all, parsed.diagnostics)
    };
    let cases: &[(&str, &str, &str)] = &[
        (
            "encoding-chinese-gb18030.sgf",
            "gb18030",
            "Simplified Chinese",
        ),
        ("encoding-chinese-gbk.sgf", "GBK", "Simplified Chinese"),
        ("encoding-cyrillic-windows.sgf", "windows-1251", "Cyrillic"),
        ("encoding-japanese-iso2022jp.sgf", "ISO-2022-JP", "Japanese"),
        ("encoding-japanese-shiftjis.sgf", "Shift_JIS", "Japanese"),
        ("encoding-korean-macos.sgf", "EUC-KR", "Korean"),
        (
            "encoding-simplifiedchinese-gb2312.sgf",
            "GBK",
            "Simplified Chinese",
        ),
        (
            "encoding-traditionalchinese-big5.sgf",
            "Big5",
            "Traditional Chinese",
        ),
        ("encoding-utf16-nobom.sgf", "UTF-16BE", "UTF-16"),
        ("encoding-utf16-withbom.sgf", "UTF-16BE", "UTF-16"),
        ("encoding-utf8-withbom.sgf", "UTF-8", "UTF-8"),
        ("encoding-western-isolatin1.sgf", "windows-1252", "Latin 1"),
        ("encoding-western-isolatin9.sgf", "ISO-8859-15", "Latin 9"),
        (
            "encoding-western-macosroman.sgf",
            "macintosh",
            "Mac OS Roman",
        ),
    ];
    for (file, charset, needle) in cases {
        let (cs, text, diags) = text_of(lib.join(file));
        assert_eq!(cs, *charset, "{file}");
        assert!(text.contains(needle), "{file}: {text}");
        assert!(
            !text.contains('\u{FFFD}'),
            "{file}: replacement characters in {text}"
        );
        assert!(diags.is_empty(), "{file}: {diags:?}");
    }
    let sabaki = c.join("sabaki-sgf/tests/sgf");
    let cases: &[(&str, &str)] = &[
        ("chinese.sgf", "古力"),
        ("chinese.sgf", "围棋 is fun"),
        ("japanese.sgf", "井山 裕太"),
        ("korean.sgf", "이세돌"),
        ("no-ca.sgf", "这是从压长星定式演变而来的形"),
        ("utf16le.sgf", "Kitani Minoru"),
        ("utf8bom.sgf", "Go Seigen"),
    ];
    for (file, needle) in cases {
        let (_, text, _) = text_of(sabaki.join(file));
        assert!(text.contains(needle), "{file}: {text}");
    }
    // Declared Shift-JIS but written as UTF-8 (with replacement characters
    // already in it): read as the UTF-8 it is.
    let (cs, text, _) = text_of(sabaki.join("japanese_bad.sgf"));
    assert_eq!(cs, "UTF-8");
    assert!(text.contains(" is fun"), "{text}");
}

/// A 100,000-move sequence and variations nested 10,000 deep parse, write,
/// check and convert on a 64 KiB stack (nothing recurses on input depth).
#[test]
fn deep_input_on_a_small_stack() {
    let mut long = String::from("(;FF[4]GM[1]SZ[19]");
    for i in 0..100_000 {
        long.push_str(if i % 2 == 0 { ";B[aa]" } else { ";W[bb]" });
    }
    long.push(')');
    let mut deep = String::from("(;FF[4]GM[1]SZ[19]");
    for _ in 0..10_000 {
        deep.push_str("(;B[cc]");
    }
    for _ in 0..10_000 {
        deep.push_str("(;W[dd]))");
    }
    deep.push(')');
    let run = move || {
        for text in [long, deep] {
            let parsed = Collection::parse(text.as_bytes());
            assert!(
                parsed.diagnostics.is_empty(),
                "{:?}",
                &parsed.diagnostics[..1]
            );
            let written = write(&parsed.collection);
            let again = Collection::parse(written.as_bytes());
            assert_eq!(
                common::dump(&parsed.collection, false),
                common::dump(&again.collection, false)
            );
            assert!(convert::check(&parsed.collection).is_empty());
            let converted = convert::to_ff4(&parsed.collection);
            assert_eq!(
                converted.collection.node_count(),
                parsed.collection.node_count()
            );
        }
    };
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}
