//! `clipboard`: reads the clipboard, or writes text to it and reads it back.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, MAX_CLIPBOARD_CHARS, Reaches,
};
use crate::backend::Clipboard;
use crate::desk::answer::{Acted, Did, Listed};
use crate::desk::reply::Reply;
use crate::error::{Error, Result};

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Clipboard,
    text: "clipboard",
    fields: &["text"],
    changes: Changes::WhenWriting,
    reaches: Reaches::Nothing,
    keeps: &[Kept::Characters],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    match given.args.text.clone() {
        None => Ok(Action::ReadClipboard),
        Some(text) if text.chars().count() > MAX_CLIPBOARD_CHARS => {
            Err(Error::bad_argument(format!(
                "`text` has more than {MAX_CLIPBOARD_CHARS} characters; put less on the clipboard"
            )))
        }
        Some(text) => Ok(Action::WriteClipboard { text }),
    }
}

pub(crate) async fn read_clipboard<B: Clipboard>(backend: &B) -> Result<Reply> {
    let content = backend.read_clipboard().await?;
    Ok(Listed::Clipboard {
        text: content.text,
        types: content.types,
    }
    .into())
}

pub(crate) async fn write_clipboard<B: Clipboard>(backend: &B, text: &str) -> Result<Reply> {
    backend.write_clipboard(text).await?;
    let back = backend.read_clipboard().await?;
    // The text is not echoed: it may be a secret the user asked to paste.
    Ok(Acted::done(Did::WriteClipboard {
        characters: text.chars().count(),
        read_back: back.text.as_deref() == Some(text),
    })
    .into())
}
