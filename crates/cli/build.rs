//! Links `pawl` as a position-dependent executable on Linux. The agent CLIs start `pawl hook`
//! for every tool call; a position-independent `pawl` spends most of its start-up applying tens
//! of thousands of dynamic relocations (each a copy-on-write page fault), which alone cost as
//! much as starting `/bin/true` (the hook's budget is twice that). The code is still compiled
//! position-independent; only the executable is linked at a fixed address.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu");
    if linux && gnu {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
