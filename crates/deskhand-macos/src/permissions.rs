//! The two permissions deskhand needs on macOS, and what to tell the user when one is missing.
//! Both are granted to the program that started deskhand (the terminal, the IDE, the MCP
//! client), which macOS treats as responsible for it, and take effect only once that program
//! is quit and opened again: the peers' users hit both.

/// A privacy permission of System Settings → Privacy & Security.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Checked with `AXIsProcessTrustedWithOptions`: reading trees, acting, synthetic input.
    Accessibility,
    /// Checked with `CGPreflightScreenCaptureAccess`: pixels, and other apps' window titles.
    ScreenRecording,
}

impl Permission {
    /// The pane's name in System Settings.
    pub fn pane(self) -> &'static str {
        match self {
            Permission::Accessibility => "Accessibility",
            Permission::ScreenRecording => "Screen Recording",
        }
    }

    /// The URL that opens the pane (`open "<url>"`).
    pub fn settings_url(self) -> &'static str {
        match self {
            Permission::Accessibility => {
                "x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility"
            }
            Permission::ScreenRecording => {
                "x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture"
            }
        }
    }

    fn needed_for(self) -> &'static str {
        match self {
            Permission::Accessibility => {
                "to read applications' accessibility trees and to send clicks and keys"
            }
            Permission::ScreenRecording => {
                "to capture the screen and read other apps' window titles"
            }
        }
    }
}

/// The sentence for a missing permission: what lacks it, where to grant it, what to do after.
pub fn missing(permission: Permission) -> String {
    format!(
        "deskhand has no {pane} permission, which it needs {why}; open System Settings → \
         Privacy & Security → {pane} (open \"{url}\"), turn it on for the app that runs \
         deskhand (your terminal, IDE or MCP client), then quit that app completely and open it \
         again, since a running process keeps the permission it started with",
        pane = permission.pane(),
        why = permission.needed_for(),
        url = permission.settings_url(),
    )
}

/// One permission as `deskhand doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionStatus {
    pub permission: Permission,
    pub granted: bool,
    /// What to do about it, as a sentence; `None` when it is granted.
    pub fix: Option<String>,
}

impl PermissionStatus {
    pub fn of(permission: Permission, granted: bool) -> PermissionStatus {
        PermissionStatus {
            permission,
            granted,
            fix: (!granted).then(|| missing(permission)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_permission_carries_its_fix_and_a_granted_one_none() {
        let missing = PermissionStatus::of(Permission::ScreenRecording, false);
        assert!(missing.fix.unwrap().contains("Screen Recording"));
        assert_eq!(
            PermissionStatus::of(Permission::Accessibility, true).fix,
            None
        );
    }

    #[test]
    fn each_message_names_its_pane_and_the_restart() {
        let ax = missing(Permission::Accessibility);
        assert!(ax.contains("Privacy & Security → Accessibility"), "{ax}");
        assert!(ax.contains("Privacy_Accessibility"), "{ax}");
        assert!(ax.contains("quit that app completely"), "{ax}");
        let screen = missing(Permission::ScreenRecording);
        assert!(
            screen.contains("Privacy & Security → Screen Recording"),
            "{screen}"
        );
        assert!(screen.contains("Privacy_ScreenCapture"), "{screen}");
        assert!(!screen.contains("→ Accessibility"), "{screen}");
    }
}
