//! `AXError` codes as the core's error kinds, each with a sentence that names the next step.

use deskhand_core::{Error, ErrorKind};

use crate::permissions::{Permission, missing};

/// A failed Accessibility call: the `AXError` code it returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxError(pub i32);

impl AxError {
    pub const FAILURE: AxError = AxError(-25200);
    pub const ILLEGAL_ARGUMENT: AxError = AxError(-25201);
    pub const INVALID_UI_ELEMENT: AxError = AxError(-25202);
    pub const CANNOT_COMPLETE: AxError = AxError(-25204);
    pub const ATTRIBUTE_UNSUPPORTED: AxError = AxError(-25205);
    pub const ACTION_UNSUPPORTED: AxError = AxError(-25206);
    pub const NOT_IMPLEMENTED: AxError = AxError(-25208);
    pub const API_DISABLED: AxError = AxError(-25211);
    pub const NO_VALUE: AxError = AxError(-25212);
    pub const PARAMETERIZED_ATTRIBUTE_UNSUPPORTED: AxError = AxError(-25213);

    /// The app did not answer within the messaging timeout (or is busy): ask it nothing more
    /// in this call.
    pub fn is_stall(self) -> bool {
        self == AxError::CANNOT_COMPLETE
    }

    /// The element simply has no such attribute or value: not a failure of the read.
    pub fn is_absent(self) -> bool {
        matches!(
            self,
            AxError::ATTRIBUTE_UNSUPPORTED
                | AxError::NO_VALUE
                | AxError::PARAMETERIZED_ATTRIBUTE_UNSUPPORTED
                | AxError::NOT_IMPLEMENTED
        )
    }

    fn name(self) -> &'static str {
        match self.0 {
            -25200 => "kAXErrorFailure",
            -25201 => "kAXErrorIllegalArgument",
            -25202 => "kAXErrorInvalidUIElement",
            -25203 => "kAXErrorInvalidUIElementObserver",
            -25204 => "kAXErrorCannotComplete",
            -25205 => "kAXErrorAttributeUnsupported",
            -25206 => "kAXErrorActionUnsupported",
            -25207 => "kAXErrorNotificationUnsupported",
            -25208 => "kAXErrorNotImplemented",
            -25209 => "kAXErrorNotificationAlreadyRegistered",
            -25210 => "kAXErrorNotificationNotRegistered",
            -25211 => "kAXErrorAPIDisabled",
            -25212 => "kAXErrorNoValue",
            -25213 => "kAXErrorParameterizedAttributeUnsupported",
            -25214 => "kAXErrorNotEnoughPrecision",
            _ => "an unknown AXError",
        }
    }
}

/// Whether the failed call only read, or asked the app to change something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Read,
    /// An action or an attribute set: the app may have acted before it failed to answer.
    Change,
}

/// The core's error for `err`, returned by the call that `what` describes ("Pressing button
/// \"Save\"").
pub fn classify(err: AxError, request: Request, what: &str) -> Error {
    let code = format!("{} ({})", err.name(), err.0);
    match err {
        AxError::API_DISABLED => Error::new(
            ErrorKind::NoAccessibility,
            format!("{what} failed: {}", missing(Permission::Accessibility)),
        ),
        AxError::INVALID_UI_ELEMENT => Error::new(
            ErrorKind::ElementGone,
            format!(
                "{what} failed: the element is gone from the app ({code}); call observe again \
                 for fresh refs"
            ),
        ),
        AxError::CANNOT_COMPLETE => {
            let error = Error::new(
                ErrorKind::Timeout,
                format!(
                    "{what} got no answer: the app did not reply within the accessibility \
                     timeout ({code}), it may be busy or hung; wait and observe it again, or \
                     kill it if it stays unresponsive"
                ),
            );
            match request {
                Request::Read => error,
                Request::Change => error.after_sending(),
            }
        }
        AxError::ATTRIBUTE_UNSUPPORTED
        | AxError::ACTION_UNSUPPORTED
        | AxError::NOT_IMPLEMENTED
        | AxError::PARAMETERIZED_ATTRIBUTE_UNSUPPORTED => Error::new(
            ErrorKind::Unsupported,
            format!(
                "{what} is not offered by this element through accessibility ({code}); act on \
                 it with the pointer or the keyboard instead (click it, or type into it)"
            ),
        ),
        AxError::NO_VALUE => Error::new(
            ErrorKind::Unsupported,
            format!(
                "{what} found no value on this element ({code}); observe it to see what it \
                 shows, or read its window with a screenshot"
            ),
        ),
        _ => Error::platform(format!(
            "{what} was refused by the app ({code}); observe the window to see its state, \
             then try once more or act with the pointer"
        )),
    }
}

