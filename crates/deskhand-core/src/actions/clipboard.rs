//! `clipboard`: reads the clipboard, or writes text to it and reads it back.

use crate::backend::Clipboard;
use crate::desk::answer::{Acted, Did, Listed};
use crate::desk::reply::Reply;
use crate::error::Result;

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
