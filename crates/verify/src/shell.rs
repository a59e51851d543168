//! The sealed command read with the project's shell parser (brush-parser, as the guard reads
//! commands): the one simple command of it that runs the tests, and the steps that must run
//! before it (`cd sub && pytest -q`, `cd web; npx jest`). What pawl derives from a command (a
//! collection pass, a narrowed repeat) is derived from that part alone, with those steps before
//! it; what follows the runner in its pipeline or after it (`| tee log`, `&& echo ok`) is left
//! out of what pawl runs, since pawl reads the runner's own output. Anything else (a runner
//! inside a loop, a subshell, a function, `||`, a background job, two runners) gives `None`:
//! nothing is derived, and the check is judged as it ran.

use brush_parser::ast;

use crate::parse::Runner;

/// The test runner's part of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerPart {
    /// The simple commands that run before it, each as written (`cd sub`).
    pub before: Vec<String>,
    /// The runner's simple command as written, without its redirections.
    pub command: String,
    /// Its words (assignments first) each as written, quotes kept: `command` is them joined
    /// by one space. Re-splitting `command` on spaces would change a quoted word
    /// (`jest -t 'a  b'`).
    pub words: Vec<String>,
}

impl RunnerPart {
    /// `derived` (a command derived from [`Self::command`]) with the steps before it.
    pub fn with_before(&self, derived: &str) -> String {
        let mut out = self.before.join(" && ");
        if !out.is_empty() {
            out.push_str(" && ");
        }
        out.push_str(derived);
        out
    }
}

/// The runner's part of `command`; `None` when the command is not a sequence of simple commands
/// (joined by `&&` or `;`) in which exactly one runs a test runner pawl knows.
pub fn runner_part(command: &str) -> Option<RunnerPart> {
    part_where(command, &|text| Runner::from_command(text).is_some())
}

/// [`runner_part`] with `is_runner` telling which simple command (its words as written) runs
/// the tests: the package manager's `npm test` for [`crate::script`].
pub fn part_where(command: &str, is_runner: &dyn Fn(&str) -> bool) -> Option<RunnerPart> {
    let program = parse(command)?;
    let mut pipelines: Vec<&ast::Pipeline> = Vec::new();
    for list in &program.complete_commands {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, ast::SeparatorOperator::Async) {
                return None;
            }
            pipelines.push(&and_or.first);
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(p) => pipelines.push(p),
                    ast::AndOr::Or(_) => return None,
                }
            }
        }
    }
    let mut before = Vec::new();
    let mut found: Option<RunnerPart> = None;
    for p in pipelines {
        if p.bang || p.timed.is_some() {
            return None;
        }
        let mut runs = Vec::new();
        for i in 0..p.seq.len() {
            let s = simple(p, i)?;
            let words = words_of(s);
            let text = words.join(" ");
            if is_runner(&text) {
                runs.push((i, text, words));
            }
        }
        match runs.as_slice() {
            [] if found.is_none() => {
                if p.seq.len() != 1 {
                    return None;
                }
                before.push(simple(p, 0)?.to_string());
            }
            [] => {}
            // The runner first in its pipeline (what follows reads its output), once.
            [(0, text, words)] if found.is_none() => {
                found = Some(RunnerPart {
                    before: before.clone(),
                    command: text.clone(),
                    words: words.clone(),
                });
            }
            _ => return None,
        }
    }
    found
}

/// `command` read by brush-parser; `None` when it cannot be read.
fn parse(command: &str) -> Option<ast::Program> {
    let options = brush_parser::ParserOptions::default();
    // brush-parser's word grammar panics or takes long on some shapes (see the guard's
    // `balance`): a command it cannot read gives nothing.
    std::panic::catch_unwind(|| {
        let tokens =
            brush_parser::uncached_tokenize_str(command, &options.tokenizer_options()).ok()?;
        brush_parser::parse_tokens(&tokens, &options).ok()
    })
    .ok()?
}

/// Whether `command` sends a program's output into another's: a pipeline of two or more
/// commands anywhere in it, a subshell or brace group included. A quoted `|`, `||` and `&&`
/// are no pipe, nor one inside a command substitution (`go test $(go list ./... | grep -v x)`:
/// the runner's output goes nowhere else). A command the parser cannot read, and one with a
/// loop, condition or function (whose output may go anywhere), count as piping.
pub fn pipes(command: &str) -> bool {
    parse(command).is_none_or(|p| p.complete_commands.iter().any(list_pipes))
}

fn list_pipes(list: &ast::CompoundList) -> bool {
    list.0.iter().any(|ast::CompoundListItem(and_or, _)| {
        std::iter::once(&and_or.first)
            .chain(and_or.additional.iter().map(|next| match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            }))
            .any(pipeline_pipes)
    })
}

