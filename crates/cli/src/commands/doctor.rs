//! `pawl doctor [--json]`: is this machine and repository ready for pawl? Each check says ok,
//! warn or fail, and what to do about it. Exit 0 when nothing fails.
//!
//! Checked: git; the repository and pawl's state; the agent CLIs (Claude Code, Codex, Gemini)
//! and their versions against the ones pawl is tested with, and the configured `[agent]`;
//! credentials (presence only: the names of variables and files, never a value); the gates'
//! programs where the checks will look (the project's `.venv/bin`, `node_modules/.bin`, then the
//! sealed PATH; a `python -m MOD` gate's interpreter imports MOD); dependencies installed (`node_modules`, a Python virtualenv); the
//! platform's build outputs git-ignored; pawl's hooks in the agents' settings (and that the pawl
//! they run exists); the kernel sandbox (Landlock, user namespaces).
//!
//! Not here: fixing anything. Rules are rows of tables ([`TESTED_AGENTS`], `crate::project::OUTPUTS`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use pawl_core::ExitCode;
use pawl_process::{Command, End};
use serde::Serialize;

use crate::ctx::{CONFIG_FILE, Ctx, STATE_DIR, find_repo_root};
use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct DoctorArgs {}

/// The agent CLIs pawl drives: program, the npm package, and where its credentials can be
/// (variables, then files under the home directory). The version its real-client tests run is
/// read from `.ci/agent-versions` ([`Agent::tested`], through `pawl_agent::pins`).
pub const TESTED_AGENTS: &[Agent] = &[
    Agent {
        program: "claude",
        package: "@anthropic-ai/claude-code",
        env: &[
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_CODE_USE_BEDROCK",
            "CLAUDE_CODE_USE_VERTEX",
        ],
        files: &[".claude/.credentials.json"],
        login: "set ANTHROPIC_API_KEY, or run `claude` once and log in",
    },
    Agent {
        program: "codex",
        package: "@openai/codex",
        env: &["OPENAI_API_KEY", "CODEX_API_KEY"],
        files: &[".codex/auth.json"],
        login: "set OPENAI_API_KEY, or run `codex login`",
    },
    Agent {
        program: "gemini",
        package: "@google/gemini-cli",
        env: &[
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "GOOGLE_GENAI_USE_VERTEXAI",
        ],
        files: &[".gemini/oauth_creds.json"],
        login: "set GEMINI_API_KEY, or run `gemini` once and log in",
    },
];

/// One agent CLI pawl knows.
pub struct Agent {
    pub program: &'static str,
    pub package: &'static str,
    pub env: &'static [&'static str],
    pub files: &'static [&'static str],
    pub login: &'static str,
}

impl Agent {
    /// The version pawl's real-client tests run, from `.ci/agent-versions`.
    pub fn tested(&self) -> &'static str {
        pawl_agent::pins::tested(self.program).unwrap_or("unknown")
    }
}

/// How long `<cli> --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Serialize)]
struct Check {
    group: &'static str,
    name: String,
    status: Status,
    detail: String,
    /// What to do (empty when nothing).
    #[serde(skip_serializing_if = "String::is_empty")]
    fix: String,
    /// For agent CLIs: the version found and the version pawl is tested with.
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tested: Option<&'static str>,
}

#[derive(Default)]
struct Report {
    checks: Vec<Check>,
}

impl Report {
    fn add(
        &mut self,
        group: &'static str,
        name: impl Into<String>,
        status: Status,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> &mut Check {
        self.checks.push(Check {
            group,
            name: name.into(),
            status,
            detail: detail.into(),
            fix: fix.into(),
            version: None,
            tested: None,
        });
        let last = self.checks.len() - 1;
        &mut self.checks[last]
    }
}

/// Runs anywhere: outside a repository the repository checks fail and say so.
pub fn run(dir: Option<&Path>, json: bool) -> CliResult<ExitCode> {
    let mut r = Report::default();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());

