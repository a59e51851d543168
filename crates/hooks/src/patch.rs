//! The paths an `apply_patch` body (Codex's patch format) writes: added, updated, deleted and
//! moved-to files. The guard then judges each path as a file write.

/// Every path the patch touches, in order, without duplicates.
pub fn paths(body: &str) -> Vec<String> {
    const MARKERS: [&str; 4] = [
        "*** Add File:",
        "*** Update File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in body.lines() {
        let line = line.trim_start();
        for m in MARKERS {
            if let Some(rest) = line.strip_prefix(m) {
                let p = rest.trim();
                if !p.is_empty() && !out.iter().any(|o| o == p) {
                    out.push(p.to_string());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_file_section() {
        let body = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Delete File: d\n*** Update File: a.txt\n*** End Patch";
        assert_eq!(paths(body), ["a.txt", "src/b.rs", "src/c.rs", "d"]);
        assert!(paths("echo hi").is_empty());
    }
}
