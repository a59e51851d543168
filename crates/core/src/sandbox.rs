//! Whether a run's agent steps are sandboxed, decided once from what the kernel can do and
//! what `[sandbox]` asks: a pure function, so the refusal of `required = true` on a machine
//! without Landlock or namespaces is tested without such a machine (and without a switch an
//! agent could flip).

use serde::{Deserialize, Serialize};

use crate::config::SandboxConfig;

/// What the machine can enforce (pawl-process's probe, reduced to what decides).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// New pid and mount namespaces.
    pub namespaces: bool,
    /// Read-only binds (needs the namespaces).
    pub mounts: bool,
    /// Landlock's filesystem rules.
    pub landlock: bool,
    /// Landlock's signal scope (ABI 6).
    pub signal_scope: bool,
    /// The launcher can be a child subreaper (the containment without namespaces).
    pub subreaper: bool,
}

/// How the run's steps are launched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPlan {
    /// Apply the sandbox (read-only paths and Landlock, as far as the machine can).
    pub sandbox: bool,
    /// What protects pawl from the agent: `landlock+namespaces`, `namespaces`, `landlock`,
    /// `none`, or `off` (turned off in `[sandbox]`).
    pub layers: String,
    /// How every process of a step ends with it: `namespaces`, `subreaper` or `none`.
    pub containment: String,
    /// The layers this machine lacks, for the start line and the report.
    pub missing: Vec<String>,
    /// Protections the user relaxed for this run (`[sandbox] containers = true`: steps and
    /// checks reach the container daemon), said on the start line and in the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relaxed: Vec<String>,
}

impl SandboxPlan {
    /// The one line the start and the report print: `sandbox: landlock+namespaces`.
    pub fn line(&self) -> String {
        let mut line = format!("sandbox: {}", self.layers);
        if !self.missing.is_empty() {
            line.push_str(&format!(
                " (this machine lacks: {}; every process of a step ends with it: {})",
                self.missing.join(", "),
                self.containment
            ));
        }
        if !self.relaxed.is_empty() {
            line.push_str(&format!("; relaxed: {}", self.relaxed.join(", ")));
        }
        line
    }
}

/// What a machine without mount and pid namespaces lacks, for the start line and the report:
/// the sockets that are hidden only by a mount stay reachable (issue 31 point 2).
pub const NO_NAMESPACES: &str = "mount and pid namespaces (the container daemon, the user's tmux and screen servers and session bus stay reachable; HOME's persistence places are writable to a step, put back after it)";

/// Decides the plan, or the refusal of `required = true` (with what is missing).
pub fn decide(config: &SandboxConfig, caps: &Capabilities) -> Result<SandboxPlan, String> {
    let containment = if caps.namespaces {
        "namespaces"
    } else if caps.subreaper {
        "subreaper"
    } else {
        "none"
    };
    let mut missing = Vec::new();
    if !caps.namespaces || !caps.mounts {
        // Without a mount namespace nothing can be hidden from a step: say what stays in reach.
        missing.push(NO_NAMESPACES.to_string());
    }
    if !caps.landlock {
        missing.push("Landlock".to_string());
    } else if !caps.signal_scope {
        missing.push("Landlock signal and abstract socket scoping (ABI 6)".to_string());
    }
    if !config.enabled {
        if config.required {
            return Err("[sandbox] required = true, but enabled = false".into());
        }
        return Ok(SandboxPlan {
            sandbox: false,
            layers: "off".into(),
            containment: containment.into(),
            missing: Vec::new(),
            relaxed: relaxed(config),
        });
    }
    if config.required && !missing.is_empty() {
        return Err(format!(
            "[sandbox] required = true, but this machine cannot sandbox the agent: it lacks {}",
            missing.join(", ")
        ));
    }
    let mut layers = Vec::new();
    if caps.landlock {
        layers.push("landlock");
    }
    if caps.namespaces && caps.mounts {
        layers.push("namespaces");
    }
    Ok(SandboxPlan {
        sandbox: true,
        layers: if layers.is_empty() {
            "none".into()
        } else {
            layers.join("+")
        },
        containment: containment.into(),
        missing,
        relaxed: relaxed(config),
    })
}

/// What `config` relaxes of the protections every run has.
fn relaxed(config: &SandboxConfig) -> Vec<String> {
    if config.containers {
        vec!["steps and checks reach the container daemon ([sandbox] containers = true)".into()]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relaxed_protection_is_said_on_the_line() {
        let mut config = SandboxConfig::default();
        let plan = decide(&config, &caps(true, true, true)).expect("plan");
        assert_eq!(plan.line(), "sandbox: landlock+namespaces");
        config.containers = true;
        let plan = decide(&config, &caps(true, true, true)).expect("plan");
        assert_eq!(
            plan.line(),
            "sandbox: landlock+namespaces; relaxed: steps and checks reach the container daemon ([sandbox] containers = true)"
        );
    }

    fn caps(namespaces: bool, landlock: bool, signal_scope: bool) -> Capabilities {
        Capabilities {
            namespaces,
            mounts: namespaces,
            landlock,
            signal_scope,
            subreaper: true,
        }
    }

    /// Rows: enabled, required, namespaces, landlock, signal scope → the line, or the refusal.
    #[test]
    fn decisions() {
        let rows: &[(bool, bool, Capabilities, Result<&str, &str>)] = &[
            (
                true,
                false,
                caps(true, true, true),
                Ok("sandbox: landlock+namespaces"),
            ),
            (
                true,
                true,
                caps(true, true, true),
                Ok("sandbox: landlock+namespaces"),
            ),
            (
                true,
                false,
                caps(false, false, false),
                Ok(
                    "sandbox: none (this machine lacks: mount and pid namespaces (the container daemon, the user's tmux and screen servers and session bus stay reachable; HOME's persistence places are writable to a step, put back after it), Landlock; every process of a step ends with it: subreaper)",
                ),
            ),
            (
                true,
                false,
                caps(true, false, false),
                Ok(
                    "sandbox: namespaces (this machine lacks: Landlock; every process of a step ends with it: namespaces)",
                ),
            ),
            (
                true,
                true,
                caps(false, false, false),
                Err(
                    "[sandbox] required = true, but this machine cannot sandbox the agent: it lacks mount and pid namespaces (the container daemon, the user's tmux and screen servers and session bus stay reachable; HOME's persistence places are writable to a step, put back after it), Landlock",
                ),
            ),
            (
                true,
                true,
                caps(true, true, false),
                Err(
                    "[sandbox] required = true, but this machine cannot sandbox the agent: it lacks Landlock signal and abstract socket scoping (ABI 6)",
                ),
            ),
            (
                true,
                true,
                caps(false, true, true),
                Err(
                    "[sandbox] required = true, but this machine cannot sandbox the agent: it lacks mount and pid namespaces (the container daemon, the user's tmux and screen servers and session bus stay reachable; HOME's persistence places are writable to a step, put back after it)",
                ),
            ),
            (false, false, caps(false, false, false), Ok("sandbox: off")),
            (
                false,
                true,
                caps(true, true, true),
                Err("[sandbox] required = true, but enabled = false"),
            ),
        ];
        for (enabled, required, caps, want) in rows {
            let config = SandboxConfig {
                enabled: *enabled,
                required: *required,
                writable: Vec::new(),
                containers: false,
            };
            let got = decide(&config, caps).map(|p| p.line());
            assert_eq!(
                got.as_deref().map_err(String::as_str),
                *want,
                "{enabled} {required} {caps:?}"
            );
        }
    }
}
