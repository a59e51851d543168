//! Text renderings of a [`Detection`]: the human summary and the `[gates]` table for pawl.toml.
//!
//! Both return strings; printing is the CLI's job.

use std::fmt::Write as _;

use serde::Serialize;

use super::descriptor::Commands;
use super::detect::Detection;

/// A short multi-line summary for `pawl detect`.
pub fn render_human(d: &Detection) -> String {
    let mut out = String::new();
    match &d.selected {
        Some(name) => {
            let _ = writeln!(out, "platform: {name}");
        }
        None => {
            let _ = writeln!(out, "platform: none");
        }
    }
    let _ = writeln!(out, "why: {}", d.reason);
    if !d.matched.is_empty() {
        let _ = writeln!(out, "matched:");
        for m in &d.matched {
            let chosen = if d.selected.as_deref() == Some(m.name.as_str()) {
                "*"
            } else {
                " "
            };
            let markers: Vec<String> = m
                .markers
                .iter()
                .map(|h| {
                    if h.paths.len() == 1 && h.paths.first() == Some(&h.marker) {
                        h.marker.clone()
                    } else {
                        format!("{} ({})", h.marker, h.paths.join(", "))
                    }
                })
                .collect();
            let _ = writeln!(
                out,
                "  {chosen} {:<8} priority {:<3} markers: {}",
                m.name,
                m.priority,
                markers.join(", ")
            );
            if !m.variants.is_empty() {
                let _ = writeln!(out, "             variants: {}", m.variants.join("; "));
            }
        }
    }
    if !d.subprojects.is_empty() {
        let _ = writeln!(
            out,
            "sub-projects (the gates above run at the repository root):"
        );
        for s in &d.subprojects {
            let _ = writeln!(out, "  {:<24} {}", s.path, s.platforms.join(", "));
        }
    }
    if d.commands.iter().next().is_some() {
        let _ = writeln!(out, "commands:");
        for (gate, cmd) in d.commands.iter() {
            let _ = writeln!(out, "  {gate:<10} {cmd}");
            if let Some(from) = d.sources.get(gate) {
                let _ = writeln!(out, "  {:<10} from: {from}", "");
            }
        }
    }
    if !d.conventions.is_empty() {
        let _ = writeln!(out, "conventions:");
        for c in &d.conventions {
            let _ = writeln!(out, "  - {c}");
        }
    }
    if let Some(t) = &d.quality.coverage_min {
        let _ = writeln!(out, "coverage minimum by story size: {}", t.render());
    }
    out
}

#[derive(Serialize)]
struct GatesTable<'a> {
    gates: &'a Commands,
}

/// The `[gates]` table text for `pawl.toml`; a header comment explains `{report}`.
pub fn gates_toml(d: &Detection) -> String {
    let mut out = String::new();
    if let Some(name) = &d.selected {
        let _ = writeln!(
            out,
            "# Detected platform: {name}. Edit freely; pawl runs these itself."
        );
    }
    if d.commands
        .iter()
        .any(|(_, c)| crate::report::uses_report(c))
    {
        out.push_str(
            "# {report} is replaced by a report path under .pawl/logs/ when pawl runs the gate.\n",
        );
    }
    // Serialising through toml gets string escaping right for any command text.
    match toml::to_string(&GatesTable { gates: &d.commands }) {
        Ok(table) => out.push_str(&table),
        Err(_) => out.push_str("[gates]\n"),
    }
    out
}
