//! Inputs found by fuzzing, pinned.

use std::time::{Duration, Instant};

use crate::support::decide;

#[test]
fn fuzz_timeout_many_open_braces_in_one_word() {
    let input = "re d\0a\0\0t 1\0\0\0\0{{{{{{{{{{{{{{{{,'push.run([&git'\u{1}\0\0\0\0rktrg\u{1b}z\u{1b}ee src/";
    let start = Instant::now();
    let d = decide(input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(!d.reason.is_empty());
}

#[test]
fn fuzz_crash_fd_number_overflow_in_parser() {
    // brush-parser panics on this; the guard must refuse it cleanly.
    let d = decide("bunges 3333333333333333333333333333>33333333333333333333333333&3 ,");
    assert_eq!(d.rule, Some(pawl_guard::RuleId::ParseError));
    assert!(decide("echo hi 2>/dev/null 1234>&2").is_allow());
}

#[test]
fn fuzz_crash_brace_sequence_overflow_in_parser() {
    let d = decide("echo {1..99999999999999999999}");
    assert!(!d.reason.is_empty());
    assert!(decide("rm -rf {1..99999999999999999999}").is_deny());
}

#[test]
fn fuzz_timeout_unclosed_arithmetic_in_heredoc() {
    let bytes = include_bytes!("../data/fuzz-timeout-arith.bin");
    let input = String::from_utf8_lossy(bytes);
    let start = Instant::now();
    let d = decide(&input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(d.is_deny());
}

#[test]
fn fuzz_timeout_many_pending_heredocs() {
    let bytes = include_bytes!("../data/fuzz-timeout-heredocs.bin");
    let input = String::from_utf8_lossy(bytes);
    let start = Instant::now();
    let d = decide(&input);
    let spent = start.elapsed();
    assert!(spent < Duration::from_secs(2), "{spent:?}");
    assert!(!d.reason.is_empty());
}

#[test]
fn fuzz_hang_empty_heredoc_delimiter() {
    // brush-parser 0.4 loops forever on this; the guard refuses it first.
    for input in ["<<'' ", "cat <<'' x", "cat <<-\"\"\nx\n", "a <<$'' ;b"] {
        assert_eq!(
            decide(input).rule,
            Some(pawl_guard::RuleId::ParseError),
            "{input:?}"
        );
    }
    assert!(decide("cat <<'EOF'\nx\nEOF").is_allow());
    assert!(decide("cat <<< ''").is_allow());
}

#[test]
fn fuzz_timeout_unclosed_arithmetic_and_substitutions() {
    let bytes = include_bytes!("../data/fuzz-timeout-arith2.bin");
    let input = String::from_utf8_lossy(bytes);
    let start = Instant::now();
    let d = decide(&input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(d.is_deny());
    assert!(decide("echo $((1+2)) $((3+4)) $((5+6))").is_allow());
}

#[test]
fn fuzz_oom_heredoc_operator_without_delimiter() {
    let bytes = include_bytes!("../data/fuzz-oom-heredoc-ops.bin");
    let input = String::from_utf8_lossy(bytes);
    assert_eq!(decide(&input).rule, Some(pawl_guard::RuleId::ParseError));
    assert_eq!(
        decide("cat << ; ls").rule,
        Some(pawl_guard::RuleId::ParseError)
    );
    assert!(decide("cat <<EOF\nx\nEOF").is_allow());
}

#[test]
fn fuzz_timeout_unclosed_parentheses_in_heredoc() {
    let bytes = include_bytes!("../data/fuzz-timeout-parens.bin");
    let input = String::from_utf8_lossy(bytes);
    let start = Instant::now();
    let d = decide(&input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(d.is_deny());
}

#[test]
fn fuzz_timeout_unclosed_subscripts_in_parameter_expansions() {
    // Unbalanced `${IF[` repeated made brush-parser's word grammar backtrack for seconds; it is
    // refused before the parser as malformed (a denial), not left to the decision deadline.
    let input =
        "rm${IF[}\u{11}m${IF[}\u{11}____________m${IF[}\u{11}m${IF[}\u{11}____#__\0,Imgi\0,Imgit$";
    let start = Instant::now();
    let d = decide(input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(d.is_deny(), "{d:?}");
}

#[test]
fn fuzz_timeout_unclosed_old_style_arithmetic_in_a_heredoc_fed_to_sh() {
    // `sh <<EOF` with many unclosed `$[` made brush-parser's word grammar spin.
    let bytes: &[u8] = &[
        115, 104, 32, 60, 60, 69, 79, 70, 10, 47, 123, 36, 40, 40, 32, 36, 104, 58, 55, 50, 92,
        115, 120, 54, 32, 0, 0, 37, 101, 30, 59, 34, 123, 44, 114, 36, 91, 30, 0, 58, 0, 0, 0, 0,
        34, 123, 36, 91, 30, 0, 0, 0, 0, 0, 34, 123, 44, 114, 36, 91, 30, 0, 0, 0, 0, 0, 44, 114,
        36, 91, 30, 0, 0, 0, 0, 32, 60, 60, 69, 79, 70, 10, 47, 123, 36, 33, 40, 40, 32, 36, 104,
        58, 55, 50, 92, 115, 120, 54, 32, 0, 0, 37, 101, 32, 59, 34, 123, 44, 114, 36, 91, 30, 0,
        58, 0, 0, 0, 0, 34, 123, 36, 91, 30, 0, 0, 0, 0, 0, 34, 123, 44, 114, 36, 91, 30, 0, 0, 0,
        0, 0, 44, 114, 36, 91, 30, 0, 0, 0, 0, 0, 0, 0, 0, 56, 114, 99, 101, 10, 69, 79, 0, 0, 0,
        0, 56, 0, 0, 37, 101, 32, 59, 34, 123, 44, 114, 36, 91, 30, 0, 58, 0, 0, 0, 0, 34, 123, 36,
        91, 30, 0, 0, 0, 0, 0, 34, 123, 44, 114, 36, 91, 30, 0, 0, 0, 0, 0, 44, 114, 36, 91, 30, 0,
        0, 0, 0, 0, 0, 0, 0, 56, 114, 99, 101, 10, 69, 79, 0, 0, 0, 0, 56, 114, 99, 101, 10, 69,
        114, 99, 101, 10, 69, 79, 0, 0, 0, 56, 114, 99, 101, 10, 69, 79, 70,
    ];
    let input = String::from_utf8_lossy(bytes).into_owned();
    let start = Instant::now();
    let d = decide(&input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(d.is_deny(), "{d:?}");
    // Refused by the balance pre-scan over the script's tokens, before the script parser ever
    // sees it (in the fuzz build the parser spun for over 10 s on it; a debug build is merely
    // slow, so the time alone would not pin the fix).
    assert_eq!(d.rule, Some(pawl_guard::RuleId::ParseError), "{d:?}");
    assert!(
        d.reason
            .contains("cannot be analysed: an expansion or a quote is never closed"),
        "{d:?}"
    );
}

#[test]
fn fuzz_timeout_open_subscripts_nested_in_parameter_expansions() {
    // `${ g[ite` over and over, fed to xargs: brush-parser's *program* grammar hands each word
    // token to its word grammar (to recognise `name[index]=value`), which re-parsed the array
    // index as arithmetic at every level: 32 s in the fuzz build. The balance pre-scan now runs
    // over the script's tokens before the program parser, and refuses the unclosed `${ g[`.
    let bytes = include_bytes!("../data/fuzz-timeout-subscript-in-arith.bin");
    let input = String::from_utf8_lossy(bytes);
    let start = Instant::now();
    let d = decide(&input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert!(d.is_deny(), "{d:?}");
    assert!(d.reason.contains("cannot be analysed"), "{d:?}");
}

#[test]
fn balanced_subscripts_nested_in_parameter_expansions_are_bounded() {
    // Balanced, yet exponential in brush-parser 0.4: each level of `${a[...]}` multiplies the
    // parse time by about twenty (five levels: over a second in a release build).
    let deep = format!("v[{}1{}]=1 true", "${a[".repeat(6), "]}".repeat(6));
    let start = Instant::now();
    let d = decide(&deep);
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(d.rule, Some(pawl_guard::RuleId::ParseError), "{d:?}");
    assert!(d.reason.contains("subscripts nest too deeply"), "{d:?}");
    // Two levels are ordinary bash and still analysed.
    assert!(decide("echo \"${a[${b[0]}]}\"").is_allow());
    assert!(decide("rm -rf \"${a[${b[0]}]}\"").is_deny());
}

#[test]
fn here_document_bodies_keep_their_quotes_as_data() {
    // The token pre-scan reads a body as a body: an apostrophe in it is text, not a quote.
    assert!(decide("cat <<EOF > notes.txt\nit's $(date) and \"so on\nEOF").is_allow());
    assert!(decide("cat <<'EOF' > notes.txt\nit's $(( unclosed\nEOF").is_allow());
    assert!(decide("cat <<A <<-B\nit's\nA\n\tdon't\n\tB\necho \"$(date)\"").is_allow());
}

#[test]
fn fuzz_timeout_runs_of_unclosed_subshell_parentheses() {
    // `&((((((((((((((((git ...`: brush-parser's program grammar tried subshell against
    // arithmetic command at every `(` (twice the time per level; over 10 s in the fuzz build).
    // An unclosed `(` is a syntax error anyway: refused from the tokens, before the parser.
    let bytes = include_bytes!("../data/fuzz-timeout-unclosed-subshells.bin");
    let input = String::from_utf8_lossy(bytes);
    let start = Instant::now();
    let d = decide(&input);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(d.rule, Some(pawl_guard::RuleId::ParseError), "{d:?}");
    assert!(d.reason.contains("a parenthesis is never closed"), "{d:?}");
    let deep = format!("{}git status", "(".repeat(20));
    assert!(
        decide(&deep)
            .reason
            .contains("a parenthesis is never closed")
    );
    // Balanced subshells and arithmetic commands are analysed as before.
    assert!(decide("( (cd src && cargo test) ) && ((1 + 1))").is_allow());
    assert!(decide("(cd src; rm -rf /)").is_deny());
    assert!(decide("case $x in (a) echo a;; b) echo b;; esac").is_allow());
}
