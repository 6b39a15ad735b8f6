//! Errors an agent sees: a stable kind plus one sentence saying what failed, why, and what next.

use serde::Serialize;

/// Stable failure kinds; the README lists them and agents may branch on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The call's arguments are malformed or do not fit the action.
    BadArgument,
    /// The ref was issued by an observation that is no longer the latest.
    RefExpired,
    /// The ref was never issued in this session.
    RefUnknown,
    /// The ref belongs to another surface than the call's target.
    RefWrongSurface,
    /// The target window or application is gone.
    SurfaceGone,
    /// The element no longer exists or cannot be acted on.
    ElementGone,
    /// The ref's object now stands for another element than the one observed (another kind, or
    /// an item of a list whose rows moved); nothing was done.
    ElementChanged,
    /// The accessibility bus cannot be reached or the app exposes no tree.
    NoAccessibility,
    /// No display server can be reached.
    NoDisplay,
    /// The platform did not answer within its deadline.
    Timeout,
    /// The platform refused or failed the request.
    Platform,
    /// This platform cannot do what was asked.
    Unsupported,
    /// The user put the pointer in the top-left corner: the kill switch refuses actions.
    Stopped,
    /// The policy file the server started with forbids the call.
    Denied,
    /// Nothing matched what the call named by text: an element, a menu item, an app.
    NotFound,
    /// Several things matched where one was needed; the message lists them.
    Ambiguous,
    /// The element is there but disabled.
    Disabled,
    /// The client cancelled the call; the message says how far it got.
    Cancelled,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::BadArgument => "bad-argument",
            ErrorKind::RefExpired => "ref-expired",
            ErrorKind::RefUnknown => "ref-unknown",
            ErrorKind::RefWrongSurface => "ref-wrong-surface",
            ErrorKind::SurfaceGone => "surface-gone",
            ErrorKind::ElementGone => "element-gone",
            ErrorKind::ElementChanged => "element-changed",
            ErrorKind::NoAccessibility => "no-accessibility",
            ErrorKind::NoDisplay => "no-display",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Platform => "platform",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Stopped => "stopped",
            ErrorKind::Denied => "denied",
            ErrorKind::NotFound => "not-found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::Disabled => "disabled",
            ErrorKind::Cancelled => "cancelled",
        }
    }

    /// Every kind, for documentation and exhaustive tests.
    pub const ALL: [ErrorKind; 17] = [
        ErrorKind::BadArgument,
        ErrorKind::RefExpired,
        ErrorKind::RefUnknown,
        ErrorKind::RefWrongSurface,
        ErrorKind::SurfaceGone,
        ErrorKind::ElementGone,
        ErrorKind::NoAccessibility,
        ErrorKind::NoDisplay,
        ErrorKind::Timeout,
        ErrorKind::Platform,
        ErrorKind::Unsupported,
        ErrorKind::Stopped,
        ErrorKind::Denied,
        ErrorKind::NotFound,
        ErrorKind::Ambiguous,
        ErrorKind::Disabled,
        ErrorKind::Cancelled,
    ];
}

/// A failed call: nothing happened, unless `sent` says the request may have reached the app.
/// The message names the reason and the next step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// The request went out before the failure (it timed out, or the app left mid-call), so
    /// the app may have acted on it: an action reports this as applied but unconfirmed, never
    /// as failed.
    pub sent: bool,
    /// A `no-accessibility` failure of one window that has no accessibility tree of its own (Tk,
    /// xterm), while accessibility works: such a window can be read from its pixels. A bus that
    /// is down is a setup failure instead, and stays one.
    pub(crate) window_without_tree: bool,
    /// Why such a window has no tree when its toolkit could give one (a module or flag it was
    /// started without), in one line with the fix: what `deskhand doctor` says of its app.
    pub(crate) missing_bridge: Option<String>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            sent: false,
            window_without_tree: false,
            missing_bridge: None,
        }
    }

    /// `no-accessibility` for a window that exposes no tree while accessibility itself works.
    pub fn window_without_tree(message: impl Into<String>) -> Self {
        Self {
            window_without_tree: true,
            ..Self::new(ErrorKind::NoAccessibility, message)
        }
    }

    /// Says why a window without a tree has none, when its app could have one: `why` is the
    /// doctor's verdict on that app in one line.
    pub fn with_missing_bridge(mut self, why: impl Into<String>) -> Self {
        self.missing_bridge = Some(why.into());
        self
    }

    /// Why the window has no tree, when its app could have one.
    pub fn missing_bridge(&self) -> Option<&str> {
        self.missing_bridge.as_deref()
    }

    /// Whether this is [`Error::window_without_tree`]: the window can be read from pixels.
    pub fn is_window_without_tree(&self) -> bool {
        self.window_without_tree
    }

    /// This failure came after the request went out: the app may have acted on it.
    pub fn after_sending(mut self) -> Self {
        self.sent = true;
        self
    }

    pub fn bad_argument(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadArgument, message)
    }

    pub fn platform(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Platform, message)
    }

    /// The text an agent sees for a failed call, the same from MCP and the CLI.
    pub fn reply_text(&self) -> String {
        // A message may quote the agent's own arguments or an app's error text: one line always.
        format!(
            "failed ({}): {}\n",
            self.kind.as_str(),
            crate::text::one_line(&self.message)
        )
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_one_line_whatever_the_message_quotes() {
        let err = Error::bad_argument("unknown action \"x\ne9 button \\\"Fake\\\"\"; use observe");
        let text = err.reply_text();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with("failed (bad-argument): "), "{text}");
        assert!(text.contains(r"\u{a}e9 button"), "{text}");
    }
}