    // git
    match pawl_git::resolve_program(&path) {
        Some(git) => {
            let v = version(&git).unwrap_or_else(|| "version unknown".into());
            r.add(
                "git",
                "git",
                Status::Ok,
                format!("{v} ({})", git.display()),
                "",
            );
        }
        None => {
            r.add(
                "git",
                "git",
                Status::Fail,
                "not found on PATH",
                "install git",
            );
        }
    }

    // The repository and pawl's state.
    let start = match dir {
        Some(d) => Some(d.to_path_buf()),
        None => std::env::current_dir().ok(),
    };
    let root = start.as_deref().and_then(find_repo_root);
    // A `.git` git itself does not open is no repository.
    let opened = root.as_ref().map(|r| pawl_git::Repo::open(r).map(|_| ()));
    let ctx = match opened {
        Some(Ok(())) => root.clone().map(Ctx::at),
        _ => None,
    };
    let config = match &ctx {
        None => {
            let detail = match (&root, opened) {
                (Some(root), Some(Err(e))) => {
                    format!("{} has a .git that git does not open: {e}", root.display())
                }
                _ => "not inside a git repository".to_owned(),
            };
            r.add(
                "repository",
                "repository",
                Status::Fail,
                detail,
                "run pawl in a git repository (`git init` makes one)",
            );
            None
        }
        Some(ctx) => {
            r.add(
                "repository",
                "repository",
                Status::Ok,
                ctx.root.display().to_string(),
                "",
            );
            if ctx.state_dir().is_dir() {
                match ctx.store() {
                    Ok(store) => {
                        let runs = store.runs().map(|v| v.len()).unwrap_or(0);
                        r.add(
                            "repository",
                            "pawl state",
                            Status::Ok,
                            format!(
                                "{STATE_DIR}/ ({runs} run{})",
                                if runs == 1 { "" } else { "s" }
                            ),
                            "",
                        );
                    }
                    Err(e) => {
                        r.add(
                            "repository",
                            "pawl state",
                            Status::Fail,
                            e.to_string(),
                            "see the error; `pawl init` does not touch an existing store",
                        );
                    }
                }
            } else {
                r.add(
                    "repository",
                    "pawl state",
                    Status::Warn,
                    format!("no {STATE_DIR}/ yet"),
                    "run `pawl init`",
                );
            }
            if !ctx.root.join(CONFIG_FILE).is_file() {
                r.add(
                    "repository",
                    CONFIG_FILE,
                    Status::Warn,
                    "not there: the defaults apply (no gates)",
                    "run `pawl init` (it detects the gates)",
                );
            }
            match ctx.config(&[]) {
                Ok(eff) => Some(eff.config),
                Err(e) => {
                    r.add(
                        "repository",
                        CONFIG_FILE,
                        Status::Fail,
                        e.to_string(),
                        format!("fix {CONFIG_FILE}"),
                    );
                    None
                }
            }
        }
    };

