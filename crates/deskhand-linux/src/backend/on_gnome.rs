//! The capability traits' bodies on GNOME that need more than one call into [`Gnome`]: keys and
//! text with their confirmation, and modified buttons.

use std::time::Duration;

use deskhand_core::backend::InputOutcome;
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::keys::Keys;
use deskhand_core::model::{Modifier, MouseButton};

use super::{LinuxBackend, modifier_keysyms};
use crate::gnome::Gnome;
use crate::x11;

/// The protocol that carries input-method text caps one message below 4000 bytes.
const COMMIT_BYTES: usize = 1000;

/// A field that just took the focus turns its input method on a moment later.
const INPUT_METHOD_WAIT: Duration = Duration::from_millis(150);

/// One step of typing on GNOME.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text for the input method, as GNOME's on-screen keyboard sends it.
    Text(String),
    /// A key: Return and Tab, which the input method does not carry.
    Key(u32),
}

/// Text as input-method pieces between the keys it holds, each piece below the protocol's cap.
fn pieces(text: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut run = String::new();
    for c in text.chars() {
        let key = match c {
            '\n' => Some(xkeysym::key::Return),
            '\t' => Some(xkeysym::key::Tab),
            _ => None,
        };
        if (key.is_some() || run.len() + c.len_utf8() > COMMIT_BYTES) && !run.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut run)));
        }
        match key {
            Some(keysym) => pieces.push(Piece::Key(keysym)),
            None => run.push(c),
        }
    }
    if !run.is_empty() {
        pieces.push(Piece::Text(run));
    }
    pieces
}

/// How many characters of `text`, from its start, GNOME can type as keys of any keyboard
/// layout: printable ASCII, Return and Tab. It drops a keysym its keymap lacks without a word.
fn typable_as_keys(text: &str) -> usize {
    text.chars()
        .take_while(|&c| c == '\n' || c == '\t' || (' '..='~').contains(&c))
        .count()
}

impl LinuxBackend {
    fn gnome_or_err(&self) -> Result<&Gnome> {
        self.gnome().ok_or_else(|| {
            Error::platform("the session changed from GNOME to another display server; try again")
        })
    }

    pub(super) async fn gnome_button(
        &self,
        button: MouseButton,
        down: bool,
        modifiers: &[Modifier],
    ) -> Result<()> {
        let gnome = self.gnome_or_err()?;
        self.settle_listener().await;
        let held = modifier_keysyms(modifiers);
        if down {
            gnome.keys(&held, true).await?;
            gnome.button(button, true).await
        } else {
            let released = gnome.button(button, false).await;
            let unheld = gnome.keys(&held, false).await;
            released.and(unheld)
        }
    }

    pub(super) async fn gnome_press_keys(&self, keys: &Keys) -> Result<InputOutcome> {
        let gnome = self.gnome_or_err()?;
        let chords: Vec<(Vec<u32>, u32)> = x11::chords(keys)
            .into_iter()
            .map(|chord| (chord.modifiers, chord.key))
            .collect();
        let total = chords.len();
        self.settle_listener().await;
        let sent = gnome.press_chords(&chords).await?;
        self.wayland_outcome(sent, total, "key chords").await
    }

    /// Text through the input method when the focused field takes it, which carries every
    /// character whatever the keymap; as keys otherwise, which carry only what every layout has.
    pub(super) async fn gnome_type_text(&self, text: &str) -> Result<InputOutcome> {
        let gnome = self.gnome_or_err()?;
        let text = text.replace("\r\n", "\n");
        let total = text.chars().count();
        self.settle_listener().await;
        let mut sent = 0;
        let mut in_flight = false;
        for piece in pieces(&text) {
            // Keys go through the shell's input queue and text does not, and the shell hands
            // the app only the last text committed before a frame: whatever went before must
            // have reached the app before the next piece goes.
            if in_flight && let Err(err) = gnome.sync().await {
                return self
                    .wayland_outcome((sent, Some(err.after_sending())), total, "characters")
                    .await;
            }
            in_flight = true;
            match piece {
                Piece::Key(keysym) => {
                    if let (_, Some(err)) = gnome.press_chords(&[(Vec::new(), keysym)]).await? {
                        return self
                            .wayland_outcome((sent, Some(err)), total, "characters")
                            .await;
                    }
                    sent += 1;
                }
                Piece::Text(run) => {
                    let mut committed = gnome.commit_text(&run).await;
                    if matches!(committed, Ok(false)) && sent == 0 {
                        tokio::time::sleep(INPUT_METHOD_WAIT).await;
                        committed = gnome.commit_text(&run).await;
                    }
                    // A commit that failed may have reached the app: what went before it is
                    // the part sent, never a failure of the whole.
                    let committed = match committed {
                        Ok(committed) => committed,
                        Err(err) => {
                            return self
                                .wayland_outcome((sent, Some(err)), total, "characters")
                                .await;
                        }
                    };
                    if !committed {
                        return self.gnome_type_as_keys(&text, sent, total).await;
                    }
                    sent += run.chars().count();
                }
            }
        }
        self.wayland_outcome((sent, None), total, "characters")
            .await
    }

    /// The rest of `text`, from character `sent`, as keys: into a window that takes no
    /// input-method text (an XWayland app, a terminal, a list that types ahead).
    async fn gnome_type_as_keys(
        &self,
        text: &str,
        sent: usize,
        total: usize,
    ) -> Result<InputOutcome> {
        let gnome = self.gnome_or_err()?;
        let rest: String = text.chars().skip(sent).collect();
        let typable = typable_as_keys(&rest);
        let chords: Vec<(Vec<u32>, u32)> = rest
            .chars()
            .take(typable)
            .map(|c| (Vec::new(), x11::keysym_for_char(c)))
            .collect();
        let (pressed, failed) = gnome.press_chords(&chords).await?;
        let sent = sent + pressed;
        if let Some(err) = failed {
            return self
                .wayland_outcome((sent, Some(err)), total, "characters")
                .await;
        }
        if typable < rest.chars().count() {
            let refused = Error::new(
                ErrorKind::Unsupported,
                "the focused window takes no input-method text, and GNOME types only the keys of its keyboard layout into it, so characters beyond printable ASCII cannot be typed there; set the text with `value` where the element allows it, or type it without those characters",
            );
            return self
                .wayland_outcome((sent, Some(refused)), total, "characters")
                .await;
        }
        self.wayland_outcome((sent, None), total, "characters")
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_goes_to_the_input_method_between_returns_and_tabs_in_capped_pieces() {
        assert_eq!(
            pieces("Hé\n€\tx"),
            vec![
                Piece::Text("Hé".into()),
                Piece::Key(xkeysym::key::Return),
                Piece::Text("€".into()),
                Piece::Key(xkeysym::key::Tab),
                Piece::Text("x".into()),
            ]
        );
        assert_eq!(pieces("\n\n"), vec![Piece::Key(xkeysym::key::Return); 2]);
        let long = "€".repeat(COMMIT_BYTES);
        let split = pieces(&long);
        assert!(split.len() > 1);
        assert!(
            split
                .iter()
                .all(|p| matches!(p, Piece::Text(t) if t.len() <= COMMIT_BYTES))
        );
        let joined: String = split
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.as_str(),
                Piece::Key(_) => "",
            })
            .collect();
        assert_eq!(joined, long);
    }

    #[test]
    fn only_printable_ascii_returns_and_tabs_are_typed_as_keys() {
        assert_eq!(typable_as_keys("ls -la ~\n\tok"), 12);
        assert_eq!(typable_as_keys("abc€d"), 3);
        assert_eq!(typable_as_keys("é"), 0);
    }
}
