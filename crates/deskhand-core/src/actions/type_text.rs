//! Keyboard input into an element or the focus, and making sure keys go where they are meant.

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, Place, Reaches, checked_text,
};
use crate::backend::{
    Accessibility, Capture, Input, InputOutcome, Intent, TextRoute, TextState, Typed, Values,
    Windows,
};
use crate::desk::answer::words::TypeTarget;
use crate::desk::answer::{Acted, Did, ReadBack};
use crate::desk::focus::{ensure_focused, focus_for_typing};
use crate::desk::reach::{Named, Reach, point_on};
use crate::desk::reply::Reply;
use crate::desk::secret::{focus_is_password, mark_if};
use crate::desk::surface::window_said;
use crate::error::{Error, Result};
use crate::keys::{Chord, Key, Keys};
use crate::model::{MouseButton, Role, WindowInfo};
use crate::session::{RefEntry, Session, TypedInto};

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Type,
    text: "type",
    fields: &["target", "ref", "find", "text", "replace"],
    changes: Changes::Desktop,
    reaches: Reaches::PlaceOrFocus,
    keeps: &[Kept::Characters, Kept::Detail, Kept::Place],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    Ok(Action::Type {
        text: checked_text(given.args.text.clone().unwrap_or_default())?,
        place: given.place(false)?,
        replace: given.args.replace.unwrap_or(false),
    })
}

/// How long typed text may take to show in its element before the focus moves on anyway.
const LANDING_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Before the focus moves to another element, waits (up to [`LANDING_WAIT`]) until the element
/// typed into last shows the text: keys still on their way would otherwise follow the focus
/// into the new element. Text that never shows (a cell editor that commits on Return, a field
/// that reformats) costs the wait once and changes nothing else.
async fn let_typed_keys_land<B: Values>(backend: &B, session: &mut Session, next: &Named) {
    let Some(typed) = session.typed_into.take() else {
        return;
    };
    if typed.element == next.entry.handle || typed.sent.elapsed() >= LANDING_WAIT {
        return;
    }
    let until = typed.sent + LANDING_WAIT;
    loop {
        match backend.element_text(&typed.element).await {
            Ok(now) if !now.contains(&typed.text) && std::time::Instant::now() < until => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            _ => return,
        }
    }
}

pub(super) async fn type_text<B: Windows + Accessibility + Values + Input + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    text: &str,
    place: Option<Place>,
    replace: bool,
) -> Result<Reply> {
    let chars = text.chars().count();
    let mut named = None;
    // The window whose focused element takes the text, where no element is named.
    let mut focus_in = None;
    let secret;
    // Focusing and typing happen in one call, so nothing can take the focus in between.
    let into = match &place {
        Some(place @ (Place::Ref(_) | Place::Find(_))) => {
            let element = reach
                .named(backend, session, place)
                .await?
                .expect("a ref or find names an element");
            element.refuse_if_disabled()?;
            if let Some(bounds) = element.entry.bounds {
                backend.show_intent(Intent::Typing(bounds));
            }
            let_typed_keys_land(backend, session, &element).await;
            ensure_focused(backend, &element.window).await?;
            let focused_by = focus_for_typing(backend, &element).await?;
            secret = element.entry.role == Role::Password;
            named = Some(element.clone());
            TypeTarget::Element {
                element: element.said(),
                focused_by,
                window: window_said(session, &element.window),
            }
        }
        Some(Place::Point { x, y }) => {
            let surface = reach.surface(backend, session).await?;
            let spot = point_on(&surface, *x, *y);
            if let Some(window) = &surface.window {
                ensure_focused(backend, window).await?;
            }
            backend.show_intent(Intent::Point(spot.pixel()));
            backend
                .click(spot.pixel(), MouseButton::Left, 1, &[])
                .await?;
            secret = focus_is_password(backend, session, surface.window.as_ref()).await;
            TypeTarget::ClickedAt(spot)
        }
        None => match reach.target() {
            Some(_) => {
                let surface = reach.surface(backend, session).await?;
                let Some(window) = &surface.window else {
                    return Err(Error::bad_argument(
                        "`type` cannot focus the whole screen; give a window (`target` \"wN\") or an element (`ref`, `find`)",
                    ));
                };
                ensure_focused(backend, window).await?;
                secret = focus_is_password(backend, session, Some(window)).await;
                focus_in = Some(window.clone());
                TypeTarget::FocusOfTarget(surface.label)
            }
            None => {
                secret = focus_is_password(backend, session, None).await;
                let focused = backend.windows().await?.into_iter().find(|w| w.focused);
                let into = match &focused {
                    Some(window) => TypeTarget::FocusOf(window_said(session, window)),
                    None => TypeTarget::FocusOfNone,
                };
                focus_in = focused;
                into
            }
        },
    };
    // Typing over a selection replaces it, in every toolkit's text fields. The element's text
    // is selected through accessibility where it can be: ctrl+a is not "select all" in every
    // key theme (GTK's Emacs theme moves to the line's start).
    let selected_by_accessibility = match (&named, replace) {
        (Some(element), true) if !element.entry.handle.is_read_from_pixels() => {
            match backend.select_all_text(&element.entry.handle).await {
                Ok(()) => true,
                Err(err) if err.sent => return Err(err),
                Err(_) => false,
            }
        }
        _ => false,
    };
    if replace && !selected_by_accessibility {
        let selected = backend
            .press_keys(&Keys::from(Chord::ctrl(Key::Char('a'))))
            .await?;
        if selected != InputOutcome::Done {
            return Ok(Acted {
                did: Did::Type {
                    characters: 0,
                    replace: true,
                    into,
                    selected_only: true,
                    routes: Vec::new(),
                    note: None,
                    read_back: None,
                },
                sent: selected,
            }
            .into());
        }
    }
    // Long text goes into a field it can be read back from in one request, where the platform
    // offers that (its keys are slow); short text goes as keys, where an app's key handlers (a
    // search field's completion) matter most.
    let worth_inserting = chars > KEYS_UP_TO && !text.chars().any(char::is_control);
    // The field typed into: the one named, else the focused one where the latest observation
    // listed it (each listed field is asked whether it has the focus; no tree is read).
    let field = match (&named, &focus_in) {
        (Some(element), _) => Some(element.entry.clone()),
        (None, Some(window)) if worth_inserting && !secret => {
            focused_field(backend, session, window).await
        }
        _ => None,
    };
    // What the field held and where its caret or selection was, to tell what typing did to it
    // from what the app did besides.
    let held_before = match &field {
        Some(field) if reads_back(field, text) => backend.text_state(&field.handle).await.ok(),
        _ => None,
    };
    // The text is never echoed: it may be a password.
    mark_if(session, secret, "text");
    // Declined, nothing was sent, and keys go instead.
    let in_one_go = match (&field, &held_before) {
        (Some(field), Some(_)) if worth_inserting => {
            if backend.insert_text(&field.handle, text).await? {
                Some(Typed {
                    outcome: InputOutcome::Done,
                    routes: vec![TextRoute::Accessibility],
                    note: None,
                })
            } else {
                backend.paste_text(&field.handle, text).await?
            }
        }
        _ => None,
    };
    let inserted = in_one_go.is_some();
    let Typed {
        outcome,
        routes,
        note,
    } = match in_one_go {
        Some(typed) => typed,
        None => backend.type_text_routed(text).await?,
    };
    // Keys typed into the focused element are not read back: only text inserted into it.
    let read_back = match (&field, held_before) {
        (Some(field), Some(before))
            if outcome == InputOutcome::Done && (named.is_some() || inserted) =>
        {
            read_back(backend, &field.handle, text, replace, &before).await
        }
        _ => None,
    };
    session.typed_into = named
        .filter(|element| {
            outcome == InputOutcome::Done
                && element.entry.role != Role::Password
                && !element.entry.handle.is_read_from_pixels()
        })
        .map(|element| TypedInto {
            element: element.entry.handle,
            text: text.to_owned(),
            sent: std::time::Instant::now(),
        });
    Ok(Acted {
        did: Did::Type {
            characters: chars,
            replace,
            into,
            selected_only: false,
            routes,
            note,
            read_back,
        },
        sent: outcome,
    }
    .into())
}

