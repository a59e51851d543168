//! A headless step's side of the sandbox (docs/sandbox.md): the step's mailbox, and the answer of
//! a pawl started from inside a step. What a step and a check may touch, the probe and the plan
//! are the engine's (`pawl_engine::start::sandbox`, re-exported here for the commands).
//!
//! The mailbox: inside a step `.pawl/` is read-only, so the verbs the agent reports with
//! (`pawl note`, `pawl story ...`, `pawl blocker add`, `pawl await-user`, ...) leave a request in
//! `.pawl/requests/` (the one writable place under `.pawl/`), and pawl carries them out after
//! the step, outside the sandbox, as the same commands ([`deliver`]). Run-control verbs
//! (`resume`, `stop`, `cancel`, `rollback`, `accept`, `off`, `init`, ...) are refused inside a
//! step: the agent cannot steer its own pawl.

use std::path::{Path, PathBuf};

use pawl_core::EventKind;
use pawl_store::Store;
use serde_json::json;

pub use pawl_engine::start::sandbox::{REQUESTS_DIR, check_containment, end_leftovers, launcher};

use crate::ctx::{MailCheck, STATE_DIR};
use crate::error::{CliError, CliResult};

/// At most this many requests are carried out per step; the rest are dropped (and recorded).
const MAX_REQUESTS: usize = 100;
/// A request larger than this is dropped.
const MAX_REQUEST_BYTES: u64 = 64 * 1024;

/// True when this pawl runs inside a sandboxed step of the repository at `root`: its store is on
/// a read-only mount. The agent cannot fake it (it cannot make `.pawl/` writable) nor hide it.
pub fn inside_step(root: &Path) -> bool {
    let state = root.join(STATE_DIR);
    match std::fs::OpenOptions::new()
        .append(true)
        .open(state.join("pawl.db"))
    {
        Ok(_) => false,
        // No database beside the state: a clone whose runs are in a shared store (a fleet's,
        // docs/fleet.md). The state directory itself is read-only inside a step.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let probe = state.join(format!(".probe-{}", std::process::id()));
            match std::fs::create_dir(&probe) {
                Ok(()) => {
                    let _ = std::fs::remove_dir(&probe);
                    false
                }
                Err(e) => e.raw_os_error() == Some(libc_erofs()),
            }
        }
        Err(e) => e.raw_os_error() == Some(libc_erofs()),
    }
}

/// EROFS on Linux (the CLI uses no libc of its own).
const fn libc_erofs() -> i32 {
    30
}

/// What a command may do from inside a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inside {
    /// Reads only (or is the replay agent itself): runs as usual.
    Run,
    /// A reporting verb: left in the mailbox, carried out after the step.
    Mail,
    /// Run control, or a write the agent has no business doing: refused.
    Refuse,
}

/// The verb of `args` (for messages): the first argument that is neither a flag nor the value
/// of a global flag; with ` --dir` or ` --run` after it when those were given.
fn verb(args: &[String]) -> String {
    let mut verb = None;
    let mut global = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if ["-C", "--dir", "--run"].contains(&a.as_str()) {
            global = true;
            it.next();
        } else if a.starts_with("--dir=") || a.starts_with("--run=") {
            global = true;
        } else if !a.starts_with('-') && verb.is_none() {
            verb = Some(a.clone());
        }
    }
    let verb = verb.unwrap_or_default();
    if global {
        format!("{verb} --dir")
    } else {
        verb
    }
}

/// Leaves `args` (pawl's arguments, without the program) in the mailbox of `root`.
pub fn mail(root: &Path, args: &[String]) -> CliResult<String> {
    write_request(root, &json!({ "args": args }))?;
    Ok(format!(
        "pawl: recorded `pawl {}`; pawl carries it out when this step ends",
        args.join(" ")
    ))
}

