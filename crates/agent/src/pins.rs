//! The agent CLI versions pawl is tested with, read from `.ci/agent-versions` (compiled in): the
//! one file `.ci/install-agents.sh`, the Containerfile, `pawl doctor` and the real-client tests
//! all read. And the comparison of a version a CLI reports with the tested one.
//!
//! Not here: installing anything, or deciding what a mismatch means (that is `pawl doctor`).

use std::cmp::Ordering;

/// The pins file, as written (shell syntax: `NAME=VERSION` lines, `#` comments).
pub const PINS_FILE: &str = include_str!("../../../.ci/agent-versions");

/// The tested version of an agent program (`claude`, `codex`, `gemini`), from [`PINS_FILE`];
/// `None` for a program that is not pinned there.
pub fn tested(program: &str) -> Option<&'static str> {
    let var = match program {
        "claude" => "PAWL_CLAUDE_VERSION",
        "codex" => "PAWL_CODEX_VERSION",
        "gemini" => "PAWL_GEMINI_VERSION",
        _ => return None,
    };
    pinned(PINS_FILE, var)
}

/// The value of `var=` in a pins file's text (quotes trimmed); `None` when absent or empty.
pub fn pinned<'t>(text: &'t str, var: &str) -> Option<&'t str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(var)?.strip_prefix('='))
        .map(|v| v.trim().trim_matches('"'))
        .find(|v| !v.is_empty())
}

/// How the first `X.Y.Z` in a CLI's `--version` output compares with `tested` (`Less`: older
/// than tested). `None` when the output names no such version. Pre-release or build suffixes
/// (`-alpha.1`) are ignored: only the three numbers count.
pub fn compare(found: &str, tested: &str) -> Option<Ordering> {
    Some(triple(found)?.cmp(&triple(tested)?))
}

/// The first `N.N.N` in `text`, as numbers.
fn triple(text: &str) -> Option<(u64, u64, u64)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start].is_ascii_digit() && (start == 0 || !bytes[start - 1].is_ascii_digit()) {
            let rest = &text[start..];
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let mut parts = rest[..end].split('.').map(str::parse::<u64>);
            if let (Some(Ok(a)), Some(Ok(b)), Some(Ok(c))) =
                (parts.next(), parts.next(), parts.next())
            {
                return Some((a, b, c));
            }
        }
        start += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_cli_is_pinned_in_the_one_file() {
        for program in ["claude", "codex", "gemini"] {
            let v = tested(program).unwrap_or_else(|| panic!("{program} not pinned"));
            assert!(triple(v).is_some(), "{program}: {v}");
        }
        assert_eq!(tested("aider"), None);
    }

    #[test]
    fn a_version_is_found_in_what_each_cli_prints() {
        use Ordering::*;
        assert_eq!(compare("2.1.332 (Claude Code)", "2.1.332"), Some(Equal));
        assert_eq!(compare("2.1.329 (Claude Code)", "2.1.332"), Some(Less));
        assert_eq!(compare("codex-cli 0.171.0", "0.171.0"), Some(Equal));
        assert_eq!(compare("codex-cli 0.180.1", "0.171.0"), Some(Greater));
        assert_eq!(compare("0.61.0", "0.61.0"), Some(Equal));
        // 2.1.3320 is not 2.1.332: numbers, not prefixes.
        assert_eq!(compare("2.1.3320", "2.1.332"), Some(Greater));
        assert_eq!(compare("0.62.0-nightly.20261201", "0.61.0"), Some(Greater));
        assert_eq!(compare("v10 build 7", "0.61.0"), None);
        assert_eq!(compare("", "0.61.0"), None);
        assert_eq!(compare("1.2.x 3.4.5", "3.4.5"), Some(Equal));
    }

    #[test]
    fn a_pins_file_is_read_line_by_line() {
        let text = "# PAWL_X_VERSION=9\nPAWL_X_VERSION=\"1.2.3\"\nPAWL_XY_VERSION=4.5.6\n";
        assert_eq!(pinned(text, "PAWL_X_VERSION"), Some("1.2.3"));
        assert_eq!(pinned(text, "PAWL_XY_VERSION"), Some("4.5.6"));
        assert_eq!(pinned(text, "PAWL_Z_VERSION"), None);
    }
}
