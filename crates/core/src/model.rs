//! The words of the domain (DESIGN.md "Concepts") as types: run states, drivers, story sizes and
//! statuses, verification kinds, blocker severities.
//!
//! Each enum has one stable lowercase spelling used in the store, the CLI and JSON; parsing an
//! unknown spelling is an error that lists the accepted ones, so the CLI can say what was wrong.

use serde::{Deserialize, Serialize};

/// Error for a value that is not one of an enum's spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} `{value}`: expected one of {expected}")]
pub struct ParseEnumError {
    pub what: &'static str,
    pub value: String,
    pub expected: String,
}

/// Defines a string-backed enum with `as_str`, `FromStr`, `Display` and serde as that string.
macro_rules! str_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl std::str::FromStr for $name {
            type Err = ParseEnumError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let lower = s.trim().to_ascii_lowercase();
                $(
                    if lower == $text.to_ascii_lowercase() $(|| lower == $alias)* {
                        return Ok($name::$variant);
                    }
                )+
                Err(ParseEnumError {
                    what: $what,
                    value: s.to_string(),
                    expected: [$($text),+].join(", "),
                })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use str_enum;

str_enum!(
    /// The lifecycle state of a run.
    RunStatus, "run status" {
        /// Being worked on (by a driver or by hand).
        Active => "active",
        /// Waiting for the user to clear a blocker.
        AwaitingUser => "awaiting_user" | "awaiting-user",
        /// Stopped with a reason that allows resuming (limit, breaker, `pawl stop`).
        Stopped => "stopped",
        /// Every criterion verified.
        Done => "done",
        /// Cancelled by the user; terminal.
        Cancelled => "cancelled",
    }
);

impl RunStatus {
    /// A run in a terminal state can not be driven any more.
    pub fn is_terminal(self) -> bool {
        matches!(self, RunStatus::Done | RunStatus::Cancelled)
    }
}

str_enum!(
    /// How the agent is driven.
    Driver, "driver" {
        /// Driven by hand through the state CLI.
        Manual => "manual",
        /// pawl spawns the agent for each step.
        Headless => "headless",
        /// pawl's hooks drive an interactive session.
        Session => "session",
    }
);

str_enum!(
    /// Story size: drives attempt limits and quality thresholds.
    Size, "size" {
        S => "S",
        M => "M",
        L => "L",
        XL => "XL",
    }
);

str_enum!(
    /// Where a story is.
    StoryStatus, "story status" {
        Pending => "pending",
        InProgress => "in_progress" | "in-progress",
        Done => "done",
        Blocked => "blocked",
        /// Skipped after its attempt limit; logged, the run moves on.
        Skipped => "skipped",
    }
);

str_enum!(
    /// How a criterion is verified. Only `command` and `review` can close a run; an `assumption`
    /// never can.
    VerifyKind, "verification kind" {
        Command => "command",
        Review => "review",
        Observation => "observation",
        Assumption => "assumption",
    }
);

str_enum!(
    /// Where a criterion stands.
    CriterionStatus, "criterion status" {
        Unverified => "unverified",
        Verified => "verified",
        Failed => "failed",
    }
);

str_enum!(
    /// Severity of a blocker.
    Severity, "severity" {
        Low => "low",
        Medium => "medium",
        High => "high",
        Critical => "critical",
    }
);

str_enum!(
    /// Where a blocker stands.
    BlockerStatus, "blocker status" {
        Open => "open",
        AwaitingUser => "awaiting_user" | "awaiting-user",
        /// The user said it is fixed; waiting for the check (if any) to confirm.
        Resolved => "resolved",
    }
);

/// How a criterion is verified, with the command for `command`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub kind: VerifyKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

impl std::str::FromStr for Verification {
    type Err = ParseEnumError;

    /// Parses `command:<cmd>`, `review`, `observation` or `assumption`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseEnumError {
            what: "verification",
            value: s.to_string(),
            expected: "command:\"<cmd>\", review, observation, assumption".to_string(),
        };
        if let Some(cmd) = s.strip_prefix("command:") {
            let cmd = cmd.trim();
            if cmd.is_empty() {
                return Err(bad());
            }
            return Ok(Verification {
                kind: VerifyKind::Command,
                command: Some(cmd.to_string()),
            });
        }
        match s.parse::<VerifyKind>() {
            Ok(VerifyKind::Command) | Err(_) => Err(bad()),
            Ok(kind) => Ok(Verification {
                kind,
                command: None,
            }),
        }
    }
}

/// Default number of attempts a story gets before it is escalated or skipped.
pub const DEFAULT_STORY_ATTEMPTS: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_case_insensitively_and_reject_others() {
        assert_eq!("m".parse::<Size>().unwrap(), Size::M);
        assert_eq!("XL".parse::<Size>().unwrap(), Size::XL);
        let err = "huge".parse::<Size>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid size `huge`: expected one of S, M, L, XL"
        );
    }

    #[test]
    fn verification_parses_command_and_kinds() {
        let v: Verification = "command:cargo test -q".parse().unwrap();
        assert_eq!(v.kind, VerifyKind::Command);
        assert_eq!(v.command.as_deref(), Some("cargo test -q"));
        assert_eq!(
            "review".parse::<Verification>().unwrap().kind,
            VerifyKind::Review
        );
        assert!("command".parse::<Verification>().is_err());
        assert!("command:  ".parse::<Verification>().is_err());
        assert!("vibes".parse::<Verification>().is_err());
    }

    #[test]
    fn statuses_serialize_as_their_spelling() {
        assert_eq!(
            serde_json::to_string(&StoryStatus::InProgress).unwrap(),
            "\"in_progress\""
        );
        assert_eq!(
            "in-progress".parse::<StoryStatus>().unwrap(),
            StoryStatus::InProgress
        );
        assert!(RunStatus::Done.is_terminal());
        assert!(!RunStatus::Stopped.is_terminal());
    }
}

/// Why a story status change is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("story cannot go from `{from}` to `{to}`: {why}")]
pub struct StoryTransitionError {
    pub from: StoryStatus,
    pub to: StoryStatus,
    pub why: &'static str,
}

/// The story lifecycle: pending → in_progress → done, with blocked and skipped on the side.
/// A done story stays done (reopening would hide that its evidence went stale; add a new story).
pub fn story_transition(from: StoryStatus, to: StoryStatus) -> Result<(), StoryTransitionError> {
    use StoryStatus::*;
    let refuse = |why| Err(StoryTransitionError { from, to, why });
    match (from, to) {
        (Done, _) => refuse("it is already done; add a new story for more work"),
        (_, Pending) => refuse("stories never go back to pending"),
        (InProgress, InProgress) => refuse("it is already in progress"),
        (Blocked, Blocked) => refuse("it is already blocked"),
        (Skipped, Skipped) => refuse("it is already skipped"),
        _ => Ok(()),
    }
}
