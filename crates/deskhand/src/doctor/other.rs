//! The doctor on Windows and macOS: what the backend says of the permissions it needs (macOS's
//! Accessibility and Screen Recording panes, Windows' UI Automation), beside the files every
//! platform checks.

use super::{Check, Status};

#[cfg(target_os = "macos")]
pub fn dump_tree(window: &str) -> anyhow::Result<String> {
    Ok(deskhand_macos::dump_tree(window)?)
}

#[cfg(windows)]
pub fn dump_tree(window: &str) -> anyhow::Result<String> {
    Ok(deskhand_windows::dump_tree(window)?)
}

#[cfg(not(any(target_os = "macos", windows)))]
pub fn dump_tree(_window: &str) -> anyhow::Result<String> {
    anyhow::bail!("--dump-tree is for the Windows and macOS readers; deskhand has no backend here")
}

#[cfg(target_os = "macos")]
pub fn checks() -> (&'static str, Vec<Check>) {
    let checks = deskhand_macos::permissions()
        .into_iter()
        .map(|status| {
            let pane = status.permission.pane();
            match status.fix {
                None => Check::ok("permissions", pane, "granted to the app that runs deskhand"),
                Some(fix) => Check::problem(
                    Status::Fail,
                    "permissions",
                    pane,
                    format!("not granted to the app that runs deskhand ({pane} pane of Privacy & Security)"),
                    fix,
                ),
            }
        })
        .collect();
    ("macOS", checks)
}

#[cfg(windows)]
pub fn checks() -> (&'static str, Vec<Check>) {
    let check = match deskhand_windows::ui_automation_available() {
        deskhand_windows::UiAutomation::Available => Check::ok(
            "accessibility",
            "ui automation",
            "deskhand's UI Automation client starts: trees can be read",
        ),
        deskhand_windows::UiAutomation::Unavailable { fix } => Check::problem(
            Status::Fail,
            "accessibility",
            "ui automation",
            "deskhand's UI Automation client cannot start, so no tree can be read (screenshots and x/y still work)",
            fix,
        ),
    };
    let mut checks = vec![check];
    checks.extend(deskhand_windows::health().into_iter().map(|finding| {
        use deskhand_windows::health::Verdict;
        match (finding.verdict, finding.fix) {
            (Verdict::Ok, _) | (_, None) => Check::ok("process", finding.name, finding.detail),
            (verdict, Some(fix)) => Check::problem(
                if verdict == Verdict::Warn {
                    Status::Warn
                } else {
                    Status::NotChecked
                },
                "process",
                finding.name,
                finding.detail,
                fix,
            ),
        }
    }));
    ("Windows", checks)
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
