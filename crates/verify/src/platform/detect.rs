//! Matching descriptors against facts, choosing one platform, resolving its commands.
//!
//! Selection is deterministic: highest `priority`, then most markers matched (specificity),
//! then name order, and the reason says which rule decided.

use std::collections::BTreeMap;

use serde::Serialize;

use super::descriptor::{
    Commands, Condition, Descriptor, Descriptors, MatchMode, Quality, compile_glob,
};
use super::facts::ProjectFacts;

/// The outcome of detection, for `pawl detect --json` and for writing `pawl.toml`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Detection {
    /// The chosen platform's name, if any matched.
    pub selected: Option<String>,
    /// Why that one (or why none).
    pub reason: String,
    /// The chosen platform's resolved commands (empty when none matched).
    pub commands: Commands,
    /// Where each of those commands came from: the file the project declares it in (the
    /// variant's condition, `tox.ini contains "pytest"`), or the platform's convention.
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
    pub conventions: Vec<String>,
    pub quality: Quality,
    /// Every platform that matched, best first.
    pub matched: Vec<PlatformMatch>,
    /// Directories below the root that are projects of their own (filled by the caller, which
    /// reads the file system: [`super::facts::subprojects`]).
    #[serde(default)]
    pub subprojects: Vec<super::facts::SubProject>,
}

/// One platform that matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformMatch {
    pub name: String,
    pub priority: i32,
    /// The markers present, each with the paths that matched it.
    pub markers: Vec<MarkerHit>,
    /// The conditions of the variants that applied, in order.
    pub variants: Vec<String>,
    pub commands: Commands,
    /// Per command: what set it (see [`Detection::sources`]).
    pub sources: BTreeMap<String, String>,
    pub conventions: Vec<String>,
    pub quality: Quality,
}

impl PlatformMatch {
    /// How many markers matched; breaks priority ties.
    pub fn specificity(&self) -> usize {
        self.markers.len()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MarkerHit {
    pub marker: String,
    pub paths: Vec<String>,
}

/// Matches every descriptor against `facts` and picks one.
pub fn detect(facts: &ProjectFacts, descriptors: &Descriptors) -> Detection {
    let mut matched: Vec<PlatformMatch> = descriptors
        .iter()
        .filter_map(|d| match_one(d, facts))
        .collect();
    matched.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then(b.specificity().cmp(&a.specificity()))
            .then(a.name.cmp(&b.name))
    });
    let reason = reason(&matched);
    match matched.first() {
        Some(best) => Detection {
            selected: Some(best.name.clone()),
            reason,
            commands: best.commands.clone(),
            sources: best.sources.clone(),
            conventions: best.conventions.clone(),
            quality: best.quality.clone(),
            matched,
            subprojects: Vec::new(),
        },
        None => Detection {
            selected: None,
            reason,
            commands: Commands::default(),
            sources: BTreeMap::new(),
            conventions: Vec::new(),
            quality: Quality::default(),
            matched,
            subprojects: Vec::new(),
        },
    }
}

fn match_one(d: &Descriptor, facts: &ProjectFacts) -> Option<PlatformMatch> {
    let mut hits = Vec::new();
    for marker in &d.markers {
        let paths = matching_paths(marker, facts);
        if !paths.is_empty() {
            hits.push(MarkerHit {
                marker: marker.clone(),
                paths,
            });
        }
    }
    let ok = match d.match_mode {
        MatchMode::Any => !hits.is_empty(),
        MatchMode::All => hits.len() == d.markers.len(),
    };
    if !ok {
        return None;
    }
    let mut vars: BTreeMap<String, String> = d.vars.clone();
    let mut commands = d.commands.clone();
    let mut conventions = d.conventions.clone();
    let mut variants = Vec::new();
    let mut sources: BTreeMap<String, String> = d
        .commands
        .iter()
        .map(|(name, _)| (name.to_owned(), format!("{} convention", d.name)))
        .collect();
    for v in &d.variants {
        if holds(&v.when, facts) {
            vars.extend(v.vars.iter().map(|(k, val)| (k.clone(), val.clone())));
            commands.merge(&v.commands);
            for (name, _) in v.commands.iter() {
                sources.insert(name.to_owned(), v.when.to_string());
            }
            conventions.extend(v.conventions.iter().cloned());
            variants.push(v.when.to_string());
        }
    }
    Some(PlatformMatch {
        name: d.name.clone(),
        priority: d.priority,
        markers: hits,
        variants,
        commands: commands.substitute(&vars),
        sources,
        conventions,
        quality: d.quality.clone(),
    })
}

