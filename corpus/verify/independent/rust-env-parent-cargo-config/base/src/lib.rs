/// Title case: first letter of every word upper-case, the rest lower-case.
pub fn title(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
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
    fn simple() {
        assert_eq!(title("hello world"), "Hello World");
    }

    #[test]
    fn lowers_the_rest() {
        assert_eq!(title("hELLO wORLD"), "Hello World");
    }
}
