//! Environment hygiene for agent processes: what passes through, what is switched off, and the
//! refusal to start an agent from inside a session of the same agent.
//!
//! Every adapter starts its child from an allow-list of pawl's own variables (pawl-process's
//! `env_allow`, applied at spawn), then adds the quiet switches of its CLI, then the request's
//! explicit variables. Nothing else of the user's environment reaches the agent: no stray
//! `CLAUDECODE`, no unrelated tokens, no `LD_PRELOAD`.
//!
//! This module reads no environment itself: the nested-session check takes the parent's
//! variables as a list, and the allow-list is applied by pawl-process when it spawns.
//!
//! What this module is not: provider configuration (base URLs and keys are passed through, never
//! invented here) or the guard.

use pawl_core::config::AgentKind;

use crate::AgentError;

/// Variables every agent (and the replay and command agents) may see: locating programs and
/// the home directory, locale and terminal, temp dir, proxies and CA bundles.
pub const BASE_PASSTHROUGH: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TZ",
    "TMPDIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
];

/// Claude Code: Anthropic keys and endpoints, Bedrock / Vertex routing, its config dir, and the
/// network knobs users tune.
pub const CLAUDE_PASSTHROUGH: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
    "CLAUDE_CODE_MAX_RETRIES",
    "API_TIMEOUT_MS",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "MCP_TIMEOUT",
    "CLOUD_ML_REGION",
    "AWS_REGION",
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "GOOGLE_APPLICATION_CREDENTIALS",
    // Lets a root user in a throw-away container run Claude Code at all; harmless otherwise.
    "IS_SANDBOX",
];

/// Codex: OpenAI keys and endpoints, its home. A custom provider's `env_key` is not known here:
/// pass it with [`crate::AdapterOptions::extra_passthrough`].
pub const CODEX_PASSTHROUGH: &[&str] = &[
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORGANIZATION",
    "OPENAI_PROJECT",
    "AZURE_OPENAI_API_KEY",
    "CODEX_HOME",
];

/// Gemini CLI: Gemini / Vertex keys and endpoints, its home.
pub const GEMINI_PASSTHROUGH: &[&str] = &[
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_MODEL",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GEMINI_CLI_HOME",
];

/// The names passed through for an agent kind (base plus the agent's own).
pub fn passthrough(kind: AgentKind) -> Vec<&'static str> {
    let own: &[&str] = match kind {
        AgentKind::Claude => CLAUDE_PASSTHROUGH,
        AgentKind::Codex => CODEX_PASSTHROUGH,
        AgentKind::Gemini => GEMINI_PASSTHROUGH,
        AgentKind::Command | AgentKind::Replay => &[],
    };
    BASE_PASSTHROUGH.iter().chain(own).copied().collect()
}

/// The variables that switch off non-essential traffic (updates, telemetry, error reports,
/// preflights), set for every step of that agent. Codex's switches are config overrides, not
/// variables: see [`crate::codex::QUIET_CONFIG`].
pub fn quiet(kind: AgentKind) -> &'static [(&'static str, &'static str)] {
    match kind {
        AgentKind::Claude => &[
            ("DISABLE_AUTOUPDATER", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_ERROR_REPORTING", "1"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("CLAUDE_CODE_DISABLE_TERMINAL_TITLE", "1"),
            ("DO_NOT_TRACK", "1"),
        ],
        AgentKind::Codex => &[("DO_NOT_TRACK", "1")],
        AgentKind::Gemini => &[("GEMINI_TELEMETRY_ENABLED", "false"), ("DO_NOT_TRACK", "1")],
        AgentKind::Command | AgentKind::Replay => &[],
    }
}

/// Filters a parent environment down to what an agent of this kind may see (the same rule the
/// adapters apply at spawn), plus `extra` names. For display and for callers that build the
/// environment themselves.
pub fn filter(
    kind: AgentKind,
    parent: &[(String, String)],
    extra: &[String],
) -> Vec<(String, String)> {
    let allowed = passthrough(kind);
    parent
        .iter()
        .filter(|(name, _)| allowed.contains(&name.as_str()) || extra.iter().any(|e| e == name))
        .cloned()
        .collect()
}

