//! How `pawl` is linked on Linux (glibc). The agent CLIs start `pawl hook` for every tool call,
//! and most of a hook's cost is starting the process (docs/hooks.md, "What a hook costs"):
//!
//! - Position-dependent (`-no-pie`): a position-independent `pawl` spent most of its start-up
//!   applying tens of thousands of dynamic relocations (each a copy-on-write page fault), which
//!   alone cost as much as starting `/bin/true`. The code is still compiled
//!   position-independent; only the executable is linked at a fixed address.
//! - The unwinder linked in (`libgcc_eh.a`, as a static Rust binary has it) instead of loading
//!   `libgcc_s.so.1`: one shared library fewer to find, map, relocate and initialise (its CPU
//!   feature probe is slow in a virtual machine) on every start. Done by putting a linker
//!   script named `libgcc_s.so` that reads `INPUT(-lgcc_eh)` first on the library path; only
//!   when the C compiler that links knows a `libgcc_eh.a` (else the shared one is used as
//!   before). Panics still unwind (the hook catches them to answer and fail closed).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu");
    if !(linux && gnu) {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    if let Some(dir) = static_unwinder() {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
}

/// A directory holding the `libgcc_s.so` linker script that links `libgcc_eh.a` instead, when
/// the compiler has that archive and the build is not cross-compiled.
fn static_unwinder() -> Option<PathBuf> {
    let host = std::env::var("HOST").ok()?;
    let target = std::env::var("TARGET").ok()?;
    if host != target {
        return None;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = std::process::Command::new(cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // An unknown file is printed back as its bare name.
    if !out.status.success() || !path.is_absolute() || !path.is_file() {
        return None;
    }
    let dir = PathBuf::from(std::env::var_os("OUT_DIR")?).join("unwinder");
    std::fs::create_dir_all(&dir).ok()?;
    std::fs::write(dir.join("libgcc_s.so"), "INPUT(-lgcc_eh)\n").ok()?;
    Some(dir)
}
