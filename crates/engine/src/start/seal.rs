//! The seal of a new run: the checks it is verified with (the configured gates, the request's
//! acceptance and hidden checks, the user's hidden checks of the repository), with the
//! environment they run in (filtered: `pawl_core::seal`), the programs they name and the git
//! pawl uses. Hidden checks' commands go to the vault, out of the seal (the seal keeps a keyed
//! code: [`crate::hidden`]).
//!
//! Not here: where the user's hidden checks and the vault's key are kept (the caller reads its
//! user state and passes them in), refusing `[gates.hidden]` in the repository's configuration
//! (the caller's message).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pawl_core::seal::{CheckRole, Seal, SealedCheck};
use pawl_verify::gate;

use super::StartError;
use crate::hidden::Vault;

/// Everything a seal is made of, as values.
pub struct SealInput<'a> {
    /// The repository root.
    pub root: &'a Path,
    /// The run's goal (a goal that adds no behaviour is sealed as such).
    pub goal: &'a str,
    /// The visible gates of the configuration (`[gates]`), by name.
    pub gates: &'a BTreeMap<String, String>,
    /// Acceptance checks (`--check`): each must fail on the pre-run code and pass at the end.
    pub acceptance: &'a [String],
    /// The user's hidden checks of this repository (`pawl hidden add`), by name.
    pub user_hidden: Vec<(String, String)>,
    /// The request's hidden checks (`--hidden-check`).
    pub hidden: &'a [String],
    /// The environment pawl was started with.
    pub env: Vec<(String, String)>,
    /// More variables the sealed checks may see (`--pass-env NAME`).
    pub pass_env: &'a [String],
    /// Where hidden checks' commands are kept; `None` refuses a seal with hidden checks.
    pub vault: Option<&'a Vault>,
    /// `[room] network`: the checks keep the machine's network.
    pub network: bool,
    /// `[verify] runs`: how many times the deciding tests run on the locked tree.
    pub runs: u32,
    /// `[verify] scope_max_files`/`scope_max_lines`.
    pub scope: pawl_core::scope::Limits,
    /// `[verify] require_probe`.
    pub require_probe: bool,
}

/// The seal of a new run (see the module's documentation).
pub fn seal(input: SealInput<'_>) -> Result<Seal, StartError> {
    let mut checks: Vec<SealedCheck> = gate::gates_from_config(input.gates)
        .into_iter()
        .map(|c| SealedCheck::new(c.name, c.command, CheckRole::Gate))
        .collect();
    for (i, cmd) in input.acceptance.iter().enumerate() {
        checks.push(SealedCheck::new(
            format!("accept-{}", i + 1),
            cmd.clone(),
            CheckRole::Acceptance,
        ));
    }
    for (name, cmd) in input.user_hidden {
        if !cmd.trim().is_empty() {
            checks.push(SealedCheck::new(
                format!("hidden-{name}"),
                cmd,
                CheckRole::Hidden,
            ));
        }
    }
    for (i, cmd) in input.hidden.iter().enumerate() {
        checks.push(SealedCheck::new(
            format!("hidden-{}", i + 1),
            cmd.clone(),
            CheckRole::Hidden,
        ));
    }
    // PATH entries and the root as resolved paths: an entry that reaches into the repository
    // through a symbolic link is still inside it.
    let root = std::fs::canonicalize(input.root).unwrap_or_else(|_| input.root.to_path_buf());
    let vars: Vec<(String, String)> = input
        .env
        .into_iter()
        .map(|(k, v)| {
            if k != "PATH" {
                return (k, v);
            }
            let resolved: Vec<String> = v
                .split(':')
                .map(|p| resolved(Path::new(p)).display().to_string())
                .collect();
            (k, resolved.join(":"))
        })
        .collect();
    let mut seal = Seal {
        checks,
        timeout_ms: u64::try_from(crate::verify::DEFAULT_TIMEOUT.as_millis()).unwrap_or(u64::MAX),
        env: pawl_core::seal::sealed_env(&vars, input.pass_env, &root),
        no_behaviour: pawl_core::spec::adds_no_behaviour(input.goal),
        tools: Default::default(),
        programs: Vec::new(),
        git: None,
        goal_names: pawl_core::envfail::goal_names(input.goal),
        network: input.network,
        runs: input.runs.max(1),
        setup: String::new(),
        scope: input.scope,
        require_probe: input.require_probe,
        reviewer: None,
        tester: None,
    };
    seal.tools = crate::baseline::tools_of(&seal, None, &root);
    // The programs outside the repository the checks start, kept in sight of the checks (HOME
    // and the directories above the repository are otherwise private to them).
    seal.programs = crate::baseline::programs_outside(
        seal.checks.iter().map(|c| c.command.as_str()),
        &seal.env,
        &root,
    );
    seal.git = seal
        .env
        .get("PATH")
        .and_then(|path| pawl_git::resolve_program(std::ffi::OsStr::new(path)))
        .map(|p| p.display().to_string());
    if seal.checks.iter().any(|c| c.role == CheckRole::Hidden) {
        input.vault.ok_or(StartError::NoVault)?.stow(&mut seal)?;
    }
    Ok(seal)
}

/// `p` with symbolic links resolved, as far as it exists (a directory the agent may create
/// later is resolved through its nearest existing ancestor).
fn resolved(p: &Path) -> PathBuf {
    let mut tail = Vec::new();
    let mut cur = p.to_path_buf();
    loop {
        if let Ok(c) = std::fs::canonicalize(&cur) {
            return tail.iter().rev().fold(c, |acc, part| acc.join(part));
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                cur = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(
        root: &'a Path,
        gates: &'a BTreeMap<String, String>,
        hidden: &'a [String],
    ) -> SealInput<'a> {
        SealInput {
            root,
            goal: "add a greeting",
            gates,
            acceptance: &[],
            user_hidden: vec![
                ("slow".into(), "make slow".into()),
                ("blank".into(), " ".into()),
            ],
            hidden,
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            pass_env: &[],
            vault: None,
            network: false,
            runs: 3,
            scope: Default::default(),
            require_probe: false,
        }
    }

    #[test]
    fn a_seal_with_hidden_checks_and_no_vault_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let gates = BTreeMap::new();
        let refused = seal(input(dir.path(), &gates, &[]));
        assert!(matches!(refused, Err(StartError::NoVault)), "{refused:?}");
    }

    #[test]
    fn the_users_hidden_checks_are_sealed_by_name_and_blank_ones_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let gates = BTreeMap::new();
        let key = [7u8; 32];
        let vault = Vault::new(dir.path().join("vault"), key);
        let mut given = input(dir.path(), &gates, &[]);
        given.vault = Some(&vault);
        let seal = seal(given).unwrap();
        let names: Vec<&str> = seal.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["hidden-slow"]);
        // The command went to the vault: the seal does not carry it.
        assert!(seal.checks.iter().all(|c| !c.command.contains("make slow")));
    }

    #[test]
    fn resolved_follows_links_through_the_nearest_existing_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let got = resolved(&dir.path().join("link/not-yet/bin"));
        assert_eq!(
            got,
            std::fs::canonicalize(&real).unwrap().join("not-yet/bin")
        );
    }
}
