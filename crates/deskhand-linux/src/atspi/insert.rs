//! Text put into an editable text in one request (EditableText), in place of its selection or
//! at its caret, as typing it would: for long text, where one key event per character is slow.

use super::*;

/// What became of an insertion.
#[derive(Debug)]
pub enum Insertion {
    /// The application took the text in place of the selection, else at the caret.
    Inserted,
    /// Nothing was changed: the element takes no text this way (why, in a clause), and keys
    /// may still go.
    Refused(&'static str),
    /// A request went out and its answer was lost, or the insert failed once the selection was
    /// already deleted: the text may have changed. Why, in a clause.
    Unconfirmed(String),
}

impl Atspi {
    /// Inserts `text` into `object` where typed keys would go: the first selection is deleted
    /// and the text inserted at its start, else at the caret; then the caret is put after it.
    /// Offsets go back to the toolkit as it gave them, and the length in the unit it reads.
    pub async fn insert_text(
        &self,
        object: &ObjectRef,
        text: &str,
    ) -> Result<Insertion, AtspiError> {
        let root = ObjectRef {
            bus: object.bus.clone(),
            path: ROOT_PATH.into(),
        };
        let (interfaces, states, toolkit, caret, selections) = futures::join!(
            self.interfaces(object),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
            self.string_property(&root, APPLICATION, "ToolkitName"),
            self.property(object, TEXT, "CaretOffset"),
            self.call::<_, i32>(object, TEXT, "GetNSelections", &()),
        );
        let Some(counting) = Counting::of(&toolkit.unwrap_or_default()) else {
            return Ok(Insertion::Refused(
                "its toolkit is not one known to apply text put in this way",
            ));
        };
        if !interfaces?.iter().any(|i| i == EDITABLE_TEXT) {
            return Ok(Insertion::Refused("it does not implement EditableText"));
        }
        let editable = translate::states(
            translate::state_set(&states?),
            deskhand_core::model::Role::Text,
            true,
        )
        .editable;
        if !editable {
            return Ok(Insertion::Refused("it is not editable now"));
        }
        let selection = match selections {
            Ok(n) if n > 0 => self
                .call::<_, (i32, i32)>(object, TEXT, "GetSelection", &(0i32,))
                .await
                .ok()
                .filter(|(start, end)| start < end),
            _ => None,
        };
        let caret = caret.ok().and_then(|c| i32::try_from(c).ok());
        let position = match (selection, caret) {
            (Some((start, _)), _) => start,
            (None, Some(caret)) if caret >= 0 => caret,
            _ => return Ok(Insertion::Refused("it tells no caret to insert at")),
        };
        let deleted = match selection {
            Some((start, end)) => {
                match self
                    .call::<_, bool>(object, EDITABLE_TEXT, "DeleteText", &(start, end))
                    .await
                {
                    Ok(true) => true,
                    Ok(false) => {
                        return Ok(Insertion::Refused("it refused to delete its selection"));
                    }
                    Err(err) if err.unanswered() => {
                        return Ok(Insertion::Unconfirmed(err.to_string()));
                    }
                    Err(_) => return Ok(Insertion::Refused("it refused to delete its selection")),
                }
            }
            None => false,
        };
        let length = match counting {
            Counting::Utf16 => text.encode_utf16().count(),
            Counting::Characters => text.len(),
        };
        let length = i32::try_from(length).unwrap_or(i32::MAX);
        match self
            .call::<_, bool>(
                object,
                EDITABLE_TEXT,
                "InsertText",
                &(position, text, length),
            )
            .await
        {
            Ok(true) => {}
            Ok(false) if !deleted => return Ok(Insertion::Refused("it refused the text")),
            Err(err) if !deleted && !err.unanswered() => {
                return Ok(Insertion::Refused("it refused the text"));
            }
            Ok(false) => {
                return Ok(Insertion::Unconfirmed(
                    "the application deleted the selected text, then refused the text to put in its place".into(),
                ));
            }
            Err(err) => return Ok(Insertion::Unconfirmed(err.to_string())),
        }
        // Where typing would leave it: Qt's line edit puts it at the end of its text.
        let after = match counting {
            Counting::Utf16 => text.encode_utf16().count(),
            Counting::Characters => text.chars().count(),
        };
        let caret = position.saturating_add(i32::try_from(after).unwrap_or(i32::MAX));
        let _: Result<bool, _> = self.call(object, TEXT, "SetCaretOffset", &(caret,)).await;
        Ok(Insertion::Inserted)
    }
}

/// How a toolkit that applies inserted text counts: only these are asked. Gecko answers an
/// insert into a web page's field with success and changes nothing (Firefox 153), so keys
/// must go there; other toolkits are not known to apply it before the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counting {
    /// GTK 3 and 4: offsets in characters, an inserted text's length in UTF-8 bytes (ATK's).
    Characters,
    /// Qt: offsets and length in UTF-16 units (its bridge cuts the text to that length).
    Utf16,
}

impl Counting {
    fn of(toolkit: &str) -> Option<Counting> {
        let toolkit = toolkit.to_ascii_lowercase();
        if toolkit == "gtk" {
            Some(Counting::Characters)
        } else if toolkit == "qt" {
            Some(Counting::Utf16)
        } else {
            None
        }
    }
}
