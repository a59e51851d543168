//! The `{report}` convention: how a gate command asks for a report file.
//!
//! A gate command may contain the literal placeholder `{report}` (for example
//! `pytest -rA --junitxml={report}`). Before running it, the runner picks a fresh path under
//! `.pawl/logs/` (see [`report_file_name`]), substitutes it with [`substitute_report`], runs the
//! command, then hands the file's text to [`crate::parse::parse_any`] as `report`. A command
//! without the placeholder is parsed from its stdout/stderr alone.
//!
//! The runner should prefer a path relative to the command's working directory (the repository
//! root), except for `dotnet test`, whose TRX logger resolves a relative `LogFileName` against
//! each test project's results directory: give it an absolute path.
//!
//! This module only builds strings; it does not create the file or run anything.

/// The placeholder a gate command uses for its report path.
pub const REPORT_PLACEHOLDER: &str = "{report}";

/// Whether `command` wants a report path substituted.
pub fn uses_report(command: &str) -> bool {
    command.contains(REPORT_PLACEHOLDER)
}

/// The extension a report written by `command` will have, so logs stay easy to open.
pub fn report_extension(command: &str) -> &'static str {
    if command.contains("trx") {
        "trx"
    } else if command.contains("--json") || command.contains("reporter=json") {
        "json"
    } else {
        "xml"
    }
}

/// A file name for the report of `gate` (e.g. `test`) in run step `step`, to be placed under
/// `.pawl/logs/`. Only ASCII alphanumerics, `-` and `_` of `gate` are kept so the name never
/// needs quoting.
pub fn report_file_name(gate: &str, step: u64, command: &str) -> String {
    let gate: String = gate
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    let gate = if gate.is_empty() {
        "gate".to_owned()
    } else {
        gate
    };
    format!("{gate}-{step}.report.{}", report_extension(command))
}

/// Replaces every `{report}` in `command` with `path`, quoted for a POSIX shell where needed.
///
/// Inside a double-quoted region (as in `--logger "trx;LogFileName={report}"`) the path is
/// backslash-escaped for double quotes; elsewhere it is single-quoted unless it only holds
/// characters that never need quoting.
pub fn substitute_report(command: &str, path: &str) -> String {
    let mut out = String::with_capacity(command.len() + path.len());
    let mut in_single = false;
    let mut in_double = false;
    let mut escaped = false;
    let mut rest = command;
    while let Some(c) = rest.chars().next() {
        if !in_single && !escaped && rest.starts_with(REPORT_PLACEHOLDER) {
            out.push_str(&quote_path(path, in_double));
            rest = rest.get(REPORT_PLACEHOLDER.len()..).unwrap_or("");
            continue;
        }
        match c {
            '\\' if !in_single && !escaped => escaped = true,
            '\'' if !in_double && !escaped => in_single = !in_single,
            '"' if !in_single && !escaped => in_double = !in_double,
            _ => escaped = false,
        }
        if c != '\\' {
            escaped = false;
        }
        out.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    out
}

fn quote_path(path: &str, in_double: bool) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        return path.to_owned();
    }
    if in_double {
        let mut s = String::with_capacity(path.len());
        for c in path.chars() {
            if matches!(c, '"' | '\\' | '$' | '`') {
                s.push('\\');
            }
            s.push(c);
        }
        s
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_path_is_inserted_as_is() {
        assert_eq!(
            substitute_report("pytest --junitxml={report}", ".pawl/logs/test-1.report.xml"),
            "pytest --junitxml=.pawl/logs/test-1.report.xml"
        );
    }

    #[test]
    fn path_with_space_is_single_quoted_outside_quotes() {
        assert_eq!(
            substitute_report("jest --json --outputFile={report}", "/a b/it's.json"),
            r"jest --json --outputFile='/a b/it'\''s.json'"
        );
    }

    #[test]
    fn path_inside_double_quotes_is_escaped_not_single_quoted() {
        assert_eq!(
            substitute_report(
                r#"dotnet test --logger "trx;LogFileName={report}""#,
                "/a b/$x.trx"
            ),
            r#"dotnet test --logger "trx;LogFileName=/a b/\$x.trx""#
        );
    }

    #[test]
    fn placeholder_inside_single_quotes_is_left_alone() {
        assert_eq!(substitute_report("echo '{report}'", "x"), "echo '{report}'");
    }

    #[test]
    fn file_name_depends_on_format() {
        assert_eq!(
            report_file_name("test", 3, "jest --json --outputFile={report}"),
            "test-3.report.json"
        );
        assert_eq!(
            report_file_name("te st", 1, "pytest --junitxml={report}"),
            "test-1.report.xml"
        );
        assert_eq!(
            report_file_name("", 1, r#"dotnet test --logger "trx""#),
            "gate-1.report.trx"
        );
        assert!(uses_report("go test {report}"));
        assert!(!uses_report("go test -json ./..."));
    }
}
