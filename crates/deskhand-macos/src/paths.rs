//! Where deskhand keeps its files on macOS.

use std::path::{Path, PathBuf};

/// `~/Library/Application Support`, where Apple places an app's own files: the binary keeps
/// the policy, the audit log and the memory store in its `deskhand` folder unless a flag or an
/// XDG variable names another place.
pub fn application_support(home: &Path) -> PathBuf {
    home.join("Library").join("Application Support")
}

/// The real user id, for the name of the CLI's state folder: Linux's `/proc/self` does not
/// exist on macOS, where reading it answered 0 for every user.
#[cfg(target_os = "macos")]
pub fn user_id() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_go_under_application_support() {
        assert_eq!(
            application_support(Path::new("/Users/ada")).join("deskhand/audit.jsonl"),
            Path::new("/Users/ada/Library/Application Support/deskhand/audit.jsonl")
        );
    }
}
