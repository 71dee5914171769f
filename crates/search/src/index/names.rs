//! The files' paths of an index, kept in one buffer: one allocation for all of them instead of
//! one each (a million single-game files took 135 bytes a path as separate strings, 50 here).

/// Strings, in order, in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Names {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<usize>,
}

impl Names {
    /// Appends `s`.
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The `i`-th string (from 0).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }

    /// The strings in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(items: I) -> Names {
        let mut names = Names::default();
        for s in items {
            names.push(s.as_ref());
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_as_pushed() {
        let list = ["a/b.sgf", "", "c.sgf", "ünïcode/路径.sgf", ""];
        let names: Names = list.iter().copied().collect();
        assert_eq!(names.len(), 5);
        assert_eq!(names.iter().collect::<Vec<_>>(), list);
        for (i, s) in list.iter().enumerate() {
            assert_eq!(names.get(i), Some(*s));
        }
        assert_eq!(names.get(5), None);
        assert_eq!(Names::default().iter().count(), 0);
    }
}