/// Leaves an event for the run in the mailbox (a hook inside a step cannot write the store).
/// Only the kinds [`deliver`] accepts are kept.
pub fn mail_event(root: &Path, kind: EventKind, data: serde_json::Value) -> CliResult {
    write_request(root, &json!({ "event": kind.as_str(), "data": data }))
}

fn write_request(root: &Path, value: &serde_json::Value) -> CliResult {
    let dir = root.join(STATE_DIR).join(REQUESTS_DIR);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let name = format!("{nanos:024}-{}", std::process::id());
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(format!("{name}.json"));
    let write = || -> std::io::Result<()> {
        std::fs::write(&tmp, value.to_string())?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(CliError::io(format!(
        "inside a pawl step: cannot leave the request in {}",
        dir.display()
    )))
}

/// The error of a refused verb inside a step.
pub fn refused(args: &[String]) -> CliError {
    CliError::InsideStep(verb(args))
}

/// Carries out what the step left in the mailbox of `root`, in order, outside the sandbox:
/// each reporting verb as `pawl --dir <root> <args>`, each hook event into the store. Every
/// request is recorded (`step_request`), refused ones with why: `check` (the dispatch's
/// [`MailCheck`]) says which argument lists are reporting verbs. The mailbox is emptied.
pub fn deliver(store: &mut Store, run_id: &str, root: &Path, check: MailCheck) {
    let dir = root.join(STATE_DIR).join(REQUESTS_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let dropped = files.len().saturating_sub(MAX_REQUESTS);
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_REQUEST_BYTES)
            .and_then(|_| std::fs::read_to_string(path).ok());
        let _ = std::fs::remove_file(path);
        if i >= MAX_REQUESTS {
            continue;
        }
        let value = text.and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let outcome = match value {
            Some(v) => carry_out(store, run_id, root, &v, check),
            None => Err("unreadable request".to_string()),
        };
        if let Err(why) = outcome {
            let _ = store.append_event(
                Some(run_id),
                EventKind::StepRequest,
                json!({"refused": why, "file": path.file_name().map(|n| n.to_string_lossy().into_owned())}),
            );
        }
    }
    if dropped > 0 {
        let _ = store.append_event(
            Some(run_id),
            EventKind::StepRequest,
            json!({"refused": format!("{dropped} request(s) over the limit of {MAX_REQUESTS} per step")}),
        );
    }
    // Stray temporary files of requests never finished.
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn carry_out(
    store: &mut Store,
    run_id: &str,
    root: &Path,
    v: &serde_json::Value,
    check: MailCheck,
) -> Result<(), String> {
    if let Some(kind) = v.get("event").and_then(|k| k.as_str()) {
        let kind = match kind {
            "guard_denied" => EventKind::GuardDenied,
            "hook_error" => EventKind::HookError,
            other => return Err(format!("event kind `{other}` is not accepted from a step")),
        };
        let mut data = v.get("data").cloned().unwrap_or(serde_json::Value::Null);
        if let Some(map) = data.as_object_mut() {
            map.insert("reported_by".into(), json!("a hook inside the agent step"));
        }
        return store
            .append_event(Some(run_id), kind, data)
            .map(drop)
            .map_err(|e| e.to_string());
    }
    let args: Vec<String> = v
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .ok_or("a request names neither args nor an event")?;
    check(&args)?;
    let Some(exe) = launcher() else {
        return Err("this pawl cannot find its own binary".into());
    };
    let outcome = pawl_process::Command::new(exe)
        .arg("--dir")
        .arg(root)
        .args(&args)
        .current_dir(root)
        .timeout(std::time::Duration::from_secs(120))
        .run()
        .map_err(|e| e.to_string())?;
    store
        .append_event(
            Some(run_id),
            EventKind::StepRequest,
            json!({"args": args, "end": outcome.end.to_string(),
                   "output": outcome.combined_tail_text().chars().take(2000).collect::<String>()}),
        )
        .map(drop)
        .map_err(|e| e.to_string())
}
