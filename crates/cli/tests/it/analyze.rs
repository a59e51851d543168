//! `pawl analyze`: spec analysis from the command line.

use crate::TestEnv;

#[test]
fn analyze_reports_every_dimension_as_json() {
    let env = TestEnv::new();
    env.write("pawl.toml", "[gates]\ntest = \"cargo test\"\n");
    let r = env.ok(&[
        "analyze",
        "--json",
        "Add Stripe checkout to src/pay.rs. Must not store card numbers. Done when tests pass.",
    ]);
    let j = r.json();
    assert_eq!(j["gate"]["proceed"], true);
    assert_eq!(j["security_sensitive"], true);
    assert_eq!(j["external"][0]["category"], "payment");
    assert_eq!(j["mode"]["mode"], "qa");
    assert!(j["clarity"]["total"].as_u64().unwrap() >= 8, "{j}");
    assert_eq!(j["shape"], "tool");
}

#[test]
fn vague_goals_say_clarify_first_and_force_bypasses() {
    let env = TestEnv::new();
    let r = env.ok(&["analyze", "make it better"]);
    assert!(r.stdout.contains("gate: clarify first"), "{}", r.stdout);
    assert!(r.stdout.contains("intent: clarify first"), "{}", r.stdout);
    let r = env.ok(&["analyze", "--json", "force: make it better"]);
    assert_eq!(r.json()["gate"]["forced"], true);
    assert_eq!(env.pawl(&["analyze", "  "]).code, 2);
}

#[test]
fn mode_depends_on_whether_the_project_has_tests() {
    let env = TestEnv::new();
    // Large enough to need a plan; with tests the full pipeline can check it.
    let goal = "Implement exports:\n- CSV\n- JSON\n- XML\n- YAML\n- TOML";
    assert_eq!(
        env.ok(&["analyze", "--json", goal]).json()["mode"]["mode"],
        "work"
    );
    env.write("pawl.toml", "[gates]\ntest = \"sh test.sh\"\n");
    assert_eq!(
        env.ok(&["analyze", "--json", goal]).json()["mode"]["mode"],
        "qa"
    );
}
