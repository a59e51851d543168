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
//! - glibc linked in (`-static`), when the compiler has its archives (`libc.a`, `libm.a`, … —
//!   Debian's and Ubuntu's `libc6-dev` ship them; Fedora's need `glibc-static`): no dynamic
//!   loader at all, which was a third of `pawl`'s start-up. Done like the unwinder: linker
//!   scripts named `libc.so`, `libm.so`, … that read the archives, on the library path of the
//!   `pawl` executable only (tests and benches stay dynamic), and `-static`. The binary is
//!   built with `cfg(pawl_static_glibc)`: it then resolves host names (a webhook's, a
//!   PostgreSQL store's) through `/etc/hosts` and DNS only, never through a name-service module
//!   loaded at run time (see `pawl_process::start::pin_name_services`).
//!   `PAWL_DYNAMIC_GLIBC=1` at build time keeps glibc shared (every NSS module of the system,
//!   for a slower hook).

use std::path::{Path, PathBuf};

/// The archives a static glibc link reads, by the shared library name rustc asks for.
/// `libgcc_eh` and `libgcc` join `libc`'s group: static glibc calls into both.
const GLIBC_ARCHIVES: &[(&str, &[&str])] = &[
    ("libc.so", &["libc.a", "libgcc_eh.a", "libgcc.a"]),
    ("libm.so", &["libm.a"]),
    ("libpthread.so", &["libpthread.a"]),
    ("libdl.so", &["libdl.a"]),
    ("librt.so", &["librt.a"]),
    ("libutil.so", &["libutil.a"]),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=PAWL_DYNAMIC_GLIBC");
    println!("cargo::rustc-check-cfg=cfg(pawl_static_glibc)");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu");
    if !(linux && gnu) {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    // Only for a native build: a cross build links with another toolchain's archives.
    if std::env::var("HOST").ok() != std::env::var("TARGET").ok() {
        return;
    }
    let Some(unwinder) = static_unwinder(&out) else {
        return;
    };
    println!("cargo:rustc-link-search=native={}", unwinder.display());
    if std::env::var_os("PAWL_DYNAMIC_GLIBC").is_some_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    if let Some(dir) = static_glibc(&out) {
        // A `-L` link argument, not a link search path: it applies to the executable only.
        // The C compiler driver puts every `-L` before its own library directories.
        println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
        println!("cargo:rustc-link-arg-bins=-static");
        println!("cargo:rustc-cfg=pawl_static_glibc");
    }
}

/// The absolute path of `file` as the C compiler that links would find it, if it has it.
fn compiler_file(file: &str) -> Option<PathBuf> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = std::process::Command::new(cc)
        .arg(format!("-print-file-name={file}"))
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // An unknown file is printed back as its bare name.
    if !out.status.success() || !path.is_absolute() || !path.is_file() {
        return None;
    }
    Some(path)
}

/// A directory holding `name` with `text`, made under `OUT_DIR`.
fn script_dir(out: &Path, dir: &str, scripts: &[(&str, String)]) -> Option<PathBuf> {
    let dir = out.join(dir);
    std::fs::create_dir_all(&dir).ok()?;
    for (name, text) in scripts {
        std::fs::write(dir.join(name), text).ok()?;
    }
    Some(dir)
}

/// A directory holding the `libgcc_s.so` linker script that links `libgcc_eh.a` instead, when
/// the compiler has that archive.
fn static_unwinder(out: &Path) -> Option<PathBuf> {
    compiler_file("libgcc_eh.a")?;
    script_dir(
        out,
        "unwinder",
        &[("libgcc_s.so", "INPUT(-lgcc_eh)\n".into())],
    )
}

/// A directory holding the `libc.so`, `libm.so`, … linker scripts that read glibc's archives,
/// when the compiler has every one of them.
fn static_glibc(out: &Path) -> Option<PathBuf> {
    let mut scripts = Vec::new();
    for (name, archives) in GLIBC_ARCHIVES {
        let paths = archives
            .iter()
            .map(|a| compiler_file(a).map(|p| format!("\"{}\"", p.display())))
            .collect::<Option<Vec<_>>>()?;
        scripts.push((*name, format!("GROUP ( {} )\n", paths.join(" "))));
    }
    script_dir(out, "glibc-static", &scripts)
}
