//! The user's own desktop for a process started from a bare environment (an MCP client's
//! default): found once, before any thread starts, and applied to this process's environment,
//! so the backend, the doctor and the apps `launch` starts all see the same session.

#[cfg(target_os = "linux")]
use std::sync::OnceLock;

use deskhand_core::error::{Error, ErrorKind};

#[cfg(target_os = "linux")]
use deskhand_linux::own_desktop::{Found, Given, NotFound, look};

#[cfg(target_os = "linux")]
static FOUND: OnceLock<Result<Found, NotFound>> = OnceLock::new();

/// Looks for the session the environment lacks and sets its variables; explicit variables
/// always win. Call it while this process has a single thread: it changes the environment.
#[cfg(target_os = "linux")]
pub fn apply(choice: Option<String>) {
    let found = look(&Given::from_env(choice));
    if let Ok(found) = &found {
        for (name, value) in &found.set {
            // SAFETY: called from `main` before any other thread exists (see the doc above).
            unsafe { std::env::set_var(name, value) };
        }
    }
    let _ = FOUND.set(found);
}

/// Other platforms have one desktop per user session, named by no variable.
#[cfg(not(target_os = "linux"))]
pub fn apply(_choice: Option<String>) {}

/// Which session was found and picked, and what else was found: one line, or `None` when the
/// environment named it all.
#[cfg(target_os = "linux")]
pub fn summary() -> Option<String> {
    FOUND.get()?.as_ref().ok()?.summary()
}

#[cfg(not(target_os = "linux"))]
pub fn summary() -> Option<String> {
    None
}

/// Why there is no desktop to drive, when the search found none: every call answers this.
#[cfg(target_os = "linux")]
pub fn missing() -> Option<Error> {
    let err = FOUND.get()?.as_ref().err()?;
    Some(Error::new(ErrorKind::NoDisplay, err.to_string()))
}

#[cfg(not(target_os = "linux"))]
pub fn missing() -> Option<Error> {
    None
}

/// The doctor's finding on which session this process drives: how it was found, or why none
/// was; `None` when the environment named it.
#[cfg(target_os = "linux")]
pub fn finding() -> Option<Result<String, (String, String)>> {
    match FOUND.get()? {
        Ok(found) => found.summary().map(|line| {
            Ok(line
                .trim_start_matches("Desktop: ")
                .trim_end_matches('.')
                .to_owned())
        }),
        Err(err) => Some(Err((err.reason(), err.fix()))),
    }
}

/// The no-display answer for a desktop that was named or found but could not be reached.
pub fn unreachable(why: &Error) -> Error {
    Error::new(
        ErrorKind::NoDisplay,
        format!(
            "the desktop could not be reached ({}); check that it is still running, name another with `--session` or DESKHAND_SESSION, or restart the server with --headless for a private desktop",
            why.message.trim_end_matches('.')
        ),
    )
}
