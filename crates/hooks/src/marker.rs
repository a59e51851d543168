//! The "armed" marker: `.pawl/session.json`, written when a run is armed for a session and kept
//! in step with the store (which stays the source of truth). It lets every hook of a session
//! that belongs to no run answer "allow" after reading one small file — no store, no config, no
//! git — and routes the others.

use serde::{Deserialize, Serialize};

/// The marker file's name inside `.pawl/`.
pub const FILE: &str = "session.json";

/// What the marker holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    pub run_id: String,
    /// The agent the run expects (`claude`, `codex`, `gemini`), when known.
    #[serde(default)]
    pub agent: Option<String>,
    /// Until when an unclaimed arming may be taken by a new session (ms since the epoch).
    pub expires_at: i64,
    /// Sessions bound to the run.
    #[serde(default)]
    pub sessions: Vec<String>,
}

/// Where a hook invocation goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The session belongs to no run: answer allow at once.
    Untouched,
    /// A SessionStart that claims the armed run.
    Bind { run_id: String },
    /// The session is bound to this run.
    Bound { run_id: String },
    /// Nobody claimed the armed run in time: expire it, then treat the session as untouched.
    Expire { run_id: String },
}

impl Marker {
    pub fn parse(text: &str) -> Option<Marker> {
        serde_json::from_str(text).ok()
    }

    pub fn to_text(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Routes a hook of `session` (`None` when the CLI sent no id). `session_start` is true for
    /// a SessionStart hook: only a starting session may claim an armed run, and only while no
    /// other session holds it and the arming has not gone stale.
    pub fn route(
        &self,
        agent: &str,
        session: Option<&str>,
        session_start: bool,
        now_ms: i64,
    ) -> Route {
        let Some(session) = session else {
            return Route::Untouched;
        };
        if self.sessions.iter().any(|s| s == session) {
            return Route::Bound {
                run_id: self.run_id.clone(),
            };
        }
        if !self.sessions.is_empty() {
            return Route::Untouched;
        }
        if now_ms >= self.expires_at {
            return Route::Expire {
                run_id: self.run_id.clone(),
            };
        }
        let agent_fits = self.agent.as_deref().is_none_or(|a| a == agent);
        if session_start && agent_fits {
            Route::Bind {
                run_id: self.run_id.clone(),
            }
        } else {
            Route::Untouched
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(sessions: &[&str]) -> Marker {
        Marker {
            run_id: "r1".into(),
            agent: Some("claude".into()),
            expires_at: 1_000,
            sessions: sessions.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn routes() {
        let bind = Route::Bind {
            run_id: "r1".into(),
        };
        assert_eq!(m(&[]).route("claude", Some("a"), true, 10), bind);
        assert_eq!(
            m(&[]).route("claude", Some("a"), false, 10),
            Route::Untouched
        );
        assert_eq!(
            m(&[]).route("codex", Some("a"), true, 10),
            Route::Untouched,
            "another agent's session does not claim a run armed for claude"
        );
        assert_eq!(
            m(&[]).route("claude", Some("a"), true, 1_000),
            Route::Expire {
                run_id: "r1".into()
            }
        );
        assert_eq!(
            m(&["a"]).route("claude", Some("a"), false, 99_999),
            Route::Bound {
                run_id: "r1".into()
            },
            "a bound session stays bound past the arming's expiry"
        );
        assert_eq!(
            m(&["a"]).route("claude", Some("b"), true, 10),
            Route::Untouched
        );
        assert_eq!(m(&[]).route("claude", None, true, 10), Route::Untouched);
    }
}