/// Keys refused before any is sent: the first keyboard event of a process sets up the keyboard
/// layout through Text Input Sources, which macOS allows only on the main thread (it stops the
/// process otherwise), and this process's main thread was never reached to make it there.
pub fn keys_unprepared(what: &str) -> Error {
    Error::new(
        ErrorKind::Platform,
        format!(
            "{what} was refused before anything was sent: macOS sets up keyboard events on the \
             main thread, which this deskhand process does not serve, and would stop the \
             process if they were made elsewhere. Run deskhand as its own program (deskhand \
             mcp, or the CLI) rather than inside another, or set the text with set_value"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_becomes_a_kind_with_a_next_step() {
        let cases = [
            (
                AxError::API_DISABLED,
                ErrorKind::NoAccessibility,
                "Privacy & Security",
            ),
            (
                AxError::INVALID_UI_ELEMENT,
                ErrorKind::ElementGone,
                "observe again",
            ),
            (AxError::CANNOT_COMPLETE, ErrorKind::Timeout, "kill it"),
            (
                AxError::ACTION_UNSUPPORTED,
                ErrorKind::Unsupported,
                "pointer",
            ),
            (
                AxError::ATTRIBUTE_UNSUPPORTED,
                ErrorKind::Unsupported,
                "pointer",
            ),
            (AxError::NO_VALUE, ErrorKind::Unsupported, "observe"),
            (AxError::FAILURE, ErrorKind::Platform, "try once more"),
            (
                AxError::ILLEGAL_ARGUMENT,
                ErrorKind::Platform,
                "kAXErrorIllegalArgument",
            ),
            (AxError(-1), ErrorKind::Platform, "unknown AXError (-1)"),
        ];
        for (err, kind, says) in cases {
            let error = classify(err, Request::Read, "Reading the tree");
            assert_eq!(error.kind, kind, "{err:?}");
            assert!(error.message.contains(says), "{err:?}: {}", error.message);
            assert!(
                error.message.starts_with("Reading the tree"),
                "{}",
                error.message
            );
            assert!(!error.sent);
        }
    }

    #[test]
    fn a_change_that_got_no_answer_may_have_landed() {
        let pressed = classify(AxError::CANNOT_COMPLETE, Request::Change, "Pressing \"OK\"");
        assert!(
            pressed.sent,
            "reported as applied but unconfirmed, never failed"
        );
        let refused = classify(
            AxError::ACTION_UNSUPPORTED,
            Request::Change,
            "Pressing \"OK\"",
        );
        assert!(!refused.sent, "an unsupported action never reached the app");
        let gone = classify(
            AxError::INVALID_UI_ELEMENT,
            Request::Change,
            "Pressing \"OK\"",
        );
        assert!(!gone.sent);
    }

    #[test]
    fn stalls_and_absences_are_told_apart() {
        assert!(AxError::CANNOT_COMPLETE.is_stall());
        assert!(!AxError::NO_VALUE.is_stall());
        assert!(AxError::NO_VALUE.is_absent() && AxError::ATTRIBUTE_UNSUPPORTED.is_absent());
        assert!(!AxError::INVALID_UI_ELEMENT.is_absent());
    }

    #[test]
    fn keys_that_cannot_be_made_safely_are_refused_unsent_with_the_next_step() {
        let refused = keys_unprepared("Typing");
        assert!(!refused.sent);
        assert!(
            refused
                .message
                .starts_with("Typing was refused before anything was sent")
        );
        assert!(refused.message.contains("set_value"));
    }
}
