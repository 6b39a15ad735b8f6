//! One element's states, actions, text and values, read and changed.

use std::time::Duration;

use futures::future::join_all;
use zbus::zvariant::OwnedObjectPath;

use deskhand_core::model::{Rect, Role};

use super::*;

impl Atspi {
    /// The element's extents in the coordinates its toolkit reports for the screen.
    pub async fn extents(&self, object: &ObjectRef) -> Result<Option<Rect>, AtspiError> {
        let (x, y, w, h): (i32, i32, i32, i32) = self
            .call(object, COMPONENT, "GetExtents", &(COORD_SCREEN,))
            .await?;
        Ok((w > 0 && h > 0).then(|| Rect::new(x, y, w as u32, h as u32)))
    }

    /// The actions' programmatic names ("click", "press"), which do not change with the UI
    /// language; `GetActions` gives translated names ("Klicken") and Chromium leaves them empty.
    pub async fn action_names(&self, object: &ObjectRef) -> Result<Vec<String>, AtspiError> {
        let count = i32::try_from(self.property(object, ACTION, "NActions").await?).unwrap_or(0);
        let names = (0..count.clamp(0, 32))
            .map(|index| async move { self.call(object, ACTION, "GetName", &(index,)).await });
        join_all(names).await.into_iter().collect()
    }

    /// All actions in one call, as the element lists them for people: translated, and empty in
    /// Chromium. Enough to know an element can be acted on; not to choose which action to run.
    pub async fn listed_actions(&self, object: &ObjectRef) -> Result<Vec<String>, AtspiError> {
        let actions: Vec<(String, String, String)> =
            self.call(object, ACTION, "GetActions", &()).await?;
        Ok(actions.into_iter().map(|(name, _, _)| name).collect())
    }

    /// Runs the action at `index`; false when the element refused it.
    pub async fn do_action(&self, object: &ObjectRef, index: usize) -> Result<bool, AtspiError> {
        let index = i32::try_from(index).unwrap_or(i32::MAX);
        self.call(object, ACTION, "DoAction", &(index,)).await
    }

    /// All of an element's text. GTK4 answers an end offset of -1 with nothing, so an empty
    /// answer is asked again with the real length.
    pub async fn text(&self, object: &ObjectRef) -> Result<String, AtspiError> {
        let text: String = self.call(object, TEXT, "GetText", &(0i32, -1i32)).await?;
        if !text.is_empty() {
            return Ok(text);
        }
        let count = self.property(object, TEXT, "CharacterCount").await?;
        match i32::try_from(count) {
            Ok(count) if count > 0 => self.call(object, TEXT, "GetText", &(0i32, count)).await,
            _ => Ok(text),
        }
    }

    /// A `Value` property (`CurrentValue`, `MinimumValue`, `MaximumValue`); `None` when it is not
    /// a number.
    pub async fn number(&self, object: &ObjectRef, name: &str) -> Result<Option<f64>, AtspiError> {
        Ok(f64::try_from(self.property(object, VALUE, name).await?).ok())
    }

    /// The value an observation shows: the text where it is wanted, else the number. Only a
    /// read the application left unanswered is an error (a walk counts it); a reading that
    /// failed otherwise (an interface the element lacks) is just absent.
    pub(super) async fn value(
        &self,
        object: &ObjectRef,
        reads: ValueReads,
    ) -> Result<Option<String>, AtspiError> {
        let (text, number) = futures::join!(
            async {
                if reads.text {
                    Some(self.text(object).await)
                } else {
                    None
                }
            },
            async {
                if reads.number {
                    Some(self.number(object, "CurrentValue").await)
                } else {
                    None
                }
            },
        );
        let text = answered(text)?;
        let number = answered(number)?.flatten();
        Ok(text.or_else(|| number.map(format_number)))
    }

    /// The element's value read now, exactly as the tree walk reads it.
    pub async fn element_value(&self, object: &ObjectRef) -> Result<Option<String>, AtspiError> {
        Ok(self.value_read(object).await?.value)
    }