    // Agent CLIs and credentials.
    let kind = config.as_ref().map(|c| c.agent.kind.to_string());
    for agent in TESTED_AGENTS {
        let configured = kind.as_deref() == Some(agent.program);
        let role = if configured {
            "the configured [agent]"
        } else {
            "not configured"
        };
        match crate::project::which(agent.program, &path) {
            None => {
                let (status, fix) = if configured {
                    (
                        Status::Fail,
                        format!(
                            "install it: `npm install -g {}@{}`",
                            agent.package,
                            agent.tested()
                        ),
                    )
                } else {
                    (Status::Ok, String::new())
                };
                let detail = if configured {
                    "not found on PATH".to_owned()
                } else {
                    format!(
                        "not installed (needed only with `--agent {}`)",
                        agent.program
                    )
                };
                r.add("agents", agent.program, status, detail, fix).tested = Some(agent.tested());
            }
            Some(found) => {
                let v = version(&found);
                let tested = agent.tested();
                let (status, detail, fix) = match &v {
                    Some(v) => match pawl_agent::pins::compare(v, tested) {
                        Some(std::cmp::Ordering::Equal) => (
                            Status::Ok,
                            format!("{v}, the tested version ({}; {role})", found.display()),
                            String::new(),
                        ),
                        other => {
                            let how = match other {
                                Some(std::cmp::Ordering::Less) => "older than",
                                Some(_) => "newer than",
                                None => "not recognisably",
                            };
                            (
                                Status::Warn,
                                format!(
                                    "{v} is {how} the version pawl is tested with, {tested} ({}; {role})",
                                    found.display()
                                ),
                                format!(
                                    "`npm install -g {}@{tested}` for the tested version, or expect differences in its event stream and hooks",
                                    agent.package
                                ),
                            )
                        }
                    },
                    None => (
                        if configured {
                            Status::Fail
                        } else {
                            Status::Warn
                        },
                        format!(
                            "{} --version did not answer ({}; {role})",
                            agent.program,
                            found.display()
                        ),
                        format!("reinstall it: `npm install -g {}@{tested}`", agent.package),
                    ),
                };
                let c = r.add("agents", agent.program, status, detail, fix);
                c.version = v;
                c.tested = Some(agent.tested());
                // Credentials: only whether they are there, by name.
                let vars: Vec<&str> = agent
                    .env
                    .iter()
                    .copied()
                    .filter(|k| std::env::var_os(k).is_some_and(|v| !v.is_empty()))
                    .collect();
                let files: Vec<String> = agent
                    .files
                    .iter()
                    .filter(|f| home.as_ref().is_some_and(|h| h.join(f).is_file()))
                    .map(|f| format!("~/{f}"))
                    .collect();
                let name = format!("{} credentials", agent.program);
                if vars.is_empty() && files.is_empty() {
                    r.add(
                        "agents",
                        name,
                        Status::Warn,
                        format!(
                            "none found (looked for {} and ~/{})",
                            agent.env.join(", "),
                            agent.files.join(", ~/")
                        ),
                        agent.login,
                    );
                } else {
                    let mut found: Vec<String> =
                        vars.iter().map(|v| format!("{v} is set")).collect();
                    found.extend(files.iter().map(|f| format!("{f} exists")));
                    r.add("agents", name, Status::Ok, found.join(", "), "");
                }
                if agent.program == "gemini" {
                    gemini_account_check(&mut r, &vars, !files.is_empty(), configured);
                }
            }
        }
    }
    // The Antigravity CLI, Gemini CLI's successor for individual Google accounts: said, not driven.
    if let Some(agy) = crate::project::which("agy", &path) {
        r.add(
            "agents",
            "agy",
            Status::Ok,
            format!(
                "the Antigravity CLI is installed ({}); pawl does not drive it: no adapter, no hooks",
                agy.display()
            ),
            "",
        );
    }
    if let Some(config) = &config {
        let kind = config.agent.kind.to_string();
        match config.agent.command.first().filter(|p| !p.is_empty()) {
            None if kind == "command" => {
                r.add(
                    "agents",
                    "[agent] command",
                    Status::Fail,
                    "kind = \"command\" with no command",
                    "set [agent] command = [\"program\", \"args\"...] in pawl.toml",
                );
            }
            None => {}
            Some(program) => {
                let found = if program.contains('/') {
                    Path::new(program).is_file()
                } else {
                    crate::project::which(program, &path).is_some()
                };
                if found {
                    r.add(
                        "agents",
                        "[agent] command",
                        Status::Ok,
                        format!("`{program}` found"),
                        "",
                    );
                } else {
                    r.add(
                        "agents",
                        "[agent] command",
                        Status::Fail,
                        format!("`{program}` is not found"),
                        "install it or fix [agent] command in pawl.toml",
                    );
                }
            }
        }
        if kind == "replay" {
            r.add(
                "agents",
                "[agent]",
                Status::Ok,
                "the scripted replay agent (tests; needs --scenario)",
                "",
            );
        }
    }
    let mut preflight = None;
    if let (Some(ctx), Some(config)) = (&ctx, &config) {
        preflight = room_preflight(&mut r, ctx, config);
        project_checks(&mut r, ctx, config, preflight.as_ref());
    }
    if let Some(ctx) = &ctx {
        hook_checks(&mut r, &ctx.root);
    }
    sandbox_checks(&mut r);
    if let Some(ctx) = &ctx {
        platform_table(&mut r, ctx, preflight.as_ref());
    }

