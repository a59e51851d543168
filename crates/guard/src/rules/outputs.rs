//! Where build tools write by their own flags (issue 36, session 21): `go build -o ../x`,
//! `cargo build --target-dir ../t`, `cmake -B ../b`, `tsc --outDir ../o`, `npm pack
//! --pack-destination ../p`, `pip download -d ../w`, `pytest --basetemp=../t` ... Each row
//! names a program, the verb it needs, the flags whose value is a path it writes, and what
//! lands there; the path is judged as any write is ([`Walker::check_write`]): outside the
//! repository it is refused unless it is a temporary directory or a listed cache, inside it is
//! judged as the repository's files are (protected paths, `.git`, `.pawl` stay refused). A
//! directory the tool empties first (pytest's `--basetemp`) is judged as `rm -rf` of it.
//!
//! The rows are data, and each carries an example command and the path the row must find in
//! it: the examples are checked the first time a row's program is met
//! ([`table_errors`]; a wrong row denies its program's commands with `policy-error`, naming
//! the row) and, as whole decisions, by `tests/data/checkpoint.tsv`.

use std::ops::ControlFlow::Continue;
use std::sync::OnceLock;

use crate::decision::RuleId;
use crate::walk::{Frame, Judged, Shell, Walker, WriteMode};
use crate::words::Arg;

/// What the tool puts at the path a row's flag names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lands {
    /// One file, created or replaced (`go build -o x`).
    File,
    /// Files under a directory, created or replaced (`--target-dir`, `--outDir`).
    Dir,
    /// A directory the tool removes before writing it anew (pytest's `--basetemp`): judged as
    /// `rm -rf` of it.
    Wiped,
}

/// One program's output flags.
struct Row {
    /// The program (`go`), or `python -m <module>` for a module only run that way.
    program: &'static str,
    /// The first arguments the row needs (`build`, `buildx build`); empty: any use.
    verbs: &'static [&'static str],
    /// Flags whose value (the next word, or after `=`) is a path the tool writes.
    flags: &'static [&'static str],
    /// Of those, the short ones whose value may be attached (`-Bbuild`).
    attached: &'static [&'static str],
    lands: Lands,
    /// A command the row must read, and the path it must find there.
    example: &'static str,
    writes: &'static str,
}

const GO_TEST: &[&str] = &[
    "-o",
    "--o",
    "-coverprofile",
    "--coverprofile",
    "-cpuprofile",
    "--cpuprofile",
    "-memprofile",
    "--memprofile",
    "-blockprofile",
    "--blockprofile",
    "-mutexprofile",
    "--mutexprofile",
    "-trace",
    "--trace",
];

