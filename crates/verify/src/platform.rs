//! Platform detection: which kind of project this is, and which commands check it.
//!
//! Platforms are described by data, not code: TOML descriptors embedded from
//! `crates/verify/platforms/*.toml`, which a user can extend or replace with their own texts
//! (the CLI reads `.pawl/platforms/*.toml`). Detection is a pure function of the descriptors and
//! of [`ProjectFacts`], which the caller gathers ([`ProjectFacts::gather`] reads files but asks
//! the caller which tools are installed). Nothing here runs a command.
//!
//! Descriptor schema (every table and key is checked; unknown keys are errors):
//!
//! ```toml
//! name = "node"                 # unique; a user descriptor with the same name replaces ours
//! description = "Node.js"       # optional
//! markers = ["package.json"]    # globs over the root listing (and one level below, as `dir/x`)
//! match = "any"                 # "any" (default) or "all" markers must be present
//! priority = 40                 # higher wins when several platforms match
//! conventions = ["tests live next to the code as *.test.js"]
//!
//! [vars]                        # values substituted for `{name}` in commands
//! run = "npm run"
//!
//! [commands]                    # each optional: build, test, lint, lint_fix, typecheck, coverage
//! test = "{run} test"           # `{report}` is left for the runner (see crate::report)
//!
//! [[variants]]                  # applied in order when every condition in `when` holds;
//! when = { file = "pnpm-lock.yaml" }   # later variants override earlier values
//! vars = { run = "pnpm run" }
//! commands = { }
//! conventions = [ ]
//!
//! [environment]                # the project's environment on disk (see `Environment`)
//! dirs = ["node_modules"]       # ignored dirs the clean room takes at the seal
//! seed = []                     # ignored build outputs copied only into a room that has none
//! bin = ["node_modules/.bin"]   # first on the checks' PATH
//! packages = ["node_modules"]   # installed-package trees (globs): the environment manifest
//! manifests = ["package.json", "package-lock.json"]   # dependency manifests (globs)
//! [[environment.setup]]         # the install command `[room] setup` defaults to: the first
//! file = "package-lock.json"    # row whose file is in the tree (and, with `needs`, whose
//! command = "npm ci"            # environment directory the room has)
//!
//! [quality.coverage_min]        # minimum line coverage (percent) per story size
//! S = 0
//! M = 60
//! L = 70
//! XL = 80
//! ```
//!
//! Conditions (`when`): `file` / `no_file` (a glob present / absent), `tool` (on PATH),
//! `script` (a package.json script), `dependency` (package.json dependencies or devDependencies),
//! `contains = { file, text }` (a root file contains a text), `make_target`, `just_recipe`.

mod descriptor;
mod detect;
mod facts;
mod render;

pub use descriptor::{
    Commands, Condition, Contains, Descriptor, DescriptorError, Descriptors, Environment,
    ManifestSet, MatchMode, Quality, SetupRule, SizeThresholds, Variant, builtin_texts,
    parse_descriptor,
};
pub use detect::{Detection, MarkerHit, PlatformMatch, detect};
pub use facts::{FactsError, MAX_SUBPROJECTS, ProjectFacts, SubProject, subprojects};
pub use render::{gates_toml, render_human};
