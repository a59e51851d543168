//! Bounded memory and disk in the size of agent output (issue 17, point 5): an agent step that
//! prints hundreds of megabytes leaves pawl's memory flat and its step log capped at `[agent]
//! max_log_mib`, rotated, with the cut stated in the log.

use crate::TestEnv;
use crate::headless::{DONE_GATE, NO_BREAKERS, config_with};

/// Runs `pawl args` under python, which reports the peak resident size (KiB) of pawl and every
/// process it waited for.
fn peak_rss_kib(env: &TestEnv, args: &[&str]) -> (i32, u64, String) {
    let pawl = assert_cmd::cargo::cargo_bin("pawl");
    let mut cmd = env.command("python3");
    cmd.arg("-c")
        .arg(
            "import resource, subprocess, sys\n\
             r = subprocess.run(sys.argv[1:], capture_output=True)\n\
             sys.stderr.buffer.write(r.stdout + r.stderr)\n\
             print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)",
        )
        .arg(pawl)
        .args(args);
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut it = stdout.split_whitespace();
    let rss: u64 = it.next().and_then(|s| s.parse().ok()).unwrap_or(u64::MAX);
    let code: i32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(-1);
    (code, rss, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// 200 MB of agent output, in 2 million lines: pawl's peak memory stays under 100 MB, the
/// step's log under the 8 MiB cap, and the log says what was cut.
#[test]
fn two_hundred_megabytes_of_agent_output_leave_memory_flat_and_the_log_capped() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    let script = env.root().join(".pawl/loud.sh");
    std::fs::write(
        &script,
        "head -c 200000000 /dev/zero | tr '\\0' x | fold -w 99\ntouch done.txt\n",
    )
    .unwrap();
    let agent = format!(
        "[agent]\nkind = \"command\"\ncommand = [\"sh\", \"{}\"]\nmax_log_mib = 8\n",
        script.display()
    );
    env.headless(&config_with("", NO_BREAKERS, "", &agent, DONE_GATE));
    let (code, rss_kib, output) = peak_rss_kib(&env, &["run", "make done.txt"]);
    assert_eq!(code, 0, "{output}");
    assert!(
        rss_kib < 100 * 1024,
        "peak memory {} MiB for 200 MB of output",
        rss_kib / 1024
    );
    let logs: Vec<std::path::PathBuf> = std::fs::read_dir(env.root().join(".pawl/logs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .contains("-iter-1.log")
        })
        .collect();
    let total: u64 = logs
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert!(
        total <= 8 * 1024 * 1024 + 4096,
        "{total} bytes of step log in {logs:?}"
    );
    let main = logs
        .iter()
        .find(|p| p.extension().is_some_and(|x| x == "log"))
        .expect("the step's log");
    let text = std::fs::read_to_string(main).unwrap();
    assert!(
        text.contains("[pawl] log rotated"),
        "{}",
        &text[..text.len().min(400)]
    );
    assert!(text.contains("# end"), "the log keeps its end");
}