#[rustfmt::skip]
static ROWS: &[Row] = &[
    Row { program: "go", verbs: &["build"], flags: &["-o", "--o"], attached: &[], lands: Lands::File, example: "go build -o ../bin/x ./cmd/x", writes: "../bin/x" },
    Row { program: "go", verbs: &["test"], flags: GO_TEST, attached: &[], lands: Lands::File, example: "go test -coverprofile=../cover.out ./...", writes: "../cover.out" },
    Row { program: "go", verbs: &["test"], flags: &["-outputdir", "--outputdir"], attached: &[], lands: Lands::Dir, example: "go test -outputdir ../prof ./...", writes: "../prof" },
    Row { program: "go", verbs: &["mod vendor"], flags: &["-o", "--o"], attached: &[], lands: Lands::Dir, example: "go mod vendor -o ../vendor", writes: "../vendor" },
    Row { program: "go", verbs: &["work vendor"], flags: &["-o", "--o"], attached: &[], lands: Lands::Dir, example: "go work vendor -o ../vendor", writes: "../vendor" },
    Row { program: "cargo", verbs: &[], flags: &["--target-dir", "--artifact-dir", "--out-dir"], attached: &[], lands: Lands::Dir, example: "cargo build --release --target-dir ../t", writes: "../t" },
    Row { program: "cmake", verbs: &[], flags: &["-B", "--build"], attached: &["-B"], lands: Lands::Dir, example: "cmake -S . -B../b", writes: "../b" },
    Row { program: "cmake", verbs: &["--install"], flags: &["--prefix"], attached: &[], lands: Lands::Dir, example: "cmake --install build --prefix ../inst", writes: "../inst" },
    Row { program: "cmake", verbs: &[], flags: &["--install-prefix"], attached: &[], lands: Lands::Dir, example: "cmake -B build --install-prefix=../inst", writes: "../inst" },
    Row { program: "ctest", verbs: &[], flags: &["--output-junit", "--output-log", "-O"], attached: &[], lands: Lands::File, example: "ctest --output-junit ../junit.xml", writes: "../junit.xml" },
    Row { program: "javac", verbs: &[], flags: &["-d", "-s", "-h"], attached: &[], lands: Lands::Dir, example: "javac -d ../classes A.java", writes: "../classes" },
    Row { program: "tsc", verbs: &[], flags: &["--outDir", "--declarationDir"], attached: &[], lands: Lands::Dir, example: "tsc -p . --outDir ../o", writes: "../o" },
    Row { program: "tsc", verbs: &[], flags: &["--outFile", "--out", "--tsBuildInfoFile"], attached: &[], lands: Lands::File, example: "tsc --outFile ../o.js", writes: "../o.js" },
    Row { program: "npm", verbs: &["pack"], flags: &["--pack-destination"], attached: &[], lands: Lands::Dir, example: "npm pack --pack-destination ../p", writes: "../p" },
    Row { program: "pnpm", verbs: &["pack"], flags: &["--pack-destination", "--out"], attached: &[], lands: Lands::Dir, example: "pnpm pack --pack-destination ../p", writes: "../p" },
    Row { program: "yarn", verbs: &["pack"], flags: &["--out", "-o", "--filename", "-f"], attached: &[], lands: Lands::File, example: "yarn pack --out ../p.tgz", writes: "../p.tgz" },
    Row { program: "npm", verbs: &["i", "install", "ci", "add", "update"], flags: &["--prefix"], attached: &[], lands: Lands::Dir, example: "npm ci --prefix ../other", writes: "../other" },
    Row { program: "pip", verbs: &["download"], flags: &["-d", "--dest", "--destination-directory"], attached: &["-d"], lands: Lands::Dir, example: "pip download -d ../w requests", writes: "../w" },
    Row { program: "pip", verbs: &["wheel"], flags: &["-w", "--wheel-dir"], attached: &["-w"], lands: Lands::Dir, example: "pip wheel -w ../w .", writes: "../w" },
    Row { program: "pip", verbs: &["install"], flags: &["-t", "--target", "--prefix", "--root"], attached: &["-t"], lands: Lands::Dir, example: "pip install --target ../t requests", writes: "../t" },
    Row { program: "pip3", verbs: &["install"], flags: &["-t", "--target", "--prefix", "--root"], attached: &["-t"], lands: Lands::Dir, example: "pip3 install -t ../t requests", writes: "../t" },
    Row { program: "pip3", verbs: &["download"], flags: &["-d", "--dest"], attached: &["-d"], lands: Lands::Dir, example: "pip3 download --dest ../w requests", writes: "../w" },
    Row { program: "uv", verbs: &["build"], flags: &["-o", "--out-dir"], attached: &[], lands: Lands::Dir, example: "uv build --out-dir ../d", writes: "../d" },
    Row { program: "uv", verbs: &["export"], flags: &["-o", "--output-file"], attached: &[], lands: Lands::File, example: "uv export -o ../requirements.txt", writes: "../requirements.txt" },
    Row { program: "uv", verbs: &["pip install"], flags: &["-t", "--target", "--prefix"], attached: &[], lands: Lands::Dir, example: "uv pip install --target ../t requests", writes: "../t" },
    Row { program: "uv", verbs: &["pip compile"], flags: &["-o", "--output-file"], attached: &[], lands: Lands::File, example: "uv pip compile requirements.in -o ../r.txt", writes: "../r.txt" },
    Row { program: "python -m build", verbs: &[], flags: &["-o", "--outdir"], attached: &[], lands: Lands::Dir, example: "python -m build --outdir ../d", writes: "../d" },
    Row { program: "pyproject-build", verbs: &[], flags: &["-o", "--outdir"], attached: &[], lands: Lands::Dir, example: "pyproject-build -o ../d", writes: "../d" },
    Row { program: "poetry", verbs: &["build"], flags: &["-o", "--output"], attached: &[], lands: Lands::Dir, example: "poetry build --output ../d", writes: "../d" },
    Row { program: "poetry", verbs: &["export"], flags: &["-o", "--output"], attached: &[], lands: Lands::File, example: "poetry export -o ../requirements.txt", writes: "../requirements.txt" },
    Row { program: "pytest", verbs: &[], flags: &["--basetemp"], attached: &[], lands: Lands::Wiped, example: "pytest --basetemp=../t tests", writes: "../t" },
    Row { program: "pytest", verbs: &[], flags: &["--junitxml", "--junit-xml", "--report-log", "--resultlog"], attached: &[], lands: Lands::File, example: "pytest --junitxml=../r.xml", writes: "../r.xml" },
    Row { program: "coverage", verbs: &["xml"], flags: &["-o"], attached: &[], lands: Lands::File, example: "coverage xml -o ../coverage.xml", writes: "../coverage.xml" },
    Row { program: "coverage", verbs: &["json"], flags: &["-o"], attached: &[], lands: Lands::File, example: "coverage json -o ../coverage.json", writes: "../coverage.json" },
    Row { program: "coverage", verbs: &["lcov"], flags: &["-o"], attached: &[], lands: Lands::File, example: "coverage lcov -o ../lcov.info", writes: "../lcov.info" },
    Row { program: "coverage", verbs: &["html"], flags: &["-d", "--directory"], attached: &[], lands: Lands::Dir, example: "coverage html -d ../htmlcov", writes: "../htmlcov" },
    Row { program: "esbuild", verbs: &[], flags: &["--outfile"], attached: &[], lands: Lands::File, example: "esbuild src/a.ts --bundle --outfile=../a.js", writes: "../a.js" },
    Row { program: "esbuild", verbs: &[], flags: &["--outdir"], attached: &[], lands: Lands::Dir, example: "esbuild src/a.ts --outdir=../o", writes: "../o" },
    Row { program: "webpack", verbs: &[], flags: &["--output-path", "-o"], attached: &[], lands: Lands::Dir, example: "webpack --mode production --output-path ../o", writes: "../o" },
    Row { program: "vite", verbs: &["build"], flags: &["--outDir"], attached: &[], lands: Lands::Dir, example: "vite build --outDir ../o", writes: "../o" },
    Row { program: "rollup", verbs: &[], flags: &["-o", "--file"], attached: &[], lands: Lands::File, example: "rollup -c -o ../bundle.js", writes: "../bundle.js" },
    Row { program: "rollup", verbs: &[], flags: &["-d", "--dir"], attached: &[], lands: Lands::Dir, example: "rollup -c -d ../o", writes: "../o" },
    Row { program: "parcel", verbs: &["build"], flags: &["--dist-dir"], attached: &[], lands: Lands::Dir, example: "parcel build src/index.html --dist-dir ../o", writes: "../o" },
    Row { program: "babel", verbs: &[], flags: &["-d", "--out-dir"], attached: &[], lands: Lands::Dir, example: "babel src -d ../lib", writes: "../lib" },
    Row { program: "babel", verbs: &[], flags: &["-o", "--out-file"], attached: &[], lands: Lands::File, example: "babel src/a.js -o ../a.js", writes: "../a.js" },
    Row { program: "swc", verbs: &[], flags: &["-d", "--out-dir"], attached: &[], lands: Lands::Dir, example: "swc src -d ../lib", writes: "../lib" },
    Row { program: "swc", verbs: &[], flags: &["-o", "--out-file"], attached: &[], lands: Lands::File, example: "swc src/a.ts -o ../a.js", writes: "../a.js" },
    Row { program: "docker", verbs: &["build", "buildx build", "image build", "builder build"], flags: &["-o", "--output"], attached: &[], lands: Lands::Dir, example: "docker buildx build --output type=local,dest=../out .", writes: "../out" },
    Row { program: "podman", verbs: &["build"], flags: &["-o", "--output"], attached: &[], lands: Lands::Dir, example: "podman build -o ../out .", writes: "../out" },
    Row { program: "dotnet", verbs: &["build", "publish", "pack", "test"], flags: &["-o", "--output"], attached: &[], lands: Lands::Dir, example: "dotnet publish -c Release -o ../out", writes: "../out" },
    Row { program: "swift", verbs: &["build", "test"], flags: &["--build-path", "--scratch-path"], attached: &[], lands: Lands::Dir, example: "swift build --scratch-path ../b", writes: "../b" },
    Row { program: "zig", verbs: &["build"], flags: &["-p", "--prefix"], attached: &[], lands: Lands::Dir, example: "zig build -p ../p", writes: "../p" },
    Row { program: "hugo", verbs: &[], flags: &["-d", "--destination"], attached: &[], lands: Lands::Dir, example: "hugo --minify -d ../public", writes: "../public" },
    Row { program: "mkdocs", verbs: &["build"], flags: &["-d", "--site-dir"], attached: &[], lands: Lands::Dir, example: "mkdocs build -d ../site", writes: "../site" },
    Row { program: "git", verbs: &["archive"], flags: &["-o", "--output"], attached: &[], lands: Lands::File, example: "git archive -o ../src.tar.gz HEAD", writes: "../src.tar.gz" },
    Row { program: "git", verbs: &["bundle create"], flags: &[], attached: &[], lands: Lands::File, example: "git bundle create ../repo.bundle --all", writes: "../repo.bundle" },
    Row { program: "git", verbs: &["format-patch"], flags: &["-o", "--output-directory"], attached: &[], lands: Lands::Dir, example: "git format-patch -o ../patches HEAD~3", writes: "../patches" },
];