/// Text up to this many characters always goes as keys.
const KEYS_UP_TO: usize = 64;

/// Whether what was typed can be read back from the element: a text field's own text, not a
/// password's, and text of characters only (a Return may submit and clear the field, a Tab
/// moves on).
fn reads_back(field: &RefEntry, text: &str) -> bool {
    field.role == Role::Text
        && !field.handle.is_read_from_pixels()
        && !text.contains(['\n', '\r', '\t'])
}

/// The text field of `window` that has the keyboard focus, among those the latest observation
/// listed; `None` where none of them says it has it.
async fn focused_field<B: Accessibility>(
    backend: &B,
    session: &Session,
    window: &WindowInfo,
) -> Option<RefEntry> {
    let fields = session
        .latest
        .iter()
        .flat_map(|latest| latest.refs.values())
        .filter(|entry| {
            entry.window == window.key() && matches!(entry.role, Role::Text | Role::Password)
        });
    for field in fields {
        if backend
            .element_focused(&field.handle)
            .await
            .unwrap_or(false)
        {
            return Some(field.clone());
        }
    }
    None
}

/// How long typed text may take to show in its field before the reply says what it holds.
const READ_BACK_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// What the field holds once the typed text shows in it (or [`READ_BACK_WAIT`] has passed):
/// after a replace the text alone; otherwise what it held `before` with the text typed in
/// place of its selection, else at its caret (a GTK field selects its text as it takes the
/// focus, and typing then replaces it). `None` where the toolkit does not show the field's text.
async fn read_back<B: Values>(
    backend: &B,
    element: &crate::model::ElementHandle,
    text: &str,
    replace: bool,
    before: &TextState,
) -> Option<ReadBack> {
    let until = std::time::Instant::now() + READ_BACK_WAIT;
    // Gecko's accessible text holds a U+FEFF after each emoji, which the field itself has not.
    let plain = |held: &str| {
        if text.contains('\u{feff}') {
            held.to_owned()
        } else {
            held.replace('\u{feff}', "")
        }
    };
    let (expected, replaced) = if replace {
        (Some(text.to_owned()), 0)
    } else {
        (
            before.after_typing(text).map(|after| plain(&after)),
            before.selected(),
        )
    };
    // The caret may move between the read and the first key (a ctrl+End still on its way):
    // text typed whole at another place, in place of what was selected, holds too.
    let length =
        plain(&before.text).chars().count().saturating_sub(replaced) + text.chars().count();
    loop {
        let now = plain(&backend.text_state(element).await.ok()?.text);
        let holds = expected.as_ref().is_some_and(|expected| now == *expected)
            || (!replace && now.contains(text) && now.chars().count() == length);
        if holds {
            return Some(ReadBack::Holds { replaced });
        }
        if std::time::Instant::now() >= until {
            return Some(ReadBack::Differs(
                crate::render::cut(&now, crate::render::MAX_VALUE_CHARS).0,
            ));
        }
        // Often enough that text arriving a moment after its request is confirmed at once.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
