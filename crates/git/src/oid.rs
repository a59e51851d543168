//! Object ids as types, so a tree hash can never be passed where a commit is expected.
//! Both hold git's lower-case hex (40 characters for SHA-1 repositories, 64 for SHA-256).

use std::fmt;

macro_rules! object_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// Wraps a hex id, checking its shape (not its existence).
            pub fn new(hex: impl Into<String>) -> Option<Self> {
                let hex = hex.into();
                let valid = matches!(hex.len(), 40 | 64)
                    && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                valid.then_some($name(hex))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The first 12 characters, for messages and ref names.
            pub fn short(&self) -> &str {
                &self.0[..12]
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

object_id!(
    /// The id of a tree object: what [`crate::Repo::tree_hash`] returns and evidence is bound to.
    TreeHash
);
object_id!(
    /// The id of a commit.
    CommitId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_only_full_lowercase_hex() {
        assert!(TreeHash::new("4b825dc642cb6eb9a060e54bf8d69288fbee4904").is_some());
        assert!(TreeHash::new("4B825DC642CB6EB9A060E54BF8D69288FBEE4904").is_none());
        assert!(CommitId::new("abc").is_none());
        assert!(CommitId::new("g".repeat(40)).is_none());
        assert!(CommitId::new("a".repeat(64)).is_some());
    }
}
