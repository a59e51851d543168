//! A dry preflight of the sealed baseline in a room (`pawl doctor`): the tree as it is now
//! synced into a room of its own, the project's environment taken as a seal would take it,
//! and, for each gate, its program looked up — and started — by the checks' own shell under
//! the check sandbox, with the variables the checks get. Nothing of the gates runs but
//! `command -v` (and, for a `python -m MOD` gate, that interpreter importing `MOD`).

use std::path::{Path, PathBuf};

use pawl_core::seal::Seal;
use pawl_verify::gate::Check;
use serde::Serialize;

use super::{Room, RoomError};
use crate::workspace::Workspace;

/// The probe of the checks' `python3`.
const PYTHON_PROBE: &str = "pawl-preflight-python";

/// What the preflight saw for one gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateStart {
    pub gate: String,
    /// The program the command starts (`None`: a path, or not a plain word: not looked up).
    pub program: Option<String>,
    /// Where the checks' shell found it, as the checks see it.
    pub found: Option<String>,
    /// Why it would not start (the shell's or the interpreter's last line).
    pub problem: Option<String>,
}

/// The python the checks would start, and whether it is the project's environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythonSeen {
    /// `python3` as the checks' PATH resolves it (`None`: not found).
    pub python: Option<String>,
    /// The room's virtualenv (root-relative) when that python is its own.
    pub room_venv: Option<String>,
}

/// The whole preflight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preflight {
    pub gates: Vec<GateStart>,
    pub python: PythonSeen,
    /// The environment directories the room took.
    pub environment: Vec<String>,
    /// How long the room's preparation took (sync and environment), ms.
    pub prepare_ms: u64,
    /// The checks saw the room through an overlay (`Some(false)`: the launcher could not mount
    /// it and bound the room as it is; `None`: not contained, no overlay asked for).
    pub overlay: Option<bool>,
    /// The file system of the room shares blocks with the repository's (reflinks): the
    /// environment is taken without copying.
    pub reflinks: bool,
    /// The manifest of the environment outside the repository (stores, user configuration):
    /// places, packages, and how long its stat walk took (ms) — paid at the seal and at every
    /// verification that could ship.
    pub outside: (usize, usize, u64),
}

/// The preflight of `gates` for the repository of `ws`, in the room `room_dir` (a room of its
/// own: a run's room is never touched), with `seal`'s variables.
pub fn preflight(
    ws: &Workspace,
    seal: &Seal,
    gates: &[Check],
    room_dir: &Path,
) -> Result<Preflight, RoomError> {
    let started = std::time::Instant::now();
    let repo = pawl_git::Repo::open(&ws.root)?;
    let tree = repo.tree_hash()?;
    let layout = pawl_verify::platform::Descriptors::builtin()
        .map(|d| d.environment())
        .unwrap_or_default();
    let mut room = Room::open(&repo, room_dir)?;
    room.sync(&repo, &tree)?;
    room.take_environment(&repo, &layout)?;
    let mut cfg = crate::baseline::runner_for(ws, seal, 0);
    cfg.logs_dir = room.dir().join("preflight-logs");
    cfg.in_room(ws.checks_path(), room.root());
    let view = cfg.root.clone();
    let state = room.environment();
    if let Some(state) = &state {
        crate::baseline::in_room_env(&mut cfg, state, &view, seal);
    }
    let prepare_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut probes: Vec<Check> = Vec::new();
    let mut out = Vec::new();
    for g in gates {
        let program = pawl_core::seal::program_of(&g.command).map(str::to_owned);
        if let Some(p) = &program {
            probes.push(Check::gate(g.name.clone(), probe_command(p, &g.command)));
        }
        out.push(GateStart {
            gate: g.name.clone(),
            program,
            found: None,
            problem: None,
        });
    }
    probes.push(Check::gate(PYTHON_PROBE, "command -v python3"));
    let mut python = None;
    for run in pawl_verify::run_checks(&probes, &cfg) {
        let lines: Vec<&str> = run
            .tail
            .lines()
            .map(|l| l.trim_start_matches("out| ").trim_start_matches("err| "))
            .filter(|l| !l.trim().is_empty())
            .collect();
        if run.check.name == PYTHON_PROBE {
            python = lines
                .iter()
                .find(|l| l.starts_with('/'))
                .filter(|_| run.passed)
                .map(|l| (*l).to_owned());
            continue;
        }
        if let Some(g) = out.iter_mut().find(|g| g.gate == run.check.name) {
            if run.passed {
                g.found = lines.first().map(|l| (*l).to_owned());
            } else {
                g.problem = Some(
                    lines
                        .last()
                        .copied()
                        .unwrap_or("not found on the checks' PATH")
                        .to_owned(),
                );
            }
        }
    }
    let scratch = room.dir().join(pawl_process::sandbox::check::ROOM_SCRATCH);
    let overlay = ws.containment.as_ref().map(|_| {
        !scratch
            .join(pawl_process::sandbox::check::OVERLAY_FAILED)
            .exists()
    });
    let reflinks = super::env::reflinks_work(room.dir());
    let t = std::time::Instant::now();
    let places = super::env::outside_places(&seal.env, &ws.root);
    let manifest = super::env::outside_manifest(&places);
    let outside = (
        places.len(),
        manifest.trees.values().map(|t| t.len()).sum(),
        u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX),
    );
    let room_venv = state.as_ref().and_then(|s| s.venv.clone()).filter(|v| {
        python
            .as_deref()
            .is_some_and(|p| Path::new(p).starts_with(view.join(v)))
    });
    Ok(Preflight {
        gates: out,
        python: PythonSeen { python, room_venv },
        environment: state
            .map(|s| s.dirs.into_keys().collect())
            .unwrap_or_default(),
        prepare_ms,
        overlay,
        reflinks,
        outside,
    })
}

/// The shell the checks run, asked where `program` is and, for `python -m MOD`, whether that
/// interpreter imports `MOD` — the same words the gate starts with.
fn probe_command(program: &str, command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == program).unwrap_or(0);
    let module = match (words.get(at + 1), words.get(at + 2)) {
        (Some(&"-m"), Some(m)) if program.starts_with("python") => Some(*m),
        _ => None,
    };
    let quoted = shell_quote(program);
    match module {
        Some(m) => format!(
            "command -v {quoted} && {quoted} -c {}",
            shell_quote(&format!("import {m}"))
        ),
        None => format!("command -v {quoted}"),
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Where `pawl doctor`'s room goes: beside the repository's room, never the room itself.
pub fn doctor_room(room: &Path) -> PathBuf {
    let name = room
        .file_name()
        .map(|n| format!("{}-doctor", n.to_string_lossy()))
        .unwrap_or_else(|| "doctor".into());
    room.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_module_gate_is_probed_by_importing_its_module() {
        assert_eq!(
            probe_command("python3", "python3 -m pytest -rA"),
            "command -v 'python3' && 'python3' -c 'import pytest'"
        );
        assert_eq!(probe_command("jest", "jest --ci"), "command -v 'jest'");
        assert_eq!(
            doctor_room(Path::new("/s/rooms/r-1")),
            Path::new("/s/rooms/r-1-doctor")
        );
    }
}
