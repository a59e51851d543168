//! Spec analysis: what pawl reads from a goal before any work starts — how clear it is, whether
//! it is anchored enough to act on, how big it is, what kind of work it is, how reversible, how
//! security-sensitive, which external services it touches (with a mock strategy each), and which
//! mode should run it.
//!
//! Pure functions over the goal text (and one fact about the project: whether it has tests), so
//! every rule is a unit test. Heuristics are word lists on purpose: they are predictable, cheap,
//! and easy to explain in the printed reason.

use serde::{Deserialize, Serialize};

pub mod facts;
pub mod gate;

/// The clarity score, 0–2 on each of five dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clarity {
    /// What should exist or change when done.
    pub outcome: u8,
    /// Where: files, modules, components.
    pub scope: u8,
    /// Limits on how: must / must not / without / only / compatible.
    pub constraints: u8,
    /// How success is observed: tests, return values, measurable results.
    pub success: u8,
    /// An explicit definition of done: acceptance criteria, a checklist, "done when".
    pub done: u8,
    pub total: u8,
}

/// How pawl should work with the person who gave the goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// ≥ 8: run silently.
    Tool,
    /// 5–7: check in at the gates unless told to proceed.
    Colleague,
    /// < 5: clarify first.
    Intent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Workflow {
    Build,
    Debug,
    Refactor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reversibility {
    /// Code changes a revert undoes.
    Reversible,
    /// Undoable, but at a cost (dependencies, public interfaces, configuration).
    Costly,
    /// Data, deployments, publications: a revert does not undo them.
    Irreversible,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Simple,
    Work,
    Qa,
    Ralph,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Simple => "simple",
            Mode::Work => "work",
            Mode::Qa => "qa",
            Mode::Ralph => "ralph",
        }
    }

    /// The mode [`Mode::as_str`] names (a run's stored mode); `None` for anything else (a plan
    /// file's run, an older run).
    pub fn parse(name: &str) -> Option<Mode> {
        [Mode::Simple, Mode::Work, Mode::Qa, Mode::Ralph]
            .into_iter()
            .find(|m| m.as_str() == name)
    }
}

/// The pre-execution gate: act, or clarify first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate {
    pub proceed: bool,
    /// A `force:` or `!` prefix bypassed the gate.
    pub forced: bool,
    pub reason: String,
    pub anchors: Vec<Anchor>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub kind: AnchorKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorKind {
    FilePath,
    Identifier,
    IssueRef,
    ErrorName,
    CodeBlock,
    NumberedSteps,
}

/// An external service the goal touches, and how tests stand in for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalDep {
    pub category: String,
    pub terms: Vec<String>,
    pub mock_strategy: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeChoice {
    pub mode: Mode,
    pub reason: String,
}

/// Everything `pawl analyze` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// The goal without a `force:`/`!` prefix.
    pub goal: String,
    pub word_count: usize,
    pub clarity: Clarity,
    pub shape: Shape,
    pub gate: Gate,
    pub simple: bool,
    pub simple_reasons: Vec<String>,
    pub target_files: Vec<String>,
    pub actions: Vec<String>,
    pub checklist_items: usize,
    pub architecture_decision: bool,
    pub workflow: Workflow,
    pub reversibility: Reversibility,
    pub security_sensitive: bool,
    pub security_terms: Vec<String>,
    pub external: Vec<ExternalDep>,
    pub mode: ModeChoice,
    pub split_suggestion: Option<String>,
}

/// What pawl knows about the project that bears on the mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectFacts {
    /// A test gate is configured (or tests were detected).
    pub has_tests: bool,
    /// The configured agent answers in plain text only (a command agent): the pipeline's
    /// structured roles (planner, reviewers) cannot work with it.
    #[serde(default)]
    pub plain_agent: bool,
}

