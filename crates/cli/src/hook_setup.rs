//! Setting pawl's hooks up in a repository (`pawl init --agent claude|codex|gemini`,
//! `--plugin[=DIR]` and `--remove`): merging them into an agent's project settings, writing the
//! Claude Code plugin, taking exactly pawl's hooks out again. This module reads and writes the
//! files and says what it did.
//!
//! Not here: the merging itself and the hooks' protocols (pawl-hooks), answering a hook
//! (`commands/hook.rs`), parsing `pawl init`'s flags (`commands/init.rs`).

use std::path::{Path, PathBuf};

use pawl_core::ExitCode;
use pawl_hooks::Agent;
use pawl_hooks::agent_rules::{self, PawlFiles};
use pawl_hooks::install::{self, Scope};
use serde::{Deserialize, Serialize};

use crate::ctx::Ctx;
use crate::edits::{Edits, Restored};
use crate::error::{CliError, CliResult};
use crate::state::{read_optional, write_atomic};

/// The checked plan of `pawl init`'s hook flags.
pub struct Plan {
    pub agents: Vec<Agent>,
    pub plugin: Option<PathBuf>,
    /// Where the hooks go: the agent's local settings (default) or the committed file.
    pub scope: Scope,
}

/// Checks the hook flags: `agent_names` as given to `--agent` (repeatable), `remove` for
/// `--remove`, `plugin` for `--plugin[=DIR]`, `shared` for `--shared`.
pub fn plan(
    agent_names: &[String],
    remove: bool,
    plugin: Option<&Path>,
    shared: bool,
) -> CliResult<Plan> {
    let mut agents = Vec::new();
    for a in agent_names {
        let agent = Agent::parse(a).ok_or_else(|| {
            CliError::Usage(format!(
                "--agent {a}: pawl installs hooks for claude, codex or gemini"
            ))
        })?;
        if !agents.contains(&agent) {
            agents.push(agent);
        }
    }
    if shared && !remove && agents.is_empty() {
        return Err(CliError::Usage(
            "--shared writes an agent's committed settings: name the agent with --agent claude|codex|gemini".into(),
        ));
    }
    if remove && agents.is_empty() && plugin.is_none() {
        // `pawl init --remove`: every agent's settings.
        agents = Agent::ALL.to_vec();
    }
    Ok(Plan {
        agents,
        plugin: plugin.map(Path::to_path_buf),
        scope: if shared { Scope::Shared } else { Scope::Local },
    })
}

/// The command prefix the hooks of a local file run: this pawl binary's absolute path, quoted
/// for the shell. An absolute path because the agent runs hooks with its own PATH, and a hook
/// that is not found (exit 127) silently disables every gate.
fn prefix() -> CliResult<String> {
    let exe = std::env::current_exe().map_err(CliError::io("cannot find the pawl binary"))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    Ok(install::shell_quote(&exe.display().to_string()))
}

fn edits(ctx: &Ctx) -> Edits {
    Edits::new(&ctx.root, &ctx.state_dir())
}

