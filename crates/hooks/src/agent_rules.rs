//! The agent CLIs' own rules that keep the agent from writing pawl's files, written by
//! `pawl init --agent X` beside pawl's hooks: in a session the user starts the agent, so pawl
//! cannot sandbox it, and the CLI's own permission system is a second layer under the guard.
//!
//! | agent | where | what |
//! |---|---|---|
//! | Claude Code | `.claude/settings.local.json` `permissions.deny` (machine paths: never the committed file) | `Edit(...)` of pawl's paths (Claude applies Edit rules to every built-in tool that edits files: Write, MultiEdit, NotebookEdit), `Read(...)` of pawl's user state |
//! | Codex | `.codex/config.toml` | a permission profile `pawl` (extends `:workspace`) made the default: pawl's files read-only, its user state unreadable, in Codex's own sandbox |
//! | Gemini CLI | `~/.gemini/policies/pawl-<repo>.toml` | policy-engine rules denying `write_file`/`replace` of pawl's paths and reads of its user state (Gemini ignores a workspace's own policies) |
//!
//! Text to text, as in [`crate::install`]: the CLI reads and writes the files. What pawl adds
//! is recognisable or recorded, so that `pawl init --remove` takes out exactly that.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::HookError;
use crate::install::{merge_permission_list, remove_permission_list};

/// pawl's paths on this machine.
#[derive(Debug, Clone, Default)]
pub struct PawlFiles {
    /// The repository.
    pub root: PathBuf,
    /// pawl's user state (`$XDG_STATE_HOME/pawl`): the key, the rooms, the session index.
    pub state_dir: Option<PathBuf>,
    /// The pawl binaries the hooks run (as written and where they really are).
    pub binaries: Vec<PathBuf>,
}

