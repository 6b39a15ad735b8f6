//! The `Clipboard` capability: the general pasteboard's text.

use deskhand_core::backend::Clipboard;
use deskhand_core::model::ClipboardContent;
use deskhand_core::{Error, Result};

use crate::errors::Request;

use super::{MacBackend, appkit, blocking};

impl Clipboard for MacBackend {
    async fn read_clipboard(&self) -> Result<ClipboardContent> {
        blocking("Reading the clipboard", Request::Read, || {
            let (text, types) = appkit::read_pasteboard();
            Ok(ClipboardContent { text, types })
        })
        .await
    }

    async fn write_clipboard(&self, text: &str) -> Result<()> {
        let text = text.to_owned();
        blocking("Writing the clipboard", Request::Change, move || {
            if appkit::write_pasteboard(&text) {
                Ok(())
            } else {
                Err(Error::platform(
                    "the pasteboard refused the text; try again, or type the text instead",
                ))
            }
        })
        .await
    }
}