    /// The element's role and value, and whether its text was read and is empty.
    async fn value_read(&self, object: &ObjectRef) -> Result<ValueRead, AtspiError> {
        let (role, state, interfaces, name) = futures::join!(
            self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
            self.interfaces(object),
            self.string_property(object, ACCESSIBLE, "Name"),
        );
        let role = translate::role(role?);
        // Whether Showing is reliable only changes visibility, which does not decide the value.
        let states = translate::states(translate::state_set(&state?), role, true);
        let name = name.unwrap_or_default();
        let reads = ValueReads::of(role, states.editable, name.trim().is_empty(), &interfaces?);
        let raw = self.value(object, reads).await?;
        let empty_text = reads.text && raw.as_deref().is_some_and(str::is_empty);
        let embedded = match &raw {
            Some(raw) if raw.contains(EMBEDDED) => self.embedded_children(object).await,
            _ => Vec::new(),
        };
        let embedded: Vec<Embedded<'_>> = embedded
            .iter()
            .map(|(role, editable, words)| Embedded::of(*role, *editable, words.as_deref()))
            .collect();
        let value = raw.and_then(|raw| finish_value(raw, role, states.editable, &embedded, &name));
        let value = match value {
            None if role == Role::Combobox => {
                chosen_unless_name(self.chosen_option(object).await?, &name)
            }
            value => value,
        };
        Ok(ValueRead {
            role,
            empty_text,
            value,
        })
    }

    /// All the text the element shows: its value as [`Atspi::element_value`] reads it, else its
    /// name (a label's whole text). A text field's name is its label, never what it holds: an
    /// empty one reads as empty, where GTK 4.8 names a read-only text view "GtkTextView".
    pub async fn element_text(&self, object: &ObjectRef) -> Result<String, AtspiError> {
        let read = self.value_read(object).await?;
        match read.value {
            Some(value) => Ok(value),
            None if read.empty_text && matches!(read.role, Role::Text | Role::Terminal) => {
                Ok(String::new())
            }
            None => self.string_property(object, ACCESSIBLE, "Name").await,
        }
    }

    /// The role, whether it is edited text, and words (name, else text) of each child embedded
    /// in the element's text, in the order their U+FFFC stand.
    pub(super) async fn embedded_children(
        &self,
        object: &ObjectRef,
    ) -> Vec<(Role, bool, Option<String>)> {
        let children = self.children(object).await.unwrap_or_default();
        let reads = children.iter().map(|child| async move {
            let (role, interfaces, name) = futures::join!(
                self.call::<_, u32>(child, ACCESSIBLE, "GetRole", &()),
                self.interfaces(child),
                self.string_property(child, ACCESSIBLE, "Name"),
            );
            let interfaces = interfaces.ok()?;
            if !interfaces.iter().any(|i| i == HYPERLINK) {
                return None;
            }
            let name = name.unwrap_or_default();
            let words = if name.trim().is_empty() {
                self.text(child).await.ok()
            } else {
                Some(name)
            };
            let editable = interfaces.iter().any(|i| i == EDITABLE_TEXT);
            Some((translate::role(role.ok()?), editable, words))
        });
        join_all(reads).await.into_iter().flatten().collect()
    }

    /// The option a closed drop-down shows (Chromium's `<select>` gives its text only as an
    /// embedded object): the selected child of its list.
    pub(super) async fn chosen_option(
        &self,
        combobox: &ObjectRef,
    ) -> Result<Option<String>, AtspiError> {
        for list in self.children(combobox).await? {
            let chosen: Result<(String, OwnedObjectPath), _> = self
                .call(&list, SELECTION, "GetSelectedChild", &(0i32,))
                .await;
            let Some(option) = chosen.ok().and_then(element) else {
                continue;
            };
            let name = self.string_property(&option, ACCESSIBLE, "Name").await?;
            if !name.trim().is_empty() {
                return Ok(Some(name));
            }
        }
        Ok(None)
    }

    /// Whether the element is enabled, as an observation says it.
    pub async fn enabled(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        let words: Vec<u32> = self.call(object, ACCESSIBLE, "GetState", &()).await?;
        // Role and Showing decide other states, not this one.
        Ok(translate::states(translate::state_set(&words), Role::Unknown, true).enabled)
    }

    pub async fn interfaces(&self, object: &ObjectRef) -> Result<Vec<String>, AtspiError> {
        self.call(object, ACCESSIBLE, "GetInterfaces", &()).await
    }

