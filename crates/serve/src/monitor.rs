//! The monitor (the seed's daemon): which runs are stalled, and what is worth telling the user
//! about — a run that ended, stalled, or waits on them.
//!
//! A run is stalled when it is active and nothing has come from it — no event (the hooks of a
//! session-driven run record its turns), no lease heartbeat — for longer than its own sealed
//! idle timeout (`[stall] idle_timeout`, the limit the headless loop applies to a silent
//! agent). Pure functions: the watcher (`stream.rs`) and the API call them.

use pawl_core::model::RunStatus;
use pawl_core::record::Run;
use serde::Serialize;

/// How long the run has been silent past its idle timeout, if it has.
pub fn stalled(
    run: &Run,
    last_activity_ms: Option<i64>,
    heartbeat_ms: Option<i64>,
    now_ms: i64,
) -> Option<u64> {
    if run.status != RunStatus::Active {
        return None;
    }
    let last = [Some(run.updated_at), last_activity_ms, heartbeat_ms]
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

/// The notice a change from `before` to `now` deserves (none for a run seen the first time:
/// starting the daemon does not replay old news).
pub fn notice(before: Option<Seen>, now: Seen) -> Option<NoticeKind> {
    let before = before?;
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
    fn notices_only_changes() {
        use RunStatus::*;
        assert_eq!(notice(None, seen(Done, false)), None);
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