const ACTION_VERBS: &[&str] = &[
    "add",
    "implement",
    "create",
    "build",
    "write",
    "fix",
    "repair",
    "resolve",
    "remove",
    "delete",
    "drop",
    "rename",
    "refactor",
    "extract",
    "migrate",
    "update",
    "upgrade",
    "replace",
    "support",
    "make",
    "change",
    "convert",
    "document",
    "optimize",
    "optimise",
    "speed",
    "test",
    "debug",
    "introduce",
    "split",
    "merge",
    "move",
    "clean",
    "simplify",
    "port",
    "integrate",
    "enable",
    "disable",
    "deprecate",
];

const CONSTRAINT_TERMS: &[&str] = &[
    "must",
    "must not",
    "should not",
    "shouldn't",
    "don't",
    "do not",
    "never",
    "without",
    "only",
    "keep",
    "preserve",
    "compatible",
    "backward",
    "no new",
    "at most",
    "at least",
    "under ",
    "within",
    "using ",
    "avoid",
    "limit",
];

const SUCCESS_TERMS: &[&str] = &[
    "test",
    "tests pass",
    "passes",
    "returns",
    "return ",
    "expect",
    "assert",
    "exit code",
    "status",
    "responds",
    "response",
    "output",
    "prints",
    "so that",
    "measur",
    "benchmark",
    "ms",
    "%",
    "green",
    "verify",
    "verified",
    "error message",
];

const DONE_TERMS: &[&str] = &[
    "done when",
    "acceptance",
    "criteria",
    "definition of done",
    "until",
    "all tests",
    "ci passes",
    "ci is green",
    "checklist",
    "must pass",
    "should pass",
];

const ARCHITECTURE_TERMS: &[&str] = &[
    "architecture",
    "architect",
    "redesign",
    "design ",
    "framework",
    "database",
    "schema",
    "microservice",
    "migrate",
    "migration",
    "introduce a",
    "choose",
    "replace",
    "rewrite",
    "new service",
    "event bus",
    "plugin system",
    "protocol",
];

const SECURITY_TERMS: &[&str] = &[
    "auth",
    "authentication",
    "authorization",
    "login",
    "logout",
    "session",
    "crypto",
    "encrypt",
    "decrypt",
    "hash",
    "payment",
    "jwt",
    "password",
    "secret",
    "token",
    "credential",
    "bcrypt",
    "argon",
    "oauth",
    "permission",
    "role",
    "csrf",
    "xss",
    "sql injection",
    "sanitiz",
    "tls",
    "certificate",
    "api key",
    "2fa",
    "mfa",
    "stripe",
    "checkout",
    "credit card",
    "card number",
    "pci",
];

const DEBUG_TERMS: &[&str] = &[
    "fix",
    "bug",
    "error",
    "crash",
    "failing",
    "fails",
    "broken",
    "regression",
    "exception",
    "panic",
    "doesn't work",
    "does not work",
    "wrong",
    "incorrect",
    "flaky",
    "debug",
];

const REFACTOR_TERMS: &[&str] = &[
    "refactor",
    "clean up",
    "cleanup",
    "restructure",
    "rename",
    "extract",
    "simplify",
    "reorganize",
    "reorganise",
    "deduplicate",
    "split",
    "tidy",
    "modernize",
];

/// Goals about documentation and formatting: they add no behaviour either.
const NO_BEHAVIOUR_TERMS: &[&str] = &[
    "docs",
    "documentation",
    "document",
    "readme",
    "docstring",
    "comment",
    "typo",
    "format",
    "formatting",
    "reformat",
    "lint",
    "changelog",
];

/// Terms that say the goal does add or change behaviour, whatever else it says.
const BEHAVIOUR_TERMS: &[&str] = &[
    "fix",
    "bug",
    "add",
    "implement",
    "support",
    "feature",
    "make",
    "handle",
    "fail",
    "crash",
];

/// The goal adds no behaviour (a refactor, documentation, formatting): "done" is then proven by a
/// changed tree on which every test that passed before still passes, not by a test that goes
/// from failing to passing (`pawl_core::proof`).
pub fn adds_no_behaviour(goal: &str) -> bool {
    let lower = goal.to_lowercase();
    (contains_any(&lower, REFACTOR_TERMS).is_some()
        || contains_any(&lower, NO_BEHAVIOUR_TERMS).is_some())
        && contains_any(&lower, BEHAVIOUR_TERMS).is_none()
}

