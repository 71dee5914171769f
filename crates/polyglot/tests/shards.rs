//! A book made from the counts of N shards is byte for byte the book of one pass, for any N
//! and any order of the parts, with bad games skipped, spills, and halving (a move played in
//! 16,384 games or more); parts that do not make one whole job are refused, naming the part.

use kifu_fs::shard::Shard;
use kifu_polyglot::make::{make_book_from_counts, make_book_to, make_counts, Compat, MakeOptions};
use kifu_polyglot::Entry;
use std::path::{Path, PathBuf};

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot")
        .join(rel)
}

use kifu_testdata::halving_pgn;

fn one_pass(inputs: &[PathBuf], opts: &MakeOptions) -> (Vec<u8>, u64, u64, usize, usize) {
    let mut bytes = Vec::new();
    let r = make_book_to(inputs, opts, &|_| {}, &mut |e: &Entry| {
        bytes.extend_from_slice(&e.to_bytes());
        Ok(())
    })
    .unwrap();
    (bytes, r.games, r.plies, r.skipped.len(), r.halved_keys)
}

fn write_parts(dir: &Path, inputs: &[PathBuf], opts: &MakeOptions, n: u64) -> Vec<PathBuf> {
    (1..=n)
        .map(|i| {
            let path = dir.join(format!("part-{i}-of-{n}.counts"));
            let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            make_counts(inputs, opts, Shard::new(i, n).unwrap(), &|_| {}, &mut w).unwrap();
            std::io::Write::flush(&mut w).unwrap();
            path
        })
        .collect()
}

fn from_parts(
    parts: &[PathBuf],
    opts: &MakeOptions,
) -> kifu_polyglot::Result<(Vec<u8>, u64, u64, usize, usize)> {
    let mut bytes = Vec::new();
    let (r, _) = make_book_from_counts(parts, opts, &mut |e: &Entry| {
        bytes.extend_from_slice(&e.to_bytes());
        Ok(())
    })?;
    Ok((bytes, r.games, r.plies, r.skipped.len(), r.halved_keys))
}

#[test]
fn shards_merge_to_the_one_pass_book() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = vec![
        corpus("pgn/Fischer.pgn"),
        corpus("pgn/Tal.pgn"),
        halving_pgn(dir.path()),
    ];
    for opts in [
        MakeOptions::default(),
        MakeOptions {
            min_game: 1,
            max_ply: 12,
            max_entries_in_memory: 5_000,
            ..MakeOptions::default()
        },
    ] {
        let want = one_pass(&inputs, &opts);
        assert!(want.3 > 0, "Tal.pgn has bad games, skipped");
        assert_eq!(want.4, 1, "the start position is halved");
        for n in [1u64, 2, 3, 5] {
            let mut parts = write_parts(dir.path(), &inputs, &opts, n);
            parts.reverse();
            let got = from_parts(&parts, &opts).unwrap();
            assert_eq!(got, want, "{n} shards, max_ply {}", opts.max_ply);
        }
    }
}

#[test]
fn polyglot_mode_shards_match_too() {
    let dir = tempfile::tempdir().unwrap();
    let opts = MakeOptions {
        compat: Compat::Polyglot,
        ..MakeOptions::default()
    };
    let inputs = vec![corpus("pgn/human-clean.pgn")];
    let want = one_pass(&inputs, &opts);
    assert_eq!(
        want.0,
        std::fs::read(corpus("reference/human-clean.polyglot2.0.4.bin")).unwrap()
    );
    let parts = write_parts(dir.path(), &inputs, &opts, 3);
    assert_eq!(from_parts(&parts, &opts).unwrap(), want);
    // A bad game stops the shard it belongs to, so the job cannot be merged.
    let e = make_counts(
        &[corpus("pgn/Tal.pgn")],
        &opts,
        Shard::new(1, 1).unwrap(),
        &|_| {},
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("Tal.pgn: game "), "{e}");
}

