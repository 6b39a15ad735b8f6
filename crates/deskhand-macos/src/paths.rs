//! Where deskhand keeps its files on macOS.

use std::path::{Path, PathBuf};

/// `~/Library/Application Support/deskhand`: the audit log, the memory store and the policy
/// live there, as Apple's guidelines place an app's own files.
pub fn state_dir(home: &Path) -> PathBuf {
    home.join("Library")
        .join("Application Support")
        .join("deskhand")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_dir_is_under_application_support() {
        assert_eq!(
            state_dir(Path::new("/Users/ada")),
            Path::new("/Users/ada/Library/Application Support/deskhand")
        );
    }
}
