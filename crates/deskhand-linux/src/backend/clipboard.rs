//! The clipboard on X11 and sway, where text written stays on offer only while a process holds
//! it: deskhand starts itself as that holder. Reads run on a thread of their own. The backend
//! reads and writes it through the display server of the session.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::ClipboardContent;

use super::display::DisplayServer as _;
use super::errors::clipboard_error;
use crate::clipboard::{self, ClipboardContents, ClipboardError, Holding};

impl super::LinuxBackend {
    /// Names the deskhand binary that holds text written to the clipboard, for callers that are
    /// not that binary themselves (tests, benches).
    pub fn with_clipboard_holder(self, program: impl Into<PathBuf>) -> Self {
        self.holder.set(program.into());
        self
    }
}

/// Beyond the read's own deadline, how long the display server may take to answer.
const SERVER_MARGIN: Duration = Duration::from_secs(5);

/// The deskhand binary that holds written clipboard text; unset: the running one.
#[derive(Default)]
pub(crate) struct ClipboardHolder {
    program: OnceLock<PathBuf>,
}

impl ClipboardHolder {
    pub(super) fn set(&self, program: PathBuf) {
        // Set once, before the first write; a later call names the same binary.
        let _ = self.program.set(program);
    }

    /// Puts `text` on the clipboard of the X server, or of the Wayland compositor.
    pub(super) async fn start(&self, text: &str, on_wayland: bool) -> Result<()> {
        let holding = if on_wayland {
            Holding::WaylandText
        } else {
            Holding::X11Text
        };
        self.hold(text.as_bytes(), holding).await
    }

    /// Serves an X clipboard saved before a paste again, every target as it was.
    pub(super) async fn restore(&self, saved: &[u8]) -> Result<()> {
        self.hold(saved, Holding::X11Saved).await
    }

    async fn hold(&self, input: &[u8], holding: Holding) -> Result<()> {
        clipboard::start_holder(self.program.get().map(PathBuf::as_path), input, holding)
            .await
            .map_err(clipboard_error)
    }
}

/// Runs a clipboard read on a thread of its own rather than the blocking pool: the read bounds
/// its waits on the owner itself, and should the display server (named by `server` in the error)
/// stop answering, an abandoned thread does not hold up the runtime's shutdown as an unfinished
/// blocking task would.
pub(super) async fn read_on_its_own_thread<F>(server: &str, read: F) -> Result<ClipboardContent>
where
    F: FnOnce(Instant) -> std::result::Result<ClipboardContents, ClipboardError> + Send + 'static,
{
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("clipboard-read".into())
        .spawn(move || {
            let _ = sender.send(read(Instant::now() + clipboard::READ_DEADLINE));
        })
        .map_err(|err| {
            Error::platform(format!(
                "no thread could be started to read the clipboard ({err}); try again"
            ))
        })?;
    let deadline = clipboard::READ_DEADLINE + SERVER_MARGIN;
    let read = match tokio::time::timeout(deadline, receiver).await {
        Ok(Ok(read)) => read.map_err(clipboard_error)?,
        Ok(Err(_)) => return Err(Error::platform("reading the clipboard crashed; try again")),
        Err(_) => {
            return Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "{server} did not answer reading the clipboard within {} s; check that the display is alive, then try again",
                    deadline.as_secs()
                ),
            ));
        }
    };
    Ok(ClipboardContent {
        text: read.text,
        types: read.types,
    })
}

impl deskhand_core::backend::Clipboard for super::LinuxBackend {
    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        super::on_display!(&self.display, server => server.read_clipboard().await)
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        super::on_display!(&self.display, server => server.write_clipboard(text).await)
    }
}
