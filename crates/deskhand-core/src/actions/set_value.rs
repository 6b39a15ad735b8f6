//! `set_value`: sets a field, slider, spin button or combo box through accessibility, read back.

use std::time::Instant;

use crate::action::{
    Action, ActionName, ActionSpec, Changes, Given, Kept, MAX_TEXT_CHARS, Place, Reaches, ValueArg,
};
use crate::backend::{Accessibility, Capture, Input, Values, Windows};
use crate::desk::answer::words::SetBy;
use crate::desk::answer::{Acted, Did};
use crate::desk::reach::Reach;
use crate::desk::reply::{Reply, element_failure};
use crate::desk::secret::mark_if;
use crate::error::{Error, ErrorKind, Result};
use crate::keys::{Chord, Key, Keys};
use crate::model::Role;
use crate::render::escape;
use crate::session::Session;
use crate::values::menu::*;
use crate::values::set::*;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::SetValue,
    text: "set_value",
    fields: &["target", "ref", "find", "value"],
    changes: Changes::Desktop,
    reaches: Reaches::Place,
    keeps: &[Kept::Place, Kept::Characters],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    let value = given.args.value.clone().ok_or_else(|| {
        Error::bad_argument(
            "`set_value` needs `value`: text for a text field or combo box, a number for a slider or spin button",
        )
    })?;
    // `x`/`y` are refused before: a value is set on an element, never at a point.
    if given.element.is_none() && given.find.is_none() {
        return Err(Error::bad_argument(
            "`set_value` needs the element: a `ref` from observe, or a `find` {\"name\", \"role\"}",
        ));
    }
    let place = given.place(true)?.expect("required place");
    if let ValueArg::Text(text) = &value
        && text.chars().count() > MAX_TEXT_CHARS
    {
        return Err(Error::bad_argument(format!(
            "`value` has more than {MAX_TEXT_CHARS} characters; set a shorter text"
        )));
    }
    Ok(Action::SetValue { place, value })
}

pub(crate) async fn set_value<B: Windows + Accessibility + Values + Input + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: &Place,
    value: &ValueArg,
) -> Result<Reply> {
    let element = reach
        .named(backend, session, place)
        .await?
        .expect("set_value names an element");
    element.refuse_if_disabled()?;
    let label = element.label();
    if element.entry.handle.is_read_from_pixels() {
        return Err(Error::bad_argument(format!(
            "{label} is text read from pixels, with no value to set; `click` it and `type`, or set a field the tree shows"
        )));
    }
    let role = element.entry.role;
    let handle = element.entry.handle.clone();
    let failed = |err| element_failure(err, &format!("{label} could not be set"));
    let mut typed = false;
    let mut picked = false;
    let wanted = match (role, value) {
        (Role::Slider | Role::Spin | Role::Scrollbar | Role::Progress, _) => {
            let number = match value {
                ValueArg::Number(n) => *n,
                ValueArg::Text(text) => text.trim().parse::<f64>().map_err(|_| {
                    Error::bad_argument(format!(
                        "{label} takes a number, and \"{}\" is not one",
                        escape(text)
                    ))
                })?,
            };
            backend.set_number(&handle, number).await.map_err(failed)?;
            Wanted::Number(number)
        }
        (Role::Combobox, _) => {
            let text = value_text(value);
            let before = combo_shows(backend, &element.window, &handle)
                .await?
                .taken();
            let invoked = choose_in_combo(backend, &element.window, &handle, &label, &text).await?;
            let ignored = invoked
                && before.as_deref() != Some(text.as_str())
                && combo_unchanged(backend, &element.window, &handle, before.as_deref()).await?;
            // Qt's list item takes its action and moves only the open list's selection: a
            // person clicks the item where the list shows it.
            if ignored {
                picked = click_in_open_list(backend, &element.window, &handle, &text).await?;
            }
            if !invoked || (ignored && !picked) {
                // A web page's drop-down picks the option its typed name starts.
                crate::desk::focus::ensure_focused(backend, &element.window).await?;
                crate::desk::focus::focus_for_typing(backend, &element).await?;
                let mut landed =
                    backend.type_text(&text).await? == crate::backend::InputOutcome::Done;
                // A click that gave the box the focus may have opened its list, where the typed
                // name only highlights the choice: Return takes it.
                if landed
                    && combo_shows(backend, &element.window, &handle)
                        .await?
                        .expanded
                {
                    landed = backend
                        .press_keys(&Keys::from(Chord::key(Key::Return)))
                        .await?
                        == crate::backend::InputOutcome::Done;
                }
                if !landed {
                    return Err(Error::new(
                        ErrorKind::Platform,
                        format!(
                            "{label} was chosen by typing \"{}\", which may have landed only in part; observe it before trying again",
                            escape(&text)
                        ),
                    )
                    .after_sending());
                }
                typed = true;
            }
            Wanted::Text(text)
        }
        _ => {
            let text = value_text(value);
            mark_if(session, role == Role::Password, "value");
            let before = if role == Role::Password {
                None
            } else {
                backend.element_value(&handle).await.map_err(failed)?
            };
            match backend.set_text(&handle, &text).await {
                Ok(()) if role != Role::Password && before.as_deref() != Some(text.as_str()) => {
                    typed = type_if_ignored(backend, &element, before.as_deref(), &text).await?;
                }
                Ok(()) => {}
                // Chromium's fields have no EditableText: a person would type.
                Err(err) if err.kind == ErrorKind::Unsupported && !err.sent => {
                    type_over(backend, &element, &text).await?;
                    typed = true;
                }
                Err(err) => return Err(failed(err)),
            }
            if role == Role::Password {
                // Its content is never read, so it cannot be read back.
                return Ok(Acted::done(Did::SetPassword {
                    reference: element.id.to_string(),
                    confirmed: false,
                    element: element.said(),
                })
                .into());
            }
            Wanted::Text(text)
        }
    };
    let started = Instant::now();
    let read = loop {
        let read = match role {
            // A combo box shows its choice as its name in some toolkits, as a value in others.
            Role::Combobox => combo_shows(backend, &element.window, &handle)
                .await?
                .taken(),
            _ => backend.element_value(&handle).await.map_err(failed)?,
        };
        if wanted.matches(read.as_deref()) || started.elapsed() >= READ_BACK_TIMEOUT {
            break read;
        }
        tokio::time::sleep(POLL).await;
    };
    let confirmed = wanted.matches(read.as_deref());
    let how = if typed {
        SetBy::Typing
    } else if picked {
        SetBy::ClickingInList
    } else {
        SetBy::Accessibility
    };
    Ok(Acted::done(Did::SetValue {
        reference: element.id.to_string(),
        value: read,
        confirmed,
        element: element.said(),
        wanted: wanted.to_string(),
        how,
    })
    .into())
}
