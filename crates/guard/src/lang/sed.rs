//! sed scripts, far enough for the guard: the commands that run a program (`e`, the `s///e`
//! flag) and write a file (`w`, `W`, the `s///w` flag), parsed as GNU sed reads them; anything
//! it cannot read is an error (the rules deny it).

/// What a sed script does that the guard judges.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SedAction {
    /// `e command`.
    Run(String),
    /// `e` alone or the `s///e` flag: the pattern space runs.
    RunPatternSpace(&'static str),
    /// `w file`, `W file`, `s///w file`.
    Write(String),
}

/// Parses a (GNU) sed script far enough to find `e`, `w` and `W`.
pub(crate) fn sed_actions(script: &str) -> Result<Vec<SedAction>, String> {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let n = chars.len();
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < n && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i].iter().collect()
    };
    // Skips a delimited part (`/re/`, `\cREc`, s parts); i is just past the opening delimiter.
    let delimited = |i: &mut usize, delim: char| -> Result<(), String> {
        while *i < n {
            let c = chars[*i];
            if c == '\\' {
                *i += 2;
                continue;
            }
            if c == delim {
                *i += 1;
                return Ok(());
            }
            if c == '\n' && delim != '\n' {
                return Err("a newline inside an address or s command".into());
            }
            *i += 1;
        }
        Err("an unterminated address or s command".into())
    };
    let mut steps = 0usize;
    while i < n {
        steps += 1;
        if steps > 100_000 {
            return Err("too long".into());
        }
        let c = chars[i];
        if c.is_whitespace() || c == ';' || c == '}' || c == '{' || c == '!' {
            i += 1;
            continue;
        }
        if c == '#' {
            rest_of_line(&mut i);
            continue;
        }
        // Addresses.
        let mut had_address = false;
        loop {
            if i >= n {
                break;
            }
            let c = chars[i];
            if c.is_ascii_digit() {
                while i < n && (chars[i].is_ascii_digit() || chars[i] == '~') {
                    i += 1;
                }
                had_address = true;
            } else if c == '$' {
                i += 1;
                had_address = true;
            } else if c == '/' {
                i += 1;
                delimited(&mut i, '/')?;
                while i < n && matches!(chars[i], 'I' | 'M') {
                    i += 1;
                }
                had_address = true;
            } else if c == '\\' && i + 1 < n {
                let d = chars[i + 1];
                i += 2;
                delimited(&mut i, d)?;
                while i < n && matches!(chars[i], 'I' | 'M') {
                    i += 1;
                }
                had_address = true;
            } else if had_address && (c == ',' || c == '+' || c == '~') {
                i += 1;
                continue;
            } else {
                break;
            }
            while i < n && chars[i] == ' ' {
                i += 1;
            }
            if i < n && chars[i] == ',' {
                i += 1;
                while i < n && chars[i] == ' ' {
                    i += 1;
                }
                continue;
            }
            break;
        }
        while i < n && (chars[i] == ' ' || chars[i] == '!' || chars[i] == '\t') {
            i += 1;
        }
        if i >= n {
            if had_address {
                return Err("an address without a command".into());
            }
            break;
        }
        let cmd = chars[i];
        i += 1;
        match cmd {
            '{' | '}' | ';' | '\n' => {}
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
            'q' | 'Q' | 'l' | 'L' => {
                while i < n && (chars[i].is_ascii_digit() || chars[i] == ' ') {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => {
                // Text to the end of the line (a trailing backslash continues it).
                loop {
                    let line = rest_of_line(&mut i);
                    if line.ends_with('\\') && i < n {
                        i += 1;
                        continue;
                    }
                    break;
                }
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                while i < n && chars[i] != '\n' && chars[i] != ';' && chars[i] != '}' {
                    i += 1;
                }
            }
            'r' | 'R' => {
                rest_of_line(&mut i);
            }
            'w' | 'W' => {
                let file = rest_of_line(&mut i).trim().to_owned();
                out.push(SedAction::Write(file));
            }
            'e' => {
                let command = rest_of_line(&mut i).trim().to_owned();
                if command.is_empty() {
                    out.push(SedAction::RunPatternSpace("`e`"));
                } else {
                    out.push(SedAction::Run(command));
                }
            }
            's' | 'y' => {
                let Some(&delim) = chars.get(i) else {
                    return Err(format!("an unterminated {cmd} command"));
                };
                if delim == '\n' || delim == '\\' {
                    return Err(format!("a {cmd} command with an odd delimiter"));
                }
                i += 1;
                delimited(&mut i, delim)?;
                delimited(&mut i, delim)?;
                if cmd == 's' {
                    // Flags.
                    while i < n {
                        let f = chars[i];
                        match f {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            '0'..='9' => i += 1,
                            'e' => {
                                out.push(SedAction::RunPatternSpace("`s///e`"));
                                i += 1;
                            }
                            'w' | 'W' => {
                                i += 1;
                                let file = rest_of_line(&mut i).trim().to_owned();
                                out.push(SedAction::Write(file));
                                break;
                            }
                            _ => break,
                        }
                    }
                }
            }
            other => return Err(format!("an unknown command `{other}`")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_parse() {
        for ok in [
            "s/a/b/",
            "s/a/b/g;s|c|d|2",
            "1d",
            "/^$/d",
            "10,20p",
            "$a\\\nmore",
            "/start/,/end/{s/x/y/;p}",
            "0,/re/s//X/",
            "1~2d",
            "y/abc/xyz/",
            "s/\\(a\\)\\/b/\\1/",
            "/x/!d",
            ":a;N;$!ba;s/\\n/ /g",
            "\\,foo,d",
            "#n\np",
            "s/a/b/w /dev/stdout",
        ] {
            assert!(sed_actions(ok).is_ok(), "{ok:?}: {:?}", sed_actions(ok));
        }
        assert_eq!(
            sed_actions("1e rm -rf src").unwrap(),
            vec![SedAction::Run("rm -rf src".into())]
        );
        assert_eq!(
            sed_actions("s/.*/rm -rf src/e").unwrap(),
            vec![SedAction::RunPatternSpace("`s///e`")]
        );
        assert_eq!(
            sed_actions("w .env").unwrap(),
            vec![SedAction::Write(".env".into())]
        );
        assert_eq!(
            sed_actions("s/x/y/w README.md").unwrap(),
            vec![SedAction::Write("README.md".into())]
        );
    }

    use proptest::prelude::*;

    /// One sed command and what the guard must find in it.
    fn command() -> impl Strategy<Value = (String, Vec<SedAction>)> {
        let word = "[a-z][a-z0-9 ._/-]{0,10}".prop_map(|w| w.trim().to_owned());
        prop_oneof![
            prop_oneof![
                Just("p"),
                Just("d"),
                Just("1,3d"),
                Just("$!N"),
                Just("/x/,/y/p"),
                Just("s/a/b/g"),
                Just("s|a/b|c|2"),
                Just("y/abc/xyz/"),
                Just("/^#/!{s/x/y/;p}"),
                Just(":a;N;$!ba"),
                Just("a\\\nappended"),
                Just("# a comment e x"),
            ]
            .prop_map(|c| (c.to_owned(), vec![])),
            word.clone()
                .prop_map(|w| (format!("e {w}"), vec![SedAction::Run(w)])),
            Just(("e".to_owned(), vec![SedAction::RunPatternSpace("`e`")])),
            Just((
                "s/.*/x/e".to_owned(),
                vec![SedAction::RunPatternSpace("`s///e`")]
            )),
            word.clone()
                .prop_map(|w| (format!("2w {w}"), vec![SedAction::Write(w)])),
            word.prop_map(|w| (format!("s/a/b/gw {w}"), vec![SedAction::Write(w)])),
        ]
    }

    proptest! {
        /// Any text is parsed or refused without panicking.
        #[test]
        fn any_text_parses_or_is_refused(script in any::<String>()) {
            let _ = sed_actions(&script);
        }

        /// A script is the sum of its lines: every `e` and `w` of every line is found, in order.
        #[test]
        fn a_script_finds_what_each_line_does(lines in prop::collection::vec(command(), 0..8)) {
            let script = lines.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>().join("\n");
            let expected: Vec<SedAction> = lines.into_iter().flat_map(|(_, a)| a).collect();
            prop_assert_eq!(sed_actions(&script), Ok(expected));
        }
    }
}
