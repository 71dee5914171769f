/work/main/bench/sgf-parse-harness/target/release/deps/sgf_parse_harness-6bb4ec00d8292437.d: src/main.rs

/work/main/bench/sgf-parse-harness/target/release/deps/sgf_parse_harness-6bb4ec00d8292437: src/main.rs

src/main.rs:
