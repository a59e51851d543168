//! The walker: parses a command line with brush-parser and visits every
//! simple command it would run, in order, keeping the little state that
//! changes what later commands mean (variables with static values, the
//! current directory, aliases, functions, the branch git is on). Each
//! command is resolved (quotes, wrappers, payloads) and judged by the rules.
//!
//! Fail-closed points live here: parse errors, a command name that is not
//! statically known, nesting and size bounds. The rules themselves are in
//! [`crate::rules`]; the per-command unwrapping is in `walk/commands.rs`.

mod commands;

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use brush_parser::Token;
use brush_parser::ast;

use crate::balance;
use crate::context::Context;
use crate::decision::{Decision, FoundCommand, RuleId};
use crate::paths::{Anchors, normalize};
use crate::policy::CompiledPolicy;
use crate::words::{self, Arg};

/// Largest input the guard analyses, in bytes.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// Deepest nesting of scripts inside scripts (`bash -c`, `eval`, `$(...)`,
/// aliases, function calls) the guard follows.
pub const MAX_SCRIPT_DEPTH: usize = 12;
/// Deepest syntactic nesting (brackets and compound commands) in one
/// script that is handed to the parser; bounds the parser's recursion.
pub const MAX_NESTING: usize = 24;
/// Most analysis steps (scripts parsed plus commands judged) per input.
pub const MAX_STEPS: usize = 2_000;
/// Most wrapper commands (`sudo env nice ...`) peeled off one command.
pub const MAX_WRAPPERS: usize = 32;
/// Most outline lines kept for `explain`.
const MAX_OUTLINE: usize = 400;

/// Where a command's standard input comes from, as far as the guard can
/// tell; it matters for shells and interpreters that read a script there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stdin {
    /// Whatever the agent's tool gives (nothing useful).
    Inherited,
    /// The previous command of a pipeline.
    Pipe,
    /// A here-document or here-string with this text.
    Text(String),
    /// A here-string or process substitution with unknown content.
    Unknown,
    /// A file (`< file`).
    File,
}

/// A git branch the repository may be on after the commands so far;
/// `None` when it cannot be known.
pub(crate) type Branch = Option<String>;

/// State that is external to the shell (it lives in the repository), so
/// subshells and pipelines change it too.
#[derive(Debug, Clone, Default)]
pub(crate) struct World {
    /// Every branch HEAD may be on.
    pub branches: Vec<Branch>,
    /// Git aliases defined by `git config alias.x ...` earlier in the
    /// input; `None` values mean "defined to something unknown".
    pub git_aliases: HashMap<String, Option<String>>,
    /// Some alias was defined to an unknown value or name.
    pub git_aliases_unknown: bool,
}

/// Shell state, copied into subshells.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shell {
    /// Variables assigned in the input: `Some` when statically known.
    pub vars: HashMap<String, Option<String>>,
    /// The current directory; `None` once it cannot be known.
    pub cwd: Option<String>,
    /// `alias name=value` definitions.
    pub aliases: HashMap<String, String>,
    /// Functions defined in the input.
    pub functions: HashMap<String, Rc<ast::FunctionBody>>,
}

/// How a script is being visited.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// Nesting of scripts inside scripts.
    pub depth: usize,
    /// Where this script came from, for messages.
    pub origin: String,
    /// Inside a branch, loop or background job: assignments and `cd` may
    /// or may not happen.
    pub conditional: bool,
    /// Text that may not be shell at all (string literals of an interpreter
    /// one-liner): parse errors and unknown names are not denials there.
    pub lenient: bool,
    /// Standard input of the commands at this level.
    pub stdin: Stdin,
    /// Outline indentation.
    pub indent: usize,
    /// Wrappers (`sudo`, `env`, ...) peeled off on the way here.
    pub wrappers: usize,
}

impl Frame {
    fn top() -> Self {
        Self {
            depth: 0,
            origin: "top level".into(),
            conditional: false,
            lenient: false,
            stdin: Stdin::Inherited,
            indent: 0,
            wrappers: 0,
        }
    }

    /// A frame for a script nested in this one.
    pub(crate) fn nested(&self, origin: &str) -> Self {
        let origin = if self.depth == 0 {
            origin.to_owned()
        } else {
            format!("{} > {origin}", self.origin)
        };
        Self {
            depth: self.depth + 1,
            origin,
            conditional: self.conditional,
            lenient: self.lenient,
            stdin: Stdin::Inherited,
            indent: self.indent + 1,
            wrappers: self.wrappers,
        }
    }

