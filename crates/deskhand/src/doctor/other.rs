//! The doctor on Windows and macOS: what can be checked there from what the backends expose
//! today. The permission checks themselves (macOS's two privacy panes, whether UI Automation
//! answers) are not exposed by the backends yet, so each is listed as not checked, with the way
//! to check it by hand.

use super::{Check, Status};

#[cfg(target_os = "macos")]
pub fn checks() -> (&'static str, Vec<Check>) {
    use deskhand_macos::permissions::Permission;
    let checks = [Permission::Accessibility, Permission::ScreenRecording]
        .into_iter()
        .map(|permission| {
            Check::problem(
                Status::NotChecked,
                "permissions",
                permission.pane(),
                "not checked by the doctor yet; deskhand says so on its first call that needs it",
                format!(
                    "open System Settings → Privacy & Security → {} (open \"{}\") and turn it on for the app that runs deskhand, then quit and reopen that app",
                    permission.pane(),
                    permission.settings_url()
                ),
            )
        })
        .collect();
    ("macOS", checks)
}

#[cfg(windows)]
pub fn checks() -> (&'static str, Vec<Check>) {
    (
        "Windows",
        vec![Check::problem(
            Status::NotChecked,
            "accessibility",
            "ui automation",
            "not checked by the doctor yet",
            "run `deskhand windows`, then `deskhand observe w1`: a tree means UI Automation answers",
        )],
    )
}

#[cfg(not(any(target_os = "macos", windows)))]
pub fn checks() -> (&'static str, Vec<Check>) {
    (
        std::env::consts::OS,
        vec![Check::problem(
            Status::NotChecked,
            "platform",
            "backend",
            "deskhand has no backend for this system: every action answers unsupported",
            "run deskhand on Linux, Windows or macOS",
        )],
    )
}
