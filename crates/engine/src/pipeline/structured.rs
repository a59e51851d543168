//! Structured output: the ONE fenced ```json block a role's answer ends with, parsed strictly
//! into the role's type. The error says exactly what was wrong, so the retry prompt can quote it.

use serde::de::DeserializeOwned;

/// Why an answer could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    #[error("no fenced ```json block was found in the answer")]
    NoBlock,
    #[error("the ```json block is not valid for the schema: {0}")]
    Invalid(String),
}

/// The last fenced block tagged `json` (or an untagged block holding an object) in `text`.
pub fn json_block(text: &str) -> Option<String> {
    let mut blocks: Vec<(bool, String)> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let Some(tag) = t.strip_prefix("```") else {
            continue;
        };
        let tagged = tag.trim().eq_ignore_ascii_case("json");
        if !tagged && !tag.trim().is_empty() {
            // Another language: skip to its end.
            for l in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    break;
                }
            }
            continue;
        }
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        blocks.push((tagged, body));
    }
    blocks
        .iter()
        .rev()
        .find(|(tagged, _)| *tagged)
        .or_else(|| {
            blocks
                .iter()
                .rev()
                .find(|(_, b)| b.trim_start().starts_with('{'))
        })
        .map(|(_, b)| b.trim().to_string())
}

/// Extracts and parses the answer.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, OutputError> {
    let block = json_block(text).ok_or(OutputError::NoBlock)?;
    serde_json::from_str(&block).map_err(|e| OutputError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pawl_core::pipeline::output::VerdictOutput;

    #[test]
    fn takes_the_last_json_block() {
        let text = "Looks fine.\n```rust\nfn x() {}\n```\n```json\n{\"approve\": false, \"architecture_status\": \"clear\"}\n```\nand\n```json\n{\"approve\": true, \"architecture_status\": \"clear\"}\n```\n";
        let v: VerdictOutput = parse(text).unwrap();
        assert!(v.approve);
    }

    #[test]
    fn malformed_answers_say_why() {
        assert_eq!(
            parse::<VerdictOutput>("I approve!"),
            Err(OutputError::NoBlock)
        );
        let e = parse::<VerdictOutput>("```json\n{\"approve\": \"yes\"}\n```").unwrap_err();
        assert!(
            matches!(e, OutputError::Invalid(ref m) if m.contains("invalid type")),
            "{e}"
        );
        let e = parse::<VerdictOutput>(
            "```json\n{\"approve\": true, \"architecture_status\": \"clear\", \"mood\": 1}\n```",
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown field `mood`"), "{e}");
        // An untagged block holding an object is accepted.
        assert!(
            parse::<VerdictOutput>(
                "```\n{\"approve\": true, \"architecture_status\": \"clear\"}\n```"
            )
            .is_ok()
        );
    }
}