    fn conditional(&self) -> Self {
        Self {
            conditional: true,
            ..self.clone()
        }
    }

    fn indented(&self) -> Self {
        Self {
            indent: self.indent + 1,
            ..self.clone()
        }
    }

    fn with_stdin(&self, stdin: Stdin) -> Self {
        Self {
            stdin,
            ..self.clone()
        }
    }
}

/// A simple command ready to be judged.
#[derive(Debug, Clone)]
pub(crate) struct Cmd {
    pub argv: Vec<Arg>,
    pub stdin: Stdin,
}

/// Kinds of writes to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteMode {
    /// Truncate or replace the file (`>`, `tee`, `cp` onto it).
    Clobber,
    /// Add to the end (`>>`, `tee -a`).
    Append,
    /// Change in place or create (`sed -i`, `touch`, `<>`).
    Modify,
    /// Remove one file (`rm`, `unlink`, the source of `mv`).
    Delete,
}

/// Visits an input and collects the verdict.
pub(crate) struct Walker<'a> {
    pub ctx: &'a Context,
    pub policy: &'a CompiledPolicy,
    pub anchors: Anchors,
    pub world: World,
    pub denial: Option<Decision>,
    pub found: Vec<FoundCommand>,
    pub outline: Vec<String>,
    steps: usize,
    active_functions: Vec<String>,
}

/// Words expand against the shell's variables and the context's anchors.
struct ScopeView<'s> {
    shell: &'s Shell,
    anchors: &'s Anchors,
}

impl words::Scope for ScopeView<'_> {
    fn var(&self, name: &str) -> Option<String> {
        if let Some(value) = self.shell.vars.get(name) {
            return value.clone();
        }
        match name {
            "HOME" => self.anchors.home.clone(),
            "TMPDIR" => self.anchors.tmpdir.clone(),
            "PWD" => self.shell.cwd.clone(),
            _ => None,
        }
    }

    fn home(&self) -> Option<String> {
        match self.shell.vars.get("HOME") {
            Some(value) => value.clone(),
            None => self.anchors.home.clone(),
        }
    }
}

fn path_string(p: &std::path::Path) -> String {
    normalize("/", &p.to_string_lossy())
}

/// Whether `name` is mentioned in `text` other than as `$name`/`${name`,
/// i.e. possibly reassigned. Deliberately crude: a false "yes" only makes
/// the variable unknown.
fn maybe_reassigned(text: &str, name: &str) -> bool {
    let stripped = text
        .replace(&format!("${{{name}"), "")
        .replace(&format!("${name}"), "");
    stripped.contains(name)
}

impl<'a> Walker<'a> {
    pub(crate) fn new(ctx: &'a Context, policy: &'a CompiledPolicy, input: &str) -> Self {
        let home = ctx.home.as_deref().map(path_string);
        let tmpdir = ctx.tmpdir.as_deref().map(path_string);
        // A command that reassigns TMPDIR or HOME anywhere may change what
        // `$TMPDIR` or `~` mean before they are used; stop trusting them.
        let anchors = Anchors {
            repo_root: ctx.repo_root.as_deref().map(path_string),
            home: home.filter(|_| !maybe_reassigned(input, "HOME")),
            tmpdir: tmpdir.filter(|_| !maybe_reassigned(input, "TMPDIR")),
        };
        Self {
            ctx,
            policy,
            anchors,
            world: World {
                branches: vec![ctx.branch.clone()],
                ..World::default()
            },
            denial: None,
            found: Vec::new(),
            outline: Vec::new(),
            steps: 0,
            active_functions: Vec::new(),
        }
    }

    /// Walks the whole input.
    pub(crate) fn walk_input(&mut self, input: &str) {
        let mut shell = Shell {
            cwd: Some(path_string(&self.ctx.cwd)),
            ..Shell::default()
        };
        let frame = Frame::top();
        self.run_script(input, &mut shell, &frame);
    }

    /// Records a denial (the first one wins) with the origin attached.
    pub(crate) fn deny(&mut self, frame: &Frame, rule: RuleId, reason: impl Into<String>) {
        if self.denial.is_some() {
            return;
        }
        let reason = reason.into();
        let reason = if frame.depth == 0 {
            reason
        } else {
            format!("{reason} ({})", frame.origin)
        };
        self.denial = Some(Decision::deny(rule, reason));
    }

    /// A denial that lenient frames (text that may not be shell) skip.
    pub(crate) fn fail_closed(&mut self, frame: &Frame, rule: RuleId, reason: impl Into<String>) {
        if !frame.lenient {
            self.deny(frame, rule, reason);
        }
    }

