//! The role prompts (embedded in the binary, overridable per project in `.pawl/prompts/<role>.md`)
//! and the JSON schema each role's answer must match, quoted into the prompt.

use std::path::Path;

use pawl_core::pipeline::Role;

/// The embedded prompt of a role.
pub fn embedded(role: Role) -> &'static str {
    match role {
        Role::Interviewer => include_str!("prompts/interviewer.md"),
        Role::Planner => include_str!("prompts/planner.md"),
        Role::Architect => include_str!("prompts/architect.md"),
        Role::Critic => include_str!("prompts/critic.md"),
        Role::Developer => include_str!("prompts/developer.md"),
        Role::Security => include_str!("prompts/security.md"),
        Role::Reviewer => include_str!("prompts/reviewer.md"),
        Role::Qa => include_str!("prompts/qa.md"),
    }
}

/// The role's prompt: `<prompts_dir>/<role>.md` when it exists, else the embedded one. The
/// `[pawl role: ...]` marker is always kept on top so logs (and the mock server) can tell the
/// sessions apart.
pub fn prompt(role: Role, prompts_dir: Option<&Path>) -> String {
    let marker = format!("[pawl role: {role}]");
    if let Some(dir) = prompts_dir
        && let Ok(text) = std::fs::read_to_string(dir.join(format!("{role}.md")))
        && !text.trim().is_empty()
    {
        let text = text.trim().to_string();
        return if text.contains(&marker) {
            text
        } else {
            format!("{marker}\n{text}")
        };
    }
    embedded(role).trim().to_string()
}

const FINDING: &str = r#"{"type": "object", "required": ["severity", "text"], "additionalProperties": false,
        "properties": {"severity": {"enum": ["blocking", "suggestion", "info"]}, "text": {"type": "string"}, "file": {"type": "string"}}}"#;

/// The JSON schema of a role's answer; `None` for the developer (pawl's checks judge its work).
pub fn schema(role: Role) -> Option<String> {
    let s = match role {
        Role::Developer => return None,
        Role::Interviewer => r#"{"type": "object", "required": ["questions"], "additionalProperties": false,
  "properties": {"questions": {"type": "array", "items": {"type": "object", "required": ["question", "recommended"],
    "additionalProperties": false, "properties": {"question": {"type": "string"}, "recommended": {"type": "string"},
    "category": {"type": "string"}}}}}}"#
            .to_string(),
        Role::Planner => r#"{"type": "object", "required": ["criteria", "stories"], "additionalProperties": false,
  "properties": {
    "criteria": {"type": "array", "items": {"type": "object", "required": ["id", "text", "verify"], "additionalProperties": false,
      "properties": {"id": {"type": "string", "description": "C1, C2, ..."}, "text": {"type": "string"},
        "verify": {"enum": ["command", "review", "observation", "assumption"]},
        "command": {"type": "string", "description": "for verify = command: exits 0 when the criterion holds"},
        "required": {"type": "boolean", "default": true}}}},
    "stories": {"type": "array", "items": {"type": "object", "required": ["id", "title", "size", "acceptance"], "additionalProperties": false,
      "properties": {"id": {"type": "string", "description": "S1, S2, ..."}, "title": {"type": "string"},
        "size": {"enum": ["S", "M", "L", "XL"]}, "security": {"type": "boolean"},
        "acceptance": {"type": "array", "items": {"type": "string"}},
        "files": {"type": "array", "items": {"type": "string"}},
        "depends_on": {"type": "array", "items": {"type": "string"}}}}}}}"#
            .to_string(),
        Role::Architect | Role::Critic | Role::Security | Role::Reviewer => format!(
            r#"{{"type": "object", "required": ["approve", "architecture_status"], "additionalProperties": false,
  "properties": {{"approve": {{"type": "boolean"}}, "architecture_status": {{"enum": ["clear", "concerns", "blocked"]}},
    "findings": {{"type": "array", "items": {FINDING}}},
    "verified_criteria": {{"type": "array", "items": {{"type": "string"}}, "description": "code review only: ids of review criteria met"}},
    "accept_test_changes": {{"type": "string", "description": "code review only, when pawl lists changes to the tests: why those changes are right (omit to reject them)"}}}}}}"#
        ),
        Role::Qa => format!(
            r#"{{"type": "object", "required": ["passed"], "additionalProperties": false,
  "properties": {{"passed": {{"type": "boolean"}}, "exercised": {{"type": "array", "items": {{"type": "string"}}}},
    "failures": {{"type": "array", "items": {FINDING}}},
    "checks": {{"type": "array", "items": {{"type": "string"}}, "description": "shell commands that fail now because of a failure you found and pass once it is fixed (run from the repository root)"}}}}}}"#
        ),
    };
    Some(s)
}

/// The closing instruction of a structured session.
pub fn answer_instructions(role: Role) -> String {
    match schema(role) {
        Some(schema) => format!(
            "\n\n## Your answer\nEnd your answer with ONE fenced ```json block (and no other) holding a JSON \
             object that matches this schema exactly (no other fields):\n```\n{schema}\n```\n"
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_a_marked_prompt_and_an_override_keeps_the_marker() {
        for role in Role::ALL {
            assert!(prompt(*role, None).starts_with(&format!("[pawl role: {role}]")));
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("critic.md"), "Be harsh.").unwrap();
        let p = prompt(Role::Critic, Some(dir.path()));
        assert_eq!(p, "[pawl role: critic]\nBe harsh.");
        assert_eq!(
            prompt(Role::Architect, Some(dir.path())),
            prompt(Role::Architect, None)
        );
    }

    #[test]
    fn schemas_are_json() {
        for role in Role::ALL {
            if let Some(s) = schema(*role) {
                serde_json::from_str::<serde_json::Value>(&s).unwrap();
            }
        }
    }
}