    /// Replaces all of an editable text; false when the element refused.
    pub async fn set_text_contents(
        &self,
        object: &ObjectRef,
        text: &str,
    ) -> Result<bool, AtspiError> {
        self.call(object, EDITABLE_TEXT, "SetTextContents", &(text,))
            .await
    }

    /// The element's whole text, its caret and its first selection (character offsets), where
    /// the toolkit keeps them.
    pub async fn text_state(
        &self,
        object: &ObjectRef,
    ) -> Result<(String, Option<i32>, Option<(i32, i32)>), AtspiError> {
        let (text, caret, selections) = futures::join!(
            self.text(object),
            self.property(object, TEXT, "CaretOffset"),
            self.call::<_, i32>(object, TEXT, "GetNSelections", &()),
        );
        let caret = caret.ok().and_then(|c| i32::try_from(c).ok());
        let selection = match selections {
            Ok(n) if n > 0 => self
                .call::<_, (i32, i32)>(object, TEXT, "GetSelection", &(0i32,))
                .await
                .ok(),
            _ => None,
        };
        Ok((text?, caret, selection))
    }

    /// Selects all of the element's text; false when the toolkit refused. A toolkit that keeps
    /// no selection yet may refuse to change selection 0 and take a new one instead.
    pub async fn select_all_text(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        let count =
            i32::try_from(self.property(object, TEXT, "CharacterCount").await?).unwrap_or(0);
        if count == 0 {
            return Ok(true);
        }
        if self
            .call(object, TEXT, "SetSelection", &(0i32, 0i32, count))
            .await?
        {
            return Ok(true);
        }
        self.call(object, TEXT, "AddSelection", &(0i32, count))
            .await
    }

    pub async fn set_current_value(
        &self,
        object: &ObjectRef,
        value: f64,
    ) -> Result<(), AtspiError> {
        self.call(
            object,
            "org.freedesktop.DBus.Properties",
            "Set",
            &(VALUE, "CurrentValue", zbus::zvariant::Value::F64(value)),
        )
        .await
    }

    pub async fn grab_focus(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        self.call(object, COMPONENT, "GrabFocus", &()).await
    }

    /// Whether the application behind `bus` answers a state read within `timeout`; a probe that
    /// neither waits a full call timeout nor marks the application stalled.
    pub async fn answers(&self, bus: &str, timeout: Duration) -> bool {
        let root = ObjectRef {
            bus: bus.to_owned(),
            path: ROOT_PATH.into(),
        };
        self.send::<_, Vec<u32>>(&root, ACCESSIBLE, "GetState", &(), timeout)
            .await
            .is_ok()
    }

    /// The number of children the element says it has, without creating any.
    pub async fn child_count(&self, object: &ObjectRef) -> Result<i64, AtspiError> {
        let count = self.property(object, ACCESSIBLE, "ChildCount").await?;
        Ok(i32::try_from(count).map_or(0, i64::from))
    }

