//! GNOME on Wayland: the compositor's own interfaces for input (`org.gnome.Mutter.RemoteDesktop`)
//! and pixels (`org.gnome.Mutter.ScreenCast` over PipeWire), and deskhand's shell extension for
//! windows and focus.

pub mod cast;
pub mod cursor;
mod desk;
pub mod extension;
pub mod idle;
pub mod overlay;
pub mod remote;
pub mod shell;

use std::time::Duration;

use serde::Deserialize;

pub use desk::{Gnome, PASTE_WAIT, Placement, gnome_error};

/// The one-line note that replies about windows carry while the extension is absent.
pub const POSITIONS_UNKNOWN: &str = "window positions unknown: GNOME tells them only to deskhand's shell extension, which is not running; refs work through accessibility (click, type, value, focus of a field), the screen's pixels and where the pointer is (for the kill switch) come through GNOME's screen cast, while points, moving the pointer and a window's pixels need the extension: run `deskhand gnome-extension install`, then log out and back in";

#[derive(Debug, thiserror::Error)]
pub enum GnomeError {
    #[error(
        "deskhand's GNOME Shell extension is not running ({0}), and window positions, focusing, closing, moving and resizing windows, the pointer, a window's pixels and the clipboard need it; run `deskhand gnome-extension install`, then log out and back in (GNOME on Wayland loads a new extension only at log-in) and call again"
    )]
    ExtensionAbsent(String),
    #[error(
        "{0} needs to know where windows are on the screen, and GNOME tells that only to deskhand's shell extension, which is not running, so nothing was sent; act by ref instead (a click runs the element's accessibility action, `type` with a ref focuses its field through accessibility), or run `deskhand gnome-extension install`, then log out and back in"
    )]
    Unplaced(String),
    #[error(
        "deskhand's GNOME Shell extension that is running is version {running}, older than this deskhand needs ({}); run `deskhand gnome-extension install`, then log out and back in, and call again",
        extension::VERSION
    )]
    ExtensionOutdated { running: u32 },
    #[error(
        "GNOME's remote desktop interface (org.gnome.Mutter.RemoteDesktop) is not reachable ({0}), so no pointer or key can be sent; run `deskhand doctor`"
    )]
    NoRemoteDesktop(String),
    #[error(
        "GNOME's screen cast interface (org.gnome.Mutter.ScreenCast) is not reachable ({0}), so no pixels can be read without deskhand's shell extension; run `deskhand doctor`"
    )]
    NoScreenCast(String),
    #[error(
        "GNOME's screen cast of monitor {monitor} gave no picture ({why}); the screen sharing may have been stopped from the top bar, or PipeWire (`pipewire` and `wireplumber`) is not running in this session: try again, which starts a new screen cast"
    )]
    NoFrame { monitor: String, why: String },
    #[error(
        "GNOME's screen cast of monitor {monitor}, which tells deskhand where the pointer is while its shell extension is not running, told nothing ({why}); the screen sharing may have been stopped from the top bar, or PipeWire (`pipewire` and `wireplumber`) is not running in this session: try again, which starts a new screen cast, or run `deskhand gnome-extension install`, then log out and back in"
    )]
    NoCursor { monitor: String, why: String },
    #[error(
        "the rectangle {0} lies off the screen, so it has no pixels; take a `screenshot` of the screen to see what is there"
    )]
    OffScreen(String),
    #[error("{what} did not answer within {ms} ms; GNOME Shell may be busy: try again")]
    Timeout { what: String, ms: u128 },
    #[error("{what} failed: {source}")]
    Call { what: String, source: zbus::Error },
    #[error("GNOME answered something deskhand cannot read: {0}")]
    BadReply(String),
    #[error(
        "a person started using the desktop with their own mouse or keyboard, so deskhand stopped at once: the rest was not sent, and any button or key it held was released"
    )]
    PersonTookOver,
}

impl GnomeError {
    /// A missing extension is said as such: every reply that needs it names the fix.
    fn from_shell_call(err: GnomeError) -> GnomeError {
        match err {
            GnomeError::Call { what, source } if names_a_missing_service(&source) => {
                GnomeError::ExtensionAbsent(format!("{what}: {source}"))
            }
            other => other,
        }
    }
}

fn names_a_missing_service(err: &zbus::Error) -> bool {
    match err {
        zbus::Error::FDO(fdo) => matches!(
            **fdo,
            zbus::fdo::Error::ServiceUnknown(_)
                | zbus::fdo::Error::NameHasNoOwner(_)
                | zbus::fdo::Error::UnknownObject(_)
                | zbus::fdo::Error::UnknownMethod(_)
        ),
        zbus::Error::MethodError(name, _, _) => matches!(
            name.as_str(),
            "org.freedesktop.DBus.Error.ServiceUnknown"
                | "org.freedesktop.DBus.Error.NameHasNoOwner"
                | "org.freedesktop.DBus.Error.UnknownObject"
                | "org.freedesktop.DBus.Error.UnknownMethod"
        ),
        _ => false,
    }
}

/// One method call with a deadline of its own: GNOME Shell runs its extensions on its main
/// loop, which a busy frame can hold up.
async fn call<B, R>(
    conn: &zbus::Connection,
    service: &str,
    path: &str,
    interface: &str,
    method: &str,
    body: &B,
    timeout: Duration,
) -> Result<R, GnomeError>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
    R: for<'d> Deserialize<'d> + zbus::zvariant::Type,
{
    let what = || format!("{interface}.{method}");
    let reply = tokio::time::timeout(
        timeout,
        conn.call_method(Some(service), path, Some(interface), method, body),
    )
    .await
    .map_err(|_| GnomeError::Timeout {
        what: what(),
        ms: timeout.as_millis(),
    })?
    .map_err(|source| GnomeError::Call {
        what: what(),
        source,
    })?;
    reply
        .body()
        .deserialize()
        .map_err(|err| GnomeError::BadReply(format!("{}: {err}", what())))
}

/// For a headless GNOME's life (the desktop's listener holds it): a remote-desktop session whose
/// keyboard and pointer stay on the seat, as a person's devices do, so that windows keep the
/// keyboard focus between calls. The devices go when the returned session drops.
pub async fn hold_input_devices() -> Result<remote::RemoteInput, GnomeError> {
    const TIMEOUT: Duration = Duration::from_secs(3);
    remote::RemoteInput::start(session_bus(TIMEOUT).await?, TIMEOUT).await
}

/// The session bus GNOME Shell is on, with calls bounded by `timeout`.
pub async fn session_bus(timeout: Duration) -> Result<zbus::Connection, GnomeError> {
    tokio::time::timeout(timeout * 2, async {
        zbus::connection::Builder::session()?
            .method_timeout(timeout)
            .build()
            .await
    })
    .await
    .map_err(|_| GnomeError::Timeout {
        what: "connecting to the session bus".into(),
        ms: (timeout * 2).as_millis(),
    })?
    .map_err(|source| GnomeError::Call {
        what: "connecting to the session bus".into(),
        source,
    })
}