fn pipeline_pipes(p: &ast::Pipeline) -> bool {
    p.seq.len() > 1
        || p.seq.iter().any(|c| match c {
            ast::Command::Simple(_) | ast::Command::ExtendedTest(..) => false,
            ast::Command::Compound(ast::CompoundCommand::Subshell(s), _) => list_pipes(&s.list),
            ast::Command::Compound(ast::CompoundCommand::BraceGroup(b), _) => list_pipes(&b.list),
            _ => true,
        })
}

/// The `i`th command of a pipeline when it is a simple command.
fn simple(p: &ast::Pipeline, i: usize) -> Option<&ast::SimpleCommand> {
    match p.seq.get(i) {
        Some(ast::Command::Simple(s)) => Some(s),
        _ => None,
    }
}

/// A simple command's assignments and words as written, redirections left out.
fn words_of(s: &ast::SimpleCommand) -> Vec<String> {
    let item = |i: &ast::CommandPrefixOrSuffixItem| match i {
        ast::CommandPrefixOrSuffixItem::IoRedirect(_) => None,
        other => Some(other.to_string()),
    };
    let prefix = s.prefix.iter().flat_map(|p| p.0.iter()).filter_map(item);
    let name = s.word_or_name.iter().map(ToString::to_string);
    let suffix = s.suffix.iter().flat_map(|p| p.0.iter()).filter_map(item);
    prefix.chain(name).chain(suffix).collect()
}

/// `word` runs `program`: its name, or a path ending in it (`/usr/bin/bash`, `./node_modules/.bin/jest`).
/// The one test of a command's program by name in pawl-verify.
pub fn program_is(word: &str, program: &str) -> bool {
    word.rsplit('/').next() == Some(program)
}

/// The programs `command` runs, each by its name as written, in order: the program of every
/// simple command in its lists and pipelines, subshells and brace groups; the program an
/// `env` starts (`env -i bash t.sh`); and those of the command a program runs with `-c`
/// (`sh -c "bash t.sh"`: `sh`, then `bash`). Nothing when the parser cannot read it.
pub fn programs(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    programs_into(command, 0, &mut out);
    out
}

/// How deep `-c` commands are read inside one another.
const MAX_NESTED: usize = 3;

fn programs_into(command: &str, depth: usize, out: &mut Vec<String>) {
    if let Some(program) = parse(command) {
        for list in &program.complete_commands {
            list_programs(list, depth, out);
        }
    }
}

fn list_programs(list: &ast::CompoundList, depth: usize, out: &mut Vec<String>) {
    for ast::CompoundListItem(and_or, _) in &list.0 {
        let pipelines =
            std::iter::once(&and_or.first).chain(and_or.additional.iter().map(|next| match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            }));
        for p in pipelines {
            for c in &p.seq {
                match c {
                    ast::Command::Simple(s) => simple_programs(s, depth, out),
                    ast::Command::Compound(ast::CompoundCommand::Subshell(s), _) => {
                        list_programs(&s.list, depth, out)
                    }
                    ast::Command::Compound(ast::CompoundCommand::BraceGroup(b), _) => {
                        list_programs(&b.list, depth, out)
                    }
                    _ => {}
                }
            }
        }
    }
}

fn simple_programs(s: &ast::SimpleCommand, depth: usize, out: &mut Vec<String>) {
    let Some(name) = &s.word_or_name else {
        return;
    };
    let args: Vec<&str> = s
        .suffix
        .iter()
        .flat_map(|p| p.0.iter())
        .filter_map(|i| match i {
            ast::CommandPrefixOrSuffixItem::Word(w) => Some(w.value.as_str()),
            _ => None,
        })
        .collect();
    out.push(name.value.clone());
    let mut rest = args.as_slice();
    if program_is(&name.value, "env") {
        let at = rest
            .iter()
            .position(|w| !w.starts_with('-') && !w.contains('='));
        if let Some(at) = at {
            out.push(rest[at].to_owned());
            rest = &rest[at + 1..];
        }
    }
    if depth < MAX_NESTED
        && let Some(at) = rest.iter().position(|w| *w == "-c")
        && let Some(inner) = rest.get(at + 1)
    {
        programs_into(unquoted(inner), depth + 1, out);
    }
}