fn matching_paths(glob: &str, facts: &ProjectFacts) -> Vec<String> {
    // Patterns were validated when the descriptor was parsed; a failure here means a
    // descriptor built by hand, which simply matches nothing.
    match compile_glob(glob) {
        Ok(m) => facts
            .files
            .iter()
            .filter(|f| m.is_match(f))
            .cloned()
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn holds(c: &Condition, facts: &ProjectFacts) -> bool {
    let file_ok = c
        .file
        .as_ref()
        .is_none_or(|g| !matching_paths(g, facts).is_empty());
    let no_file_ok = c
        .no_file
        .as_ref()
        .is_none_or(|g| matching_paths(g, facts).is_empty());
    let tool_ok = c.tool.as_ref().is_none_or(|t| facts.tools.contains(t));
    let script_ok = c
        .script
        .as_ref()
        .is_none_or(|s| facts.scripts.contains_key(s));
    let dep_ok = c
        .dependency
        .as_ref()
        .is_none_or(|d| facts.dependencies.contains(d));
    let contains_ok = c.contains.as_ref().is_none_or(|k| {
        facts
            .texts
            .get(&k.file)
            .is_some_and(|t| t.contains(&k.text))
    });
    let make_ok = c
        .make_target
        .as_ref()
        .is_none_or(|t| facts.make_targets.contains(t));
    let just_ok = c
        .just_recipe
        .as_ref()
        .is_none_or(|t| facts.just_recipes.contains(t));
    let hooks_ok = c
        .networked_hooks
        .is_none_or(|want| want != facts.networked_hooks().is_empty());
    file_ok
        && no_file_ok
        && tool_ok
        && script_ok
        && dep_ok
        && contains_ok
        && make_ok
        && just_ok
        && hooks_ok
}

fn reason(matched: &[PlatformMatch]) -> String {
    let markers = |m: &PlatformMatch| {
        m.markers
            .iter()
            .map(|h| h.marker.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match matched {
        [] => "no platform descriptor matched the files at the project root".into(),
        [only] => format!(
            "{} is the only platform that matched (markers: {})",
            only.name,
            markers(only)
        ),
        [best, second, ..] => {
            if best.priority != second.priority {
                format!(
                    "{} has the highest priority ({}) among {} matches; next is {} ({})",
                    best.name,
                    best.priority,
                    matched.len(),
                    second.name,
                    second.priority
                )
            } else if best.specificity() != second.specificity() {
                format!(
                    "{} and {} tie on priority {}; {} matched more markers ({} vs {})",
                    best.name,
                    second.name,
                    best.priority,
                    best.name,
                    best.specificity(),
                    second.specificity()
                )
            } else {
                format!(
                    "{} and {} tie on priority {} and markers matched; {} comes first by name",
                    best.name, second.name, best.priority, best.name
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::descriptor::parse_descriptor;

    fn set(texts: &[&str]) -> Descriptors {
        Descriptors::from_descriptors(texts.iter().map(|t| parse_descriptor("t", t).unwrap()))
    }

    #[test]
    fn all_mode_needs_every_marker() {
        let d = set(&["name = \"a\"\nmarkers = [\"x\", \"y\"]\nmatch = \"all\"\n"]);
        let facts = ProjectFacts::default().with_files(["x"]);
        assert!(detect(&facts, &d).selected.is_none());
        let facts = facts.with_files(["y"]);
        assert_eq!(detect(&facts, &d).selected.as_deref(), Some("a"));
    }

    #[test]
    fn specificity_breaks_priority_tie_then_name() {
        let d = set(&[
            "name = \"b\"\nmarkers = [\"x\", \"y\"]\n",
            "name = \"a\"\nmarkers = [\"x\"]\n",
        ]);
        let facts = ProjectFacts::default().with_files(["x", "y"]);
        let det = detect(&facts, &d);
        assert_eq!(det.selected.as_deref(), Some("b"));
        assert!(det.reason.contains("more markers"), "{}", det.reason);
        let facts = ProjectFacts::default().with_files(["x"]);
        let det = detect(
            &facts,
            &set(&[
                "name = \"b\"\nmarkers = [\"x\"]\n",
                "name = \"a\"\nmarkers = [\"x\"]\n",
            ]),
        );
        assert_eq!(det.selected.as_deref(), Some("a"));
        assert!(det.reason.contains("by name"), "{}", det.reason);
    }

    #[test]
    fn later_variants_override_and_vars_substitute() {
        let d = set(&[r#"
name = "n"
markers = ["package.json"]
vars = { run = "npm run" }
[[variants]]
when = { file = "pnpm-lock.yaml" }
vars = { run = "pnpm run" }
[[variants]]
when = { script = "lint" }
commands = { lint = "{run} lint" }
[[variants]]
when = { script = "lint", tool = "nope" }
commands = { lint = "never" }
"#]);
        let mut facts = ProjectFacts::default().with_files(["package.json", "pnpm-lock.yaml"]);
        facts.scripts.insert("lint".into(), "eslint .".into());
        let det = detect(&facts, &d);
        assert_eq!(det.commands.lint.as_deref(), Some("pnpm run lint"));
        assert_eq!(
            det.matched[0].variants,
            ["file pnpm-lock.yaml", "script lint"]
        );
    }

    #[test]
    fn globs_do_not_cross_directories() {
        let d = set(&["name = \"dotnet\"\nmarkers = [\"*.csproj\"]\n"]);
        let facts = ProjectFacts::default().with_files(["src/App.csproj"]);
        assert!(detect(&facts, &d).selected.is_none());
    }
}