const IRREVERSIBLE_TERMS: &[&str] = &[
    "drop table",
    "delete data",
    "purge",
    "deploy",
    "release",
    "publish",
    "production",
    "prod ",
    "send email",
    "charge",
    "migrate data",
    "data migration",
    "truncate",
    "force push",
];

const COSTLY_TERMS: &[&str] = &[
    "migration",
    "schema",
    "public api",
    "dependency",
    "dependencies",
    "upgrade",
    "config",
    "configuration",
    "breaking",
    "rename",
    "database",
    "infrastructure",
    "terraform",
    "docker",
];

const DOCS_TERMS: &[&str] = &[
    "document",
    "docs",
    "readme",
    "explain",
    "analyze",
    "analyse",
    "investigate",
    "report on",
    "write up",
    "summarize",
    "summarise",
    "review the",
    "audit",
];

/// Docs terms whose deliverable is findings, not a change.
const ANALYSIS_TERMS: &[&str] = &[
    "analyze",
    "analyse",
    "investigate",
    "report on",
    "write up",
    "audit",
    "review the",
    "summarize",
    "summarise",
];

/// A schema or data change.
const SCHEMA_TERMS: &[&str] = &["migration", "schema", "column", "table"];

/// Actions that move code or data from one shape to another.
const MIGRATION_VERBS: &[&str] = &["migrate", "upgrade", "port"];

/// External-service categories: (category, terms, mock strategy).
const EXTERNAL: &[(&str, &[&str], &str)] = &[
    (
        "payment",
        &[
            "stripe",
            "paypal",
            "payment",
            "checkout",
            "billing",
            "braintree",
            "adyen",
        ],
        "use the provider's test mode and a fake client in tests; never real charges",
    ),
    (
        "email",
        &[
            "email",
            "e-mail",
            "smtp",
            "sendgrid",
            "mailgun",
            "postmark",
            "amazon ses",
        ],
        "a fake mailer that records messages, or a local SMTP sink (MailHog)",
    ),
    (
        "sms",
        &["sms", "twilio", "vonage", "text message"],
        "a fake SMS client that records messages",
    ),
    (
        "oauth",
        &[
            "oauth",
            "openid",
            "sso",
            "google login",
            "github login",
            "sign in with",
            "auth0",
            "okta",
        ],
        "a stub identity provider issuing test tokens",
    ),
    (
        "cloud storage",
        &[
            "s3",
            "gcs",
            "blob storage",
            "bucket",
            "cloud storage",
            "azure storage",
        ],
        "a local emulator (MinIO, Azurite) or an in-memory store behind the same interface",
    ),
    (
        "ai api",
        &[
            "openai",
            "anthropic",
            "llm",
            "gpt",
            "claude api",
            "gemini api",
            "embedding",
        ],
        "recorded responses or a mock model server; no live calls in tests",
    ),
    (
        "cloud database",
        &[
            "dynamodb",
            "firestore",
            "cosmos",
            "rds",
            "supabase",
            "planetscale",
            "mongodb atlas",
            "bigquery",
        ],
        "a local emulator or an embedded substitute (SQLite, in-memory) behind the repository layer",
    ),
    (
        "messaging",
        &[
            "kafka", "rabbitmq", "sqs", "pubsub", "pub/sub", "nats", "slack", "webhook", "discord",
        ],
        "an in-memory queue or a fake publisher that records messages",
    ),
];

