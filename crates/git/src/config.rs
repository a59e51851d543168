//! Reading git config: the aliases the guard must know about, and whether a commit identity is
//! configured (pawl's own commits fall back to `pawl <pawl@localhost>` rather than fail).

use std::collections::BTreeMap;

use crate::error::Error;
use crate::repo::{Repo, nul_records};

/// The identity pawl commits with when the user has none configured.
pub(crate) const FALLBACK_NAME: &str = "pawl";
pub(crate) const FALLBACK_EMAIL: &str = "pawl@localhost";

impl Repo {
    /// Every `alias.*` the user's git would apply here (system, global and local config), by
    /// alias name: `{"co": "checkout", "nuke": "!rm -rf ."}`.
    pub fn config_aliases(&self) -> Result<BTreeMap<String, String>, Error> {
        let mut git = self.git();
        git.with_system_config()
            .args(["config", "-z", "--get-regexp", r"^alias\."]);
        // Exit 1 means "no such key": no aliases.
        let (_, out) = git.run_allowing(&[0, 1])?;
        Ok(nul_records(&out)
            .filter_map(|record| {
                let text = String::from_utf8_lossy(record);
                // -z format: key, newline, value (no newline when the value is missing).
                let (key, value) = text.split_once('\n').unwrap_or((&text, ""));
                let name = key.strip_prefix("alias.")?;
                Some((name.to_owned(), value.to_owned()))
            })
            .collect())
    }

    /// `-c` arguments that supply whatever part of the commit identity is not configured.
    /// Identity variables (`GIT_AUTHOR_NAME`, ...) still win over these, as git defines.
    pub(crate) fn identity_fallback_args(&self) -> Result<Vec<String>, Error> {
        let mut git = self.git();
        git.args(["config", "-z", "--get-regexp", r"^user\.(name|email)$"]);
        let (_, out) = git.run_allowing(&[0, 1])?;
        let mut has_name = false;
        let mut has_email = false;
        for record in nul_records(&out) {
            let text = String::from_utf8_lossy(record);
            let (key, value) = text.split_once('\n').unwrap_or((&text, ""));
            let set = !value.trim().is_empty();
            match key {
                "user.name" => has_name |= set,
                "user.email" => has_email |= set,
                _ => {}
            }
        }
        let mut args = Vec::new();
        if !has_name {
            args.extend(["-c".to_owned(), format!("user.name={FALLBACK_NAME}")]);
        }
        if !has_email {
            args.extend(["-c".to_owned(), format!("user.email={FALLBACK_EMAIL}")]);
        }
        Ok(args)
    }
}
