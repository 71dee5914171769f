use super::*;

#[derive(Default)]
struct Log(Vec<String>, Vec<Code>);
impl Visitor for Log {
    fn begin_game(&mut self, _: usize) {
        self.0.push("(".into());
    }
    fn end_game(&mut self, _: usize) {
        self.0.push(")".into());
    }
    fn begin_variation(&mut self, _: usize) -> Skip {
        self.0.push("[(".into());
        Skip::No
    }
    fn end_variation(&mut self, _: usize) {
        self.0.push(")]".into());
    }
    fn begin_node(&mut self, _: usize) {
        self.0.push(";".into());
    }
    fn property(&mut self, p: &RawProperty<'_>) {
        // The reader's table position is the one a lookup finds.
        assert_eq!(p.known, props::index(p.id));
        let vals: Vec<String> = (0..p.values.len())
            .map(|i| String::from_utf8_lossy(p.value(i)).into_owned())
            .collect();
        self.0.push(format!(
            "{}{:?}{}",
            String::from_utf8_lossy(p.id),
            vals,
            if p.clean { "" } else { "!" }
        ));
    }
    fn diagnostic(&mut self, d: Diagnostic) {
        self.1.push(d.code);
    }
}

fn log(s: &str) -> (String, Vec<Code>) {
    let mut l = Log::default();
    read(s.as_bytes(), &mut l);
    (l.0.join(" "), l.1)
}

#[test]
fn simple_tree_with_variations() {
    let (ev, d) = log("(;FF[4]SZ[9];B[aa](;W[bb])(;W[cc]C[x\\]y]))");
    assert_eq!(
        ev,
        "( ; FF[\"4\"] SZ[\"9\"] ; B[\"aa\"] [( ; W[\"bb\"] )] [( ; W[\"cc\"] C[\"x\\\\]y\"] )] )"
    );
    assert!(d.is_empty());
}

#[test]
fn lists_and_whitespace_between_values() {
    let (ev, _) = log("(;AB[aa] [bb]\n[cc:dd] )");
    assert_eq!(ev, "( ; AB[\"aa\", \"bb\", \"cc:dd\"] )");
}

#[test]
fn junk_before_and_missing_paren() {
    let (ev, d) = log("hello [x] (;B[aa];W[bb]");
    assert_eq!(ev, "( ; B[\"aa\"] ; W[\"bb\"] )");
    assert_eq!(d, vec![Code::JunkBeforeTree, Code::UnexpectedEof]);
}

#[test]
fn lowercase_ids_keep_uppercase_letters() {
    let (ev, _) = log("(;FF[3]LaBel[aa:x]AddBlack[bb])");
    assert_eq!(ev, "( ; FF[\"3\"] LB[\"aa:x\"] AB[\"bb\"] )");
}

#[test]
fn unescaped_bracket_in_comment() {
    let (ev, _) = log("(;C[he said [hi] there];B[aa])");
    assert_eq!(ev, "( ; C[\"he said [hi] there\"]! ; B[\"aa\"] )");
    // A point value never swallows what follows.
    let (ev, _) = log("(;B[aa] xx ;W[bb])");
    assert_eq!(ev, "( ; B[\"aa\"] ; W[\"bb\"] )");
    // A lone ']' in a comment, when the comment plainly goes on.
    let (ev, d) = log("(;C[an unescaped ] bracket?];W[bb])");
    assert_eq!(ev, "( ; C[\"an unescaped ] bracket?\"]! ; W[\"bb\"] )");
    assert_eq!(d, [Code::UnescapedBracket]);
    // But never across another value.
    let (ev, _) = log("(;C[x] junk ;W[bb])");
    assert_eq!(ev, "( ; C[\"x\"] ; W[\"bb\"] )");
}