/// Analyses a goal.
pub fn analyze(goal: &str, facts: &ProjectFacts) -> Analysis {
    let (forced, text) = strip_force(goal);
    let lower = text.to_lowercase();
    // Punctuation is not words (`—`, `!!`, `->`).
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    let word_count = words.len();
    let anchors = anchors(&text);
    let target_files: Vec<String> = anchors
        .iter()
        .filter(|a| a.kind == AnchorKind::FilePath)
        .map(|a| a.text.clone())
        .collect();
    let checklist_items = checklist_items(&text);
    let actions = actions(&lower);
    let architecture_decision = contains_any(&lower, ARCHITECTURE_TERMS).is_some();

    let clarity = clarity(&lower, &anchors, &actions, checklist_items);
    let shape = shape_of(&clarity);

    let gate = if forced {
        Gate {
            proceed: true,
            forced,
            reason: "forced by the goal's prefix".into(),
            anchors: anchors.clone(),
        }
    } else if !anchors.is_empty() {
        let kinds: Vec<String> = anchors
            .iter()
            .take(3)
            .map(|a| format!("{:?} `{}`", a.kind, a.text))
            .collect();
        Gate {
            proceed: true,
            forced,
            reason: format!("anchored: {}", kinds.join(", ")),
            anchors: anchors.clone(),
        }
    } else {
        // Not a word count: a long goal that is clear scores its clarity (the spec gate acts
        // only below it), and the run's facts can still anchor it (`facts`).
        Gate {
            proceed: false,
            forced,
            reason:
                "no anchor in the goal's text (file, identifier, issue, error name, code block, numbered steps): clarify first, or prefix the goal with `force:`"
                    .into(),
            anchors: vec![],
        }
    };

    let mut simple_reasons = Vec::new();
    if target_files.len() > 3 {
        simple_reasons.push(format!("{} target files (> 3)", target_files.len()));
    }
    if actions.len() > 1 {
        simple_reasons.push(format!(
            "{} actions ({})",
            actions.len(),
            actions.join(", ")
        ));
    }
    if architecture_decision {
        simple_reasons.push("an architecture decision".into());
    }
    if checklist_items >= 3 {
        simple_reasons.push(format!("{checklist_items} checklist items (≥ 3)"));
    }
    let parts = enumerated_parts(&lower);
    if parts >= 3 && checklist_items < 3 {
        simple_reasons.push(format!("{parts} parts in one list (≥ 3)"));
    }
    let simple = simple_reasons.is_empty();

    let workflow = if contains_any(&lower, REFACTOR_TERMS).is_some()
        && contains_any(&lower, &["fix", "bug"]).is_none()
    {
        Workflow::Refactor
    } else if contains_any(&lower, DEBUG_TERMS).is_some() {
        Workflow::Debug
    } else {
        Workflow::Build
    };
    let reversibility = if contains_any(&lower, IRREVERSIBLE_TERMS).is_some() {
        Reversibility::Irreversible
    } else if contains_any(&lower, COSTLY_TERMS).is_some() {
        Reversibility::Costly
    } else {
        Reversibility::Reversible
    };
    // A test's name is not what the goal touches: `test_login_redirect` fails — the fix is
    // not security work because the test is named after the login page.
    let prose: String = lower
        .split_whitespace()
        .filter(|w| !is_test_id(w))
        .collect::<Vec<_>>()
        .join(" ");
    let security_terms: Vec<String> = SECURITY_TERMS
        .iter()
        .filter(|t| has_term(&prose, t))
        .map(|t| t.to_string())
        .collect();
    let security_sensitive = !security_terms.is_empty();
    let external: Vec<ExternalDep> = EXTERNAL
        .iter()
        .filter_map(|(cat, terms, strategy)| {
            let hit: Vec<String> = terms
                .iter()
                .filter(|t| has_term(&lower, t))
                .map(|t| t.to_string())
                .collect();
            (!hit.is_empty()).then(|| ExternalDep {
                category: cat.to_string(),
                terms: hit,
                mock_strategy: strategy.to_string(),
            })
        })
        .collect();

    let docs = contains_any(&lower, DOCS_TERMS).is_some()
        && contains_any(&lower, &["fix", "implement", "add"]).is_none();
    let analysis_only = docs && contains_any(&lower, ANALYSIS_TERMS).is_some();
    let mode = choose_mode(&ModeFacts {
        plain_agent: facts.plain_agent,
        analysis: analysis_only,
        docs,
        security: security_sensitive,
        irreversible: reversibility == Reversibility::Irreversible,
        schema_change: contains_any(&lower, SCHEMA_TERMS).is_some()
            || actions
                .iter()
                .any(|a| MIGRATION_VERBS.contains(&a.as_str())),
        simple,
        architecture: architecture_decision,
        large: target_files.len() > 5 || checklist_items >= 5 || actions.len() >= 4 || parts >= 4,
        has_tests: facts.has_tests,
    });
    let split_suggestion = if checklist_items >= 10 || target_files.len() >= 10 {
        Some(format!(
            "this goal has {checklist_items} checklist items and {} target files: consider splitting it into separate runs",
            target_files.len()
        ))
    } else {
        None
    };

    Analysis {
        goal: text,
        word_count,
        clarity,
        shape,
        gate,
        simple,
        simple_reasons,
        target_files,
        actions,
        checklist_items,
        architecture_decision,
        workflow,
        reversibility,
        security_sensitive,
        security_terms,
        external,
        mode,
        split_suggestion,
    }
}