/// The variables that show we are running inside a session of this agent, and how.
fn markers(kind: AgentKind) -> &'static [&'static str] {
    match kind {
        // Claude Code sets these in every Bash tool call, hook and MCP server it starts.
        AgentKind::Claude => &[
            "CLAUDECODE",
            "CLAUDE_CODE_ENTRYPOINT",
            "CLAUDE_CODE_SESSION_ID",
        ],
        // Codex exports its thread id and sandbox kind into every shell it spawns.
        AgentKind::Codex => &[
            "CODEX_THREAD_ID",
            "CODEX_SANDBOX",
            "CODEX_SANDBOX_NETWORK_DISABLED",
        ],
        // Gemini CLI sets GEMINI_CLI=1 for its shell tool.
        AgentKind::Gemini => &["GEMINI_CLI"],
        AgentKind::Command | AgentKind::Replay => &[],
    }
}

/// The first marker variable present (non-empty) in `parent`, if any.
pub fn nested_marker(kind: AgentKind, parent: &[(String, String)]) -> Option<&'static str> {
    markers(kind).iter().copied().find(|marker| {
        parent
            .iter()
            .any(|(name, value)| name == marker && !value.is_empty() && value != "0")
    })
}

/// Refuses to start an agent from inside a session of the same agent (a loop that spawns
/// itself), unless `force`.
pub fn check_nested(
    kind: AgentKind,
    parent: &[(String, String)],
    force: bool,
) -> Result<(), AgentError> {
    match nested_marker(kind, parent) {
        Some(_) if !force => Err(AgentError::Nested {
            agent: kind.as_str().to_owned(),
        }),
        _ => Ok(()),
    }
}

/// Starts `cmd` from the allow-list for `kind` (plus `extra` names), then the quiet switches.
/// The caller adds the request's own variables afterwards, so they win.
pub(crate) fn apply(cmd: &mut pawl_process::Command, kind: AgentKind, extra: &[String]) {
    let mut names: Vec<String> = passthrough(kind).into_iter().map(str::to_owned).collect();
    names.extend(extra.iter().cloned());
    cmd.env_allow(names);
    cmd.envs(quiet(kind).iter().copied());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn nested_sessions_of_the_same_kind_are_refused_unless_forced() {
        let inside_claude = vars(&[("PATH", "/bin"), ("CLAUDECODE", "1")]);
        let err = check_nested(AgentKind::Claude, &inside_claude, false).unwrap_err();
        assert!(matches!(err, AgentError::Nested { ref agent } if agent == "claude"));
        assert!(err.to_string().contains("--force-nested"));
        check_nested(AgentKind::Claude, &inside_claude, true).unwrap();
        // Another kind is fine: Codex driven from a Claude session is not a loop.
        check_nested(AgentKind::Codex, &inside_claude, false).unwrap();

        let inside_codex = vars(&[("CODEX_THREAD_ID", "01a1")]);
        assert!(check_nested(AgentKind::Codex, &inside_codex, false).is_err());
        let inside_gemini = vars(&[("GEMINI_CLI", "1")]);
        assert!(check_nested(AgentKind::Gemini, &inside_gemini, false).is_err());
        assert_eq!(
            nested_marker(
                AgentKind::Claude,
                &vars(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")])
            ),
            Some("CLAUDE_CODE_ENTRYPOINT")
        );
        // Empty or "0" is not a session.
        check_nested(AgentKind::Claude, &vars(&[("CLAUDECODE", "")]), false).unwrap();
        check_nested(AgentKind::Claude, &vars(&[("CLAUDECODE", "0")]), false).unwrap();
    }

    #[test]
    fn filter_keeps_only_the_allow_list() {
        let parent = vars(&[
            ("PATH", "/bin"),
            ("HOME", "/h"),
            ("ANTHROPIC_API_KEY", "k"),
            ("OPENAI_API_KEY", "o"),
            ("CLAUDECODE", "1"),
            ("LD_PRELOAD", "/evil.so"),
            ("MY_PROVIDER_KEY", "m"),
        ]);
        let names = |v: Vec<(String, String)>| v.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(
            names(filter(AgentKind::Claude, &parent, &[])),
            ["PATH", "HOME", "ANTHROPIC_API_KEY"]
        );
        assert_eq!(
            names(filter(
                AgentKind::Codex,
                &parent,
                &["MY_PROVIDER_KEY".into()]
            )),
            ["PATH", "HOME", "OPENAI_API_KEY", "MY_PROVIDER_KEY"]
        );
        assert_eq!(
            names(filter(AgentKind::Command, &parent, &[])),
            ["PATH", "HOME"]
        );
    }

    #[test]
    fn claude_is_quiet() {
        let quiet = quiet(AgentKind::Claude);
        for name in [
            "DISABLE_AUTOUPDATER",
            "DISABLE_TELEMETRY",
            "DISABLE_ERROR_REPORTING",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        ] {
            assert!(quiet.iter().any(|(k, _)| *k == name), "{name}");
        }
    }
}