    let count = |s: Status| r.checks.iter().filter(|c| c.status == s).count();
    let (ok, warn, fail) = (count(Status::Ok), count(Status::Warn), count(Status::Fail));
    let text = if json {
        serde_json::to_string_pretty(&serde_json::json!({
            "checks": r.checks, "ok": ok, "warn": warn, "fail": fail,
        }))
        .map_err(|e| CliError::Failed(e.to_string()))?
    } else {
        let mut out = String::new();
        let mut group = "";
        for c in &r.checks {
            if c.group != group {
                group = c.group;
                out.push_str(&format!("{group}\n"));
            }
            let mark = match c.status {
                Status::Ok => "ok  ",
                Status::Warn => "warn",
                Status::Fail => "FAIL",
            };
            out.push_str(&format!("  {mark} {}: {}\n", c.name, c.detail));
            if !c.fix.is_empty() && c.status != Status::Ok {
                out.push_str(&format!("       → {}\n", c.fix));
            }
        }
        out.push_str(&format!(
            "{ok} ok, {warn} warning{}, {fail} failed",
            if warn == 1 { "" } else { "s" }
        ));
        out
    };
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .map_err(CliError::io("cannot write to stdout"))?;
    Ok(if fail == 0 {
        ExitCode::Done
    } else {
        ExitCode::Error
    })
}

/// What a Gemini CLI account can do. Google stopped serving Gemini CLI to individual Google
/// sign-ins (free, Google AI Pro and Ultra) on 2026-06-18 and points them to the Antigravity CLI
/// (`agy`); a Gemini API key, Vertex AI and organization (Code Assist Standard/Enterprise)
/// accounts still work (docs/agents.md, "Gemini CLI and the Antigravity CLI", has the sources).
fn gemini_account_check(r: &mut Report, vars: &[&str], oauth_file: bool, configured: bool) {
    if !vars.is_empty() {
        r.add(
            "agents",
            "gemini account",
            Status::Ok,
            format!(
                "{}: an API key or Vertex AI, which Gemini CLI still serves",
                vars.join(", ")
            ),
            "",
        );
    } else if oauth_file {
        r.add(
            "agents",
            "gemini account",
            if configured {
                Status::Fail
            } else {
                Status::Warn
            },
            "only a Google sign-in (~/.gemini/oauth_creds.json): since 2026-06-18 Gemini CLI no \
             longer serves individual accounts (free, Google AI Pro, Ultra; it answers \
             IneligibleTierError), only organization (Code Assist Standard/Enterprise) accounts",
            "set GEMINI_API_KEY (Google AI Studio) or use Vertex AI; pawl does not drive the \
             Antigravity CLI (agy) that Google offers individual accounts instead",
        );
    }
}

/// Gates, dependencies and ignored outputs.
/// The dry preflight of the sealed baseline in a room of its own (pawl-engine's
/// `room::preflight`): each gate's program looked up and started by the checks' shell, under
/// the check sandbox, with the project's environment as a seal would take it now.
fn room_preflight(
    r: &mut Report,
    ctx: &Ctx,
    config: &pawl_core::config::Config,
) -> Option<pawl_engine::room::preflight::Preflight> {
    let ws = crate::checks::workspace(ctx);
    let room = ws.room.clone()?;
    let vars: Vec<(String, String)> = std::env::vars().collect();
    let seal = pawl_core::seal::Seal {
        env: pawl_core::seal::sealed_env(&vars, &[], &ctx.root),
        network: config.room.network,
        timeout_ms: 60_000,
        ..pawl_core::seal::Seal::default()
    };
    let gates = pawl_verify::gate::gates_from_config(&config.gates);
    let dir = pawl_engine::room::preflight::doctor_room(&room);
    match pawl_engine::room::preflight::preflight(&ws, &seal, &gates, &dir) {
        Ok(p) => {
            let env = if p.environment.is_empty() {
                "none".to_owned()
            } else {
                p.environment.join(", ")
            };
            r.add(
                "checks",
                "room",
                Status::Ok,
                format!(
                    "prepared in {} ms (the project's environment taken: {env}; {})",
                    p.prepare_ms,
                    doctor_room_note(&dir)
                ),
                "",
            );
            let (places, packages, ms) = p.outside;
            r.add(
                "checks",
                "environment outside the repository",
                Status::Ok,
                format!(
                    "{places} places ({packages} packages: stores, user configuration) fingerprinted by stat in {ms} ms, at the seal and at each verification that could ship"
                ),
                "",
            );
            Some(p)
        }
        Err(e) => {
            r.add(
                "checks",
                "room",
                Status::Warn,
                format!("the dry preflight in a room could not run: {e}"),
                "",
            );
            None
        }
    }
}

