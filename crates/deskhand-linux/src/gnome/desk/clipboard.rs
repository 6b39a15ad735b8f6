//! The clipboard on GNOME: read and written through deskhand's extension, and text pasted where
//! keys cannot carry it, with the user's clipboard put back after.

use std::time::Duration;

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::ClipboardContent;

use super::GnomeError;
use crate::gnome::remote::SessionClipboard;
use crate::gnome::shell::Shell;

use super::*;

impl Gnome {
    pub async fn read_clipboard(&self) -> Result<ClipboardContent> {
        let (text, types) = self
            .shell()
            .await?
            .read_clipboard()
            .await
            .map_err(gnome_error)?;
        Ok(ClipboardContent { text, types })
    }

    pub async fn write_clipboard(&self, text: &str) -> Result<()> {
        self.shell()
            .await?
            .write_clipboard(text)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    /// Pastes `text` into the focused window with ctrl+v through the remote-desktop session's
    /// clipboard, which tells when the app asks for it, and puts the user's clipboard back
    /// afterwards through the shell, whose clipboard outlives deskhand's process (the session's
    /// offer ends with it). A clipboard that cannot be read, or holds no text, is refused
    /// before anything is sent: it could not be put back.
    pub async fn paste(&self, text: &str) -> Result<Pasted> {
        let _one = self.pasting.lock().await;
        let shell = self.shell().await?;
        let input = self.input().await?;
        let mut clipboard = input.clipboard().await.map_err(gnome_error)?;
        let saved = save(shell, &clipboard).await?;
        if let Err(err) = clipboard.offer(&PASTE_TYPES).await {
            let _ = clipboard.withdraw().await;
            return Err(gnome_error(err));
        }
        clipboard.leave_early_requests(EARLY_REQUESTS).await;
        let pressed = self
            .press_chords(&[(vec![xkeysym::key::Control_L], xkeysym::key::v)])
            .await;
        let served = match pressed {
            Ok((1, None)) => {
                clipboard
                    .serve(text.as_bytes(), PASTE_WAIT, PASTE_QUIET)
                    .await
            }
            Ok((_, failed)) => Err(GnomeError::BadReply(failed.map_or_else(
                || "ctrl+v was not sent".to_owned(),
                |err| format!("ctrl+v was not sent: {}", err.message),
            ))),
            Err(err) => Err(GnomeError::BadReply(format!(
                "ctrl+v was not sent: {}",
                err.message
            ))),
        };
        let restored = restore(shell, clipboard, &saved).await;
        let (clause, restore_failed) = match restored {
            Ok(clause) => (clause, false),
            Err(err) => (
                format!(
                    "the clipboard could not be put back as it was ({}), and it may hold the pasted text now: set it with `clipboard` if the user needs what it held",
                    err.message.trim_end_matches('.')
                ),
                true,
            ),
        };
        let served = served.map_err(|err| {
            let failed = gnome_error(err);
            Error::new(failed.kind, format!("{}; {clause}", failed.message)).after_sending()
        })?;
        Ok(Pasted {
            taken: served > 0,
            clipboard: clause,
            restore_failed,
        })
    }

    /// Refuses, before anything is typed, a paste whose clipboard could not be put back: one
    /// that holds something but no text, or cannot be read.
    pub async fn clipboard_restorable(&self) -> Result<()> {
        text_type(self.shell().await?).await.map(|_| ())
    }
}

/// The types a paste is offered as: what Wayland apps and, through XWayland, X apps ask text as.
pub(super) const PASTE_TYPES: [&str; 3] = ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain"];

/// Types of a clipboard's content that are its text, the first offered read to put it back.
pub(super) const TEXT_TYPES: [&str; 4] = [
    "text/plain;charset=utf-8",
    "UTF8_STRING",
    "text/plain",
    "STRING",
];

/// Types X apps offer about a selection (`TARGETS` …) or as its text in older encodings: the
/// text put back stands for them.
pub(super) const META_TYPES: [&str; 6] = [
    "TARGETS",
    "TIMESTAMP",
    "MULTIPLE",
    "SAVE_TARGETS",
    "TEXT",
    "COMPOUND_TEXT",
];

/// An app asks for pasted text as it handles ctrl+v; a loaded machine may take a second.
pub const PASTE_WAIT: Duration = Duration::from_secs(2);

/// Some apps ask once for each type they know: more requests come this soon after the first.
pub(super) const PASTE_QUIET: Duration = Duration::from_millis(150);

/// Mutter asks for a copy of a new offer before it answers the offer: such requests come
/// within this of each other.
pub(super) const EARLY_REQUESTS: Duration = Duration::from_millis(50);

/// How long the app that holds the clipboard has to hand its content over.
pub(super) const CLIPBOARD_READ: Duration = Duration::from_secs(2);

/// What a paste did with the user's clipboard, for the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pasted {
    /// Whether the app asked for the text: false when ctrl+v went out and no request came.
    pub taken: bool,
    /// What became of the user's clipboard, as a clause of the reply.
    pub clipboard: String,
    /// The clipboard could not be put back: the reply says so, and it is not `done`.
    pub restore_failed: bool,
}

