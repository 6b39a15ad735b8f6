//! The `Input` capability: the pointer, buttons, scrolling and keys, posted as Quartz events.

use std::time::Duration;

use deskhand_core::backend::{Input, InputOutcome, Partial};
use deskhand_core::keys::Keys;
use deskhand_core::model::{Modifier, MouseButton, Point, ScrollDirection};
use deskhand_core::{Error, Result};

use crate::errors::Request;
use crate::keys::{KeyEvent, TYPE_GAP, chord_events, modifier, typing_events};
use crate::permissions::Permission;

use super::find::frontmost_pid;
use super::{MacBackend, blocking, keyboard, quartz, require};

/// A pause between synthetic events: an app drops events that come faster than it reads them.
const EVENT_GAP: Duration = Duration::from_millis(2);

fn flags(modifiers: &[Modifier]) -> u64 {
    modifiers
        .iter()
        .map(|m| modifier((*m).into()).1)
        .fold(0, |all, flag| all | flag)
}

fn input_error(reason: &str) -> Error {
    Error::platform(format!(
        "{reason}; check that deskhand has the Accessibility permission and try again"
    ))
}

impl MacBackend {
    fn held(&self) -> Option<MouseButton> {
        *self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set_held(&self, button: Option<MouseButton>) {
        *self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = button;
    }
}

/// Posts key events on the blocking pool, one gap apart; fails before sending anything when the
/// permission is missing, since macOS drops the events of an untrusted process in silence.
/// `gap` follows each key's release, [`EVENT_GAP`] each press.
async fn post_keys(
    what: &'static str,
    events: Vec<KeyEvent>,
    gap: Duration,
    total: usize,
    unit: &'static str,
) -> Result<InputOutcome> {
    require(Permission::Accessibility)?;
    if !super::keyboard::key_events_ready() {
        return Err(crate::errors::keys_unprepared(what));
    }
    blocking(what, Request::Change, move || {
        let before = frontmost_pid();
        for event in &events {
            quartz::key(event).map_err(|reason| {
                Error::platform(format!("{what} stopped: {reason}")).after_sending()
            })?;
            std::thread::sleep(if event.down { EVENT_GAP } else { gap });
        }
        if frontmost_pid() != before {
            return Ok(InputOutcome::Partial(Partial {
                sent: total,
                total,
                unit,
                reason: "the frontmost app changed while they were sent, so some may have gone to another app"
                    .into(),
            }));
        }
        Ok(InputOutcome::Done)
    })
    .await
}

impl Input for MacBackend {
    async fn pointer(&self) -> Result<Point> {
        quartz::pointer().ok_or_else(|| input_error("the pointer's place could not be read"))
    }

    async fn move_pointer(&self, to: Point) -> Result<()> {
        require(Permission::Accessibility)?;
        quartz::move_pointer(to, self.held()).map_err(input_error)
    }

    async fn button(&self, button: MouseButton, down: bool, modifiers: &[Modifier]) -> Result<()> {
        require(Permission::Accessibility)?;
        let at = self.pointer().await?;
        quartz::button(at, button, down, flags(modifiers), 1).map_err(input_error)?;
        self.set_held(down.then_some(button));
        Ok(())
    }

    async fn click(
        &self,
        at: Point,
        button: MouseButton,
        count: u32,
        modifiers: &[Modifier],
    ) -> Result<()> {
        require(Permission::Accessibility)?;
        quartz::move_pointer(at, None).map_err(input_error)?;
        let flags = flags(modifiers);
        // The n-th click of a double or triple click says so in its click state.
        for click in 1..=i64::from(count) {
            quartz::button(at, button, true, flags, click).map_err(input_error)?;
            quartz::button(at, button, false, flags, click).map_err(input_error)?;
        }
        Ok(())
    }

    async fn scroll(
        &self,
        at: Option<Point>,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<()> {
        require(Permission::Accessibility)?;
        if let Some(at) = at {
            quartz::move_pointer(at, None).map_err(input_error)?;
        }
        let lines = i32::try_from(amount).unwrap_or(i32::MAX);
        let (vertical, horizontal) = match direction {
            ScrollDirection::Up => (lines, 0),
            ScrollDirection::Down => (-lines, 0),
            ScrollDirection::Left => (0, lines),
            ScrollDirection::Right => (0, -lines),
        };
        quartz::scroll(vertical, horizontal).map_err(input_error)
    }

    async fn press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let layout = keyboard::key_table(&self.layouts);
        let mut events = Vec::new();
        for (written, chord) in keys.written() {
            let chord_events = chord_events(chord, &layout).map_err(|err| {
                Error::bad_argument(format!("\"{written}\" cannot be pressed: {err}"))
            })?;
            events.extend(chord_events);
        }
        let chords = keys.chords().len();
        post_keys("Pressing keys", events, EVENT_GAP, chords, "key chords").await
    }

    async fn type_text(&self, text: &str) -> Result<InputOutcome> {
        let layout = keyboard::key_table(&self.layouts);
        let events = typing_events(text, &layout);
        post_keys(
            "Typing",
            events,
            TYPE_GAP,
            text.chars().count(),
            "characters",
        )
        .await
    }
}
