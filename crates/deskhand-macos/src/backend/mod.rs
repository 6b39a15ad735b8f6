//! The FFI shell: each capability of `core::backend` carried over to the macOS frameworks.
//! Every call that asks another process runs on the blocking pool under a deadline, and every
//! Accessibility request has the messaging timeout, so a hung app costs a bounded time; events
//! are posted where the call runs, since posting asks no one.

mod accessibility;
mod appkit;
mod apps;
mod ax;
mod capture;
mod clipboard;
mod find;
mod input;
mod keyboard;
mod quartz;
mod sck;
mod values;
mod windowing;

pub use accessibility::dump_tree;
pub use keyboard::serve_main_queue_while;

use std::sync::Mutex;
use std::time::Duration;

use deskhand_core::model::MouseButton;
use deskhand_core::{Error, ErrorKind, Result};
use objc2_core_graphics::CGPreflightScreenCaptureAccess;

use crate::errors::Request;
use crate::keys::Layouts;
use crate::permissions::{Permission, missing};

/// The bound on any one call, the walk's deadline included.
const CALL_DEADLINE: Duration = Duration::from_secs(8);

/// The macOS backend. It holds which mouse button is down, so a move while it is held is
/// posted as a drag, and the key table of each keyboard layout seen.
#[derive(Debug, Default)]
pub struct MacBackend {
    held: Mutex<Option<MouseButton>>,
    layouts: Mutex<Layouts>,
}

impl MacBackend {
    /// Checks the Accessibility permission at start, asking macOS to prompt the user once if it
    /// is missing, and sets the global messaging timeout. A missing permission does not stop
    /// the server: every call that needs it answers with the message that says how to grant it.
    /// Called on the main thread, it also reads the keyboard layout there (see `keyboard`).
    pub fn connect() -> Result<MacBackend> {
        ax::system_wide();
        if !ax::trusted(true) {
            eprintln!("deskhand: {}", missing(Permission::Accessibility));
        }
        if !CGPreflightScreenCaptureAccess() {
            eprintln!("deskhand: {}", missing(Permission::ScreenRecording));
        }
        let backend = MacBackend::default();
        keyboard::prepare(&backend.layouts);
        Ok(backend)
    }
}

/// Both permissions as this process has them now, without a prompt.
pub fn permissions() -> [crate::permissions::PermissionStatus; 2] {
    use crate::permissions::PermissionStatus;
    [
        PermissionStatus::of(Permission::Accessibility, ax::trusted(false)),
        PermissionStatus::of(
            Permission::ScreenRecording,
            CGPreflightScreenCaptureAccess(),
        ),
    ]
}

fn require(permission: Permission) -> Result<()> {
    let granted = match permission {
        Permission::Accessibility => ax::trusted(false),
        Permission::ScreenRecording => CGPreflightScreenCaptureAccess(),
    };
    if granted {
        return Ok(());
    }
    let kind = match permission {
        Permission::Accessibility => ErrorKind::NoAccessibility,
        Permission::ScreenRecording => ErrorKind::Platform,
    };
    Err(Error::new(kind, missing(permission)))
}

/// Runs `work` on the blocking pool within [`CALL_DEADLINE`]. A change that ran out of time may
/// have reached the app.
async fn blocking<T: Send + 'static>(
    what: &'static str,
    request: Request,
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    match tokio::time::timeout(CALL_DEADLINE, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(Error::platform(format!(
            "{what} failed inside deskhand ({join}); try again"
        ))),
        Err(_) => {
            let error = Error::new(
                ErrorKind::Timeout,
                format!(
                    "{what} took longer than {} s: the app may be hung; wait and observe it \
                     again, or kill it if it stays unresponsive",
                    CALL_DEADLINE.as_secs()
                ),
            );
            Err(match request {
                Request::Read => error,
                Request::Change => error.after_sending(),
            })
        }
    }
}
