//! "Must not": limits the user states on a run (`--must-not`, `[run] must_not`), as data. A rule
//! is a path glob (`src/legacy/**`, `*.lock`, `migrations/`) or a command pattern (`cmd:git push*`,
//! or any pattern with a space: `npm publish`). The guard denies matching writes and commands as
//! they happen; after every agent step pawl checks the tree against the path rules and the step's
//! commands against the command rules, so an agent without the guard (a command agent) is held to
//! them too. Pure: the engine hands in the changed paths and the commands.

use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};

/// One rule, parsed.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The pattern as the user wrote it (what a violation names).
    pub pattern: String,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// Any of these matching a changed path (relative to the repository root) breaks the rule.
    Path(Vec<GlobMatcher>),
    /// Matching one simple command of a command line breaks the rule.
    Command(GlobMatcher),
}

/// A broken rule: which one, and what broke it (a path or a command).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub pattern: String,
    pub what: String,
}

/// A pattern pawl cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must-not pattern `{pattern}`: {why}")]
pub struct PatternError {
    pub pattern: String,
    pub why: String,
}

impl Rule {
    /// Parses one pattern: `cmd:<pattern>` or a pattern with whitespace is a command pattern,
    /// anything else a path glob (no `/`: at any depth; a directory: everything under it).
    pub fn parse(pattern: &str) -> Result<Rule, PatternError> {
        let p = pattern.trim();
        let err = |why: String| PatternError {
            pattern: pattern.to_string(),
            why,
        };
        if p.is_empty() {
            return Err(err("empty".into()));
        }
        if let Some(cmd) = p
            .strip_prefix("cmd:")
            .map(str::trim)
            .or_else(|| p.split_whitespace().nth(1).is_some().then_some(p))
        {
            if cmd.is_empty() {
                return Err(err("empty command pattern".into()));
            }
            let words: Vec<&str> = cmd.split_whitespace().collect();
            let mut glob = words.join(" ");
            if !glob.ends_with('*') {
                // `git push` forbids `git push origin main` too: the words, then anything.
                glob.push('*');
            }
            let m = Glob::new(&glob)
                .map_err(|e| err(e.to_string()))?
                .compile_matcher();
            return Ok(Rule {
                pattern: p.to_string(),
                kind: Kind::Command(m),
            });
        }
        let rooted = p.starts_with('/');
        let base = p.trim_start_matches("./").trim_start_matches('/');
        let base = base.trim_end_matches('/');
        if base.is_empty() {
            return Err(err("matches nothing (or everything)".into()));
        }
        // As in .gitignore: a leading `/` or any inner `/` anchors at the root.
        let anchored = if rooted || base.contains('/') {
            base.to_string()
        } else {
            format!("**/{base}")
        };
        let mut matchers = Vec::new();
        for g in [anchored.clone(), format!("{anchored}/**")] {
            let m = GlobBuilder::new(&g)
                .literal_separator(true)
                .build()
                .map_err(|e| err(e.to_string()))?
                .compile_matcher();
            matchers.push(m);
        }
        Ok(Rule {
            pattern: p.to_string(),
            kind: Kind::Path(matchers),
        })
    }

    pub fn is_command(&self) -> bool {
        matches!(self.kind, Kind::Command(_))
    }

    /// Whether writing `path` (relative to the repository root) breaks this rule.
    pub fn matches_path(&self, path: &str) -> bool {
        let path = path.trim_start_matches("./");
        match &self.kind {
            Kind::Path(ms) => ms.iter().any(|m| m.is_match(path)),
            Kind::Command(_) => false,
        }
    }

    /// Whether running `command` breaks this rule: any simple command of the line (split on
    /// `;`, `&&`, `||`, `|`, newlines), whitespace normalised, with or without a leading `sudo`
    /// or environment assignments.
    pub fn matches_command(&self, command: &str) -> bool {
        let Kind::Command(m) = &self.kind else {
            return false;
        };
        simple_commands(command).iter().any(|c| m.is_match(c))
    }
}

fn simple_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in line.split(['\n', ';', '|', '&']) {
        let mut words: Vec<&str> = part.split_whitespace().collect();
        while let Some(w) = words.first() {
            let assignment = w.contains('=') && !w.starts_with('=') && !w.starts_with('-');
            if *w == "sudo" || *w == "env" || *w == "command" || *w == "exec" || assignment {
                words.remove(0);
            } else {
                break;
            }
        }
        if !words.is_empty() {
            out.push(words.join(" "));
        }
    }
    out
}

/// The guard's side of the rules: the run's `[guard]` policy with every path rule added to
/// its protected paths (the guard denies writes there) and every command rule as a deny rule (a
/// regex on the command line, the reason naming the rule). The guard then refuses a matching
/// write or command as it happens; the check after the step holds agents without the guard.
pub fn guard_policy(
    guard: &crate::config::GuardConfig,
    patterns: &[String],
) -> crate::config::GuardConfig {
    let mut out = guard.clone();
    for p in patterns {
        let Ok(rule) = Rule::parse(p) else { continue };
        match &rule.kind {
            Kind::Path(_) => {
                for g in path_globs(&rule.pattern) {
                    if !out.protected_paths.contains(&g) {
                        out.protected_paths.push(g);
                    }
                }
            }
            Kind::Command(_) => {
                let cmd = rule
                    .pattern
                    .strip_prefix("cmd:")
                    .unwrap_or(&rule.pattern)
                    .trim();
                let words: Vec<String> = cmd.split_whitespace().map(regex_of_glob).collect();
                out.deny.push(crate::config::GuardDenyRule {
                    command: None,
                    pattern: Some(format!(r"(^|[\s;&|(]){}", words.join(r"\s+"))),
                    reason: Some(format!(
                        "the run must not run `{cmd}` (--must-not / [run] must_not)"
                    )),
                });
            }
        }
    }
    out
}