/// What the mode choice looks at (from the analysis and the project).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModeFacts {
    /// The agent answers in plain text only (a command agent).
    pub plain_agent: bool,
    /// Analysis or investigation: the deliverable is findings, not a change.
    pub analysis: bool,
    /// Documentation rather than code.
    pub docs: bool,
    pub security: bool,
    /// Data, deployments, publications: a revert does not undo them.
    pub irreversible: bool,
    /// A schema or data migration, an upgrade or a port.
    pub schema_change: bool,
    /// ≤ 3 files, one action, no architecture decision, no list of parts.
    pub simple: bool,
    pub architecture: bool,
    /// Many files, items, actions or parts: more than one plan round's worth.
    pub large: bool,
    pub has_tests: bool,
}

/// One row of the mode choice: when it applies, the mode, and the reason printed.
pub struct ModeRule {
    pub when: fn(&ModeFacts) -> bool,
    pub mode: Mode,
    pub reason: &'static str,
}

/// The mode choice, as a careful engineer makes it, in order (the first row that applies wins):
/// a change that needs no plan runs simple; the pipeline is for goals that need one, and the
/// full qa pipeline (interview, architect and critic, review, adversarial QA) for what is risky
/// — security, irreversible work, architecture, large changes — where tests can check it.
pub const MODE_RULES: &[ModeRule] = &[
    ModeRule {
        when: |f| f.plain_agent,
        mode: Mode::Simple,
        reason: "the agent answers in plain text (a command agent), and the pipeline's planner and reviewers must answer in structured output: one execute phase with the gates",
    },
    ModeRule {
        when: |f| f.analysis,
        mode: Mode::Work,
        reason: "analysis or investigation: plan, execute, verify",
    },
    ModeRule {
        when: |f| f.docs && f.simple,
        mode: Mode::Simple,
        reason: "a documentation change: one execute phase with the gates",
    },
    ModeRule {
        when: |f| f.docs,
        mode: Mode::Work,
        reason: "documentation in several parts: plan, execute, verify",
    },
    ModeRule {
        when: |f| f.security,
        mode: Mode::Qa,
        reason: "code touching security: full pipeline with review and adversarial QA",
    },
    ModeRule {
        when: |f| f.irreversible,
        mode: Mode::Qa,
        reason: "irreversible work (data, deployments, publications): full pipeline, reviewed before it lands",
    },
    ModeRule {
        when: |f| f.schema_change && !f.large,
        mode: Mode::Work,
        reason: "a migration, upgrade or port: plan it (steps, rollback), execute, verify",
    },
    ModeRule {
        when: |f| f.simple,
        mode: Mode::Simple,
        reason: "a simple change (≤ 3 files, one action, no architecture decision): one execute phase with the gates",
    },
    ModeRule {
        when: |f| (f.architecture || f.large) && f.has_tests,
        mode: Mode::Qa,
        reason: "a large or architectural change with tests: full pipeline with review and QA",
    },
    ModeRule {
        when: |_| true,
        mode: Mode::Work,
        reason: "a change that needs a plan: plan, execute, verify",
    },
];

