//! Secrets and the network: what is a secret (files by name and place, variables by name,
//! passwords in URLs), network clients ([`NETWORK`]), and what leaves the machine through them
//! (rule `secret-exfil`): a secret named in a client's arguments, or read earlier in the line
//! and then a client run (the every-command pass, `rules/every_command.rs`). Secrets given to
//! git (`secret-commit`) are judged with git. Network clients of no other family are
//! `Family::NetworkClient` in `registry.rs` (their output files: `rules/fs.rs`).

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::walk::{Cmd, Frame, Judged, Shell, Stdin, Walker};
use crate::words::Arg;

/// Network clients: what they are given may leave the machine.
#[rustfmt::skip]
pub(crate) const NETWORK: &[&str] = &[
    "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "socat", "telnet",
    "scp", "sftp", "ftp", "lftp", "rsync", "rclone", "ssh", "openssl", "mail", "mailx",
    "sendmail", "mutt", "aws", "gsutil", "gcloud", "az", "s3cmd", "mc", "smbclient", "tftp",
    "curlie", "aria2c", "grpcurl", "websocat", "wscat", "transfer", "croc", "magic-wormhole",
    "wormhole", "nslookup", "dig", "host", "ping", "ping6", "drill", "kdig", "getent",
    "traceroute", "tracepath", "mtr", "whois", "resolvectl",
];

/// Programs that print the whole environment (every secret variable in it).
#[rustfmt::skip]
const ENV_DUMPERS: &[&str] = &["env", "printenv", "export", "declare", "set", "compgen"];

/// Names of variables that hold secrets (upper-cased substrings).
#[rustfmt::skip]
const SECRET_VAR_PARTS: &[&str] = &[
    "TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "ACCESS_KEY",
    "CREDENTIAL", "AUTH", "SESSION_KEY", "_PAT", "DATABASE_URL", "DSN", "WEBHOOK",
];

/// Whether `base args` is a network client (`openssl` only as `s_client`).
pub(crate) fn is_network_client(base: &str, args: &[Arg]) -> bool {
    NETWORK.contains(&base) && (base != "openssl" || args.iter().any(|a| a.text == "s_client"))
}

/// Whether `path` (absolute, normalised) names a secret: keys, `.env` files, cloud and tool
/// credentials. Not examples (`.env.example`), not public keys.
pub(crate) fn is_secret_path(path: &str, home: Option<&str>) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".pub")
        || [
            ".example",
            ".sample",
            ".template",
            ".dist",
            ".schema",
            ".md",
        ]
        .iter()
        .any(|s| lower.contains(s))
    {
        return false;
    }
    let by_name = lower == ".env"
        || lower.starts_with(".env.")
        || lower.ends_with(".env")
        || lower.starts_with("id_rsa")
        || lower.starts_with("id_ed25519")
        || lower.starts_with("id_ecdsa")
        || lower.starts_with("id_dsa")
        || [
            ".pem",
            ".key",
            ".p12",
            ".pfx",
            ".jks",
            ".keystore",
            ".kdbx",
            ".ppk",
            ".gpg",
            ".asc",
            ".tfstate",
            ".tfvars",
        ]
        .iter()
        .any(|s| lower.ends_with(s))
        || [
            ".netrc",
            "_netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            "credentials",
            "credentials.json",
            "credentials.yml",
            "credentials.yaml",
            "secrets.yml",
            "secrets.yaml",
            "secrets.json",
            "secrets.toml",
            "secrets.env",
            ".htpasswd",
            "shadow",
            "gshadow",
            "master.key",
            "service-account.json",
            ".pgpass",
            ".my.cnf",
            "hosts.yml",
            "config.json",
            "kubeconfig",
            "token",
            ".token",
            "auth.json",
        ]
        .contains(&lower.as_str())
            && !matches!(lower.as_str(), "config.json" | "hosts.yml")
        || lower.starts_with("service-account") && lower.ends_with(".json");
    if by_name {
        return true;
    }
    let in_dir =
        |dir: &str| path.contains(&format!("/{dir}/")) || path.ends_with(&format!("/{dir}"));
    if [
        "secrets",
        ".ssh",
        ".gnupg",
        ".aws",
        ".kube",
        ".azure",
        ".password-store",
    ]
    .iter()
    .any(|d| in_dir(d))
    {
        return true;
    }
    if let Some(home) = home {
        for rel in [
            ".docker/config.json",
            ".config/gh/hosts.yml",
            ".config/gcloud",
            ".config/hub",
            ".terraform.d/credentials.tfrc.json",
            ".cargo/credentials",
            ".cargo/credentials.toml",
            ".gem/credentials",
            ".config/op",
            ".vault-token",
        ] {
            let full = format!("{home}/{rel}");
            if path == full || path.starts_with(&format!("{full}/")) {
                return true;
            }
        }
    }
    path.starts_with("/etc/ssh/ssh_host_") && !lower.ends_with(".pub")
}

