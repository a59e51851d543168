//! How `pawl` starts (crates/cli/build.rs, `pawl_process::start`): linked without a dynamic
//! loader when glibc's archives were there to link, and a reader that went away is an error
//! pawl handles, not a SIGPIPE that kills it (pawl has its own C `main`, not std's start-up).

use std::process::{Command, Stdio};

/// The ELF program header types of the file at `path` (64-bit little-endian).
#[cfg(pawl_static_glibc)]
fn program_header_types(path: &str) -> Vec<u32> {
    let elf = std::fs::read(path).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF", "{path} is not an ELF file");
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(0x36), u16_at(0x38));
    (0..count)
        .map(|i| {
            let o = phoff + i * size;
            u32::from_le_bytes(elf[o..o + 4].try_into().unwrap())
        })
        .collect()
}

#[cfg(pawl_static_glibc)]
#[test]
fn pawl_starts_without_a_dynamic_loader() {
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    let types = program_header_types(env!("CARGO_BIN_EXE_pawl"));
    assert!(!types.is_empty());
    assert!(
        !types.contains(&PT_INTERP) && !types.contains(&PT_DYNAMIC),
        "pawl names a dynamic loader or has dynamic sections: {types:?}"
    );
}

#[test]
fn a_closed_pipe_is_an_error_not_a_signal() {
    // The reader is gone before pawl starts: its first write fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = Command::new(env!("CARGO_BIN_EXE_pawl"))
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "pawl --version into a closed pipe: {status:?} (killed by SIGPIPE?)"
    );
}
