//! The fake GTP engine of [`kifu_gtp::fake`] as a program: `fake_engine [--crash-on A1] ...`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match kifu_gtp::fake::parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("fake_engine: {e}");
            std::process::exit(2);
        }
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match kifu_gtp::fake::serve(stdin, stdout, &opts) {
        Ok(false) => {}
        Ok(true) => std::process::exit(3),
        Err(_) => std::process::exit(1),
    }
}