/// The mode for `--mode auto`, with its reason: the first row of [`MODE_RULES`] that applies.
pub fn choose_mode(f: &ModeFacts) -> ModeChoice {
    let rule = MODE_RULES
        .iter()
        .find(|r| (r.when)(f))
        .unwrap_or(&MODE_RULES[MODE_RULES.len() - 1]);
    ModeChoice {
        mode: rule.mode,
        reason: rule.reason.into(),
    }
}

/// A test id or test file (`test_login`, `tests/test_x.py::test_y`, `TestX::test_y`).
fn is_test_id(word: &str) -> bool {
    let w = word.trim_matches(|c: char| "`'\"(),;".contains(c));
    w.starts_with("test_") || w.contains("::") || w.starts_with("tests/") || w.contains("/tests/")
}

/// Deliverables listed in one sentence ("a page, a form, an upload and an endpoint"): the most
/// comma-separated parts of any sentence, the last one joined by "and"/"or".
fn enumerated_parts(lower: &str) -> usize {
    lower
        .split(['.', ';', '\n', ':', '(', ')'])
        .map(|sentence| {
            let commas = sentence.matches(", ").count();
            if commas == 0 {
                return 1;
            }
            let last = sentence.rsplit(", ").next().unwrap_or("");
            let joined = last.contains(" and ") || last.contains(" or ");
            commas
                + 1
                + usize::from(
                    joined
                        && !last.trim_start().starts_with("and ")
                        && !last.trim_start().starts_with("or "),
                )
        })
        .max()
        .unwrap_or(1)
}

fn strip_force(goal: &str) -> (bool, String) {
    let t = goal.trim();
    if let Some(rest) = t.strip_prefix("force:") {
        return (true, rest.trim().to_string());
    }
    if let Some(rest) = t.strip_prefix('!') {
        return (true, rest.trim().to_string());
    }
    (false, t.to_string())
}

fn contains_any(lower: &str, terms: &[&'static str]) -> Option<&'static str> {
    terms.iter().copied().find(|t| has_term(lower, t))
}

/// A term matches at a word start (so "auth" matches "authentication" but not "oauth" inside
/// "coauthor"; "ms" needs a digit before it).
fn has_term(lower: &str, term: &str) -> bool {
    if term == "ms" || term == "%" {
        return lower.match_indices(term).any(|(i, _)| {
            i > 0
                && lower
                    .as_bytes()
                    .get(i - 1)
                    .is_some_and(|b| b.is_ascii_digit() || *b == b' ')
                && lower[..i]
                    .trim_end()
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_digit())
        });
    }
    lower.match_indices(term).any(|(i, _)| {
        i == 0
            || lower[..i]
                .chars()
                .last()
                .is_some_and(|c| !c.is_alphanumeric())
    })
}

/// Imperative action verbs: the first word of each clause (sentences, lines, list items, and
/// parts joined by "and" / "then"), so "must not change the API" or "tests pass" are not actions.
fn actions(lower: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let clauses = lower
        .split(['.', ';', '\n', ',', ':'])
        .flat_map(|c| c.split(" and "))
        .flat_map(|c| c.split(" then "));
    let mut test_only = 0usize;
    for clause in clauses {
        // A clause's first word is a verb only when it is a plain word: `test_bounds` in a
        // test id (`tests/test_x.py::test_bounds`) or `tests/` in a path is not "test".
        let mut words = clause
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| "`'\"()[]{},!?".contains(c)))
            .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit() || c == '-'));
        let Some(mut first) = words.next() else {
            continue;
        };
        if !first.chars().all(|c| c.is_alphabetic() || c == '-') {
            continue;
        }
        if matches!(
            first,
            "please" | "also" | "now" | "just" | "we" | "i" | "you"
        ) {
            first = match words.next() {
                Some("need" | "want" | "should" | "must" | "can") => match words.next() {
                    Some("to") => words.next().unwrap_or(""),
                    Some(w) => w,
                    None => "",
                },
                Some(w) => w,
                None => "",
            };
        }
        if !ACTION_VERBS.contains(&first) {
            continue;
        }
        // "add a regression test", "test it", "write tests for it": part of the change it goes
        // with, not a second action.
        let rest: Vec<&str> = words.collect();
        let about_tests = first == "test"
            || (matches!(first, "add" | "write" | "update" | "extend")
                && rest
                    .iter()
                    .take(4)
                    .any(|w| matches!(*w, "test" | "tests" | "test-case" | "testcase")));
        if about_tests {
            test_only += 1;
            continue;
        }
        if !found.iter().any(|f| f == first) {
            found.push(first.to_string());
        }
    }
    // A goal that is only about tests has one action: writing them.
    if found.is_empty() && test_only > 0 {
        found.push("test".to_string());
    }
    found
}