fn doctor_room_note(dir: &Path) -> String {
    format!("doctor's room: {}", dir.display())
}

/// What this machine gives the checks (docs/sandbox.md, point 0), with what pawl does.
fn platform_table(
    r: &mut Report,
    ctx: &Ctx,
    preflight: Option<&pawl_engine::room::preflight::Preflight>,
) {
    let ws = crate::checks::workspace(ctx);
    let enforced = ws
        .containment
        .as_ref()
        .and_then(|c| pawl_process::sandbox::probe(&c.launcher, &c.spec).ok());
    let yes = |b: bool| if b { Status::Ok } else { Status::Warn };
    let ns = enforced.as_ref().is_some_and(|e| e.namespaces && e.mounts);
    r.add(
        "platform",
        "user and mount namespaces",
        yes(ns),
        if ns {
            "yes: the checks see the room at the repository's own path, pawl's state hidden"
        } else {
            "no: the checks run at the room's own path (an absolute path into the repository leads to the live tree: named, the verdict at most REVIEW), Landlock only"
        },
        if ns {
            ""
        } else {
            "allow unprivileged user namespaces (Ubuntu 24.04: an AppArmor profile for pawl, or `sysctl kernel.apparmor_restrict_unprivileged_userns=0`; containers: a seccomp profile that allows unshare)"
        },
    );
    // Said up front (issue 31, point 1): where the checks can read pawl's key, no verification
    // of this machine can SHIP.
    r.add(
        "platform",
        "pawl's key hidden from the checks",
        yes(ws.key_exposed.is_none()),
        match &ws.key_exposed {
            None => "yes: the code under test cannot read pawl's state or forge its evidence".to_owned(),
            Some(why) => format!(
                "no: {why}; a verification whose checks pass is at most REVIEW on this machine"
            ),
        },
        if ws.key_exposed.is_none() {
            ""
        } else {
            "allow unprivileged user namespaces (see above), or run pawl in a container that allows unshare"
        },
    );
    let overlay = preflight.and_then(|p| p.overlay);
    r.add(
        "platform",
        "overlayfs in a user namespace",
        yes(overlay == Some(true)),
        match overlay {
            Some(true) => "yes: the checks never write the room's tree (their writes go to a layer discarded at the next sync)",
            Some(false) => "no: the room is bound as it is; the checks write it and the next sync removes what they wrote",
            None => "not tried (the checks are not contained)",
        },
        "",
    );
    let abi = enforced.as_ref().map(|e| e.landlock_abi).unwrap_or(0);
    r.add(
        "platform",
        "Landlock",
        yes(abi > 0),
        match abi {
            0 => "no: writes outside the room are not refused to the checks".to_owned(),
            1..=3 => format!("ABI {abi}: writes only in the room; no TCP or signal scoping"),
            4 | 5 => format!("ABI {abi}: writes only in the room, outbound TCP refused; no signal scoping"),
            _ => format!("ABI {abi}: writes only in the room, outbound TCP refused, signals and abstract sockets scoped"),
        },
        "",
    );
    let reflinks = preflight.is_some_and(|p| p.reflinks);
    r.add(
        "platform",
        "reflinks",
        Status::Ok,
        if reflinks {
            "yes: the project's environment is taken into the room without copying its blocks"
        } else {
            "no (ext4 and most others): the environment is copied once, then kept while its stat fingerprint is unchanged"
        },
        "",
    );
}

