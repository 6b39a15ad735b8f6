//! Keyboard focus: giving an element or its window the focus before keys go to it.

use crate::backend::{Accessibility, Capture, Input, Windows};
use crate::error::{Error, ErrorKind, Result};
use crate::model::{MouseButton, WindowInfo};
use crate::session::Session;

use super::answer::words::{FocusedBy, WindowSaid};
use super::reach::{Named, ref_center};
use super::reply::{element_failure, intended};
use super::surface::window_said;

/// How long an element has to report the keyboard focus it was given.
const FOCUS_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Waits until the element reports the keyboard focus; false if it does not within
/// [`FOCUS_WAIT`].
async fn focus_arrives<B: Accessibility>(backend: &B, element: &Named) -> Result<bool> {
    let until = std::time::Instant::now() + FOCUS_WAIT;
    loop {
        if backend.element_focused(&element.entry.handle).await? {
            return Ok(true);
        }
        if std::time::Instant::now() >= until {
            return Ok(false);
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Gives the element the keyboard focus and confirms it has it before a key is sent: asked
/// through accessibility first, else by a pointer click at its center. Returns how the reply
/// names what the keys went into.
pub(crate) async fn focus_for_typing<B: Windows + Accessibility + Input + Capture>(
    backend: &B,
    element: &Named,
) -> Result<FocusedBy> {
    let label = element.label();
    let not_typed = |err: Error| {
        intended(
            element_failure(err, &format!("{label} could not take keyboard focus")),
            &format!("moving the keyboard focus to {label} (nothing was typed)"),
        )
    };
    if element.entry.handle.is_read_from_pixels() {
        // Text read from pixels has no accessibility to ask or confirm the focus with: a click
        // at its center is how a person would focus it.
        let pixel = ref_center(backend, element.id, &element.entry, &element.window).await?;
        backend.click(pixel, MouseButton::Left, 1, &[]).await?;
        return Ok(FocusedBy::ClickOnPixels(pixel));
    }
    let asked = match backend.focus_element(&element.entry.handle).await {
        Ok(()) => None,
        Err(err) if err.kind == ErrorKind::Unsupported => Some(err.message),
        Err(err) => return Err(not_typed(err)),
    };
    // Where it cannot be asked, a click would move the caret: only when it is not focused yet.
    let focused = match asked {
        None => focus_arrives(backend, element).await,
        Some(_) => backend.element_focused(&element.entry.handle).await,
    };
    if focused.map_err(not_typed)? {
        return Ok(FocusedBy::Asking);
    }
    let pixel = ref_center(backend, element.id, &element.entry, &element.window)
        .await
        .map_err(|err| {
            let asked = asked.as_deref().unwrap_or("asked through accessibility, it did not report having it");
            Error::new(
                err.kind,
                format!(
                    "{label} did not take the keyboard focus ({}), and it cannot be clicked instead: {}; nothing was typed",
                    asked.trim_end_matches('.'),
                    err.message.trim_end_matches('.')
                ),
            )
        })?;
    backend.click(pixel, MouseButton::Left, 1, &[]).await?;
    if focus_arrives(backend, element).await.map_err(not_typed)? {
        return Ok(FocusedBy::Click(pixel));
    }
    let why = asked.unwrap_or_else(|| {
        format!(
            "asked to take the keyboard focus, it did not report having it within {} ms",
            FOCUS_WAIT.as_millis()
        )
    });
    Err(Error::new(
        ErrorKind::Platform,
        format!(
            "{label} did not take the keyboard focus ({}), and after a click at its center (pixel {},{}) it still did not report it, so nothing was typed; observe to see where the focus is, click the field you mean, then `type` without a ref",
            why.trim_end_matches('.'),
            pixel.x,
            pixel.y
        ),
    )
    .after_sending())
}

/// The window with the keyboard focus: where untargeted keys go.
pub(crate) async fn focused_window<B: Windows>(
    backend: &B,
    session: &mut Session,
) -> Result<Option<WindowSaid>> {
    let windows = backend.windows().await?;
    Ok(windows
        .iter()
        .find(|w| w.focused)
        .map(|window| window_said(session, window)))
}

/// Raises and focuses the window unless it already has the focus: keys go to the focused
/// window, so typing "into" anything starts here.
pub(crate) async fn ensure_focused<B: Windows>(backend: &B, window: &WindowInfo) -> Result<()> {
    let now = backend.window(window.handle).await?;
    if now.as_ref().is_some_and(|w| w.focused) {
        return Ok(());
    }
    backend.activate(window).await
}