pub fn install(
    ctx: &Ctx,
    plan: &Plan,
    created: &mut Vec<String>,
    unchanged: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> CliResult {
    if plan.agents.is_empty() && plan.plugin.is_none() {
        return Ok(());
    }
    let abs_prefix = prefix()?;
    let edits = edits(ctx);
    let repo = crate::guard_host::open_repo(&ctx.root).ok();
    for &agent in &plan.agents {
        let rel = install::scoped_settings_path(agent, plan.scope);
        let path = ctx.root.join(rel);
        let prefix = match plan.scope {
            Scope::Local => abs_prefix.as_str(),
            Scope::Shared => install::SHARED_PREFIX,
        };
        let existing = read_optional(&path)?;
        let merged = install::merge(agent, rel, existing.as_deref(), prefix)?;
        if merged.changed {
            edits.write(&path, &merged.text)?;
            created.push(format!("{rel}: pawl's {agent} hooks"));
        } else {
            unchanged.push(format!("{rel} (pawl's {agent} hooks already there)"));
        }
        // pawl's hooks live in one file: a handler in the other would run a second time.
        for other in install::settings_paths(agent) {
            if other != rel {
                take_hooks_out(ctx, &edits, other, created)?;
            }
        }
        match plan.scope {
            Scope::Local => {
                keep_out_of_git(ctx, &edits, repo.as_ref(), agent, rel, created, notes)?
            }
            Scope::Shared => {
                // A line pawl added for an earlier local install would keep the file out of git.
                let line = format!("/{rel}");
                let mut added = read_added(ctx)?;
                if added.excluded.contains(&line) {
                    added.excluded.retain(|l| *l != line);
                    let mut done = Vec::new();
                    unexclude(
                        ctx,
                        &edits,
                        std::slice::from_ref(&line),
                        added.excluded.is_empty(),
                        &mut done,
                    )?;
                    write_added(ctx, &added)?;
                    if !done.is_empty() {
                        notes.push(format!(
                            "took {line} out of .git/info/exclude (pawl had added it for a local install): commit {rel}"
                        ));
                    }
                }
                notes.push(format!(
                "{rel}: the hooks run `pawl hook {agent} <event>` found on PATH, so the file works on any machine once committed; \
                 every machine that runs {agent} here needs pawl on the agent's PATH (a hook that is not found disables pawl's checks)"
                ));
            }
        }
        install_rules(ctx, &edits, repo.as_ref(), agent, created, unchanged, notes)?;
        if agent == Agent::Codex {
            notes.push(
                "Codex runs project hooks (.codex/hooks.json) only in a trusted project and only once they are trusted: \
                 review and trust them with /hooks in codex, or pass --dangerously-bypass-hook-trust to `codex exec`. \
                 Untrusted hooks are skipped silently."
                    .into(),
            );
        }
        if agent == Agent::Gemini {
            notes.push(
                "Gemini CLI warns about new project hooks until the folder is trusted (or GEMINI_CLI_TRUST_WORKSPACE=true)."
                    .into(),
            );
        }
    }
    edits.finish();
    if let Some(dir) = &plan.plugin {
        let dir = absolute(&ctx.root, dir);
        for (rel, text) in install::plugin_files(&abs_prefix, env!("CARGO_PKG_VERSION")) {
            let path = dir.join(rel);
            if read_optional(&path)?.as_deref() == Some(text.as_str()) {
                unchanged.push(path.display().to_string());
            } else {
                write_file(&path, &text)?;
                created.push(path.display().to_string());
            }
        }
        notes.push(format!(
            "load the plugin with `claude --plugin-dir {}`",
            dir.display()
        ));
    }
    Ok(())
}

/// Takes pawl's hooks out of the settings file `rel` (when installing into the other one).
fn take_hooks_out(ctx: &Ctx, edits: &Edits, rel: &str, done: &mut Vec<String>) -> CliResult {
    let path = ctx.root.join(rel);
    let Some(existing) = read_optional(&path)? else {
        return Ok(());
    };
    let r = install::remove(rel, &existing)?;
    if r.removed == 0 {
        return Ok(());
    }
    if edits.restore(&path)?.is_none() {
        match r.text {
            Some(text) => write_atomic(&path, &text)?,
            None => remove_file(&path)?,
        }
        edits.forget(&path)?;
    }
    done.push(format!(
        "{rel}: pawl's hooks taken out (they now live in one file)"
    ));
    Ok(())
}

/// Keeps a file pawl wrote with this machine's paths out of git: nothing to do when an ignore
/// rule covers it; a line in `.git/info/exclude` (never committed) otherwise. A file git already
/// tracks cannot be kept out: the user is told.
fn keep_out_of_git(
    ctx: &Ctx,
    edits: &Edits,
    repo: Option<&pawl_git::Repo>,
    agent: Agent,
    rel: &str,
    created: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> CliResult {
    let Some(repo) = repo else {
        return Ok(());
    };
    let tracked = repo
        .tracked_files()
        .map(|files| files.iter().any(|f| f == Path::new(rel)))
        .unwrap_or(false);
    if tracked {
        notes.push(format!(
            "{rel} is tracked by git: pawl's {agent} settings name paths of this machine and show as a change there; \
             `pawl init --agent {agent} --shared` writes hooks that work on any machine"
        ));
        return Ok(());
    }
    if repo.ignored(&[rel]).is_ok_and(|i| !i.is_empty()) {
        return Ok(());
    }
    let exclude = repo.exclude_path();
    let line = format!("/{rel}");
    let mut text = read_optional(&exclude)?.unwrap_or_default();
    if text.lines().any(|l| l.trim() == line) {
        return Ok(());
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&line);
    text.push('\n');
    edits.write(&exclude, &text)?;
    let mut added = read_added(ctx)?;
    if !added.excluded.contains(&line) {
        added.excluded.push(line.clone());
    }
    write_added(ctx, &added)?;
    created.push(format!(
        ".git/info/exclude: {line} (settings of this machine stay out of git)"
    ));
    Ok(())
}

#[derive(Serialize)]
struct RemoveReport {
    removed: Vec<String>,
    unchanged: Vec<String>,
}

/// The files under the repository `pawl init --agent` may have written for `agent`.
fn agent_files(agent: Agent) -> Vec<&'static str> {
    let mut files = install::settings_paths(agent);
    if agent == Agent::Codex {
        files.push(CODEX_CONFIG);
    }
    files
}

/// Codex's project settings, where pawl's permission profile goes.
const CODEX_CONFIG: &str = ".codex/config.toml";

pub fn remove(ctx: &mut Ctx, plan: &Plan) -> CliResult<ExitCode> {
    let mut report = RemoveReport {
        removed: vec![],
        unchanged: vec![],
    };
    let edits = edits(ctx);
    for &agent in &plan.agents {
        let mut added = read_added(ctx)?;
        for rel in agent_files(agent) {
            remove_from_file(ctx, &edits, &added, rel, &mut report)?;
        }
        if agent == Agent::Claude {
            added.claude_deny.clear();
        }
        if agent == Agent::Gemini
            && let Some(path) = added.gemini_policy.take()
        {
            match std::fs::remove_file(&path) {
                Ok(()) => report.removed.push(path.display().to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(CliError::Io {
                        context: format!("cannot remove {}", path.display()),
                        source: e,
                    });
                }
            }
        }
        let mine: Vec<String> = agent_files(agent).iter().map(|r| format!("/{r}")).collect();
        let lines: Vec<String> = added
            .excluded
            .iter()
            .filter(|l| mine.contains(l))
            .cloned()
            .collect();
        added.excluded.retain(|l| !mine.contains(l));
        if !lines.is_empty() {
            unexclude(
                ctx,
                &edits,
                &lines,
                added.excluded.is_empty(),
                &mut report.removed,
            )?;
        }
        if ctx.state_dir().is_dir() {
            write_added(ctx, &added)?;
        }
    }
    edits.finish();
    if let Some(dir) = &plan.plugin {
        let dir = absolute(&ctx.root, dir);
        for (rel, _) in install::plugin_files("pawl", env!("CARGO_PKG_VERSION")) {
            let path = dir.join(rel);
            if path.is_file() {
                remove_file(&path)?;
                report.removed.push(path.display().to_string());
                if let Some(parent) = path.parent() {
                    let _ = std::fs::remove_dir(parent);
                }
            }
        }
        let _ = std::fs::remove_dir(&dir);
    }
    ctx.emit(&report, || {
        let mut out = String::new();
        for r in &report.removed {
            out.push_str(&format!("  removed   {r}\n"));
        }
        for u in &report.unchanged {
            out.push_str(&format!("  unchanged {u} (no pawl hooks in it)\n"));
        }
        if out.is_empty() {
            out.push_str("No pawl hooks installed here.\n");
        }
        out.trim_end().to_string()
    })?;
    Ok(ExitCode::Done)
}

/// Takes everything pawl wrote out of one file: its original bytes when the file is still
/// exactly what pawl wrote, else pawl's entries one by one (the rest is re-rendered).
fn remove_from_file(
    ctx: &Ctx,
    edits: &Edits,
    added: &AddedRules,
    rel: &str,
    report: &mut RemoveReport,
) -> CliResult {
    let path = ctx.root.join(rel);
    match edits.restore(&path)? {
        Some(Restored::Original) => {
            report.removed.push(format!(
                "{rel}: pawl's entries (the file is back as it was, byte for byte)"
            ));
            return Ok(());
        }
        Some(Restored::Deleted) => {
            report
                .removed
                .push(format!("{rel}: deleted (pawl had created it)"));
            return Ok(());
        }
        None => {}
    }
    let Some(existing) = read_optional(&path)? else {
        edits.forget(&path)?;
        return Ok(());
    };
    let mut text = Some(existing.clone());
    let mut what: Vec<String> = Vec::new();
    if rel == CODEX_CONFIG {
        let r = agent_rules::remove_codex_profile(rel, &existing)?;
        if r.removed > 0 {
            text = r.text;
            what.push("pawl's permission profile".into());
        }
    } else {
        let r = install::remove(rel, &existing)?;
        if r.removed > 0 {
            text = r.text;
            what.push(format!("{} pawl hook(s)", r.removed));
        }
        // Older pawl wrote its deny rules into `.claude/settings.json`.
        if install::settings_paths(Agent::Claude).contains(&rel)
            && !added.claude_deny.is_empty()
            && let Some(t) = &text
            && holds_any_deny(t, &added.claude_deny)
        {
            text = agent_rules::remove_claude_rules(rel, t, &added.claude_deny)?;
            what.push(format!("{} pawl deny rule(s)", added.claude_deny.len()));
        }
    }
    if what.is_empty() {
        report.unchanged.push(rel.to_string());
        edits.forget(&path)?;
        return Ok(());
    }
    let note = match &text {
        Some(t) => {
            write_atomic(&path, t)?;
            "the file changed since pawl wrote it, so it was rewritten: its formatting is serde_json's now"
        }
        None => {
            remove_file(&path)?;
            "nothing else was in it: deleted"
        }
    };
    edits.forget(&path)?;
    report
        .removed
        .push(format!("{rel}: {} ({note})", what.join(", ")));
    Ok(())
}

/// Whether a Claude settings text holds one of `rules` in `permissions.deny`.
fn holds_any_deny(text: &str, rules: &[String]) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
        v.pointer("/permissions/deny")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|d| {
                d.iter()
                    .any(|x| x.as_str().is_some_and(|x| rules.iter().any(|r| r == x)))
            })
    })
}