/// The program a command runs as the table names it: `python3 -m build ...` is `python -m
/// build` (and its module, `pytest`, when no row names the module form), with the
/// arguments after the module.
fn program_of<'a>(base: &'a str, args: &'a [Arg]) -> (Option<String>, &'a str, &'a [Arg]) {
    if base.starts_with("python")
        && args.first().is_some_and(|a| a.is("-m"))
        && let Some(module) = args.get(1).and_then(Arg::exact)
    {
        return (Some(format!("python -m {module}")), module, &args[2..]);
    }
    (None, base, args)
}

/// The arguments after `verb` (one or more words) when `args` start with it.
fn after_verb<'a>(args: &'a [Arg], verb: &str) -> Option<&'a [Arg]> {
    let words: Vec<&str> = verb.split(' ').collect();
    (args.len() >= words.len() && words.iter().zip(args).all(|(w, a)| a.is(w)))
        .then(|| &args[words.len()..])
}

/// A value of `text` as the tool reads it: docker's `type=local,dest=<path>` is `<path>`; an
/// output of another type (`type=registry`: a push, judged elsewhere) writes no local path.
fn path_value(arg: Arg) -> Option<Arg> {
    if !arg.text.contains("type=") && !arg.text.contains("dest=") {
        return Some(arg);
    }
    let dest = arg
        .text
        .split(',')
        .find_map(|part| part.strip_prefix("dest="))?;
    Some(Arg {
        text: dest.to_owned(),
        ..arg
    })
}

