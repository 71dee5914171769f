//! Value parsers for options shared by many commands, so that every out-of-range value is a
//! usage error (exit 2, clap's message naming the option) and no value can reach a panic or an
//! unbounded allocation.

/// The most threads `-j` may ask for: far above any machine kifu runs on, far below what makes
/// thread creation itself the failure (`-j 100000` once spawned threads until it was killed).
pub const MAX_JOBS: usize = 1024;

/// `-j N`: 0 (one per core) up to [`MAX_JOBS`].
pub fn jobs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n <= MAX_JOBS => Ok(n),
        Ok(_) => Err(format!(
            "{text}: at most {MAX_JOBS} threads (0 means one per core)"
        )),
        Err(_) => Err(format!("{text}: expected a number of threads")),
    }
}

/// `-j N`: the one thread option of every command that works in parallel, and the one way its
/// threads are made (a rayon pool for the command; engines for `pos score`, one thread each).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Threads {
    /// Threads (engines for `pos score`) at once: 0 = one per core, at most 1024. The output is
    /// the same for any number.
    #[arg(short = 'j', long = "jobs", default_value_t = 0, value_parser = jobs)]
    pub jobs: usize,
}

impl Threads {
    /// The number of threads asked for (0 resolved to one per core).
    pub fn count(self) -> usize {
        if self.jobs == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            self.jobs
        }
    }

    /// Runs `f` on a rayon pool of [`Threads::count`] threads: every parallel loop of the
    /// libraries inside `f` runs on it.
    pub fn run<T: Send>(self, f: impl FnOnce() -> T + Send) -> anyhow::Result<T> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.count())
            .build()
            .map_err(|e| anyhow::anyhow!("cannot start {} worker threads: {e}", self.count()))?;
        Ok(pool.install(f))
    }
}

/// `--cache-mb N`: the memory a pattern index keeps for searching beyond each game's
/// information and bitmaps (`kifu pos search`, `kifu serve`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Cache {
    /// Memory for searching beyond each game's information and bitmaps, in MiB (1 to
    /// 1,048,576; for each database): the games' moves read from the pattern index (the rest
    /// stays on disk and is read when a search needs it) and, up to three quarters of it,
    /// tables of when each point was first held that rule games out faster.
    #[arg(long = "cache-mb", value_name = "MB",
          default_value_t = (kifu_search::index::DEFAULT_CACHE_BYTES >> 20) as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub cache_mb: u64,
}

impl Cache {
    /// The limit in bytes.
    pub fn bytes(self) -> usize {
        usize::try_from(self.cache_mb << 20).unwrap_or(usize::MAX)
    }
}

/// `--shard I/N`: the one shard option of every heavy job (kifu-fs's [`kifu_fs::shard`] says
/// what a share is and how parts are merged).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Sharding {
    /// Do only share I of N (1 <= I <= N): the work whose stable key (a position's hash, a
    /// game's number in the input) modulo N is I - 1, written as a part for a later merge.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<kifu_fs::shard::Shard>,
}

/// A finite number at least 0 (weights, factors).
pub fn non_negative(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("{text}: expected a finite number at least 0")),
    }
}

/// A percentage: a finite number from 0 to 100.
pub fn percent(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=100.0).contains(&x) => Ok(x),
        _ => Err(format!("{text}: expected a percentage from 0 to 100")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert_eq!(jobs("0"), Ok(0));
        assert_eq!(jobs("1024"), Ok(1024));
        assert!(jobs("1025").unwrap_err().contains("at most 1024"));
        assert!(jobs("-1").is_err());
        assert!(non_negative("NaN").is_err());
        assert!(non_negative("inf").is_err());
        assert!(non_negative("-0.5").is_err());
        assert_eq!(non_negative("0.5"), Ok(0.5));
        assert!(percent("101").is_err());
        assert!(percent("nan").is_err());
    }
}