/// The globs of a path rule, in the guard's glob syntax.
fn path_globs(pattern: &str) -> Vec<String> {
    let rooted = pattern.starts_with('/');
    let base = pattern
        .trim_start_matches("./")
        .trim_start_matches('/')
        .trim_end_matches('/');
    let anchored = if rooted || base.contains('/') {
        base.to_string()
    } else {
        format!("**/{base}")
    };
    let mut out = vec![anchored.clone(), format!("{anchored}/**")];
    if !rooted && !base.contains('/') {
        // `**/x` may not match `x` at the root in every glob syntax.
        out.insert(0, base.to_string());
    }
    out
}

/// A glob word as a regex: `*` any run of characters, `?` one; everything else literal.
fn regex_of_glob(word: &str) -> String {
    let mut out = String::new();
    for c in word.chars() {
        match c {
            '*' => out.push_str(r"\S*"),
            '?' => out.push_str(r"\S"),
            c if r"\.+()|[]{}^$#&-~".contains(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Parses every pattern; the first bad one is the error (refused before the run starts).
pub fn parse_all(patterns: &[String]) -> Result<Vec<Rule>, PatternError> {
    patterns.iter().map(|p| Rule::parse(p)).collect()
}

/// The rules broken by the changed paths and the commands of a step, in rule order.
pub fn violations(rules: &[Rule], paths: &[String], commands: &[String]) -> Vec<Violation> {
    let mut out = Vec::new();
    for r in rules {
        let hit = if r.is_command() {
            commands.iter().find(|c| r.matches_command(c))
        } else {
            paths.iter().find(|p| r.matches_path(p))
        };
        if let Some(what) = hit {
            out.push(Violation {
                pattern: r.pattern.clone(),
                what: what.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (pattern, path or command, broken?)
    const ROWS: &[(&str, &str, bool)] = &[
        ("src/legacy/**", "src/legacy/a.rs", true),
        ("src/legacy/**", "src/legacy/deep/b.rs", true),
        ("src/legacy/**", "src/new/a.rs", false),
        ("src/legacy/", "src/legacy/a.rs", true),
        ("src/legacy", "src/legacy/x/y.rs", true),
        ("src/legacy", "src/legacy_v2/a.rs", false),
        ("*.lock", "Cargo.lock", true),
        ("*.lock", "sub/yarn.lock", true),
        ("*.lock", "Cargo.toml", false),
        ("migrations", "db/migrations/0001.sql", true),
        ("./README.md", "README.md", true),
        ("/README.md", "docs/README.md", false),
        ("src/*.rs", "src/a/b.rs", false),
        ("src/*.rs", "src/b.rs", true),
        ("cmd:git push", "git push origin main", true),
        ("git push", "cd x && git push", true),
        ("git push", "git pull", false),
        ("cmd:rm -rf*", "sudo rm -rf /tmp/x", true),
        ("npm publish", "FOO=1 npm  publish --tag next", true),
        ("npm publish", "npm test", false),
        ("cmd:curl", "echo ok | curl -d @- http://x", true),
    ];

    #[test]
    fn the_rules() {
        for (pattern, what, broken) in ROWS {
            let r = Rule::parse(pattern).unwrap();
            let got = if r.is_command() {
                r.matches_command(what)
            } else {
                r.matches_path(what)
            };
            assert_eq!(got, *broken, "{pattern} vs {what}");
        }
    }

    #[test]
    fn the_guard_gets_path_rules_as_protected_paths_and_commands_as_deny_rules() {
        let g = guard_policy(
            &crate::config::GuardConfig::default(),
            &[
                "vendor/**".into(),
                "*.lock".into(),
                "cmd:npm publish".into(),
            ],
        );
        assert!(
            g.protected_paths.contains(&"vendor/**".to_string()),
            "{g:?}"
        );
        assert!(
            g.protected_paths.contains(&"**/*.lock".to_string()),
            "{g:?}"
        );
        assert!(g.protected_paths.contains(&"*.lock".to_string()), "{g:?}");
        assert_eq!(g.deny.len(), 1);
        assert_eq!(
            g.deny[0].pattern.as_deref(),
            Some(r"(^|[\s;&|(])npm\s+publish")
        );
        assert!(
            g.deny[0]
                .reason
                .as_deref()
                .unwrap_or("")
                .contains("npm publish")
        );
        assert_eq!(regex_of_glob("rm-*.x"), r"rm\-\S*\.x");
    }

    #[test]
    fn bad_patterns_are_refused() {
        for p in ["", "  ", "cmd:", "/", "src/[a"] {
            assert!(Rule::parse(p).is_err(), "{p:?}");
        }
    }

    #[test]
    fn violations_name_rule_and_culprit() {
        let rules = parse_all(&["*.lock".into(), "cmd:git push".into(), "docs/".into()]).unwrap();
        let v = violations(
            &rules,
            &["src/a.rs".into(), "Cargo.lock".into()],
            &["git status".into(), "git push -f".into()],
        );
        assert_eq!(
            v,
            vec![
                Violation {
                    pattern: "*.lock".into(),
                    what: "Cargo.lock".into()
                },
                Violation {
                    pattern: "cmd:git push".into(),
                    what: "git push -f".into()
                },
            ]
        );
    }
}