fn checklist_items(text: &str) -> usize {
    text.lines()
        .map(str::trim_start)
        .filter(|l| {
            l.starts_with("- ")
                || l.starts_with("* ")
                || l.starts_with("[ ]")
                || l.starts_with("- [")
                || numbered(l)
        })
        .count()
}

fn numbered(l: &str) -> bool {
    let digits = l.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && l[digits..].starts_with(['.', ')']) && l[digits..].get(1..2) == Some(" ")
}

/// The shape a clarity score gives.
pub fn shape_of(c: &Clarity) -> Shape {
    match c.total {
        8.. => Shape::Tool,
        5..=7 => Shape::Colleague,
        _ => Shape::Intent,
    }
}

/// The clarity of an analysed goal scored again with only `anchors` (those the run's facts
/// hold: a path the repository does not have scopes nothing).
pub fn clarity_with(a: &Analysis, anchors: &[Anchor]) -> Clarity {
    clarity(
        &a.goal.to_lowercase(),
        anchors,
        &a.actions,
        a.checklist_items,
    )
}

/// Finds anchors: file paths, identifiers, issue/PR refs, error names, code blocks, numbered steps.
pub fn anchors(text: &str) -> Vec<Anchor> {
    let mut out: Vec<Anchor> = Vec::new();
    let mut push = |kind: AnchorKind, t: &str| {
        if !out.iter().any(|a| a.kind == kind && a.text == t) {
            out.push(Anchor {
                kind,
                text: t.to_string(),
            });
        }
    };
    if text.contains("```") {
        push(AnchorKind::CodeBlock, "```");
    }
    let steps = text.lines().filter(|l| numbered(l.trim_start())).count();
    if steps >= 2 {
        push(
            AnchorKind::NumberedSteps,
            &format!("{steps} numbered steps"),
        );
    }
    for raw in text.split_whitespace() {
        let w = raw
            .trim_matches(|c: char| "`'\"()[]{},;:!?".contains(c))
            .trim_end_matches('.');
        if w.is_empty() {
            continue;
        }
        if is_issue_ref(w) {
            push(AnchorKind::IssueRef, w);
        } else if is_file_path(w) {
            push(AnchorKind::FilePath, w);
        } else if is_error_name(w) {
            push(AnchorKind::ErrorName, w);
        } else if is_identifier(w) {
            push(AnchorKind::Identifier, w);
        }
    }
    out
}

fn is_issue_ref(w: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    w.strip_prefix('#').is_some_and(digits)
        || w.strip_prefix("GH-").is_some_and(digits)
        || (w.contains("/issues/") || w.contains("/pull/"))
        || w.split_once('-').is_some_and(|(p, n)| {
            p.len() >= 2 && p.chars().all(|c| c.is_ascii_uppercase()) && digits(n)
        })
}