    fn note(&mut self, frame: &Frame, text: impl AsRef<str>) {
        if self.outline.len() < MAX_OUTLINE {
            let mut line = "  ".repeat(frame.indent);
            let text = text.as_ref();
            let short: String = text.chars().take(120).collect();
            line.push_str(&short);
            if short.len() < text.len() {
                line.push_str("...");
            }
            self.outline.push(line.replace('\n', "\\n"));
        }
    }

    /// Counts one unit of work; false once the budget is spent (and denied).
    fn step(&mut self, frame: &Frame) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.deny(
                frame,
                RuleId::TooLarge,
                format!("the command needs more than {MAX_STEPS} analysis steps"),
            );
            return false;
        }
        true
    }

    /// Parses `text` as a shell script and walks it.
    pub(crate) fn run_script(&mut self, text: &str, shell: &mut Shell, frame: &Frame) {
        if !self.step(frame) {
            return;
        }
        if frame.depth > MAX_SCRIPT_DEPTH {
            self.deny(
                frame,
                RuleId::TooDeep,
                format!("scripts nest more than {MAX_SCRIPT_DEPTH} levels deep"),
            );
            return;
        }
        if text.len() > MAX_INPUT_BYTES {
            self.deny(
                frame,
                RuleId::TooLarge,
                format!("the command is larger than {MAX_INPUT_BYTES} bytes"),
            );
            return;
        }
        if nesting(text) > MAX_NESTING {
            self.deny(
                frame,
                RuleId::TooDeep,
                format!("the command nests more than {MAX_NESTING} levels deep"),
            );
            return;
        }
        if has_bad_heredoc_delimiter(text) {
            // brush-parser 0.4's tokenizer loops forever on `<<'' ` and on
            // `<<` followed by an operator (found by fuzzing); both are
            // errors in bash too, so refuse before calling it.
            self.fail_closed(
                frame,
                RuleId::ParseError,
                "a here-document has an empty or missing delimiter",
            );
            return;
        }
        if has_huge_fd_number(text) {
            // brush-parser 0.4 panics on an fd number that overflows i32
            // (found by fuzzing); refuse before calling it.
            self.fail_closed(
                frame,
                RuleId::ParseError,
                "a redirection names a file descriptor number out of range",
            );
            return;
        }
        // Tokenized once: the tokens are scanned (brush-parser's program grammar hands word
        // tokens to its word grammar, which is exponential on some shapes: see `balance`), then
        // parsed.
        let options = brush_parser::ParserOptions::default();
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            let tokens = brush_parser::uncached_tokenize_str(text, &options.tokenizer_options())
                .map_err(|e| e.to_string())?;
            if let Some((word, why)) = hard_word(&tokens) {
                return Ok(Err((word, why)));
            }
            brush_parser::parse_tokens(&tokens, &options)
                .map(Ok)
                .map_err(|e| e.to_string())
        }));
        match parsed {
            Ok(Ok(Ok(program))) => {
                for list in &program.complete_commands {
                    self.compound_list(list, shell, frame);
                }
            }
            Ok(Ok(Err((word, why)))) => self.fail_closed(
                frame,
                RuleId::ParseError,
                format!(
                    "the word `{}` cannot be analysed: {why}; the guard cannot see what it runs",
                    word.chars().take(80).collect::<String>()
                ),
            ),
            Ok(Err(error)) => self.fail_closed(
                frame,
                RuleId::ParseError,
                format!("the command does not parse as shell ({error}); the guard cannot see what it runs"),
            ),
            Err(_) => self.fail_closed(
                frame,
                RuleId::ParseError,
                "the shell parser failed on this command; the guard cannot see what it runs",
            ),
        }
    }

    fn compound_list(&mut self, list: &ast::CompoundList, shell: &mut Shell, frame: &Frame) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, ast::SeparatorOperator::Async) {
                // A background job runs in a subshell and may or may not
                // have finished before later commands.
                let mut sub = shell.clone();
                self.and_or(and_or, &mut sub, &frame.conditional());
            } else {
                self.and_or(and_or, shell, frame);
            }
        }
    }

    fn and_or(&mut self, list: &ast::AndOrList, shell: &mut Shell, frame: &Frame) {
        self.pipeline(&list.first, shell, frame);
        let later = frame.conditional();
        for next in &list.additional {
            let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
            self.pipeline(p, shell, &later);
        }
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, shell: &mut Shell, frame: &Frame) {
        if pipeline.seq.len() == 1 {
            if let Some(command) = pipeline.seq.first() {
                self.command(command, shell, frame);
            }
            return;
        }
        self.note(frame, format!("pipeline of {}", pipeline.seq.len()));
        let inner = frame.indented();
        for (index, command) in pipeline.seq.iter().enumerate() {
            // Each element of a pipeline runs in its own subshell.
            let mut sub = shell.clone();
            let stdin = if index == 0 {
                inner.stdin.clone()
            } else {
                Stdin::Pipe
            };
            self.command(command, &mut sub, &inner.with_stdin(stdin));
        }
    }

    fn command(&mut self, command: &ast::Command, shell: &mut Shell, frame: &Frame) {
        if self.denial.is_some() && self.steps > MAX_STEPS {
            return;
        }
        match command {
            ast::Command::Simple(simple) => self.simple(simple, shell, frame),
            ast::Command::Compound(compound, redirects) => {
                let mut stdin = frame.stdin.clone();
                if let Some(list) = redirects {
                    for redirect in &list.0 {
                        self.redirect(redirect, shell, frame, &mut stdin);
                    }
                }
                self.compound(compound, shell, &frame.with_stdin(stdin));
            }
            ast::Command::Function(definition) => {
                let name = definition.fname.value.clone();
                self.note(frame, format!("function {name}"));
                let body = Rc::new(definition.body.clone());
                shell.functions.insert(name.clone(), Rc::clone(&body));
                // Judge the body now too, so a dangerous function is caught
                // even if it is called in a way the guard cannot follow.
                let mut sub = shell.clone();
                let inner = frame.nested(&format!("function {name}")).conditional();
                self.function_body(&name, &body, &mut sub, &inner);
            }
            ast::Command::ExtendedTest(test, redirects) => {
                let mut stdin = frame.stdin.clone();
                if let Some(list) = redirects {
                    for redirect in &list.0 {
                        self.redirect(redirect, shell, frame, &mut stdin);
                    }
                }
                self.note(frame, "[[ test ]]");
                self.extended_test(&test.expr, shell, frame);
            }
        }
    }

    fn function_body(
        &mut self,
        name: &str,
        body: &ast::FunctionBody,
        shell: &mut Shell,
        frame: &Frame,
    ) {
        if self.active_functions.iter().any(|f| f == name) {
            // Recursion: the body is already being judged with these rules.
            return;
        }
        self.active_functions.push(name.to_owned());
        let mut stdin = frame.stdin.clone();
        if let Some(list) = &body.1 {
            for redirect in &list.0 {
                self.redirect(redirect, shell, frame, &mut stdin);
            }
        }
        self.compound(&body.0, shell, &frame.with_stdin(stdin));
        self.active_functions.pop();
    }

    fn extended_test(&mut self, expr: &ast::ExtendedTestExpr, shell: &mut Shell, frame: &Frame) {
        match expr {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, shell, frame);
                self.extended_test(b, shell, frame);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.extended_test(a, shell, frame);
            }
            ast::ExtendedTestExpr::UnaryTest(_, w) => {
                self.expand(&w.value, shell, frame);
            }
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.expand(&a.value, shell, frame);
                self.expand(&b.value, shell, frame);
            }
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, shell: &mut Shell, frame: &Frame) {
        let inner = frame.indented();
        match compound {
            ast::CompoundCommand::BraceGroup(group) => {
                self.note(frame, "{ group }");
                self.compound_list(&group.list, shell, &inner);
            }
            ast::CompoundCommand::Subshell(sub) => {
                self.note(frame, "( subshell )");
                let mut copy = shell.clone();
                self.compound_list(&sub.list, &mut copy, &inner);
            }
            ast::CompoundCommand::ForClause(clause) => {
                self.note(frame, format!("for {}", clause.variable_name));
                for word in clause.values.iter().flatten() {
                    self.expand(&word.value, shell, frame);
                }
                shell.vars.insert(clause.variable_name.clone(), None);
                self.loop_body(&[&clause.body.list], shell, &inner.conditional());
            }
            ast::CompoundCommand::ArithmeticForClause(clause) => {
                self.note(frame, "for ((...))");
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value, shell, frame);
                }
                self.loop_body(&[&clause.body.list], shell, &inner.conditional());
            }
            ast::CompoundCommand::CaseClause(clause) => {
                self.note(frame, "case");
                self.expand(&clause.value.value, shell, frame);
                let branch = inner.conditional();
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.expand(&pattern.value, shell, frame);
                    }
                    if let Some(list) = &item.cmd {
                        self.compound_list(list, shell, &branch);
                    }
                }
            }
            ast::CompoundCommand::IfClause(clause) => {
                self.note(frame, "if");
                self.compound_list(&clause.condition, shell, &inner);
                let branch = inner.conditional();
                self.compound_list(&clause.then, shell, &branch);
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.compound_list(condition, shell, &branch);
                    }
                    self.compound_list(&other.body, shell, &branch);
                }
            }
            ast::CompoundCommand::WhileClause(clause)
            | ast::CompoundCommand::UntilClause(clause) => {
                self.note(frame, "while/until");
                self.loop_body(&[&clause.0, &clause.1.list], shell, &inner.conditional());
            }
            ast::CompoundCommand::Arithmetic(arith) => {
                self.arithmetic(&arith.expr.value, shell, frame);
            }
            ast::CompoundCommand::Coprocess(coproc) => {
                self.note(frame, "coproc");
                let mut copy = shell.clone();
                self.command(&coproc.body, &mut copy, &inner.conditional());
            }
        }
    }

    /// Walks a loop body; a second time when the first pass changed
    /// variables, so a later iteration's values are seen as unknown.
    fn loop_body(&mut self, lists: &[&ast::CompoundList], shell: &mut Shell, frame: &Frame) {
        let before = shell.vars.clone();
        let cwd_before = shell.cwd.clone();
        for list in lists {
            self.compound_list(list, shell, frame);
        }
        if shell.vars != before || shell.cwd != cwd_before {
            for list in lists {
                self.compound_list(list, shell, frame);
            }
        }
    }

    fn arithmetic(&mut self, text: &str, shell: &mut Shell, frame: &Frame) {
        if text.contains('$') || text.contains('`') {
            self.expand(text, shell, frame);
        }
    }

    /// Expands one word, walking any command substitution inside it.
    pub(crate) fn expand(&mut self, raw: &str, shell: &mut Shell, frame: &Frame) -> Vec<Arg> {
        let expanded = words::expand(
            raw,
            &ScopeView {
                shell,
                anchors: &self.anchors,
            },
        );
        for script in &expanded.substitutions {
            // A command substitution runs in a subshell.
            let mut sub = shell.clone();
            let inner = frame.nested("inside $(...)");
            self.note(frame, format!("$( {script} )"));
            self.run_script(script, &mut sub, &inner);
        }
        if expanded.malformed {
            self.fail_closed(
                frame,
                RuleId::ParseError,
                format!("the word `{raw}` does not parse"),
            );
        }
        expanded.args
    }

    /// The value of an assignment when statically known.
    fn assignment_value(
        &mut self,
        assignment: &ast::Assignment,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Option<String> {
        match &assignment.value {
            ast::AssignmentValue::Scalar(word) => {
                let args = self.expand(&word.value, shell, frame);
                if args.iter().all(|a| a.known) {
                    Some(
                        args.iter()
                            .map(|a| a.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" "),
                    )
                } else {
                    None
                }
            }
            ast::AssignmentValue::Array(items) => {
                for (key, value) in items {
                    if let Some(key) = key {
                        self.expand(&key.value, shell, frame);
                    }
                    self.expand(&value.value, shell, frame);
                }
                None
            }
        }
    }

    /// Sets a variable; in conditional code its value becomes unknown.
    pub(crate) fn set_var(
        &mut self,
        shell: &mut Shell,
        frame: &Frame,
        name: &str,
        value: Option<String>,
    ) {
        let value = if frame.conditional { None } else { value };
        shell.vars.insert(name.to_owned(), value);
    }

    fn assignment_name(assignment: &ast::Assignment) -> String {
        match &assignment.name {
            ast::AssignmentName::VariableName(name)
            | ast::AssignmentName::ArrayElementName(name, _) => name.clone(),
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, shell: &mut Shell, frame: &Frame) {
        let mut argv: Vec<Arg> = Vec::new();
        let mut stdin = frame.stdin.clone();
        let mut prefix_assignments: Vec<(String, Option<String>)> = Vec::new();
        let mut declarations: Vec<(String, Option<String>)> = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
        for item in prefix {
            self.item(
                item,
                true,
                shell,
                frame,
                &mut stdin,
                &mut argv,
                &mut prefix_assignments,
            );
        }
        if let Some(word) = &simple.word_or_name {
            argv.extend(self.expand(&word.value, shell, frame));
        }
        for item in suffix {
            self.item(
                item,
                false,
                shell,
                frame,
                &mut stdin,
                &mut argv,
                &mut declarations,
            );
        }
        if argv.is_empty() {
            for (name, value) in prefix_assignments {
                self.note(frame, format!("assign {name}"));
                self.set_var(shell, frame, &name, value);
            }
            return;
        }
        let declares = argv.first().is_some_and(|a| {
            a.exact().is_some_and(|n| {
                matches!(
                    n,
                    "export" | "declare" | "typeset" | "local" | "readonly" | "let"
                )
            })
        });
        self.dispatch(Cmd { argv, stdin }, shell, frame);
        if declares {
            for (name, value) in declarations {
                self.set_var(shell, frame, &name, value);
            }
        }
    }

    /// Handles one prefix or suffix item of a simple command.
    #[allow(clippy::too_many_arguments)]
    fn item(
        &mut self,
        item: &ast::CommandPrefixOrSuffixItem,
        in_prefix: bool,
        shell: &mut Shell,
        frame: &Frame,
        stdin: &mut Stdin,
        argv: &mut Vec<Arg>,
        assignments: &mut Vec<(String, Option<String>)>,
    ) {
        match item {
            ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                self.redirect(redirect, shell, frame, stdin);
            }
            ast::CommandPrefixOrSuffixItem::Word(word) => {
                argv.extend(self.expand(&word.value, shell, frame));
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                let name = Self::assignment_name(assignment);
                let value = self.assignment_value(assignment, shell, frame);
                assignments.push((name, value));
                if !in_prefix {
                    // `export X=1`, but also `make X=1` and `dd of=x`: an
                    // argument either way.
                    argv.extend(self.expand(&word.value, shell, frame));
                }
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                self.process_substitution(sub, shell, frame);
                let shown = match kind {
                    ast::ProcessSubstitutionKind::Read => "<(...)",
                    ast::ProcessSubstitutionKind::Write => ">(...)",
                };
                argv.push(Arg::unknown(shown));
            }
        }
    }

    fn process_substitution(&mut self, sub: &ast::SubshellCommand, shell: &Shell, frame: &Frame) {
        self.note(frame, "process substitution");
        let mut copy = shell.clone();
        let inner = frame.nested("inside <(...)");
        self.compound_list(&sub.list, &mut copy, &inner);
    }

    /// Judges one redirection and updates what stdin will be.
    fn redirect(
        &mut self,
        redirect: &ast::IoRedirect,
        shell: &mut Shell,
        frame: &Frame,
        stdin: &mut Stdin,
    ) {
        let reads_stdin = |fd: &Option<i32>| fd.is_none_or(|fd| fd == 0);
        match redirect {
            ast::IoRedirect::File(fd, kind, target) => match target {
                ast::IoFileRedirectTarget::Filename(word) => {
                    let arg = self.single(&word.value, shell, frame);
                    match kind {
                        ast::IoFileRedirectKind::Read => {
                            if reads_stdin(fd) {
                                *stdin = Stdin::File;
                            }
                        }
                        ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber => {
                            self.check_write(&arg, WriteMode::Clobber, shell, frame, "redirect >");
                        }
                        ast::IoFileRedirectKind::Append => {
                            self.check_write(&arg, WriteMode::Append, shell, frame, "redirect >>");
                        }
                        ast::IoFileRedirectKind::ReadAndWrite => {
                            self.check_write(&arg, WriteMode::Modify, shell, frame, "redirect <>");
                        }
                        ast::IoFileRedirectKind::DuplicateInput
                        | ast::IoFileRedirectKind::DuplicateOutput => {
                            self.duplicate_target(&arg, shell, frame);
                        }
                    }
                }
                ast::IoFileRedirectTarget::Fd(_) => {}
                ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                    self.process_substitution(sub, shell, frame);
                    if matches!(kind, ast::IoFileRedirectKind::Read) && reads_stdin(fd) {
                        *stdin = Stdin::Unknown;
                    }
                }
                ast::IoFileRedirectTarget::Duplicate(word) => {
                    let arg = self.single(&word.value, shell, frame);
                    self.duplicate_target(&arg, shell, frame);
                }
            },
            ast::IoRedirect::HereDocument(fd, doc) => {
                let body = doc.doc.value.clone();
                if doc.requires_expansion {
                    let (subs, malformed) = words::heredoc_substitutions(&body);
                    for script in subs {
                        let mut sub = shell.clone();
                        self.run_script(&script, &mut sub, &frame.nested("inside $(...)"));
                    }
                    if malformed {
                        self.fail_closed(
                            frame,
                            RuleId::ParseError,
                            "a here-document does not parse",
                        );
                    }
                }
                if reads_stdin(fd) {
                    *stdin = Stdin::Text(body);
                }
            }
            ast::IoRedirect::HereString(fd, word) => {
                let arg = self.single(&word.value, shell, frame);
                if reads_stdin(fd) {
                    *stdin = if arg.known {
                        Stdin::Text(arg.text)
                    } else {
                        Stdin::Unknown
                    };
                }
            }
            ast::IoRedirect::OutputAndError(word, append) => {
                let arg = self.single(&word.value, shell, frame);
                let mode = if *append {
                    WriteMode::Append
                } else {
                    WriteMode::Clobber
                };
                self.check_write(&arg, mode, shell, frame, "redirect &>");
            }
        }
    }

    /// `>&word`: a file descriptor number or `-` is harmless; anything else
    /// is a file written with both streams.
    fn duplicate_target(&mut self, arg: &Arg, shell: &Shell, frame: &Frame) {
        let is_fd = arg.exact().is_some_and(|t| {
            t == "-" || t.trim_end_matches('-').chars().all(|c| c.is_ascii_digit())
        });
        if !is_fd {
            self.check_write(arg, WriteMode::Clobber, shell, frame, "redirect >&");
        }
    }

    /// Expands a word that must be exactly one field (a redirect target).
    fn single(&mut self, raw: &str, shell: &mut Shell, frame: &Frame) -> Arg {
        let mut args = self.expand(raw, shell, frame);
        if args.len() == 1 {
            args.pop().unwrap_or_else(|| Arg::unknown(raw))
        } else {
            Arg::unknown(raw)
        }
    }

    /// Records a command, applies user rules, then judges it.
    pub(crate) fn dispatch(&mut self, cmd: Cmd, shell: &mut Shell, frame: &Frame) {
        if !self.step(frame) {
            return;
        }
        let Some(first) = cmd.argv.first() else {
            return;
        };
        self.found.push(FoundCommand {
            argv: cmd.argv.iter().map(|a| a.text.clone()).collect(),
            unknown: cmd
                .argv
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.known)
                .map(|(i, _)| i)
                .collect(),
            origin: frame.origin.clone(),
        });
        self.note(
            frame,
            format!(
                "command: {}",
                cmd.argv
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        );
        let Some(name) = first.exact().map(str::to_owned) else {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!(
                    "the command name `{}` is not statically known; the guard cannot tell what would run",
                    first.text
                ),
            );
            return;
        };
        self.user_rules(&cmd, &name, frame);
        if !name.contains('/') {
            if let Some(value) = shell.aliases.get(&name).cloned() {
                let rest: Vec<String> = cmd.argv.iter().skip(1).map(words::quote).collect();
                let text = format!("{value} {}", rest.join(" "));
                let inner = frame.nested(&format!("alias {name}")).with_stdin(cmd.stdin);
                self.run_script(&text, shell, &inner);
                return;
            }
            if let Some(body) = shell.functions.get(&name).cloned() {
                let inner = frame
                    .nested(&format!("function {name}"))
                    .with_stdin(cmd.stdin);
                self.function_body(&name, &body, shell, &inner);
                return;
            }
        }
        let base = name.rsplit('/').next().unwrap_or(&name).to_owned();
        self.command_by_name(&base, cmd, shell, frame);
    }

    fn user_rules(&mut self, cmd: &Cmd, name: &str, frame: &Frame) {
        if self.policy.deny.is_empty() {
            return;
        }
        let base = name.rsplit('/').next().unwrap_or(name);
        let mut line = base.to_owned();
        for arg in cmd.argv.iter().skip(1) {
            line.push(' ');
            line.push_str(&arg.text);
        }
        let policy = self.policy;
        for rule in &policy.deny {
            if rule.command.is_none() && rule.pattern.is_none() {
                continue;
            }
            let command_ok = rule.command.as_ref().is_none_or(|g| g.is_match(base));
            let pattern_ok = rule.pattern.as_ref().is_none_or(|r| r.is_match(&line));
            if command_ok && pattern_ok {
                let reason = rule
                    .reason
                    .clone()
                    .unwrap_or_else(|| format!("`{line}` matches the deny rule `{}`", rule.label));
                self.deny(frame, RuleId::PolicyDeny, reason);
            }
        }
    }

    /// The absolute, normalised form of a path argument, if knowable.
    pub(crate) fn resolve(&self, shell: &Shell, text: &str) -> Option<String> {
        if text.starts_with('/') {
            return Some(normalize("/", text));
        }
        shell.cwd.as_deref().map(|cwd| normalize(cwd, text))
    }
}

