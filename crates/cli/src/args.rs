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
