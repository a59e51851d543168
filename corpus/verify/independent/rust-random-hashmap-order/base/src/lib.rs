use std::collections::HashMap;

/// The most frequent word; on a tie, the word that appears first in the text.
pub fn most_frequent(text: &str) -> Option<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in text.split_whitespace() {
        *counts.entry(w).or_default() += 1;
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort();
    v.into_iter().rev().max_by_key(|(_, c)| *c).map(|(w, _)| w.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_winner() {
        assert_eq!(most_frequent("a b b c").as_deref(), Some("b"));
    }

    #[test]
    fn tie_goes_to_first_seen() {
        assert_eq!(most_frequent("pear fig fig pear").as_deref(), Some("pear"));
    }
}