#[test]
fn bad_structure_is_reported() {
    let (_, d) = log("(;B[aa]())");
    assert_eq!(d, vec![Code::EmptyVariation]);
    let (_, d) = log("(;B[aa]) )");
    assert_eq!(d, vec![Code::UnmatchedParen]);
    let (ev, d) = log("(;B[aa]);W[bb])");
    assert_eq!(ev, "( ; B[\"aa\"] ) ( ; W[\"bb\"] )");
    assert_eq!(d, vec![Code::NodeOutsideTree]);
    let (_, d) = log("(;[aa]B)");
    assert_eq!(d, vec![Code::ValuesWithoutId, Code::NoValues]);
    let (_, d) = log("");
    assert_eq!(d, vec![Code::NoSgfData]);
    let (ev, d) = log("(B[aa])");
    assert_eq!(ev, "( ; B[\"aa\"] )");
    assert_eq!(d, vec![Code::MissingSemicolon]);
}

#[test]
fn moves_read_by_the_short_path_are_as_any_property() {
    let (ev, d) = log("(;B[pd];W[dd]B[qq];C[ab];B[cc]\n;W[tt];B[])");
    assert_eq!(
        ev,
        "( ; B[\"pd\"] ; W[\"dd\"] B[\"qq\"] ; C[\"ab\"] ; B[\"cc\"] ; W[\"tt\"] ; B[\"\"] )"
    );
    assert!(d.is_empty());
    // A second value, directly or after white space, is not missed.
    for s in ["(;B[pd][qq])", "(;B[pd] [qq])", "(;B[pd]\n[qq])"] {
        assert_eq!(log(s).0, "( ; B[\"pd\", \"qq\"] )", "{s}");
    }
    // Special bytes in the value take the general path.
    assert_eq!(log("(;B[p\\]])").0, "( ; B[\"p\\\\]\"] )");
    // A node after a variation's ')' still opens a variation.
    let (ev, d) = log("(;B[pd]);W[qq])");
    assert_eq!(ev, "( ; B[\"pd\"] ) ( ; W[\"qq\"] )");
    assert_eq!(d, vec![Code::NodeOutsideTree]);
    let (ev, d) = log("(;B[aa](;W[bb]);B[cc]))");
    assert_eq!(ev, "( ; B[\"aa\"] [( ; W[\"bb\"] )] [( ; B[\"cc\"] )] )");
    assert_eq!(d, vec![Code::NodeOutsideTree]);
    // At the end of the text.
    let (ev, d) = log("(;W[dd];B[pd]");
    assert_eq!(ev, "( ; W[\"dd\"] ; B[\"pd\"] )");
    assert_eq!(d, vec![Code::UnexpectedEof]);
}

#[test]
fn unterminated_value_at_eof() {
    let (ev, d) = log("(;C[abc");
    assert_eq!(ev, "( ; C[\"abc\"]! )");
    assert_eq!(d, vec![Code::UnexpectedEof]);
    let (ev, _) = log("(;C[abc\\");
    assert_eq!(ev, "( ; C[\"abc\\\\\"]! )");
}

#[test]
fn skipping_variations() {
    struct MainLine(Vec<String>);
    impl Visitor for MainLine {
        fn begin_variation(&mut self, _: usize) -> Skip {
            if self.0.len() >= 2 {
                Skip::Yes
            } else {
                Skip::No
            }
        }
        fn property(&mut self, p: &RawProperty<'_>) {
            self.0
                .push(String::from_utf8_lossy(p.value(0)).into_owned());
        }
    }
    let mut m = MainLine(vec![]);
    read(b"(;B[aa];W[bb](;B[cc](;W[x])(;W[y]))(;B[dd]))", &mut m);
    assert_eq!(m.0, vec!["aa", "bb"]);
}

#[test]
fn deep_nesting_does_not_recurse() {
    let mut s = String::from("(;FF[4]");
    for _ in 0..100_000 {
        s.push_str("(;B[aa]");
    }
    for _ in 0..100_000 {
        s.push(')');
    }
    s.push(')');
    let child = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            let mut l = Log::default();
            read(s.as_bytes(), &mut l);
            l.0.len()
        })
        .unwrap();
    assert_eq!(child.join().unwrap(), 2 + 2 + 100_000 * 4);
}
