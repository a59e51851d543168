//! Fuzz target: any byte string, as a shell command and as a file path,
//! must produce a decision without panicking (a panic inside the parser is
//! caught by the guard and becomes a denial, which is fine; a panic that
//! escapes, a stack overflow or a hang is a bug).

#![no_main]

use libfuzzer_sys::fuzz_target;
use pawl_guard::{Context, Guard, Input, Policy, TrackedSet};
use std::sync::{Arc, OnceLock};

fn setup() -> &'static (Guard, Context) {
    static SETUP: OnceLock<(Guard, Context)> = OnceLock::new();
    SETUP.get_or_init(|| {
        // libfuzzer-sys aborts on any panic, even one the guard catches
        // (brush-parser has a few `unwrap`s); a silent hook lets caught
        // panics be caught, while an escaping panic still aborts through
        // libfuzzer-sys's own catch_unwind.
        std::panic::set_hook(Box::new(|_| {}));
        let mut ctx = Context::new("/home/dev/repo");
        ctx.repo_root = Some("/home/dev/repo".into());
        ctx.branch = Some("feat/guard".into());
        ctx.run_active = true;
        ctx.home = Some("/home/dev".into());
        ctx.tmpdir = Some("/var/tmp/agent".into());
        ctx.tracked = Arc::new(["README.md", "src/main.rs"].into_iter().collect::<TrackedSet>());
        ctx.git_aliases.insert("st".into(), "status".into());
        let guard = match Guard::new(&Policy::default()) {
            Ok(g) => g,
            Err(e) => panic!("default policy must compile: {e}"),
        };
        (guard, ctx)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (guard, ctx) = setup();
    let d = guard.evaluate(&Input::shell(text), ctx);
    assert!(!d.reason.is_empty());
    let _ = guard.evaluate(&Input::file_write(text), ctx);
});