fn project_checks(
    r: &mut Report,
    ctx: &Ctx,
    config: &pawl_core::config::Config,
    preflight: Option<&pawl_engine::room::preflight::Preflight>,
) {
    let gates = pawl_verify::gate::gates_from_config(&config.gates);
    if gates.is_empty() {
        r.add(
            "project",
            "gates",
            Status::Warn,
            "no [gates] configured: `pawl verify` has nothing to run",
            "run `pawl init` (it detects them) or add them under [gates] in pawl.toml",
        );
    }
    let checks_path = crate::project::checks_path(&ctx.root);
    for g in &gates {
        let name = format!("gate {}", g.name);
        match pawl_core::seal::program_of(&g.command) {
            Some(p) if crate::project::SHELL_WORDS.contains(&p) => {
                r.add(
                    "project",
                    name,
                    Status::Ok,
                    format!("`{}` (a shell builtin)", g.command),
                    "",
                );
            }
            // Looked up where the checks will look: the project's environment in the room
            // (`.venv/bin`, `node_modules/.bin`) first, then the sealed PATH — not the PATH pawl
            // itself was started with (a `python -m MOD` gate: that interpreter imports MOD).
            Some(p) => match crate::project::gate_unresolved(&ctx.root, &g.command, &checks_path) {
                None => {
                    let found = crate::project::which(p, &checks_path)
                        .map(|f| f.display().to_string())
                        .unwrap_or_else(|| "found".into());
                    // The dry preflight in the room: what the checks' own shell starts there.
                    let room = preflight.and_then(|pf| pf.gates.iter().find(|x| x.gate == g.name));
                    match room {
                        Some(x) if x.problem.is_some() => {
                            r.add(
                                "project",
                                name,
                                Status::Fail,
                                format!(
                                    "`{p}` is {found} here, but does not start in the room the checks run in: {}",
                                    x.problem.as_deref().unwrap_or("")
                                ),
                                "install it in the project's environment (`.venv`, `node_modules`, git-ignored: the room takes only ignored environment directories) or on PATH, or set `[room] setup`",
                            );
                        }
                        Some(x) => {
                            r.add(
                                "project",
                                name,
                                Status::Ok,
                                format!(
                                    "`{p}` is {found} (on the checks' PATH; in the room: {})",
                                    x.found.as_deref().unwrap_or("starts")
                                ),
                                "",
                            );
                        }
                        None => {
                            r.add(
                                "project",
                                name,
                                Status::Ok,
                                format!("`{p}` is {found} (on the checks' PATH)"),
                                "",
                            );
                        }
                    }
                }
                Some(why) => {
                    r.add(
                        "project",
                        name,
                        Status::Fail,
                        format!("`{}`: {why}", g.command),
                        format!(
                            "install {p} in the project's environment (`.venv`, `node_modules`) or on PATH, or change [gates] {} in pawl.toml",
                            g.name
                        ),
                    );
                }
            },
            None => {
                r.add(
                    "project",
                    name,
                    Status::Ok,
                    format!(
                        "`{}` (its program is a path or not a plain word: not looked up)",
                        g.command
                    ),
                    "",
                );
            }
        }
    }
    let root = &ctx.root;
    if root.join("package.json").is_file() && !root.join("node_modules").is_dir() {
        let install = if root.join("pnpm-lock.yaml").is_file() {
            "pnpm install"
        } else if root.join("yarn.lock").is_file() {
            "yarn install"
        } else if root.join("package-lock.json").is_file() {
            "npm ci"
        } else {
            "npm install"
        };
        r.add(
            "project",
            "node_modules",
            Status::Warn,
            "package.json and no node_modules/: the gates will fail to start",
            format!("run `{install}`"),
        );
    }
    let python = ["pyproject.toml", "setup.py", "requirements.txt"]
        .iter()
        .any(|m| root.join(m).is_file());
    if python {
        let venv = [".venv", "venv"]
            .iter()
            .find(|d| root.join(d).join("bin").is_dir());
        // What the checks will really start (the preflight in the room), not what pawl's own
        // shell has: an activated virtualenv inside the repository is dropped from the
        // checks' PATH, one that git does not ignore is not taken into the room.
        let seen = preflight.map(|p| &p.python);
        match (seen, venv) {
            (Some(py), _) if py.room_venv.is_some() => {
                r.add(
                    "project",
                    "python environment",
                    Status::Ok,
                    format!(
                        "{}/ (the room's copy: the checks' python3 is {})",
                        py.room_venv.as_deref().unwrap_or(""),
                        py.python.as_deref().unwrap_or("")
                    ),
                    "",
                );
            }
            (Some(py), _)
                if py.python.as_deref().is_some_and(|p| {
                    Path::new(p)
                        .parent()
                        .and_then(Path::parent)
                        .is_some_and(|d| d.join("pyvenv.cfg").is_file())
                }) =>
            {
                r.add(
                    "project",
                    "python environment",
                    Status::Ok,
                    format!(
                        "the virtualenv of {} (outside the repository; its packages are in the environment manifest)",
                        py.python.as_deref().unwrap_or("")
                    ),
                    "",
                );
            }
            (Some(py), Some(d)) => {
                r.add(
                    "project",
                    "python environment",
                    Status::Warn,
                    format!(
                        "{d}/ exists but the checks will not use it (their python3 is {}): is it git-ignored?",
                        py.python.as_deref().unwrap_or("not found")
                    ),
                    format!("add `{d}/` to .gitignore: the room takes only ignored environment directories"),
                );
            }
            (Some(py), None) => {
                r.add("project", "python environment", Status::Warn, format!("no virtualenv the checks will use: they run {} with the machine's packages", py.python.as_deref().unwrap_or("no python3")), "`python3 -m venv .venv && .venv/bin/pip install -e .` (or your tool's equivalent)");
            }
            (None, Some(d)) => {
                r.add(
                    "project",
                    "python environment",
                    Status::Warn,
                    format!("{d}/ (not checked in a room: the preflight did not run)"),
                    "",
                );
            }
            (None, None) => {
                r.add("project", "python environment", Status::Warn, "no .venv/ (the preflight in a room did not run)", "`python3 -m venv .venv && .venv/bin/pip install -e .` (or your tool's equivalent)");
            }
        }
    }
    let mut expected: Vec<&str> = vec![".pawl/"];
    expected.extend(crate::project::expected_outputs(root));
    match pawl_git::Repo::open(root).and_then(|repo| repo.ignored(&expected)) {
        Ok(ignored) => {
            let missing: Vec<&str> = expected
                .iter()
                .copied()
                .filter(|p| !ignored.iter().any(|i| i == p))
                .collect();
            if missing.is_empty() {
                r.add(
                    "project",
                    "ignored outputs",
                    Status::Ok,
                    expected.join(", "),
                    "",
                );
            } else {
                r.add(
                    "project",
                    "ignored outputs",
                    Status::Warn,
                    format!("not git-ignored: {} (a build output in the tree changes the hash evidence is bound to)", missing.join(", ")),
                    format!("add them to .gitignore: `printf '{}\\n' >> .gitignore`", missing.join("\\n")),
                );
            }
        }
        Err(e) => {
            r.add(
                "project",
                "ignored outputs",
                Status::Warn,
                format!("cannot ask git: {e}"),
                "",
            );
        }
    }
}