/// Takes `lines` pawl added out of `.git/info/exclude`; when they were pawl's last ones and
/// nothing else changed the file, it gets its original bytes back.
fn unexclude(
    ctx: &Ctx,
    edits: &Edits,
    lines: &[String],
    last: bool,
    done: &mut Vec<String>,
) -> CliResult {
    let Ok(repo) = crate::guard_host::open_repo(&ctx.root) else {
        return Ok(());
    };
    let path = repo.exclude_path();
    let Some(existing) = read_optional(&path)? else {
        edits.forget(&path)?;
        return Ok(());
    };
    let mut left: Vec<String> = lines.to_vec();
    let mut kept = String::with_capacity(existing.len());
    for l in existing.split_inclusive('\n') {
        let bare = l.trim_end_matches(['\n', '\r']);
        if let Some(i) = left.iter().position(|x| x == bare) {
            left.remove(i);
        } else {
            kept.push_str(l);
        }
    }
    if kept == existing {
        return Ok(());
    }
    let what = format!(".git/info/exclude: {}", lines.join(", "));
    if last {
        // pawl's text without its lines is what pawl wrote minus them: the original, if exact.
        if edits.restore(&path)?.is_some() {
            done.push(what);
            return Ok(());
        }
        write_atomic(&path, &kept)?;
        edits.forget(&path)?;
    } else {
        edits.write(&path, &kept)?;
    }
    done.push(what);
    Ok(())
}

