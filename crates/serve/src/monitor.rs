//! The monitor (the seed's daemon): which runs are stalled, and what is worth telling the user
//! about — a run that ended, stalled, or waits on them.
//!
//! A run is stalled when it is active and nothing has come from it — no event (the hooks of a
//! session-driven run record its turns), no lease heartbeat — for longer than its own sealed
//! idle timeout (`[stall] idle_timeout`, the limit the headless loop applies to a silent
//! agent). Decisions as pure functions; the watcher (`stream.rs`) and the API call them.

use pawl_core::model::RunStatus;
use pawl_core::record::Run;
use serde::Serialize;

/// The run's last sign of life: its newest event, its lease's heartbeat (the headless loop's
/// steps, a session's PostToolUse hook), a bound session's last call.
pub fn last_sign(store: &pawl_store::Store, run_id: &str) -> Option<i64> {
    let event = store.last_activity(run_id).ok().flatten();
    let heartbeat = store.lease(run_id).ok().flatten().map(|l| l.heartbeat_at);
    let session = store
        .session_bindings(run_id)
        .ok()
        .and_then(|b| b.iter().map(|s| s.last_seen_at).max());
    [event, heartbeat, session].into_iter().flatten().max()
}

/// How long the run has been silent past its idle timeout, if it has.
pub fn stalled(run: &Run, last_sign_ms: Option<i64>, now_ms: i64) -> Option<u64> {
    if run.status != RunStatus::Active {
        return None;
    }
    let last = [Some(run.updated_at), last_sign_ms]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(run.created_at);
    let idle = u64::try_from(now_ms.saturating_sub(last)).unwrap_or(0);
    let limit = u64::try_from(run.settings.stall.idle_timeout.0.as_millis()).unwrap_or(u64::MAX);
    (idle > limit).then_some(idle)
}

/// Something the user hears about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notice {
    pub kind: NoticeKind,
    pub run: String,
    pub repo: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    Ended,
    Stalled,
    AwaitingUser,
}

/// What one run looked like at the last look, to tell a change from a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub status: RunStatus,
    pub stalled: bool,
}

/// The notice a change from `before` to `now` deserves. A run seen for the first time (the
/// daemon just started, or the run is new) is news only for what is true now — it is stalled,
/// or waits on the user — never for how it ended before the daemon looked.
pub fn notice(before: Option<Seen>, now: Seen) -> Option<NoticeKind> {
    let Some(before) = before else {
        return if now.status == RunStatus::AwaitingUser {
            Some(NoticeKind::AwaitingUser)
        } else if now.stalled {
            Some(NoticeKind::Stalled)
        } else {
            None
        };
    };
    let ended = |s: RunStatus| {
        matches!(
            s,
            RunStatus::Stopped | RunStatus::Done | RunStatus::Cancelled
        )
    };
    if ended(now.status) && !ended(before.status) {
        return Some(NoticeKind::Ended);
    }
    if now.status == RunStatus::AwaitingUser && before.status != RunStatus::AwaitingUser {
        return Some(NoticeKind::AwaitingUser);
    }
    if now.stalled && !before.stalled {
        return Some(NoticeKind::Stalled);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(status: RunStatus, stalled: bool) -> Seen {
        Seen { status, stalled }
    }

    #[test]
    fn silent_past_the_idle_timeout_is_stalled() {
        let mut run = Run {
            id: "r".into(),
            goal: "g".into(),
            status: RunStatus::Active,
            driver: pawl_core::model::Driver::Session,
            mode: None,
            phase: None,
            created_at: 0,
            updated_at: 0,
            ended_at: None,
            stop_reason: None,
            settings: Default::default(),
            branch: None,
            pre_run_commit: None,
        };
        run.settings.stall.idle_timeout = pawl_core::config::Dur::secs(60);
        assert_eq!(stalled(&run, Some(10_000), 60_000), None);
        assert_eq!(stalled(&run, Some(10_000), 70_001), Some(60_001));
        assert_eq!(stalled(&run, None, 60_001), Some(60_001));
        run.status = RunStatus::AwaitingUser;
        assert_eq!(stalled(&run, None, 1_000_000), None);
    }

    #[test]
    fn notices_only_changes() {
        use RunStatus::*;
        assert_eq!(notice(None, seen(Done, false)), None);
        assert_eq!(notice(None, seen(Active, false)), None);
        assert_eq!(notice(None, seen(Active, true)), Some(NoticeKind::Stalled));
        assert_eq!(
            notice(None, seen(AwaitingUser, false)),
            Some(NoticeKind::AwaitingUser)
        );
        assert_eq!(
            notice(Some(seen(Active, false)), seen(Done, false)),
            Some(NoticeKind::Ended)
        );
        assert_eq!(notice(Some(seen(Done, false)), seen(Done, false)), None);
        assert_eq!(
            notice(Some(seen(AwaitingUser, false)), seen(Stopped, false)),
            Some(NoticeKind::Ended)
        );
        assert_eq!(
            notice(Some(seen(Active, false)), seen(AwaitingUser, false)),
            Some(NoticeKind::AwaitingUser)
        );
        assert_eq!(
            notice(Some(seen(Active, false)), seen(Active, true)),
            Some(NoticeKind::Stalled)
        );
        assert_eq!(notice(Some(seen(Active, true)), seen(Active, true)), None);
    }
}