/// pawl's hooks in the agents' settings (any JSON file of `.claude/`, `.codex/`, `.gemini/`):
/// which are installed, and whether the pawl they run exists.
fn hook_checks(r: &mut Report, root: &Path) {
    let mut any = false;
    for (agent, dir) in [
        ("claude", ".claude"),
        ("codex", ".codex"),
        ("gemini", ".gemini"),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            let mut commands = Vec::new();
            collect_commands(&value, &mut commands);
            let pawl: Vec<&String> = commands
                .iter()
                .filter(|c| pawl_hooks::install::is_pawl_command(c))
                .collect();
            if pawl.is_empty() {
                continue;
            }
            any = true;
            let rel = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            let missing: Vec<String> = pawl
                .iter()
                .filter_map(|c| {
                    let program = c
                        .split(" hook ")
                        .next()?
                        .trim()
                        .trim_matches(['\'', '"'])
                        .to_owned();
                    (program.contains('/') && !Path::new(&program).is_file()).then_some(program)
                })
                .collect();
            if let Some(p) = missing.first() {
                r.add("hooks", format!("{agent} hooks"), Status::Fail, format!("{rel}: the hooks run {p}, which does not exist (every hook fails, and the checks with it)"), format!("run `pawl init --agent {agent}` again"));
            } else {
                r.add(
                    "hooks",
                    format!("{agent} hooks"),
                    Status::Ok,
                    format!(
                        "{rel} ({} hook{})",
                        pawl.len(),
                        if pawl.len() == 1 { "" } else { "s" }
                    ),
                    "",
                );
            }
        }
    }
    if !any {
        r.add(
            "hooks",
            "hooks",
            Status::Ok,
            "none installed (needed only for `pawl run --driver session`)",
            "`pawl init --agent claude` (or codex, gemini) installs them",
        );
    }
}