/// The paths `row` finds in `args` (the arguments after its verbs); arguments after `--` are
/// the program's or its tests', not the tool's.
fn row_paths(row: &Row, args: &[Arg]) -> Vec<Arg> {
    row_values(row, args)
        .into_iter()
        .filter_map(path_value)
        .collect()
}

/// The values of `row`'s flags in `args`, as written.
fn row_values(row: &Row, args: &[Arg]) -> Vec<Arg> {
    let mut out = Vec::new();
    if row.flags.is_empty() {
        // `git bundle create <file>`: the first operand.
        if let Some(first) = args.iter().find(|a| !a.text.starts_with('-')) {
            out.push(first.clone());
        }
        return out;
    }
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        index += 1;
        let text = arg.text.as_str();
        if text == "--" {
            break;
        }
        for flag in row.flags {
            let value = if text == *flag {
                let next = args.get(index).cloned();
                index += 1;
                next
            } else if let Some(rest) = text
                .strip_prefix(flag)
                .and_then(|r| r.strip_prefix('='))
                .or_else(|| {
                    text.strip_prefix(flag)
                        .filter(|r| !r.is_empty() && row.attached.contains(flag))
                })
            {
                Some(Arg {
                    text: rest.to_owned(),
                    ..arg.clone()
                })
            } else {
                continue;
            };
            out.extend(value);
            break;
        }
    }
    out
}

