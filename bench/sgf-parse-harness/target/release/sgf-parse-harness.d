/work/main/bench/sgf-parse-harness/target/release/sgf-parse-harness: /work/main/bench/sgf-parse-harness/src/main.rs