/// Whether a here-document operator is followed by a delimiter that is
/// empty after quote removal (`<<''`, `<<-""`, `<<$''`) or missing
/// (`<< |`, `<<<<`).
fn has_bad_heredoc_delimiter(text: &str) -> bool {
    if text.contains("<<<<") {
        return true;
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'<' || bytes[i + 1] != b'<' {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        if bytes.get(j) == Some(&b'<') {
            // A here-string, not a here-document.
            i = j + 1;
            continue;
        }
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if bytes.get(j).is_none_or(|b| b"<>&|;()\r\n".contains(b)) {
            return true;
        }
        let mut empties = 0;
        loop {
            match (bytes.get(j), bytes.get(j + 1), bytes.get(j + 2)) {
                (Some(b'\''), Some(b'\''), _) | (Some(b'"'), Some(b'"'), _) => {
                    j += 2;
                    empties += 1;
                }
                (Some(b'$'), Some(b'\''), Some(b'\'')) => {
                    j += 3;
                    empties += 1;
                }
                _ => break,
            }
        }
        let ends = bytes.get(j).is_none_or(|b| {
            !(b.is_ascii_alphanumeric()
                || matches!(b, b'_' | b'-' | b'.' | b'\'' | b'"' | b'$' | b'\\'))
        });
        if empties > 0 && ends {
            return true;
        }
        i = j.max(i + 2);
    }
    false
}

/// The first word token that the word grammar must not see, with the reason. Here-document
/// bodies are scanned as bodies (quotes are data), or not at all when the delimiter is quoted
/// (nothing in them expands).
fn hard_word(tokens: &[Token]) -> Option<(String, balance::Refusal)> {
    enum Heredoc {
        /// Not in a here-document.
        No,
        /// The next word is the delimiter.
        Delimiter,
        /// The next word is the body (`true`: it expands).
        Body(bool),
        /// The next word is the closing delimiter.
        End,
    }
    let mut heredoc = Heredoc::No;
    for token in tokens {
        let word = match token {
            Token::Operator(op, _) => {
                if op == "<<" || op == "<<-" {
                    heredoc = Heredoc::Delimiter;
                }
                continue;
            }
            Token::Word(word, _) => word,
        };
        let mode = match heredoc {
            Heredoc::Delimiter => {
                heredoc = Heredoc::Body(!word.contains(['\'', '"', '\\']));
                continue;
            }
            Heredoc::Body(expands) => {
                heredoc = Heredoc::End;
                if !expands {
                    continue;
                }
                balance::Mode::HereDoc
            }
            Heredoc::End => {
                heredoc = Heredoc::No;
                continue;
            }
            Heredoc::No => balance::Mode::Word,
        };
        if let Err(why) = balance::scan(word, mode) {
            return Some((word.clone(), why));
        }
    }
    None
}

/// Whether a run of ten or more digits is directly followed by `<` or `>`.
fn has_huge_fd_number(text: &str) -> bool {
    let mut digits = 0usize;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            digits += 1;
        } else {
            if digits >= 10 && (b == b'<' || b == b'>') {
                return true;
            }
            digits = 0;
        }
    }
    false
}