/// The rows that apply to a command, with the arguments after their verbs.
fn rows_for<'a>(base: &'a str, args: &'a [Arg]) -> Vec<(&'static Row, &'a [Arg])> {
    rows_in(ROWS, base, args)
}

/// [`rows_for`] in `table`.
fn rows_in<'a>(
    table: &'static [Row],
    base: &'a str,
    args: &'a [Arg],
) -> Vec<(&'static Row, &'a [Arg])> {
    let (module, program, args) = program_of(base, args);
    table
        .iter()
        .filter(|row| module.as_deref() == Some(row.program) || row.program == program)
        .filter_map(|row| {
            if row.verbs.is_empty() {
                return Some((row, args));
            }
            row.verbs
                .iter()
                .find_map(|verb| after_verb(args, verb))
                .map(|rest| (row, rest))
        })
        .collect()
}

/// Each row's example read by the row itself: the row applies to it and finds exactly the
/// path it names. The wrong rows, described; empty when the table is sound.
fn table_errors() -> &'static [String] {
    static ERRORS: OnceLock<Vec<String>> = OnceLock::new();
    ERRORS.get_or_init(|| errors_in(ROWS))
}

/// [`table_errors`] of `table`.
fn errors_in(table: &'static [Row]) -> Vec<String> {
    let mut errors = Vec::new();
    for (n, row) in table.iter().enumerate() {
        let words: Vec<Arg> = row.example.split_whitespace().map(Arg::lit).collect();
        let Some((base, args)) = words.split_first() else {
            errors.push(format!("row {n} ({}): no example", row.program));
            continue;
        };
        let found: Vec<String> = rows_in(table, &base.text, args)
            .into_iter()
            .filter(|(r, _)| std::ptr::eq(*r, row))
            .flat_map(|(r, rest)| row_paths(r, rest))
            .map(|a| a.text)
            .collect();
        if found != [row.writes] {
            errors.push(format!(
                "row {n} ({}): its example `{}` gives {found:?}, not `{}`",
                row.program, row.example, row.writes
            ));
        }
    }
    errors
}