#[test]
fn bad_sets_of_parts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let opts = MakeOptions::default();
    let inputs = vec![corpus("pgn/Fischer.pgn")];
    let parts = write_parts(dir.path(), &inputs, &opts, 3);
    let err = |parts: &[PathBuf]| from_parts(parts, &opts).unwrap_err().to_string();
    assert_eq!(err(&parts[..2]), "missing shard 3/3 of 3");
    let twice = [parts[0].clone(), parts[1].clone(), parts[1].clone()];
    assert!(
        err(&twice).contains("shard 2/3 is given twice"),
        "{}",
        err(&twice)
    );
    // Another job: other settings.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let o = write_parts(
        &other,
        &inputs,
        &MakeOptions {
            max_ply: 10,
            ..opts.clone()
        },
        3,
    );
    let mixed = [parts[0].clone(), parts[1].clone(), o[2].clone()];
    let e = err(&mixed);
    assert!(
        e.contains("part-3-of-3.counts: counted from other games or settings"),
        "{e}"
    );
    // Cut short (a copy that stopped): refused by its frame.
    let bytes = std::fs::read(&parts[2]).unwrap();
    let cut = dir.path().join("cut.counts");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let e = err(&[parts[0].clone(), parts[1].clone(), cut.clone()]);
    assert!(e.contains("cut.counts: cut short or damaged"), "{e}");
    // Damage inside: a record's count, two records swapped, a digit of the trailer's games
    // (all still well framed): refused by the checksum, never merged into a wrong book.
    let swap = |bytes: &[u8]| {
        let mut swapped = bytes.to_vec();
        let (a, b) = (8, 8 + 35);
        swapped[a..b].copy_from_slice(&bytes[b..b + 35]);
        swapped[b..b + 35].copy_from_slice(&bytes[a..b]);
        swapped
    };
    // Places in the trailer (the last match: the records are binary).
    let find = |pat: &[u8]| bytes.windows(pat.len()).rposition(|w| w == pat).unwrap();
    let games_at = find(b"\"games\":") + 8;
    let mut count = bytes.clone();
    count[8 + 10] ^= 1;
    let mut games = bytes.clone();
    games[games_at] = if games[games_at] == b'1' { b'2' } else { b'1' };
    // The checksum's key itself damaged: refused, not read as a file of an older kifu.
    let mut key = bytes.clone();
    key[find(b"\"check\":") + 5] = b'j';
    let e = err(&[parts[0].clone(), parts[1].clone(), {
        std::fs::write(&cut, &key).unwrap();
        cut.clone()
    }]);
    assert!(
        e.contains("cut.counts: trailer at byte offset") && e.contains("checj"),
        "{e}"
    );
    for damaged in [count, swap(&bytes), games] {
        std::fs::write(&cut, &damaged).unwrap();
        let e = err(&[parts[0].clone(), parts[1].clone(), cut.clone()]);
        assert!(
            e.contains("cut.counts: damaged: its records (byte offsets 8 to "),
            "{e}"
        );
    }
    // A file of an older kifu (no checksum) is read as it was: it merges into the same book,
    // and records out of order in it are still refused by the merge.
    let check_at = find(b",\"check\":");
    let json_end = bytes.len() - 16;
    let mut old = bytes[..check_at].to_vec();
    old.extend_from_slice(&bytes[json_end - 1..json_end]);
    let json_len = old.len() - find(b"{\"kifu\"");
    old.extend_from_slice(&(json_len as u64).to_le_bytes());
    old.extend_from_slice(b"KIFUBKC1");
    std::fs::write(&cut, &old).unwrap();
    assert_eq!(
        from_parts(&[parts[0].clone(), parts[1].clone(), cut.clone()], &opts).unwrap(),
        from_parts(&parts, &opts).unwrap()
    );
    std::fs::write(&cut, swap(&old)).unwrap();
    let e = err(&[parts[0].clone(), parts[1].clone(), cut.clone()]);
    assert!(e.contains("out of order"), "{e}");
    // Not a counts file at all.
    let e = err(&[inputs[0].clone()]);
    assert!(
        e.contains("Fischer.pgn: not a kifu book counts file"),
        "{e}"
    );
}

#[test]
fn changed_inputs_are_refused_when_halving_needs_them() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = halving_pgn(dir.path());
    let opts = MakeOptions::default();
    let parts = write_parts(dir.path(), std::slice::from_ref(&pgn), &opts, 2);
    let mut text = std::fs::read(&pgn).unwrap();
    text.extend_from_slice(b"[Result \"1-0\"]\n\n1. e4 e5 1-0\n");
    std::fs::write(&pgn, text).unwrap();
    let e = from_parts(&parts, &opts).unwrap_err().to_string();
    assert!(
        e.contains("halving.pgn") && e.contains("when it was counted"),
        "{e}"
    );
}