/// An over-estimate of how deeply `text` nests: brackets and compound
/// keywords, ignoring quotes (quoted brackets only make it larger).
pub(crate) fn nesting(text: &str) -> usize {
    let mut depth: usize = 0;
    let mut max = 0;
    let bytes = text.as_bytes();
    let mut word = String::new();
    let mut in_tick = false;
    let flush = |word: &mut String, depth: &mut usize, max: &mut usize| {
        match word.as_str() {
            "if" | "while" | "until" | "for" | "case" | "select" => {
                *depth += 1;
                *max = (*max).max(*depth);
            }
            "fi" | "done" | "esac" => *depth = depth.saturating_sub(1),
            _ => {}
        }
        word.clear();
    };
    for &b in bytes {
        match b {
            b'(' | b'{' => {
                flush(&mut word, &mut depth, &mut max);
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' => {
                flush(&mut word, &mut depth, &mut max);
                depth = depth.saturating_sub(1);
            }
            b'`' => {
                flush(&mut word, &mut depth, &mut max);
                // Backticks pair up: an opening one adds a level.
                in_tick = !in_tick;
                if in_tick {
                    depth += 1;
                    max = max.max(depth);
                } else {
                    depth = depth.saturating_sub(1);
                }
            }
            b if b.is_ascii_alphabetic() => word.push(char::from(b)),
            _ => flush(&mut word, &mut depth, &mut max),
        }
    }
    flush(&mut word, &mut depth, &mut max);
    max
}
