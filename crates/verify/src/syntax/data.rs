//! A data file read as its program would read it (issue 34 point 1: "every data file under a
//! source root that the run added or changed is screened for the deciding tests' literals,
//! however the code reads it"): JSON, YAML and TOML as one tree of values, CSV and TSV as rows
//! of fields, anything else as `key<sep>value` lines (the caller's fallback, also for a file
//! that does not parse in the format its name says).

use std::path::Path;

use serde_json::Value;

use super::Span;

/// How a data file reads.
pub(super) enum Data {
    /// Documents of nested maps and lists (JSON, YAML, TOML).
    Tree(Vec<Value>),
    /// Delimited rows (CSV, TSV): the fields of each row and the row's span; the first row is
    /// a header when [`header`] says so.
    Rows(Vec<(Vec<String>, Span)>),
    /// Neither: read as lines.
    Lines,
}

/// The deepest nesting a YAML or TOML text may have to be read as a tree (their readers build
/// and drop the nodes recursively).
const MAX_DEPTH: usize = 256;

/// `src` read by the format `path`'s extension names (JSON for any file that parses as JSON).
pub(super) fn read(path: &Path, src: &str) -> Data {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if let Ok(v) = serde_json::from_str::<Value>(src) {
        return Data::Tree(vec![v]);
    }
    match ext.as_str() {
        "yaml" | "yml" => yaml(src).map_or(Data::Lines, Data::Tree),
        "toml" if nesting(src) <= MAX_DEPTH => {
            toml::from_str::<Value>(src).map_or(Data::Lines, |v| Data::Tree(vec![v]))
        }
        "csv" => Data::Rows(rows(src, ',')),
        "tsv" | "tab" => Data::Rows(rows(src, '\t')),
        _ => Data::Lines,
    }
}

/// A YAML text's documents as JSON values; `None` when it does not parse, uses aliases (each
/// is a copy of its anchor's node: a few lines could name billions of nodes) or nests deeper
/// than [`MAX_DEPTH`].
fn yaml(src: &str) -> Option<Vec<Value>> {
    if nesting(src) > MAX_DEPTH || has_alias(src) {
        return None;
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(src).ok()?;
    Some(docs.iter().filter_map(|d| yaml_value(d, 0)).collect())
}

/// An upper bound of a YAML or TOML text's nesting: the deepest run of open brackets plus, on
/// any line, its indentation and its leading `- ` and `? ` marks.
fn nesting(src: &str) -> usize {
    let mut flow = 0usize;
    let mut deepest = 0usize;
    for line in src.lines() {
        let indent = line.len() - line.trim_start().len();
        let marks = line
            .split_whitespace()
            .take_while(|w| matches!(*w, "-" | "?" | ":"))
            .count();
        for c in line.chars() {
            match c {
                '[' | '{' => flow += 1,
                ']' | '}' => flow = flow.saturating_sub(1),
                _ => {}
            }
            deepest = deepest.max(flow);
        }
        deepest = deepest.max(indent + marks + flow);
    }
    deepest
}

/// Whether a YAML text may use an alias (`*name` after an anchor `&name`): read as lines then.
fn has_alias(src: &str) -> bool {
    let named = |mark: char| {
        src.match_indices(mark).any(|(i, _)| {
            let before = src[..i].chars().next_back();
            let after = src[i + 1..].chars().next();
            before.is_none_or(|b| b.is_whitespace() || matches!(b, '[' | '{' | ',' | ':' | '-'))
                && after.is_some_and(|a| a.is_alphanumeric() || matches!(a, '_' | '-'))
        })
    };
    named('&') && named('*')
}

fn yaml_value(y: &yaml_rust2::Yaml, depth: usize) -> Option<Value> {
    use yaml_rust2::Yaml;
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match y {
        Yaml::Real(r) => r
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::String(r.clone()), Value::Number),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(a) => Value::Array(a.iter().filter_map(|i| yaml_value(i, depth + 1)).collect()),
        Yaml::Hash(h) => Value::Object(
            h.iter()
                .filter_map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) | Yaml::Real(s) => s.clone(),
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Boolean(b) => b.to_string(),
                        _ => return None,
                    };
                    Some((key, yaml_value(v, depth + 1)?))
                })
                .collect(),
        ),
        Yaml::Null => Value::Null,
        Yaml::Alias(_) | Yaml::BadValue => return None,
    })
}