fn is_file_path(w: &str) -> bool {
    if w.starts_with("http://") || w.starts_with("https://") {
        return false;
    }
    let ext = w.rsplit_once('.');
    let has_ext = ext.is_some_and(|(stem, e)| {
        !stem.is_empty()
            && (1..=5).contains(&e.len())
            && e.chars().all(|c| c.is_ascii_alphanumeric())
            && e.chars().any(|c| c.is_ascii_alphabetic())
            && !stem.ends_with('.')
    });
    (w.contains('/') && w.len() > 2 && !w.contains("//"))
        || (has_ext
            && !w.contains(' ')
            && w.chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_'))
}

fn is_error_name(w: &str) -> bool {
    let pascal_error = w.len() > 5
        && (w.ends_with("Error") || w.ends_with("Exception"))
        && w.chars().next().is_some_and(char::is_uppercase);
    let errno = w.len() >= 5
        && w.starts_with('E')
        && w.chars().all(|c| c.is_ascii_uppercase())
        && [
            "ENOENT",
            "EACCES",
            "ECONNREFUSED",
            "EADDRINUSE",
            "ETIMEDOUT",
            "EPERM",
            "EEXIST",
        ]
        .contains(&w);
    let rust_code =
        w.starts_with("E0") && w.len() == 5 && w[1..].chars().all(|c| c.is_ascii_digit());
    pascal_error || errno || rust_code
}

fn is_identifier(w: &str) -> bool {
    if !w
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        || w.len() < 3
    {
        return false;
    }
    let snake = w.contains('_') && w.chars().any(|c| c.is_ascii_lowercase()) && !w.starts_with('_');
    let lower_then_upper = w
        .chars()
        .zip(w.chars().skip(1))
        .any(|(a, b)| a.is_ascii_lowercase() && b.is_ascii_uppercase());
    let camel = w.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && lower_then_upper;
    let pascal = w.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && lower_then_upper;
    let path = w.contains("::");
    snake || camel || pascal || path
}

fn clarity(lower: &str, anchors: &[Anchor], actions: &[String], checklist: usize) -> Clarity {
    let scope = if anchors
        .iter()
        .any(|a| matches!(a.kind, AnchorKind::FilePath | AnchorKind::Identifier))
    {
        2
    } else if contains_any(
        lower,
        &[
            "module",
            "function",
            "endpoint",
            "page",
            "component",
            "crate",
            "package",
            "service",
            "command",
            "parser",
            "api",
            "class",
            "screen",
            "cli",
        ],
    )
    .is_some()
    {
        1
    } else {
        0
    };
    let constraint_hits = CONSTRAINT_TERMS
        .iter()
        .filter(|t| has_term(lower, t))
        .count();
    let constraints = constraint_hits.min(2) as u8;
    let success_hits = SUCCESS_TERMS.iter().filter(|t| has_term(lower, t)).count();
    let success = match success_hits {
        0 => u8::from(contains_any(lower, &["works", "working", "better", "faster"]).is_some()),
        1 => 1,
        _ => 2,
    };
    // Not a word count: an action with what it acts on or how it is checked (an anchor, a
    // scope or a success term) is a clear outcome; an action alone, half of one.
    let outcome = if actions.is_empty() {
        0
    } else if !anchors.is_empty() || scope > 0 || success_hits > 0 {
        2
    } else {
        1
    };
    let done = if contains_any(lower, DONE_TERMS).is_some() || checklist >= 2 {
        2
    } else if success > 0 {
        1
    } else {
        0
    };
    let total = outcome + scope + constraints + success + done;
    Clarity {
        outcome,
        scope,
        constraints,
        success,
        done,
        total,
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod behaviour_tests {
    use super::adds_no_behaviour;

    #[test]
    fn goals_that_add_no_behaviour() {
        for (goal, none) in [
            ("refactor the parser into two modules", true),
            ("rename Foo to Bar everywhere", true),
            ("fix the typo in the README", false),
            ("update the docs for the CLI", true),
            ("reformat the code with rustfmt", true),
            ("fix the date parser (issue 12)", false),
            ("add a --verbose flag", false),
            ("refactor and fix the crash on empty input", false),
            ("make the calculator's tests pass", false),
        ] {
            assert_eq!(adds_no_behaviour(goal), none, "{goal}");
        }
    }
}
