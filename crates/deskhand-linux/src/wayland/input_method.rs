//! Text committed to the focused field through sway's input-method protocol
//! (`zwp_input_method_v2`), as an on-screen keyboard sends it: the app takes the whole text in
//! a few messages where it would read a key event per character (Firefox reads about 1,000 a
//! second, and took over a second for 1,000 characters sent as keys on sway).
//!
//! deskhand is the seat's input method only for one commit: it binds, waits for the focused
//! field to ask for input-method text, commits, and lets go. A seat has at most one input
//! method, so where a person's own (fcitx5, ibus) is bound, sway refuses this one and nothing
//! is sent. Neither the keyboard map nor the clipboard is touched.

use std::time::{Duration, Instant};

use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::WlSeat;
use wayland_client::{Connection, Dispatch, QueueHandle, WEnum, delegate_dispatch, delegate_noop};
use wayland_protocols::wp::text_input::zv3::client::zwp_text_input_v3::ContentPurpose;
use wayland_protocols_misc::zwp_input_method_v2::client::zwp_input_method_manager_v2::ZwpInputMethodManagerV2;
use wayland_protocols_misc::zwp_input_method_v2::client::zwp_input_method_v2::{
    self, ZwpInputMethodV2,
};

use super::WaylandError;
use super::registry::{Globals, bind, connect_with_globals, read_events};

/// How long the focused field has to ask for input-method text once deskhand binds as the input
/// method: the app answers sway's `enter` with its own request (Firefox within a few ms).
const ACTIVATION_WAIT: Duration = Duration::from_millis(500);
/// The most bytes of text in one commit: a Wayland message holds at most 4,096 bytes, and sway
/// passes the text on to the app in a message of its own, which must fit too.
const COMMIT_BYTES: usize = 2_048;

/// What became of a commit.
#[derive(Debug)]
pub enum Commit {
    /// The text went to the focused field, and sway has passed it on.
    Sent,
    /// Nothing was sent: the compositor has no input-method protocol, another input method is
    /// bound, or the focused field did not ask for input-method text or says it is a password.
    /// Keys may still go.
    Declined,
    /// The text went out, and the connection broke before sway confirmed it had passed it on.
    Unconfirmed(WaylandError),
}

/// The state the compositor describes, applied at each `done`.
#[derive(Debug, Default, Clone, Copy)]
struct Field {
    active: bool,
    password: bool,
}

#[derive(Default)]
struct State {
    pending: Field,
    current: Field,
    /// How many `done` events came: the serial a commit names.
    dones: u32,
    unavailable: bool,
}

delegate_dispatch!(State: [WlRegistry: GlobalListContents] => Globals);
delegate_noop!(State: ignore WlSeat);
delegate_noop!(State: ignore ZwpInputMethodManagerV2);

impl Dispatch<ZwpInputMethodV2, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwpInputMethodV2,
        event: zwp_input_method_v2::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            // Activation starts the field's state afresh.
            zwp_input_method_v2::Event::Activate => {
                state.pending = Field {
                    active: true,
                    ..Field::default()
                };
            }
            zwp_input_method_v2::Event::Deactivate => state.pending.active = false,
            zwp_input_method_v2::Event::ContentType { purpose, .. } => {
                state.pending.password = purpose == WEnum::Value(ContentPurpose::Password);
            }
            zwp_input_method_v2::Event::Done => {
                state.current = state.pending;
                state.dones = state.dones.wrapping_add(1);
            }
            zwp_input_method_v2::Event::Unavailable => state.unavailable = true,
            _ => {}
        }
    }
}

/// Commits `text` to the field that has the keyboard focus, once it asks for input-method text;
/// `stop` says a person took over, and then nothing goes.
pub fn commit_text(text: &str, stop: impl Fn() -> bool) -> Result<Commit, WaylandError> {
    const OPERATION: &str = "committing text through the input method";
    let (connection, globals, mut queue) = connect_with_globals::<State>()?;
    let handle = queue.handle();
    let seat: WlSeat = bind(&globals, &handle, 1..=7, "wl_seat")?;
    let Ok(manager) =
        bind::<ZwpInputMethodManagerV2, _>(&globals, &handle, 1..=1, "zwp_input_method_manager_v2")
    else {
        return Ok(Commit::Declined);
    };
    let input_method = manager.get_input_method(&seat, &handle, ());
    let mut state = State::default();
    let asked_by = Instant::now() + ACTIVATION_WAIT;
    let takes_text = loop {
        if state.unavailable {
            break false;
        }
        if state.current.active {
            break !state.current.password;
        }
        let left = asked_by.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break false;
        }
        read_events(&mut queue, &mut state, left, OPERATION)?;
    };
    if !takes_text {
        input_method.destroy();
        let _ = connection.flush();
        return Ok(Commit::Declined);
    }
    if stop() {
        input_method.destroy();
        let _ = connection.flush();
        return Err(WaylandError::PersonTookOver);
    }
    for piece in pieces(text, COMMIT_BYTES) {
        input_method.commit_string(piece.to_owned());
        input_method.commit(state.dones);
    }
    // Once sway has answered a round trip after the commits, it has passed them on to the app,
    // ahead of the `leave` it sends when this input method goes.
    if let Err(err) = queue.roundtrip(&mut state) {
        return Ok(Commit::Unconfirmed(WaylandError::Lost {
            operation: OPERATION,
            cause: err.to_string(),
        }));
    }
    input_method.destroy();
    let _ = connection.flush();
    Ok(Commit::Sent)
}

/// `text` in pieces of at most `bytes` bytes, each cut at a character's boundary.
fn pieces(text: &str, bytes: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = rest.len().min(bytes);
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        // A character longer than a piece goes whole.
        if end == 0 {
            end = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_keep_every_character_whole_and_in_order() {
        let text = "aé日😀".repeat(300);
        let cut: Vec<&str> = pieces(&text, 7).collect();
        assert!(
            cut.iter()
                .all(|piece| piece.len() <= 7 && !piece.is_empty())
        );
        assert_eq!(cut.concat(), text);
        assert_eq!(pieces("", 7).count(), 0);
        assert_eq!(pieces("😀😀", 2).collect::<Vec<_>>(), ["😀", "😀"]);
        assert_eq!(pieces("short", COMMIT_BYTES).collect::<Vec<_>>(), ["short"]);
    }
}