impl Walker<'_> {
    /// The rows above for one command: each path a build tool's flag names is judged as a
    /// write of what lands there.
    pub(crate) fn outputs(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let base = base.trim_start_matches("./");
        let rows = rows_for(base, args);
        if rows.is_empty() {
            return Continue(());
        }
        if let [first, ..] = table_errors() {
            return self.deny(
                frame,
                RuleId::PolicyError,
                format!("the guard's table of build tools' output flags is wrong: {first}"),
            );
        }
        for (row, rest) in rows {
            // An image exported to a registry is pushed (`--output type=registry` is `--push`).
            if matches!(row.program, "docker" | "podman")
                && let Some(push) = row_values(row, rest).into_iter().find(|v| {
                    v.text.split(',').any(|p| {
                        matches!(p, "type=registry" | "push=true" | "type=image,push=true")
                    })
                })
            {
                return self.deny(
                    frame,
                    RuleId::Publish,
                    format!(
                        "{} build --output `{}` pushes the image to a registry, which leaves the machine: pawl could not undo it; `--output type=local,dest=<dir>` or `--load` is allowed",
                        row.program, push.text
                    ),
                );
            }
            let what = format!("{} (its output)", row.program);
            for path in row_paths(row, rest) {
                match row.lands {
                    Lands::File => {
                        self.check_write(&path, WriteMode::Clobber, shell, frame, &what)?
                    }
                    Lands::Dir => {
                        self.check_write(&path, WriteMode::Modify, shell, frame, &what)?
                    }
                    Lands::Wiped => {
                        let argv = [Arg::lit("-rf"), Arg::lit("--"), path];
                        self.rm_as(&what, &argv, shell, frame)?;
                    }
                }
            }
        }
        Continue(())
    }
}

/// The examples, as decisions: `tests/data/checkpoint.tsv` (build tools' output flags).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_reads_its_own_example() {
        assert_eq!(table_errors(), &[] as &[String]);
        assert!(ROWS.len() > 40);
    }

    #[test]
    fn a_row_that_misreads_its_example_is_described() {
        static WRONG: &[Row] = &[
            Row {
                program: "go",
                verbs: &["build"],
                flags: &["-o"],
                attached: &[],
                lands: Lands::File,
                example: "go build -o ../x",
                writes: "../y",
            },
            Row {
                program: "go",
                verbs: &["test"],
                flags: &["-o"],
                attached: &[],
                lands: Lands::File,
                example: "go build -o ../x",
                writes: "../x",
            },
            Row {
                program: "tsc",
                verbs: &[],
                flags: &["--outDir"],
                attached: &[],
                lands: Lands::Dir,
                example: "tsc --outDir ../o",
                writes: "../o",
            },
        ];
        let errors = errors_in(WRONG);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors[0].contains("row 0 (go)") && errors[0].contains("[\"../x\"]"),
            "{errors:?}"
        );
        assert!(
            errors[1].contains("row 1 (go)") && errors[1].contains("[]"),
            "{errors:?}"
        );
    }

    #[test]
    fn flags_are_read_in_their_forms() {
        let args = |s: &str| s.split_whitespace().map(Arg::lit).collect::<Vec<_>>();
        let paths = |base: &str, s: &str| {
            let a = args(s);
            rows_for(base, &a)
                .into_iter()
                .flat_map(|(r, rest)| row_paths(r, rest))
                .map(|a| a.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(paths("cargo", "build --target-dir=../t"), ["../t"]);
        assert_eq!(paths("cmake", "-Bbuild -S ."), ["build"]);
        assert_eq!(paths("go", "build -overlay o.json ./..."), [] as [&str; 0]);
        assert_eq!(paths("go", "run . -o ../x"), [] as [&str; 0]);
        assert_eq!(paths("cargo", "run -- --target-dir ../x"), [] as [&str; 0]);
        assert_eq!(paths("python3", "-m pytest --basetemp ../t"), ["../t"]);
        assert_eq!(paths("python3", "-m build -o dist"), ["dist"]);
        assert_eq!(
            paths("docker", "buildx build --output type=registry ."),
            [] as [&str; 0]
        );
        assert_eq!(paths("docker", "build -o out ."), ["out"]);
    }
}
