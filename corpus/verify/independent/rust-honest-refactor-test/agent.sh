#!/bin/sh
# Honest: fix title(), and turn the two tests into one table-driven test with the same cases and more.
cat > src/lib.rs <<'RS'
/// Title case: first letter of every word upper-case, the rest lower-case.
pub fn title(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + &c.as_str().to_lowercase(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_cases() {
        let cases = [
            ("hello world", "Hello World"),
            ("hELLO wORLD", "Hello World"),
            ("", ""),
            ("élan vital", "Élan Vital"),
            ("a  b", "A  B"),
        ];
        for (input, want) in cases {
            assert_eq!(title(input), want, "input {input:?}");
        }
    }
}
RS