/// A word's text without the one pair of quotes around it (`"bash t.sh"` → `bash t.sh`).
fn unquoted(word: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = word.strip_prefix(q).and_then(|w| w.strip_suffix(q))
            && word.len() >= 2
        {
            return inner;
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The agent writes `package.json`'s `scripts.test`, which pawl reads with this parser
    /// (`crate::script`): the shapes the guard's fuzzing found brush-parser 0.4 looping or
    /// panicking on give nothing here, at once (tried: they do with the parser as locked).
    #[test]
    fn a_command_the_parser_cannot_read_safely_gives_nothing() {
        for command in [
            "jest <<'' x",
            "jest <<-\"\" x",
            "jest << | x",
            "jest <<<<",
            "jest 99999999999>x",
        ] {
            assert_eq!(runner_part(command), None, "{command}");
            assert!(pipes(command), "{command}");
        }
        let has_bin = |_: &std::path::Path| true;
        let read = |_: &std::path::Path| Some(r#"{"scripts": {"test": "jest <<'' x"}}"#.to_owned());
        assert_eq!(crate::script::resolve("npm test", &read, &has_bin), None);
    }

    #[test]
    fn the_programs_a_command_runs_are_read_from_the_parsed_command() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        for (command, want) in [
            ("bash test/test_semver.sh", s(&["bash"])),
            ("bats test/", s(&["bats"])),
            ("cd t && ./run.sh | tee log", s(&["cd", "./run.sh", "tee"])),
            ("sh -c \"bash t.sh\"", s(&["sh", "bash"])),
            ("sh -c 'cd t; zsh t.zsh'", s(&["sh", "cd", "zsh"])),
            ("env -i FOO=1 bash t.sh", s(&["env", "bash"])),
            ("(cd t && dash t.sh) || true", s(&["cd", "dash", "true"])),
            // A shell's name inside a quoted argument is no program it runs.
            ("grep -r 'bash x' .", s(&["grep"])),
            ("echo bash", s(&["echo"])),
            ("cd 'unterminated && bash t.sh", Vec::new()),
        ] {
            assert_eq!(programs(command), want, "{command}");
        }
    }

    #[test]
    fn a_pipe_is_read_from_the_parsed_command() {
        for (command, piped) in [
            ("go test ./...", false),
            ("go test ./... | tee test.log", true),
            ("go test ./... 2>&1 | go-junit-report > report.xml", true),
            // A quoted `|` is a word.
            ("go test -run 'TestA|TestB' ./...", false),
            ("pytest -k \"add or mul\" -q", false),
            ("go test -run \"A|B\" ./...", false),
            // `||` and `&&` join commands; neither reads the runner's output.
            ("go test ./a/... && go test ./b/... || exit 1", false),
            ("go test ./... || true", false),
            ("cd sub && go test ./...", false),
            ("go test ./... > log 2>&1", false),
            // A pipe inside a command substitution is not the runner's.
            ("go test $(go list ./... | grep -v vendor)", false),
            ("(cd sub && go test ./... | tee log)", true),
            ("{ go test ./...; } | tee log", true),
            ("(cd sub && go test ./...)", false),
            ("for d in a b; do go test ./$d; done", true),
            ("cd 'unterminated && go test ./...", true),
        ] {
            assert_eq!(pipes(command), piped, "{command}");
        }
    }

    #[test]
    fn the_runner_and_the_steps_before_it_are_read_from_the_parsed_command() {
        let part = |c: &str| runner_part(c).map(|p| (p.before, p.command));
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            part("cargo test -q"),
            Some((Vec::new(), "cargo test -q".to_owned()))
        );
        assert_eq!(
            part("cd sub && pytest -q"),
            Some((s(&["cd sub"]), "pytest -q".to_owned()))
        );
        assert_eq!(
            part("cd web; npx jest --ci 2>&1 | tee log"),
            Some((s(&["cd web"]), "npx jest --ci".to_owned()))
        );
        assert_eq!(
            part("python3 -m unittest discover && echo ok"),
            Some((Vec::new(), "python3 -m unittest discover".to_owned()))
        );
        assert_eq!(
            part("CI=1 npx vitest run"),
            Some((Vec::new(), "CI=1 npx vitest run".to_owned()))
        );
        for none in [
            "make test",
            "pytest || true",
            "cargo test -q && cargo test --doc",
            "tee log < x | pytest -q",
            "for d in a b; do (cd $d && pytest); done",
            "(cd sub && pytest)",
            "pytest &",
            "! pytest",
            "cd 'unterminated && pytest",
        ] {
            assert_eq!(part(none), None, "{none}");
        }
        // A quoted word keeps its spaces, as one word.
        let p = runner_part("npx jest -t 'a  b' --ci").expect("part");
        assert_eq!(p.words, s(&["npx", "jest", "-t", "'a  b'", "--ci"]));
        assert_eq!(p.command, "npx jest -t 'a  b' --ci");
        let p = runner_part("cd sub && cargo test -q").expect("part");
        assert_eq!(
            p.with_before("cargo test -q -- --list"),
            "cd sub && cargo test -q -- --list"
        );
    }
}
