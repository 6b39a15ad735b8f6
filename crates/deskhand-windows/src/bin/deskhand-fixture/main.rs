//! The Win32 fixture app: the oracle of the Windows end-to-end tests under Wine. It shows the
//! standard controls (buttons, an edit, a check box, a list, a menu, accelerators, a modal
//! dialog and a red block to find in captures) and writes one line to its log file for every
//! thing it receives, so a test checks what arrived, not what deskhand says it sent.
//!
//! `deskhand-fixture --log FILE [--title TITLE] [--at X,Y] [--frame-host] [--uia]` runs the
//! window (with `--frame-host` as a Store app's frame, the app's window inside it from a second
//! process, `--core-window HWND`; with `--uia` serving UI Automation providers of its own);
//! `deskhand-fixture --shortcut LNK ARGS…` writes a Start-menu shortcut to itself with ARGS and
//! exits, for the installed-apps and launch tests;
//! `deskhand-fixture --manifest-of PROGRAM` prints the manifest embedded in PROGRAM.

#[cfg(windows)]
mod app;
#[cfg(windows)]
mod uia;

#[cfg(windows)]
fn main() -> std::process::ExitCode {
    app::main()
}

#[cfg(not(windows))]
fn main() -> std::process::ExitCode {
    eprintln!(
        "deskhand-fixture is a Win32 app: build it with --target x86_64-pc-windows-gnu and run it \
         on Windows or under Wine (scripts/wine-test does both)"
    );
    std::process::ExitCode::from(2)
}
