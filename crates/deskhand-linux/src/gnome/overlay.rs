//! The overlay on GNOME, drawn by deskhand's shell extension inside the shell: a Wayland client
//! may not put a surface above other windows, the shell may. The marks are actors that take no
//! pointer, key or focus; the extension hides them while it paints a screenshot this process
//! asked for, and removes them when this process's connection to the session bus ends.
//!
//! An action only hands a mark to the overlay's thread, which sends it on a connection of its
//! own: an action never waits on the shell for it.

use std::sync::mpsc;
use std::time::Duration;

use deskhand_core::backend::Intent;
use deskhand_core::model::Rect;

use super::extension::VERSION;
use super::shell::Shell;
use super::{GnomeError, session_bus};
use crate::own_thread::{self, Unstarted};

/// One call to the shell never takes this long while it is alive.
const CALL_TIMEOUT: Duration = Duration::from_secs(1);

/// Why the overlay cannot be drawn on this GNOME.
#[derive(Debug, thiserror::Error)]
pub enum OverlayError {
    #[error("the overlay that shows where the agent acts is not drawn: {0}")]
    Shell(GnomeError),
    #[error("the overlay's async runtime could not start ({0})")]
    Runtime(std::io::Error),
    #[error(
        "GNOME Shell did not answer the overlay's setup within {} s, so the overlay is not shown; check that it is alive, then restart deskhand",
        .0.as_secs()
    )]
    NoAnswer(Duration),
    #[error("the overlay's thread could not start ({0})")]
    Thread(std::io::Error),
}

/// The handle actions hold; the marks go to the shell from the overlay's thread.
pub struct GnomeOverlay {
    to_thread: mpsc::Sender<Intent>,
}

impl GnomeOverlay {
    /// Shows where an action is about to act; never waits.
    pub fn show(&self, intent: Intent) {
        let _ = self.to_thread.send(intent);
    }
}

/// Asks the extension for the overlay, with the line that an agent is acting when `indicator`,
/// and starts the thread that sends it marks. Setting up waits on the shell: one that does not
/// answer costs the setup deadline.
pub fn start(indicator: bool) -> Result<GnomeOverlay, OverlayError> {
    let (to_thread, marks) = mpsc::channel();
    own_thread::start(
        "deskhand-overlay",
        own_thread::SETUP_DEADLINE,
        move || set_up(indicator),
        move |(runtime, shell)| {
            for intent in marks {
                // A mark the shell missed is a mark not shown; the next action shows its own.
                let _ = runtime.block_on(mark(&shell, intent));
            }
        },
    )
    .map_err(|unstarted| match unstarted {
        Unstarted::Failed(err) => err,
        Unstarted::NoAnswer(waited) => OverlayError::NoAnswer(waited),
        Unstarted::NoThread(err) => OverlayError::Thread(err),
    })?;
    Ok(GnomeOverlay { to_thread })
}

fn set_up(indicator: bool) -> Result<(tokio::runtime::Runtime, Shell), OverlayError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(OverlayError::Runtime)?;
    let shell = runtime
        .block_on(async {
            let shell = Shell::new(session_bus(CALL_TIMEOUT).await?, CALL_TIMEOUT);
            let running = shell.version().await?;
            if running < VERSION {
                return Err(GnomeError::ExtensionOutdated { running });
            }
            shell.show_overlay(indicator).await?;
            Ok(shell)
        })
        .map_err(OverlayError::Shell)?;
    Ok((runtime, shell))
}

async fn mark(shell: &Shell, intent: Intent) -> Result<(), GnomeError> {
    let (kind, area) = match intent {
        Intent::Point(at) => ("point", Rect::new(at.x, at.y, 0, 0)),
        Intent::Element(bounds) => ("element", bounds),
        Intent::Typing(bounds) => ("typing", bounds),
    };
    shell.mark(kind, area).await
}
