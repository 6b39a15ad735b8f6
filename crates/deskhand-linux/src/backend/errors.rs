//! Platform failures as the core's errors: each says what failed and what to call next.

use deskhand_core::error::{Error, ErrorKind, Result};

use crate::atspi::AtspiError;
use crate::clipboard::ClipboardError;
use crate::launch::LaunchError;
use crate::x11::X11Error;

pub(super) fn x_error(err: X11Error) -> Error {
    let kind = match err {
        X11Error::NoDisplay | X11Error::Connect { .. } | X11Error::Connection { .. } => {
            ErrorKind::NoDisplay
        }
        X11Error::NoXtest { .. }
        | X11Error::NoWindowManager
        | X11Error::CannotClose { .. }
        | X11Error::ModifierNotOnKeyboard { .. } => ErrorKind::Unsupported,
        X11Error::WindowGone { .. } => ErrorKind::SurfaceGone,
        X11Error::PersonTookOver => ErrorKind::Stopped,
        _ => ErrorKind::Platform,
    };
    Error::new(kind, err.to_string())
}

pub(super) fn clipboard_error(err: ClipboardError) -> Error {
    match err {
        ClipboardError::X(err) => x_error(err),
        ClipboardError::Wayland(err) => crate::wayland::wayland_error(err),
        ClipboardError::OwnerTimeout { .. }
        | ClipboardError::OwnerSilent(_)
        | ClipboardError::ServerSilent { .. }
        | ClipboardError::HolderTimeout { .. } => Error::new(ErrorKind::Timeout, err.to_string()),
        _ => Error::platform(err.to_string()),
    }
}

/// A failed read of what an element is: the element, or its whole application, is gone.
pub(super) fn element_error(err: AtspiError) -> Error {
    match err {
        AtspiError::Call { .. } => Error::new(
            ErrorKind::ElementGone,
            format!("the element is gone ({err}); call `observe` again"),
        ),
        err => atspi_error(err),
    }
}

/// GTK3 lets accessibility change a disabled field or slider, which no person could do; the app
/// does not expect it then.
pub(super) fn refuse_disabled(
    enabled: std::result::Result<bool, AtspiError>,
    what: &str,
) -> Result<()> {
    if enabled.map_err(element_error)? {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::Disabled,
            format!(
                "the element is disabled, so {what}; `wait` until it is enabled, or act on another element"
            ),
        ))
    }
}

pub(super) fn launch_error(err: LaunchError) -> Error {
    let kind = match err {
        LaunchError::NotFound(_) => ErrorKind::NotFound,
        LaunchError::Ambiguous { .. } => ErrorKind::Ambiguous,
        LaunchError::Spawn { .. } => ErrorKind::Platform,
    };
    Error::new(kind, err.to_string())
}

pub(super) fn atspi_error(err: AtspiError) -> Error {
    match err {
        AtspiError::NoBus(why) => Error::new(
            ErrorKind::NoAccessibility,
            format!(
                "the accessibility bus cannot be reached ({why}), so no tree can be read (`screenshot` and `zoom` still work, with x/y); run `deskhand doctor`"
            ),
        ),
        AtspiError::Timeout { .. } | AtspiError::Stalled { .. } => Error::new(
            ErrorKind::Timeout,
            format!(
                "{err}; the application may be busy, hung or showing a dialog: try again in a few seconds, or take a `screenshot` to see it"
            ),
        ),
        _ => Error::platform(format!("{err}; call `observe` again")),
    }
}

/// The failure of a request that changes something. Unless it provably never went out, the
/// application may have acted on it (a menu item that opens a modal dialog answers only once
/// the dialog closes), so the error says it was sent.
pub(super) fn change_error(err: AtspiError) -> Error {
    let sent = err.unanswered() && !matches!(err, AtspiError::Stalled { .. });
    if !sent {
        return atspi_error(err);
    }
    Error::new(
        ErrorKind::Timeout,
        format!(
            "the request went to the application, which did not confirm it ({err}); it may be busy, or showing a dialog the request opened"
        ),
    )
    .after_sending()
}

/// An X request for input that missed its deadline may still have been delivered.
pub(super) fn input_error(err: Error) -> Error {
    // A person's takeover stops input part-way: what went before it was sent.
    if matches!(err.kind, ErrorKind::Timeout | ErrorKind::Stopped) {
        err.after_sending()
    } else {
        err
    }
}

/// Refuses `what`, which needs screen positions, while windows are known without their places.
pub(super) fn unplaced_error(what: &str) -> Error {
    crate::gnome::gnome_error(crate::gnome::GnomeError::Unplaced(what.to_owned()))
}

/// What the window list says while windows are known without their places.
pub(super) fn positions_unknown_note() -> String {
    crate::gnome::POSITIONS_UNKNOWN.to_owned()
}