// ---------------------------------------------------------------- the agents' own deny rules

/// What `pawl init --agent` added to the agents' own permission settings
/// (`.pawl/agent-rules.json`): `--remove` takes out exactly this.
#[derive(Debug, Default, Serialize, Deserialize)]
struct AddedRules {
    /// Claude Code `permissions.deny` entries that were not there before.
    #[serde(default)]
    claude_deny: Vec<String>,
    /// The Gemini CLI policy file pawl wrote.
    #[serde(default)]
    gemini_policy: Option<PathBuf>,
    /// The lines pawl added to `.git/info/exclude` (`/<file>`).
    #[serde(default)]
    excluded: Vec<String>,
}

fn added_rules_path(ctx: &Ctx) -> PathBuf {
    ctx.state_dir().join("agent-rules.json")
}

fn read_added(ctx: &Ctx) -> CliResult<AddedRules> {
    Ok(read_optional(&added_rules_path(ctx))?
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default())
}

fn write_added(ctx: &Ctx, added: &AddedRules) -> CliResult {
    let text = serde_json::to_string_pretty(added)
        .map_err(|e| CliError::Failed(format!("cannot record the agents' rules: {e}")))?;
    write_file(&added_rules_path(ctx), &text)
}

/// pawl's paths on this machine, for the agents' rules.
fn pawl_files(ctx: &Ctx) -> PawlFiles {
    let mut binaries = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        for p in [exe.canonicalize().ok(), Some(exe)].into_iter().flatten() {
            if !binaries.contains(&p) {
                binaries.push(p);
            }
        }
    }
    PawlFiles {
        root: ctx.root.clone(),
        state_dir: crate::state::user_state_dir(),
        binaries,
    }
}

/// Where Gemini CLI keeps the user's policies: `$GEMINI_CLI_HOME/.gemini/policies`, else
/// `~/.gemini/policies`.
fn gemini_policies_dir() -> Option<PathBuf> {
    let home = std::env::var_os("GEMINI_CLI_HOME")
        .filter(|v| !v.is_empty())
        .or_else(|| std::env::var_os("HOME"))?;
    Some(PathBuf::from(home).join(".gemini").join("policies"))
}