/// The rows of a delimited text: fields split at `sep` outside double quotes (`""` a quote
/// inside them), a quoted field's line ends kept in it; blank lines and `#` comments skipped.
fn rows(src: &str, sep: char) -> Vec<(Vec<String>, Span)> {
    let mut out = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut start = 0usize;
    let mut line = 1usize;
    let mut first_line = 1usize;
    let mut chars = src.char_indices().peekable();
    let mut end_row = |fields: &mut Vec<String>,
                       field: &mut String,
                       start: usize,
                       end: usize,
                       first_line: usize,
                       line: usize| {
        fields.push(std::mem::take(field));
        let row = std::mem::take(fields);
        let text = src[start..end].trim();
        if !(text.is_empty() || text.starts_with('#')) {
            out.push((
                row.into_iter().map(|f| f.trim().to_string()).collect(),
                Span {
                    start,
                    end,
                    line: first_line,
                    end_line: line,
                },
            ));
        }
    };
    while let Some((i, c)) = chars.next() {
        match c {
            '"' if quoted && chars.peek().is_some_and(|(_, n)| *n == '"') => {
                field.push('"');
                chars.next();
            }
            '"' if quoted => quoted = false,
            '"' if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            c if c == sep && !quoted => fields.push(std::mem::take(&mut field)),
            '\n' if !quoted => {
                let end = if src[..i].ends_with('\r') { i - 1 } else { i };
                end_row(&mut fields, &mut field, start, end, first_line, line);
                line += 1;
                start = i + 1;
                first_line = line;
            }
            '\n' => {
                field.push(c);
                line += 1;
            }
            c => field.push(c),
        }
    }
    if start < src.len() {
        let end = src.trim_end_matches(['\r', '\n']).len().max(start);
        end_row(&mut fields, &mut field, start, end, first_line, line);
    }
    out
}

/// Whether a delimited text's first row is a header: every field a name (a letter first, no
/// field that reads as a number) while some later row holds a number.
pub(super) fn header(rows: &[(Vec<String>, Span)]) -> bool {
    let is_number = |f: &String| f.parse::<f64>().is_ok();
    rows.first().is_some_and(|(first, _)| {
        first
            .iter()
            .all(|f| f.chars().next().is_some_and(char::is_alphabetic) && !is_number(f))
            && rows[1..].iter().any(|(r, _)| r.iter().any(is_number))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delimited_rows_keep_quotes_spans_and_line_ends() {
        let src = "a,b\r\n\"1,5\",\"say \"\"hi\"\"\"\n# note\n\"x\ny\",2";
        let r = rows(src, ',');
        let fields: Vec<Vec<&str>> = r
            .iter()
            .map(|(f, _)| f.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            fields,
            vec![vec!["a", "b"], vec!["1,5", "say \"hi\""], vec!["x\ny", "2"]]
        );
        let lines: Vec<(usize, usize, &str)> = r
            .iter()
            .map(|(_, s)| (s.line, s.end_line, &src[s.start..s.end]))
            .collect();
        assert_eq!(
            lines,
            vec![
                (1, 1, "a,b"),
                (2, 2, "\"1,5\",\"say \"\"hi\"\"\""),
                (4, 5, "\"x\ny\",2")
            ]
        );
        assert!(header(&rows("want,a\n5,2\n", ',')));
        assert!(!header(&rows("5,2\n6,3\n", ',')));
    }

    #[test]
    fn yaml_with_aliases_or_deep_nesting_is_not_read_as_a_tree() {
        let bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n";
        assert!(matches!(read(Path::new("d.yaml"), bomb), Data::Lines));
        let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(matches!(read(Path::new("d.yaml"), &deep), Data::Lines));
        assert!(matches!(
            read(Path::new("d.toml"), &format!("x = {deep}")),
            Data::Lines
        ));
        let dashes = format!("{}1\n", "- ".repeat(10_000));
        assert!(matches!(read(Path::new("d.yml"), &dashes), Data::Lines));
        assert!(matches!(
            read(Path::new("d.yaml"), "a: 1\nb: [2, 3]\n"),
            Data::Tree(_)
        ));
        // an `&` in text is no anchor
        assert!(matches!(
            read(Path::new("d.yaml"), "q: Q&A\nr: 2 * 3\n"),
            Data::Tree(_)
        ));
    }
}
