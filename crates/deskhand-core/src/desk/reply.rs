//! What a call answers: its text, its outcome, an image and the structured form; and the
//! failures every handler words the same way.

use serde::Serialize;

use crate::error::{Error, ErrorKind};

/// How a successful call ended, which decides the CLI's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// A read: apps, windows, observe, screenshot, zoom.
    Observed,
    /// The system took the input.
    Done,
    /// Part of the input may have landed.
    Unconfirmed,
    /// A wait that timed out, or a batch that stopped before anything changed: nothing was done.
    Failed,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub outcome: Outcome,
    /// PNG bytes for screenshot and zoom.
    pub image: Option<Vec<u8>>,
    /// The structured form of the same reply.
    pub data: serde_json::Value,
}

impl Reply {
    /// Whether the agent must not take the reply for success, though it carries evidence: a wait
    /// that timed out, or a batch that stopped at a failing step (even after earlier steps
    /// changed something). MCP marks it `isError`, the CLI's `--json` says `"ok": false`.
    pub fn is_error(&self) -> bool {
        self.outcome == Outcome::Failed
            || self
                .data
                .get("failed_index")
                .is_some_and(|index| !index.is_null())
    }

    pub(crate) fn observed(text: String, data: serde_json::Value) -> Self {
        Self {
            text,
            outcome: Outcome::Observed,
            image: None,
            data,
        }
    }
}

/// A failure after the request went out, saying what was asked: the reply calls it applied but
/// unconfirmed, and must say what may have happened.
pub(crate) fn intended(err: Error, did: &str) -> Error {
    if err.sent {
        Error {
            message: format!("{did}: {}", err.message),
            ..err
        }
    } else {
        err
    }
}

/// A platform failure on one element most often means the element went away; a disabled one
/// is named, so the agent knows which element to wait for.
pub(crate) fn element_failure(err: Error, what: &str) -> Error {
    match err.kind {
        _ if err.sent => err,
        ErrorKind::Disabled => Error::new(ErrorKind::Disabled, format!("{what}: {}", err.message)),
        ErrorKind::Platform => {
            let why = err.message.trim_end_matches('.');
            let why = why.strip_suffix("; call `observe` again").unwrap_or(why);
            Error::new(
                ErrorKind::ElementGone,
                format!("{what}: {why}; call `observe` again"),
            )
        }
        _ => err,
    }
}