fn collect_commands(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("command", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_commands(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| collect_commands(i, out)),
        _ => {}
    }
}

/// The kernel features pawl's sandbox of agent steps is built on.
fn sandbox_checks(r: &mut Report) {
    match std::fs::read_to_string("/sys/kernel/security/lsm") {
        Ok(lsm) if lsm.split(',').any(|m| m.trim() == "landlock") => {
            r.add(
                "sandbox",
                "landlock",
                Status::Ok,
                format!("enabled ({})", lsm.trim()),
                "",
            );
        }
        Ok(lsm) => {
            r.add(
                "sandbox",
                "landlock",
                Status::Warn,
                format!("not among the kernel's security modules ({})", lsm.trim()),
                "boot with `lsm=...,landlock` (Linux 5.13 or later) for pawl's filesystem sandbox",
            );
        }
        Err(e) => {
            r.add(
                "sandbox",
                "landlock",
                Status::Warn,
                format!("cannot tell: /sys/kernel/security/lsm: {e}"),
                "mount securityfs, or check that the kernel has Landlock (Linux 5.13 or later)",
            );
        }
    }
    match std::fs::read_to_string("/proc/sys/user/max_user_namespaces")
        .map(|s| s.trim().parse::<u64>())
    {
        Ok(Ok(n)) if n > 0 => {
            r.add(
                "sandbox",
                "user namespaces",
                Status::Ok,
                format!("available (max_user_namespaces = {n})"),
                "",
            );
        }
        Ok(Ok(_)) => {
            r.add(
                "sandbox",
                "user namespaces",
                Status::Warn,
                "disabled (max_user_namespaces = 0)",
                "`sysctl -w user.max_user_namespaces=15000` (as root) for pawl's process sandbox",
            );
        }
        _ => {
            r.add(
                "sandbox",
                "user namespaces",
                Status::Warn,
                "cannot tell: /proc/sys/user/max_user_namespaces is not readable",
                "",
            );
        }
    }
}

/// `<program> --version`'s last non-empty line, run with a throw-away HOME (some CLIs write
/// their home even for `--version`) and a timeout; `None` when it does not answer with exit 0.
fn version(program: &Path) -> Option<String> {
    let scratch = tempfile::tempdir().ok()?;
    let mut cmd = Command::new(program);
    cmd.arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.path())
        .env("CODEX_HOME", scratch.path())
        .env("TERM", "dumb")
        .env("DISABLE_AUTOUPDATER", "1")
        .current_dir(scratch.path())
        .timeout(VERSION_TIMEOUT);
    let out = cmd.run().ok()?;
    if out.end != End::Exited(0) {
        return None;
    }
    out.stdout
        .tail_text()
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(str::to_owned)
}
