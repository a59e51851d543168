//! The escapes of the rows' command column (shared with the figures bench, which includes this
//! file by path).

/// `\n` is a newline, `\t` a tab, `\\` one backslash; any other backslash is itself.
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                _ => {
                    out.push(c);
                    continue;
                }
            }
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}
