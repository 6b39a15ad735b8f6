//! Text put into an editable text in one request (EditableText), in place of its selection or
//! at its caret, as typing it would: for long text, where one key event per character is slow.

use super::*;

/// What became of an insertion.
#[derive(Debug)]
pub enum Insertion {
    /// The application took the text in place of the selection, else at the caret.
    Inserted,
    /// Nothing was changed: the element takes no text this way, and keys may still go.
    Refused,
    /// A request went out and its answer was lost, or the insert failed once the selection was
    /// already deleted: the text may have changed. Why, in a clause.
    Unconfirmed(String),
}

impl Atspi {
    /// Inserts `text` into `object` where typed keys would go: the first selection is deleted
    /// and the text inserted at its start, else at the caret; then the caret is put after it.
    /// Offsets go back to the toolkit as it gave them, and lengths in the unit it reads.
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
            return Ok(Insertion::Refused);
        };
        let editable = translate::states(
            translate::state_set(&states?),
            deskhand_core::model::Role::Text,
            true,
        )
        .editable;
        if !editable || !interfaces?.iter().any(|i| i == EDITABLE_TEXT) {
            return Ok(Insertion::Refused);
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
            // Without a caret there is no telling where keys would have gone.
            _ => return Ok(Insertion::Refused),
        };
        let deleted = match selection {
            Some((start, end)) => match self
                .call::<_, bool>(object, EDITABLE_TEXT, "DeleteText", &(start, end))
                .await
            {
                Ok(true) => true,
                Err(err) if err.unanswered() => {
                    return Ok(Insertion::Unconfirmed(err.to_string()));
                }
                // An answer that refuses it changed nothing.
                Ok(false) | Err(_) => return Ok(Insertion::Refused),
            },
            None => false,
        };
        let length = i32::try_from(counting.length(text)).unwrap_or(i32::MAX);
        let inserted: Result<bool, AtspiError> = self
            .call(
                object,
                EDITABLE_TEXT,
                "InsertText",
                &(position, text, length),
            )
            .await;
        match inserted {
            Ok(true) => {}
            Err(err) if err.unanswered() => return Ok(Insertion::Unconfirmed(err.to_string())),
            Ok(false) | Err(_) if !deleted => return Ok(Insertion::Refused),
            Ok(false) | Err(_) => {
                return Ok(Insertion::Unconfirmed(
                    "the application deleted the selected text, then refused the text to put in its place"
                        .into(),
                ));
            }
        }
        // Where typing would leave it: Qt's line edit puts it at the end of its whole text.
        let after = i32::try_from(counting.offsets(text)).unwrap_or(i32::MAX);
        let _: Result<bool, _> = self
            .call(
                object,
                TEXT,
                "SetCaretOffset",
                &(position.saturating_add(after),),
            )
            .await;
        Ok(Insertion::Inserted)
    }
}

impl Atspi {
    /// Whether a paste into `object` (on X11) or text committed by the input method (on sway)
    /// lands where typed keys would: it is an editable text that has the keyboard focus, not a
    /// password, in a toolkit whose fields take no insert through accessibility and read keys
    /// slowly (Gecko: about 1,000 key events a second).
    pub async fn takes_paste(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        let root = ObjectRef {
            bus: object.bus.clone(),
            path: ROOT_PATH.into(),
        };
        let (role, states, toolkit) = futures::join!(
            self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
            self.string_property(&root, APPLICATION, "ToolkitName"),
        );
        let role = translate::role(role?);
        let states = translate::states(translate::state_set(&states?), role, true);
        Ok(role == deskhand_core::model::Role::Text
            && states.editable
            && states.focused
            && toolkit.unwrap_or_default().eq_ignore_ascii_case("gecko"))
    }
}

/// How a toolkit that applies inserted text counts; only these toolkits are asked. Gecko
/// answers an insert into a web page's field with success and changes nothing (Firefox 153),
/// and other toolkits are not known to apply it, so their fields get keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counting {
    /// GTK 3 and 4: offsets in characters, an inserted text's length in UTF-8 bytes (ATK's).
    Gtk,
    /// Qt: offsets and lengths in UTF-16 units; its bridge cuts the text to the length given.
    Qt,
}

impl Counting {
    fn of(toolkit: &str) -> Option<Counting> {
        match toolkit.to_ascii_lowercase().as_str() {
            "gtk" => Some(Counting::Gtk),
            "qt" => Some(Counting::Qt),
            _ => None,
        }
    }

    /// The length to pass with `text`.
    fn length(self, text: &str) -> usize {
        match self {
            Counting::Gtk => text.len(),
            Counting::Qt => text.encode_utf16().count(),
        }
    }

    /// How far `text` moves an offset.
    fn offsets(self, text: &str) -> usize {
        match self {
            Counting::Gtk => text.chars().count(),
            Counting::Qt => text.encode_utf16().count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_offsets_count_as_each_toolkit_reads_them() {
        let text = "é😀a";
        assert_eq!(Counting::of("GTK"), Some(Counting::Gtk));
        assert_eq!(Counting::of("gtk"), Some(Counting::Gtk));
        assert_eq!(Counting::of("Qt"), Some(Counting::Qt));
        assert_eq!(Counting::of("Gecko"), None);
        assert_eq!(Counting::of("GAIL"), None);
        assert_eq!(Counting::Gtk.length(text), 7);
        assert_eq!(Counting::Gtk.offsets(text), 3);
        assert_eq!(Counting::Qt.length(text), 4);
        assert_eq!(Counting::Qt.offsets(text), 4);
    }
}