/// Writes `agent`'s own rules that keep the agent from writing pawl's files. They name paths
/// of this machine, so they go to the agent's local settings whatever the hooks' scope.
fn install_rules(
    ctx: &Ctx,
    edits: &Edits,
    repo: Option<&pawl_git::Repo>,
    agent: Agent,
    created: &mut Vec<String>,
    unchanged: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> CliResult {
    let files = pawl_files(ctx);
    match agent {
        Agent::Claude => {
            let rel = install::scoped_settings_path(agent, Scope::Local);
            let path = ctx.root.join(rel);
            let existing = read_optional(&path)?;
            let rules = agent_rules::claude_rules(&files);
            let (text, new) = agent_rules::merge_claude_rules(rel, existing.as_deref(), &rules)?;
            if new.is_empty() {
                unchanged.push(format!("{rel} (pawl's deny rules already there)"));
                return Ok(());
            }
            edits.write(&path, &text)?;
            created.push(format!(
                "{rel}: {} permissions.deny rule(s) for pawl's files",
                new.len()
            ));
            let mut added = read_added(ctx)?;
            for r in new {
                if !added.claude_deny.contains(&r) {
                    added.claude_deny.push(r);
                }
            }
            write_added(ctx, &added)?;
            keep_out_of_git(ctx, edits, repo, agent, rel, created, notes)?;
        }
        Agent::Codex => {
            let rel = CODEX_CONFIG;
            let path = ctx.root.join(rel);
            let existing = read_optional(&path)?;
            let profile = agent_rules::codex_profile(&files, &|p| p.exists());
            let merged = agent_rules::merge_codex_profile(rel, existing.as_deref(), &profile)?;
            if let Some(why) = merged.skipped {
                notes.push(why);
            } else if merged.changed {
                edits.write(&path, &merged.text)?;
                created.push(format!(
                    "{rel}: the permission profile `{}` (pawl's files read-only in Codex's sandbox)",
                    agent_rules::CODEX_PROFILE
                ));
                keep_out_of_git(ctx, edits, repo, agent, rel, created, notes)?;
            } else {
                unchanged.push(format!("{rel} (pawl's permission profile already there)"));
            }
            notes.push(
                "Codex applies pawl's permission profile only while no `sandbox_mode` is set (in ~/.codex/config.toml, a profile or `--sandbox`/`--full-auto`) and not with `--dangerously-bypass-approvals-and-sandbox`; pawl's guard judges every command either way."
                    .into(),
            );
        }
        Agent::Gemini => {
            let Some(dir) = gemini_policies_dir() else {
                notes.push("no HOME: pawl wrote no Gemini CLI policy for its files".into());
                return Ok(());
            };
            let Some(text) = agent_rules::gemini_policy(&files) else {
                notes.push("a path of pawl's cannot be written in a Gemini policy (it holds a quote): pawl wrote none".into());
                return Ok(());
            };
            let path = dir.join(agent_rules::gemini_policy_name(&ctx.root));
            if read_optional(&path)?.as_deref() == Some(text.as_str()) {
                unchanged.push(format!("{} (pawl's Gemini policy)", path.display()));
            } else {
                write_file(&path, &text)?;
                created.push(format!(
                    "{}: Gemini CLI policy denying writes to pawl's files",
                    path.display()
                ));
            }
            let mut added = read_added(ctx)?;
            added.gemini_policy = Some(path);
            write_added(ctx, &added)?;
        }
    }
    Ok(())
}

/// The pawl binaries the hooks installed in the repository's agent settings run (absolute
/// paths as written, and where they really are; `pawl` of a shared file as found on PATH):
/// the run's guard protects them.
pub fn installed_binaries(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for a in Agent::ALL {
        for rel in install::settings_paths(a) {
            files.push(root.join(rel));
        }
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for program in install::pawl_programs(&text) {
            let p = PathBuf::from(&program);
            let p = if p.is_absolute() {
                p
            } else if program.contains('/') {
                continue;
            } else {
                match std::env::var_os("PATH")
                    .and_then(|path| crate::project::which(&program, &path))
                {
                    Some(found) => found,
                    None => continue,
                }
            };
            for q in [Some(p.clone()), p.canonicalize().ok()]
                .into_iter()
                .flatten()
            {
                if !out.contains(&q) {
                    out.push(q);
                }
            }
        }
    }
    out
}

fn remove_file(path: &Path) -> CliResult {
    std::fs::remove_file(path).map_err(CliError::io(format!("cannot remove {}", path.display())))
}

fn absolute(root: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

fn write_file(path: &Path, text: &str) -> CliResult {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(CliError::io(format!("cannot create {}", dir.display())))?;
    }
    write_atomic(path, text)
}