/// Whether the variable name `name` holds a secret by its name.
fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_VAR_PARTS.iter().any(|p| upper.contains(p))
}

/// The names of variables that the word `text` (as written) expands: `$X`, `${X...}`.
fn expanded_vars(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let mut start = i + 1;
            if bytes.get(start) == Some(&b'{') {
                start += 1;
            }
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if end > start {
                out.push(&text[start..end]);
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `url` carries a password (`scheme://user:pass@host`, `https://x-access-token:$T@...`).
fn url_has_password(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    match authority.rsplit_once('@') {
        Some((userinfo, _)) => userinfo
            .split_once(':')
            .is_some_and(|(_, pass)| !pass.is_empty()),
        None => false,
    }
}

/// Whether the word `arg` carries credentials in a URL: a password (`scheme://user:pass@host`)
/// or a user name that is not static (`https://$TOKEN@github.com/o/r`, `https://${T}@host`:
/// forges take a token as the user name, and a value the line does not show in that place is
/// a credential by its position).
fn url_has_credentials(arg: &Arg) -> bool {
    if url_has_password(&arg.text) {
        return true;
    }
    if arg.known {
        return false;
    }
    arg.text.split("://").skip(1).any(|rest| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        authority
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.contains(['$', '`']))
    })
}

impl Walker<'_> {
    /// A URL with credentials given to a program that sends them (`git clone
    /// https://$TOKEN@host/r`, `pip install --index-url https://u:$P@host/simple`): the
    /// credential leaves the machine, and a git remote or a tool's configuration may keep it.
    pub(crate) fn credentials_in_urls(
        &mut self,
        base: &str,
        args: &[Arg],
        frame: &Frame,
    ) -> Judged {
        if args.iter().any(url_has_credentials) {
            return self.deny(
                frame,
                RuleId::SecretExfil,
                format!("`{base}` is given a URL with credentials in it: they would leave the machine (and may be stored); let the tool read them from its credential store or environment instead"),
            );
        }
        Continue(())
    }

    /// Whether the word `arg` names a secret file (`@path`, `name=@path`, `--opt=path` forms too).
    fn names_secret(&self, arg: &Arg, shell: &Shell) -> Option<String> {
        if !arg.known {
            return None;
        }
        let home = self.home();
        let mut candidates = vec![arg.text.as_str()];
        if let Some((_, v)) = arg.text.split_once('=') {
            candidates.push(v);
        }
        let more: Vec<&str> = candidates
            .iter()
            .filter_map(|c| c.strip_prefix('@').or_else(|| c.strip_prefix('<')))
            .collect();
        candidates.extend(more);
        for c in candidates {
            if c.is_empty() || c.contains("://") {
                continue;
            }
            let c = c.split_once(';').map_or(c, |(p, _)| p);
            let expanded = match (c.strip_prefix("~/"), &home) {
                (Some(rest), Some(h)) => format!("{h}/{rest}"),
                _ => c.to_owned(),
            };
            if let Some(abs) = self.resolve(shell, &expanded)
                && is_secret_path(&abs, home.as_deref())
            {
                return Some(c.to_owned());
            }
        }
        None
    }

    /// A command that reads a secret (or dumps the environment) marks the line: a network
    /// client later in it may be sending it.
    pub(crate) fn secret_reads(&mut self, cmd: &Cmd, base: &str, shell: &Shell) {
        if self.secret_read.is_some() {
            return;
        }
        if ENV_DUMPERS.contains(&base) && cmd.argv.len() == 1 && base != "set" && base != "export" {
            self.secret_read = Some(format!("`{base}` prints every variable, secrets included"));
            return;
        }
        if let Some(file) = self.cmd_stdin_file.clone()
            && is_secret_path(&file, self.home().as_deref())
        {
            self.secret_read = Some(format!("`{file}` is a secret"));
            return;
        }
        if NETWORK.contains(&base)
            || matches!(
                base,
                "echo" | "printf" | "ls" | "test" | "[" | "stat" | "touch" | "mkdir" | "git"
            )
        {
            return;
        }
        for a in cmd.argv.iter().skip(1) {
            if let Some(p) = self.names_secret(a, shell) {
                self.secret_read = Some(format!("`{p}` is a secret"));
                return;
            }
        }
    }

    pub(crate) fn network(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        // The key an ssh-family client authenticates with is used, not sent.
        let identity = |i: usize| {
            matches!(base, "ssh" | "scp" | "sftp" | "rsync")
                && (i > 0 && matches!(args[i - 1].text.as_str(), "-i" | "-F" | "-o" | "-e")
                    || args[i].text.starts_with("-i")
                    || args[i].text.starts_with("IdentityFile"))
        };
        for (i, a) in args.iter().enumerate() {
            if identity(i) {
                continue;
            }
            if let Some(p) = self.names_secret(a, shell) {
                return self.deny(
                    frame,
                    RuleId::SecretExfil,
                    format!("`{base}` is given the secret `{p}`: it would leave the machine"),
                );
            }
            if !a.known
                && let Some(var) = expanded_vars(&a.text)
                    .into_iter()
                    .find(|v| is_secret_var(v))
            {
                return self.deny(
                    frame,
                    RuleId::SecretExfil,
                    format!(
                        "`{base}` is given the secret variable `${var}`: it would leave the machine"
                    ),
                );
            }
            if url_has_credentials(a) {
                return self.deny(
                    frame,
                    RuleId::SecretExfil,
                    format!("`{base}` is given a URL with credentials in it"),
                );
            }
        }
        if let Some(why) = self.secret_read.clone() {
            let _ = stdin;
            self.deny(
                frame,
                RuleId::SecretExfil,
                format!("{why}, and `{base}` in the same command line can send it off the machine; run them separately if the network call needs no secret"),
            )?;
        }
        Continue(())
    }

    /// `git add`/`commit` of a secret, credentials in a remote URL.
    pub(crate) fn git_secrets(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let mut i = 0;
        while i < args.len() {
            let t = args[i].text.as_str();
            if matches!(t, "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace") {
                i += 2;
                continue;
            }
            if t.starts_with('-') {
                i += 1;
                continue;
            }
            break;
        }
        let Some(sub) = args.get(i).map(|a| a.text.clone()) else {
            return Continue(());
        };
        let rest = &args[i + 1..];
        if rest.iter().any(url_has_credentials) {
            return self.deny(
                frame,
                RuleId::SecretExfil,
                "a git remote URL with credentials in it (a password, or a token as the user name): the credential would be stored and sent",
            );
        }
        if matches!(sub.as_str(), "add" | "stage" | "commit" | "update-index") {
            for a in rest.iter().filter(|a| !a.text.starts_with('-')) {
                if let Some(p) = self.names_secret(a, shell) {
                    return self.deny(
                        frame,
                        RuleId::SecretCommit,
                        format!("`git {sub}` of the secret `{p}`: once committed it is in the history for good"),
                    );
                }
            }
        }
        Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_paths_by_name_and_place() {
        let home = Some("/home/u");
        for p in [
            "/r/.env",
            "/r/.env.local",
            "/home/u/.ssh/id_rsa",
            "/r/server.pem",
            "/home/u/.aws/credentials",
            "/home/u/.docker/config.json",
            "/r/secrets/db.txt",
            "/home/u/.netrc",
            "/r/prod.tfvars",
        ] {
            assert!(is_secret_path(p, home), "{p}");
        }
        for p in [
            "/r/.env.example",
            "/home/u/.ssh/id_rsa.pub",
            "/r/src/main.rs",
            "/r/config.json",
            "/r/README.md",
            "/r/environment.ts",
        ] {
            assert!(!is_secret_path(p, home), "{p}");
        }
    }

    #[test]
    fn urls_with_passwords() {
        assert!(url_has_password("https://user:hunter2@example.com/x"));
        assert!(url_has_password(
            "https://x-access-token:$T@github.com/o/r.git"
        ));
        assert!(!url_has_password("https://github.com/o/r.git"));
        assert!(!url_has_password("git@github.com:o/r.git"));
        assert!(!url_has_password("https://user@example.com"));
    }
}