    /// Whether the object is still there: it answers for its role.
    pub async fn exists(&self, object: &ObjectRef) -> bool {
        self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &())
            .await
            .is_ok()
    }

    /// What the element is now: its role and the name an observation lists it by, cleaned as
    /// the walk cleans it (`gtk4`: named as GTK 4.8 names, see [`translate::gtk4_name`]) and, for
    /// a control named only by a pictograph, its description. `None` once the application no
    /// longer has it.
    pub async fn identity(
        &self,
        object: &ObjectRef,
        gtk4: bool,
    ) -> Result<Option<(Role, String, bool)>, AtspiError> {
        let (role, name, states) = futures::join!(
            self.call::<_, u32>(object, ACCESSIBLE, "GetRole", &()),
            self.string_property(object, ACCESSIBLE, "Name"),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
        );
        let (role, name, states) = match (role, name, states) {
            (Ok(role), Ok(name), Ok(states)) => (role, name, states),
            (Err(err), _, _) | (_, Err(err), _) | (_, _, Err(err)) => {
                return if matches!(err, AtspiError::Call { .. }) {
                    Ok(None)
                } else {
                    Err(err)
                };
            }
        };
        let states = translate::state_set(&states);
        if states.contains(atspi::State::Defunct) {
            return Ok(None);
        }
        let enabled =
            states.contains(atspi::State::Enabled) || states.contains(atspi::State::Sensitive);
        let role = translate::role(role);
        let name = translate::listed_name(name, gtk4);
        if role.is_control() && text::icon_only(&name) {
            let description = self
                .string_property(object, ACCESSIBLE, "Description")
                .await
                .unwrap_or_default();
            if !description.trim().is_empty() {
                return Ok(Some((role, description, enabled)));
            }
        }
        Ok(Some((role, name, enabled)))
    }

    /// The element's parent; `None` for a root, or an element its application no longer has.
    pub(super) async fn parent(&self, object: &ObjectRef) -> Result<Option<ObjectRef>, AtspiError> {
        let value = match self.property(object, ACCESSIBLE, "Parent").await {
            Ok(value) => value,
            Err(AtspiError::Call { .. }) => return Ok(None),
            Err(err) => return Err(err),
        };
        Ok(<(String, OwnedObjectPath)>::try_from(value)
            .ok()
            .and_then(|reference| element_of(reference, &object.bus)))
    }

    /// Whether the element, or an element a few levels inside it, has the keyboard focus now
    /// (GTK4 focuses the text inside an entry, not the entry). The children of an element that
    /// manages its descendants are never asked for: the app would create them all.
    pub async fn focus_within(&self, object: &ObjectRef) -> Result<bool, AtspiError> {
        const DEPTH: usize = 3;
        const FAN_OUT: usize = 16;
        let mut level = vec![object.clone()];
        for depth in 0..=DEPTH {
            let mut next = Vec::new();
            for element in &level {
                let words: Vec<u32> = match self.call(element, ACCESSIBLE, "GetState", &()).await {
                    Ok(words) => words,
                    Err(err) if depth == 0 => return Err(err),
                    Err(_) => continue,
                };
                let states = translate::state_set(&words);
                if states.contains(atspi::State::Focused) {
                    return Ok(true);
                }
                if depth < DEPTH && !states.contains(atspi::State::ManagesDescendants) {
                    let children = self.children(element).await.unwrap_or_default();
                    next.extend(children.into_iter().take(FAN_OUT));
                }
            }
            level = next;
        }
        Ok(false)
    }
}

/// The option a closed drop-down shows, unless it only repeats the drop-down's name.
pub(super) fn chosen_unless_name(chosen: Option<String>, name: &str) -> Option<String> {
    chosen.filter(|chosen| chosen.trim() != name.trim())
}

/// Which readings make an element's value in an observation: its text where a person edits it
/// (or a text or combo box shows it), else its number. A password field is never read.
#[derive(Debug, Clone, Copy)]
pub(super) struct ValueReads {
    text: bool,
    number: bool,
}

impl ValueReads {
    pub(super) const NONE: Self = Self {
        text: false,
        number: false,
    };

    pub(super) fn of(role: Role, editable: bool, unnamed: bool, interfaces: &[String]) -> Self {
        let has = |suffix: &str| interfaces.iter().any(|i| i.ends_with(suffix));
        let readable = role != Role::Password;
        Self {
            text: readable
                && has(".Text")
                && (editable
                    || matches!(role, Role::Text | Role::Terminal | Role::Combobox)
                    || text::bears_text(role, unnamed)),
            // LibreOffice gives every toolbar button and menu a Value of 0, which says nothing.
            number: readable
                && has(".Value")
                && matches!(
                    role,
                    Role::Slider | Role::Spin | Role::Scrollbar | Role::Progress
                ),
        }
    }
}

/// What [`Atspi::element_text`] needs to know of a value read.
struct ValueRead {
    role: Role,
    /// The element's text was read and holds nothing.
    empty_text: bool,
    value: Option<String>,
}

/// The value an observation shows of what was read: an edited field's exactly as typed, any
/// other as a person reads it (embedded objects resolved, ends trimmed), and nothing when it
/// only repeats the name.
pub(super) fn finish_value(
    raw: String,
    role: Role,
    editable: bool,
    embedded: &[Embedded<'_>],
    name: &str,
) -> Option<String> {
    if editable && !raw.contains(EMBEDDED) {
        return Some(raw);
    }
    let value = text::shown_text(&raw, embedded)?;
    let value = match role {
        Role::Listitem => text::without_bullets(&value).to_owned(),
        _ => value,
    };
    (editable || (!value.is_empty() && value != name.trim())).then_some(value)
}