/// Paths under the repository that only pawl and the user write: pawl's state, its
/// configuration, the agents' hook settings, git's directory. `/**` marks a directory.
const REPO_PATHS: &[&str] = &[
    ".pawl/**",
    "pawl.toml",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/**",
    ".gemini/settings.json",
    ".git/**",
];

/// The agents' user-level hook settings, under HOME.
const HOME_PATHS: &[&str] = &[
    ".claude/settings.json",
    ".codex/**",
    ".gemini/settings.json",
];

/// Claude Code's path rules: `//` starts an absolute path, `~/` the home directory.
fn claude_path(p: &Path) -> String {
    format!("//{}", p.display().to_string().trim_start_matches('/'))
}

/// The `permissions.deny` entries for Claude Code.
pub fn claude_rules(f: &PawlFiles) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for p in REPO_PATHS {
        push(format!("Edit({}/{p})", claude_path(&f.root)));
    }
    for p in HOME_PATHS {
        push(format!("Edit(~/{p})"));
    }
    if let Some(state) = &f.state_dir {
        push(format!("Edit({}/**)", claude_path(state)));
        push(format!("Read({}/**)", claude_path(state)));
    }
    for b in &f.binaries {
        push(format!("Edit({})", claude_path(b)));
    }
    out
}

/// Adds `rules` to Claude Code's `permissions.deny`; returns the text and the entries that
/// were not there (exactly those are removed later).
pub fn merge_claude_rules(
    file: &str,
    existing: Option<&str>,
    rules: &[String],
) -> Result<(String, Vec<String>), HookError> {
    merge_permission_list(file, existing, "deny", rules)
}

/// Takes exactly `added` out of `permissions.deny`; `None` when the file is left empty.
pub fn remove_claude_rules(
    file: &str,
    existing: &str,
    added: &[String],
) -> Result<Option<String>, HookError> {
    remove_permission_list(file, existing, "deny", added)
}

/// The name of the permission profile pawl adds to Codex's settings (recognised by it on
/// removal).
pub const CODEX_PROFILE: &str = "pawl";

/// What the Codex profile says: paths Codex's sandbox may only read, and paths it may not
/// even read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexProfile {
    /// Relative to each project root (only paths that exist: Codex makes a missing one).
    pub read_in_project: Vec<String>,
    /// Absolute paths the sandbox may read but not write (the binary).
    pub read: Vec<String>,
    /// Absolute paths the sandbox may not read (pawl's user state).
    pub none: Vec<String>,
}

/// The Codex profile for `f`; `exists` says whether a path exists (Codex creates a missing
/// path it is told to protect).
pub fn codex_profile(f: &PawlFiles, exists: &dyn Fn(&Path) -> bool) -> CodexProfile {
    let mut p = CodexProfile::default();
    for rel in REPO_PATHS {
        let rel = rel.trim_end_matches("/**");
        // Codex keeps `.git` and `.codex` read-only itself.
        if matches!(rel, ".git" | ".codex") || !exists(&f.root.join(rel)) {
            continue;
        }
        p.read_in_project.push(rel.to_owned());
    }
    if let Some(state) = &f.state_dir {
        p.none.push(state.display().to_string());
    }
    for b in &f.binaries {
        let b = b.display().to_string();
        if !p.read.contains(&b) {
            p.read.push(b);
        }
    }
    p
}

/// The result of adding pawl's Codex profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexMerged {
    pub text: String,
    pub changed: bool,
    /// Why nothing was added (the user chose a default profile of their own).
    pub skipped: Option<String>,
}

fn toml_error(file: &str, e: impl std::fmt::Display) -> HookError {
    HookError::SettingsShape {
        file: format!("{file} ({e})"),
        key: "(TOML)".into(),
        expected: "valid TOML",
    }
}

/// Adds the profile `pawl` (extending `:workspace`) to Codex's settings text and makes it the
/// default, unless the user set another default. Replaces pawl's own profile if present.
pub fn merge_codex_profile(
    file: &str,
    existing: Option<&str>,
    profile: &CodexProfile,
) -> Result<CodexMerged, HookError> {
    let before = existing.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = before.parse().map_err(|e| toml_error(file, e))?;
    if let Some(current) = doc.get("default_permissions").and_then(|v| v.as_str())
        && current != CODEX_PROFILE
    {
        return Ok(CodexMerged {
            text: before.to_owned(),
            changed: false,
            skipped: Some(format!(
                "{file} already selects the permission profile `{current}`: pawl added none; keep .pawl/ and pawl's state read-only in it yourself"
            )),
        });
    }
    doc["default_permissions"] = toml_edit::value(CODEX_PROFILE);
    let mut fs = toml_edit::Table::new();
    for path in &profile.none {
        fs[path.as_str()] = toml_edit::value("none");
    }
    for path in &profile.read {
        fs[path.as_str()] = toml_edit::value("read");
    }
    let mut project = toml_edit::Table::new();
    for rel in &profile.read_in_project {
        project[rel.as_str()] = toml_edit::value("read");
    }
    fs[":project_roots"] = toml_edit::Item::Table(project);
    let mut table = toml_edit::Table::new();
    table.decor_mut().set_prefix(
        "\n# Written by `pawl init --agent codex`: pawl's files stay read-only in Codex's sandbox\n# (`pawl init --remove` takes this profile out).\n",
    );
    table["extends"] = toml_edit::value(":workspace");
    table["filesystem"] = toml_edit::Item::Table(fs);
    let perms = doc
        .entry("permissions")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or_else(|| HookError::SettingsShape {
            file: file.into(),
            key: "permissions".into(),
            expected: "a table",
        })?;
    perms.insert(CODEX_PROFILE, toml_edit::Item::Table(table));
    let text = doc.to_string();
    Ok(CodexMerged {
        changed: text != before,
        text,
        skipped: None,
    })
}

/// Takes pawl's profile (and `default_permissions = "pawl"`) out of Codex's settings text.
/// `text: None` when nothing else is left in it.
pub fn remove_codex_profile(
    file: &str,
    existing: &str,
) -> Result<crate::install::Removed, HookError> {
    let mut doc: toml_edit::DocumentMut = existing.parse().map_err(|e| toml_error(file, e))?;
    let mut removed = 0;
    if doc.get("default_permissions").and_then(|v| v.as_str()) == Some(CODEX_PROFILE) {
        doc.remove("default_permissions");
        removed += 1;
    }
    let mut perms_empty = false;
    if let Some(perms) = doc.get_mut("permissions").and_then(|p| p.as_table_mut()) {
        if perms.remove(CODEX_PROFILE).is_some() {
            removed += 1;
        }
        perms_empty = perms.is_empty();
    }
    if removed > 0 && perms_empty {
        doc.remove("permissions");
    }
    let text = doc.to_string();
    Ok(crate::install::Removed {
        text: if removed > 0 && text.trim().is_empty() {
            None
        } else {
            Some(text)
        },
        removed,
    })
}

/// The file name of the Gemini CLI policy pawl writes for the repository at `root` (in
/// `<gemini home>/.gemini/policies/`; one per repository, all pawl's).
pub fn gemini_policy_name(root: &Path) -> String {
    // FNV-1a: a stable short name, not a secret.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in root.display().to_string().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("pawl-{h:016x}.toml")
}

/// A regex that matches `text` literally.
fn regex_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A TOML literal string (single quotes): the text must hold none.
fn toml_literal(text: &str) -> Option<String> {
    (!text.contains('\'') && !text.contains('\n')).then(|| format!("'{text}'"))
}

/// The Gemini CLI policy file for `f`: deny `write_file`/`replace` of pawl's paths (as absolute
/// paths, or relative to the repository) and any tool's read of pawl's user state.
/// `None` when a path cannot be written in a policy (a quote in it).
pub fn gemini_policy(f: &PawlFiles) -> Option<String> {
    // Gemini tests `argsPattern` against the arguments as JSON text: a path is a JSON string.
    let json = |p: &str| -> Option<String> {
        let quoted = Value::String(p.to_owned()).to_string();
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?.to_owned();
        (inner == p).then_some(inner)
    };
    let root = json(&f.root.display().to_string())?;
    let mut writes: Vec<String> = Vec::new();
    for p in REPO_PATHS {
        let (rel, dir) = match p.strip_suffix("/**") {
            Some(r) => (r, true),
            None => (*p, false),
        };
        let end = if dir { "(/|\")" } else { "\"" };
        writes.push(format!(
            "(({}/)|(\\./)?){}{end}",
            regex_literal(&root),
            regex_literal(rel)
        ));
    }
    let mut reads: Vec<String> = Vec::new();
    if let Some(state) = &f.state_dir {
        let s = regex_literal(&json(&state.display().to_string())?);
        writes.push(format!("{s}(/|\")"));
        reads.push(format!("{s}(/|\")"));
    }
    for b in &f.binaries {
        writes.push(format!(
            "{}\"",
            regex_literal(&json(&b.display().to_string())?)
        ));
    }
    let write_pattern = toml_literal(&format!("\"file_path\":\"({})", writes.join("|")))?;
    let mut out = format!(
        "# Written by `pawl init --agent gemini` for {}: pawl's files are pawl's.\n\
         # `pawl init --remove --agent gemini` deletes this file.\n\n\
         [[rule]]\n\
         toolName = [\"write_file\", \"replace\"]\n\
         argsPattern = {write_pattern}\n\
         decision = \"deny\"\n\
         priority = 999\n\
         denyMessage = \"pawl: this path is pawl's own (its state, configuration, hook settings or binary); only pawl and the user change it\"\n",
        f.root.display()
    );
    if !reads.is_empty() {
        let read_pattern = toml_literal(&format!("\":\"({})", reads.join("|")))?;
        out.push_str(&format!(
            "\n[[rule]]\n\
             toolName = [\"read_file\", \"read_many_files\", \"write_file\", \"replace\"]\n\
             argsPattern = {read_pattern}\n\
             decision = \"deny\"\n\
             priority = 999\n\
             denyMessage = \"pawl: pawl's user state (the key that authenticates its store) is not the agent's to read\"\n"
        ));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> PawlFiles {
        PawlFiles {
            root: "/w/repo".into(),
            state_dir: Some("/h/.local/state/pawl".into()),
            binaries: vec!["/opt/pawl/bin/pawl".into()],
        }
    }

    #[test]
    fn claude_rules_name_pawls_paths_absolutely() {
        let r = claude_rules(&files());
        assert!(r.contains(&"Edit(//w/repo/.pawl/**)".to_string()), "{r:?}");
        assert!(r.contains(&"Edit(~/.claude/settings.json)".to_string()));
        assert!(r.contains(&"Read(//h/.local/state/pawl/**)".to_string()));
        assert!(r.contains(&"Edit(//opt/pawl/bin/pawl)".to_string()));
    }

    #[test]
    fn codex_profile_round_trips_and_keeps_the_users_settings() {
        let user = "# mine\nmodel = \"gpt-5.5\"\n\n[tui]\ntheme = \"dark\"\n";
        let p = codex_profile(&files(), &|p| {
            p.ends_with(".pawl") || p.ends_with("pawl.toml")
        });
        assert_eq!(p.read_in_project, vec![".pawl", "pawl.toml"]);
        let m = merge_codex_profile("c", Some(user), &p).expect("merges");
        assert!(m.changed && m.skipped.is_none());
        let doc: toml_edit::DocumentMut = m.text.parse().expect("toml");
        assert_eq!(doc["default_permissions"].as_str(), Some("pawl"));
        assert_eq!(
            doc["permissions"]["pawl"]["extends"].as_str(),
            Some(":workspace")
        );
        assert_eq!(
            doc["permissions"]["pawl"]["filesystem"]["/h/.local/state/pawl"].as_str(),
            Some("none")
        );
        assert_eq!(
            doc["permissions"]["pawl"]["filesystem"][":project_roots"][".pawl"].as_str(),
            Some("read")
        );
        let again = merge_codex_profile("c", Some(&m.text), &p).expect("merges");
        assert!(!again.changed, "installing twice changes nothing");
        let r = remove_codex_profile("c", &m.text).expect("removes");
        assert_eq!(r.removed, 2);
        assert_eq!(r.text.as_deref(), Some(user));
        let only = merge_codex_profile("c", None, &p).expect("merges");
        assert_eq!(
            remove_codex_profile("c", &only.text).expect("removes").text,
            None
        );
    }

    #[test]
    fn a_profile_of_the_users_own_is_left_alone() {
        let user = "default_permissions = \"mine\"\n";
        let m = merge_codex_profile("c", Some(user), &CodexProfile::default()).expect("ok");
        assert!(!m.changed && m.skipped.is_some());
        assert_eq!(m.text, user);
    }

    #[test]
    fn gemini_policy_patterns_match_the_paths_they_protect() {
        let text = gemini_policy(&files()).expect("policy");
        let doc: toml_edit::DocumentMut = text.parse().expect("toml");
        let rules = doc["rule"].as_array_of_tables().expect("rules");
        let pattern = rules
            .iter()
            .next()
            .and_then(|r| r["argsPattern"].as_str())
            .expect("pattern")
            .to_owned();
        // Gemini's regexes are JavaScript's; the policy uses only what both agree on.
        for (args, hit) in [
            (
                r#"{"file_path":"/w/repo/.pawl/pawl.db","content":"x"}"#,
                true,
            ),
            (r#"{"file_path":".pawl/session.json"}"#, true),
            (r#"{"file_path":"/w/repo/pawl.toml"}"#, true),
            (r#"{"file_path":"/opt/pawl/bin/pawl"}"#, true),
            (r#"{"file_path":"/h/.local/state/pawl/key"}"#, true),
            (r#"{"file_path":"/w/repo/src/pawl.toml.rs"}"#, false),
            (r#"{"file_path":"/w/repo/calc.py"}"#, false),
        ] {
            assert_eq!(simple_match(&pattern, args), hit, "{pattern} on {args}");
        }
    }

    fn simple_match(pattern: &str, text: &str) -> bool {
        regex::Regex::new(pattern).is_ok_and(|r| r.is_match(text))
    }
}
