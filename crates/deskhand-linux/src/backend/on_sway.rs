//! The capability traits' bodies on sway that need more than one call into [`Sway`]: typing and
//! keys with their confirmation and modified buttons; and drags on either Wayland compositor.

use std::time::Duration;

use deskhand_core::backend::{Accessibility as _, Input as _, InputOutcome, Partial, Windows as _};
use deskhand_core::error::{Error, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{Modifier, MouseButton, Point};

use super::errors::input_error;
use super::{LinuxBackend, modifier_keysyms};
use crate::x11;

impl LinuxBackend {
    fn sway_or_err(&self) -> Result<&crate::wayland::Sway> {
        self.sway().ok_or_else(|| {
            Error::platform("the session changed from sway to another display server; try again")
        })
    }

    pub(super) async fn sway_button(
        &self,
        button: MouseButton,
        down: bool,
        modifiers: &[Modifier],
    ) -> Result<()> {
        let sway = self.sway_or_err()?;
        self.settle_listener().await;
        let held = modifier_keysyms(modifiers);
        if down {
            sway.hold_modifiers(held).await.map_err(input_error)?;
            sway.button(button, true).await.map_err(input_error)
        } else {
            let released = sway.button(button, false).await;
            let unheld = sway.hold_modifiers(Vec::new()).await;
            released.and(unheld).map_err(input_error)
        }
    }

    /// A drag on Wayland, where it is made of pointer moves and buttons as a person makes one.
    pub(super) async fn pointer_drag(
        &self,
        points: &[Point],
        button: MouseButton,
        modifiers: &[Modifier],
        duration: Duration,
    ) -> Result<()> {
        let Some((first, rest)) = points.split_first() else {
            return Err(Error::bad_argument(
                "a drag needs at least one point: where to press, then the points to move through, the last one where to release",
            ));
        };
        self.move_pointer(*first).await?;
        self.button(button, true, modifiers).await?;
        let step = duration / u32::try_from(rest.len().max(1)).unwrap_or(u32::MAX);
        let mut moved = Ok(());
        for point in rest {
            tokio::time::sleep(step).await;
            moved = self.move_pointer(*point).await;
            if moved.is_err() {
                break;
            }
        }
        // Released even when a move failed, so no drag is left holding the button.
        let released = self.button(button, false, modifiers).await;
        moved.and(released)
    }

    /// Keys sent on Wayland as the core's outcome: all of them, once the app has read them; none,
    /// as the failure; or the part that went out before the failure.
    pub(super) async fn wayland_outcome(
        &self,
        (sent, failed): (usize, Option<Error>),
        total: usize,
        unit: &'static str,
    ) -> Result<InputOutcome> {
        match (sent, failed) {
            (_, None) => {
                self.wayland_keys_read().await?;
                Ok(InputOutcome::Done)
            }
            (0, Some(err)) => Err(err),
            (sent, Some(err)) => Ok(InputOutcome::Partial(Partial {
                sent,
                total,
                unit,
                reason: err.message,
            })),
        }
    }

    pub(super) async fn sway_press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let sway = self.sway_or_err()?;
        let chords: Vec<(Vec<u32>, u32)> = x11::chords(keys)
            .into_iter()
            .map(|chord| (chord.modifiers, chord.key))
            .collect();
        let total = chords.len();
        self.settle_listener().await;
        let sent = sway.press_chords(chords).await.map_err(input_error)?;
        self.wayland_outcome(sent, total, "key chords").await
    }

    pub(super) async fn sway_type_text(&self, text: &str) -> Result<InputOutcome> {
        let sway = self.sway_or_err()?;
        let keysyms: Vec<u32> = text
            .replace("\r\n", "\n")
            .chars()
            .map(x11::keysym_for_char)
            .collect();
        let total = keysyms.len();
        self.settle_listener().await;
        let sent = sway.type_keysyms(keysyms).await.map_err(input_error)?;
        self.wayland_outcome(sent, total, "characters").await
    }

    /// Returns once the compositor has passed every key on and the focused application has
    /// answered an accessibility request since: its main loop, which reads the keys, has run.
    /// A Wayland client cannot be asked directly whether it read its input.
    async fn wayland_keys_read(&self) -> Result<()> {
        let synced = match (self.sway(), self.gnome()) {
            (Some(sway), _) => sway.sync().await,
            (None, Some(gnome)) => gnome.sync().await,
            (None, None) => Err(Error::platform(
                "the session changed from Wayland to another display server; try again",
            )),
        };
        synced.map_err(|err| Error::new(err.kind, err.message).after_sending())?;
        let focused = self.windows().await?.into_iter().find(|w| w.focused);
        if let Some(window) = focused {
            self.answers(&window).await;
        }
        Ok(())
    }
}
