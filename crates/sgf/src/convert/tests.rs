use super::values::{valid_date, valid_result};
use super::*;
use crate::write;

fn conv(s: &str) -> (String, Vec<Code>) {
    let p = Collection::parse(s.as_bytes());
    let c = to_ff4(&p.collection);
    (
        write(&c.collection),
        c.diagnostics.iter().map(|d| d.code).collect(),
    )
}

#[test]
fn ff3_to_ff4() {
    let (out, codes) = conv("(;FF[3]GaMe[1]SZ[9]KI[11]L[aa][bb]M[cc];B[tt];W[])");
    assert_eq!(
        out,
        "(;FF[4]CA[UTF-8]GM[1]SZ[9]KM[5.5]LB[aa:a][bb:b]MA[cc];B[];W[])\n"
    );
    assert_eq!(
        codes,
        [
            Code::ObsoleteKi,
            Code::NotInFf4,
            Code::NotInFf4,
            Code::EmptyPassInOldFormat
        ]
    );
}

#[test]
fn values_are_corrected_or_deleted() {
    let (out, codes) =
        conv("(;FF[4]SZ[19];B[c   c]BL[34.]OB[1 kk]DM[]KO[xxxx]KM[5 1/2]WL[not much]C[]N[x][y])");
    assert_eq!(
        out,
        "(;FF[4]CA[UTF-8]GM[1]SZ[19];B[cc]BL[34]OB[1]DM[1]KO[]KM[5.5]N[x])\n"
    );
    assert_eq!(
        codes,
        [
            Code::CorrectableValue,
            Code::CorrectableValue,
            Code::CorrectableValue,
            Code::CorrectableValue,
            Code::CorrectableValue,
            Code::CorrectableValue,
            Code::IllegalValue,
            Code::EmptyValue,
            Code::TooManyValues,
        ]
    );
}

#[test]
fn node_repairs() {
    let (out, codes) =
        conv("(;FF[4];B[aa]W[bb]C[x]C[y];MA[aa][ab]TR[aa];TE[1];B[cc]BM[1]TE[2];GB[1]GW[1])");
    assert_eq!(
        out,
        "(;FF[4]CA[UTF-8]GM[1]SZ[19];B[aa]C[x\n\ny];W[bb];MA[aa][ab];;B[cc]DO[];GB[1])\n"
    );
    assert_eq!(
        codes,
        [
            Code::DuplicateProperty,
            Code::TwoMoves,
            Code::MarkupNotUnique,
            Code::MoveAnnotationWithoutMove,
            Code::BmTeCombination,
            Code::AnnotationConflict
        ]
    );
}

#[test]
fn root_properties_and_game_info() {
    let (out, codes) = conv("(;SZ[9:9]GM[1]FF[4]DT[last summer]RE[B+R];CA[UTF-8]SZ[9];PB[x])");
    assert_eq!(
        out,
        "(;FF[4]CA[UTF-8]GM[1]SZ[9]DT[last summer]RE[B+R];;PB[x])\n"
    );
    assert_eq!(
        codes,
        [
            Code::SquareAsRectangle,
            Code::GameInfoFormat,
            Code::RootOutsideRoot,
            Code::RootOutsideRoot,
            Code::GameInfoOutside
        ]
    );
}

#[test]
fn off_board_and_lowercase() {
    let p = Collection::parse(b"(;FF[4]SZ[9]AddBlack[aa][jj];W[ss])");
    let d = check(&p.collection);
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::LowercaseId, Code::OffBoard, Code::OffBoard]);
    assert_eq!((d[0].line, d[0].column), (1, 13));
}

#[test]
fn hostile_nodes_stay_linear_and_bounded() {
    let mut s = String::from("(;FF[4];MA");
    for _ in 0..200_000 {
        s.push_str("[aa]");
    }
    for _ in 0..50_000 {
        s.push_str("C[x]B[zz]");
    }
    s.push(')');
    let p = Collection::parse(s.as_bytes());
    // (Quadratic passes made this take minutes; bench/ measures speed.)
    let d = check(&p.collection);
    assert_eq!(d.len(), DiagnosticSink::DEFAULT_LIMIT + 1);
    assert_eq!(d.last().unwrap().code, Code::TooManyProblems);
    let c = to_ff4(&p.collection);
    let comment = vec!["x"; 50_000].join("\n\n");
    assert_eq!(
        write(&c.collection),
        format!("(;FF[4]CA[UTF-8]GM[1]SZ[19];MA[aa]C[{comment}])\n")
    );
}

#[test]
fn points_are_checked_against_the_corrected_size() {
    // Found by fuzzing: SZ[10:53] becomes SZ[10:52]; a point in column 13
    // is off that board in the first conversion already.
    let (out, codes) = conv("(;FF[4]SZ[10:53];B[mb])");
    assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[10:52];)\n");
    assert_eq!(codes, [Code::BoardSize, Code::OffBoard]);
    assert_eq!(conv(&out).0, out);
}

#[test]
fn repeated_elists_merge_to_a_fixed_point() {
    // Found by fuzzing.
    let (out, _) = conv("(;VW[]VW[];TB[]TB[aa])");
    assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[19]VW[];TB[aa])\n");
    assert_eq!(conv(&out).0, out);
}

#[test]
fn the_first_valid_size_counts() {
    // Found by fuzzing: an illegal SZ is deleted, the valid repeat is kept,
    // and points are checked against it in the first conversion already.
    let (out, _) = conv("(;SZ[x]SZ[9]AB[aa][pp])");
    assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[9]AB[aa])\n");
    assert_eq!(conv(&out).0, out);
}

#[test]
fn an_illegal_gm_means_go() {
    // Found by fuzzing: the converted file must itself convert unchanged.
    let (out, codes) = conv("(;FF[4]GM[0];B[aa])");
    assert_eq!(out, "(;FF[4]CA[UTF-8]GM[1]SZ[19];B[aa])\n");
    assert_eq!(codes, [Code::IllegalRootValue]);
    assert_eq!(conv(&out).0, out);
}

#[test]
fn dates_and_results() {
    for ok in [
        "1996-12-27",
        "1996-12-27,28",
        "1996-05,06",
        "1996-05-06,07-01",
        "2000",
    ] {
        assert!(valid_date(ok), "{ok}");
    }
    for bad in ["27.12.1996", "96-12-27", "1996-1-2", "12,1996"] {
        assert!(!valid_date(bad), "{bad}");
    }
    for ok in ["B+R", "W+12.5", "0", "Draw", "B+", "W+Time", "?"] {
        assert!(valid_result(ok), "{ok}");
    }
    assert!(!valid_result("black wins"));
}