/// The user's clipboard as it was before a paste, to be put back.
pub(super) enum Saved {
    Empty,
    /// Its text, and the types it was offered as beyond text, which are not put back.
    Text {
        text: String,
        lost: Vec<String>,
    },
}

/// A refusal to paste because the user's clipboard could not be put back afterwards.
pub(super) fn unrestorable(why: String) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!(
            "characters beyond printable ASCII reach this window (it takes no input-method text) only by pasting, and the clipboard, which deskhand would put back afterwards, {why}, so deskhand pasted nothing; type the text without those characters, or set it with `value` where the element allows it"
        ),
    )
}

/// The types the clipboard is offered as now, and the one its text is read as to be put back
/// ([`text_type_of`]). The shell lists the types (Mutter names them only once a session, when
/// its clipboard is enabled).
pub(super) async fn text_type(shell: &Shell) -> Result<(Vec<String>, Option<&'static str>)> {
    let (_, types) = shell
        .read_clipboard()
        .await
        .map_err(|err| unrestorable(format!("cannot be read ({})", gnome_error(err).message)))?;
    let mime = text_type_of(&types)?;
    Ok((types, mime))
}

/// The type a clipboard offered as `types` has its text read as: `None` when it is empty;
/// refused when it holds something but no text.
pub(super) fn text_type_of(types: &[String]) -> Result<Option<&'static str>> {
    if types.is_empty() {
        return Ok(None);
    }
    match TEXT_TYPES.iter().find(|t| types.iter().any(|o| o == *t)) {
        Some(mime) => Ok(Some(mime)),
        None => Err(unrestorable(format!(
            "holds no text but {}, which deskhand cannot put back",
            types.join(", ")
        ))),
    }
}

/// The forms beyond its text that a clipboard offered as `types` holds: putting its text back
/// loses them.
pub(super) fn lost_forms(types: &[String]) -> Vec<String> {
    types
        .iter()
        .filter(|t| {
            !TEXT_TYPES.contains(&t.as_str())
                && !META_TYPES.contains(&t.as_str())
                && !t.starts_with("text/plain")
        })
        .cloned()
        .collect()
}

/// Reads what the clipboard holds before a paste: its text, read from its owner through Mutter
/// within a bound of time and size, the other types named as lost; refused when it holds
/// something but no text, or its text cannot be read.
pub(super) async fn save(shell: &Shell, clipboard: &SessionClipboard<'_>) -> Result<Saved> {
    let (types, mime) = text_type(shell).await?;
    let Some(mime) = mime else {
        return Ok(Saved::Empty);
    };
    let bytes = clipboard
        .read(mime, CLIPBOARD_READ)
        .await
        .map_err(|err| unrestorable(format!("cannot be read ({err})")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| unrestorable(format!("holds text as {mime} that is not UTF-8")))?;
    Ok(Saved::Text {
        text,
        lost: lost_forms(&types),
    })
}

/// Puts the user's clipboard back as it was saved, and reads it back: the clause the reply says
/// of it.
pub(super) async fn restore(
    shell: &Shell,
    clipboard: SessionClipboard<'_>,
    saved: &Saved,
) -> Result<String> {
    let back = match saved {
        Saved::Empty => clipboard.withdraw().await.map_err(gnome_error),
        Saved::Text { text, .. } => {
            let written = shell.write_clipboard(text).await.map_err(gnome_error);
            // Withdrawn after the shell took the clipboard, so it is never empty in between.
            let withdrawn = clipboard.withdraw().await.map_err(gnome_error);
            written.and(withdrawn)
        }
    };
    back?;
    let (now, types) = shell.read_clipboard().await.map_err(gnome_error)?;
    match saved {
        Saved::Empty if types.is_empty() => Ok("the clipboard is empty again, as it was".into()),
        Saved::Text { text, lost } if now.as_deref() == Some(text.as_str()) => {
            Ok(if lost.is_empty() {
                "the clipboard holds its text again (read back)".into()
            } else {
                format!(
                    "the clipboard holds its text again (read back), but not the other forms it held ({}), which deskhand cannot put back",
                    lost.join(", ")
                )
            })
        }
        _ => Err(Error::platform(
            "it reads back differently; another program may have taken the clipboard meanwhile",
        )),
    }
}
