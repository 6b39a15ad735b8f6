//! `set_value`: a field's text or a control's number set through accessibility, read back
//! after, and typed where the app ignored the change; combo boxes chosen by their list.

use std::time::{Duration, Instant};

use crate::action::ValueArg;
use crate::backend::{Accessibility, Capture, Input, Values, Windows};
use crate::error::{Error, ErrorKind, Result};
use crate::keys::{Chord, Key, Keys};
use crate::model::{ElementHandle, Node};
use crate::render::escape;

use super::menu::*;
use super::named::*;

/// How long a set value has to read back as asked (apps may apply it on the next frame).
pub(crate) const READ_BACK_TIMEOUT: Duration = Duration::from_millis(1500);

/// Types the text over the field's content when the accessibility change left it exactly as
/// it was (Gecko accepts `SetTextContents` and ignores it); true when it typed. A field that
/// changed at all is left to the read-back: typing then could apply the value twice.
pub(crate) async fn type_if_ignored<B: Windows + Accessibility + Values + Input + Capture>(
    backend: &B,
    element: &crate::desk::reach::Named,
    before: Option<&str>,
    text: &str,
) -> Result<bool> {
    let started = Instant::now();
    while started.elapsed() < IGNORED_AFTER {
        let now = backend.element_value(&element.entry.handle).await?;
        if now.as_deref() != before {
            return Ok(false);
        }
        tokio::time::sleep(POLL).await;
    }
    type_over(backend, element, text).await?;
    Ok(true)
}

/// Focuses the field, selects all of it and types the text over it.
pub(crate) async fn type_over<B: Windows + Accessibility + Input + Capture>(
    backend: &B,
    element: &crate::desk::reach::Named,
    text: &str,
) -> Result<()> {
    crate::desk::focus::ensure_focused(backend, &element.window).await?;
    crate::desk::focus::focus_for_typing(backend, element).await?;
    let select_all = Chord::ctrl(Key::Char('a'));
    let keys = if text.is_empty() {
        Keys::from(vec![select_all, Chord::key(Key::Delete)])
    } else {
        Keys::from(select_all)
    };
    let selected = backend.press_keys(&keys).await?;
    if selected != crate::backend::InputOutcome::Done {
        return Err(Error::new(
            ErrorKind::Platform,
            format!(
                "{} ignored the change through accessibility, and selecting its content to type over it may not have landed; observe it before trying again",
                element.label()
            ),
        )
        .after_sending());
    }
    if !text.is_empty() && backend.type_text(text).await? != crate::backend::InputOutcome::Done {
        return Err(Error::new(
            ErrorKind::Platform,
            format!(
                "{} ignored the change through accessibility, and typing the value over it may have landed only in part; observe it before trying again",
                element.label()
            ),
        )
        .after_sending());
    }
    Ok(())
}

/// Clicks the choice with the pointer where the combo box's open list shows it; true when it
/// did. A list open without it is closed (Escape), to type the choice to the closed box.
pub(crate) async fn click_in_open_list<B: Windows + Accessibility + Input>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
    text: &str,
) -> Result<bool> {
    let tree = backend.tree(window).await?;
    let Some(node) = tree.root.find(combo).filter(|n| n.states.expanded) else {
        return Ok(false);
    };
    let shown = nearest_named(node, text, &is_menu_entry)
        .into_iter()
        .filter(|item| item.states.visible)
        .find_map(|item| item.bounds.filter(|b| !b.is_empty()));
    crate::desk::focus::ensure_focused(backend, window).await?;
    match shown {
        Some(bounds) => {
            backend
                .click(bounds.center(), crate::model::MouseButton::Left, 1, &[])
                .await?;
            Ok(true)
        }
        None => {
            backend.press_keys(&escape_key()).await?;
            Ok(false)
        }
    }
}

/// Whether the combo box still shows `before` a while after its choice was invoked (Gecko's
/// option accepts "select" and keeps the old choice; Qt's list item takes "Toggle" and only its
/// popup's selection moves).
pub(crate) async fn combo_unchanged<B: Accessibility + Values>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
    before: Option<&str>,
) -> Result<bool> {
    let started = Instant::now();
    while started.elapsed() < IGNORED_AFTER {
        let shown = combo_shows(backend, window, combo).await?;
        if shown.taken().as_deref() != before {
            return Ok(false);
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(true)
}

/// How long a field may take to show a change made through accessibility before it counts as
/// ignored.
pub(crate) const IGNORED_AFTER: Duration = Duration::from_millis(400);

pub(crate) enum Wanted {
    Text(String),
    Number(f64),
}

impl Wanted {
    pub(crate) fn matches(&self, read: Option<&str>) -> bool {
        match (self, read) {
            (Wanted::Text(text), Some(read)) => read == text,
            (Wanted::Text(text), None) => text.is_empty(),
            (Wanted::Number(number), Some(read)) => read
                .trim()
                .parse::<f64>()
                .is_ok_and(|r| (r - number).abs() <= 1e-9_f64.max(number.abs() * 1e-9)),
            (Wanted::Number(_), None) => false,
        }
    }
}

impl std::fmt::Display for Wanted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wanted::Text(text) => f.write_str(text),
            Wanted::Number(number) => write!(f, "{number}"),
        }
    }
}

pub(crate) fn value_text(value: &ValueArg) -> String {
    match value {
        ValueArg::Text(text) => text.clone(),
        ValueArg::Number(number) => number.to_string(),
    }
}

pub(crate) async fn choose_in_combo<B: Accessibility + Input>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
    label: &str,
    text: &str,
) -> Result<bool> {
    let gone = || {
        Error::new(
            ErrorKind::ElementGone,
            format!("{label} is no longer in its window; call `observe` again"),
        )
    };
    let mut tree = backend.tree(window).await?;
    let mut opened = false;
    let started = Instant::now();
    loop {
        let node = tree.root.find(combo).ok_or_else(gone)?;
        let hits = nearest_named(node, text, &is_menu_entry);
        match hits.as_slice() {
            [item] => {
                if !item.states.enabled {
                    if opened {
                        // The list it opened is closed again, leaving the choice as it was.
                        let _ = backend.press_keys(&escape_key()).await;
                    }
                    return Err(Error::new(
                        ErrorKind::Disabled,
                        format!(
                            "\"{}\" in {label} is disabled; nothing was changed; pick another choice",
                            escape(text)
                        ),
                    ));
                }
                invoke(backend, item, &format!("\"{}\" in {label}", escape(text))).await?;
                return Ok(true);
            }
            // Toolkits that list a combo box's choices only while its list is open.
            [] if started.elapsed() < MENU_OPEN_TIMEOUT => {
                if !opened {
                    invoke(backend, node, label).await?;
                    opened = true;
                }
                tokio::time::sleep(POLL).await;
                tree = backend.tree(window).await?;
            }
            [] => {
                let listed = choices(node, &is_menu_entry);
                if opened {
                    // The list it opened is closed again, leaving the choice as it was.
                    let _ = backend.press_keys(&escape_key()).await;
                }
                // A web page's drop-down lists its options in a window of its own.
                if !node.any(&|n| {
                    n.handle != node.handle && is_menu_entry(n) && !n.name.trim().is_empty()
                }) {
                    return Ok(false);
                }
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "{label} has no choice \"{}\"; its choices: {listed}; nothing was changed",
                        escape(text)
                    ),
                ));
            }
            many => {
                if opened {
                    let _ = backend.press_keys(&escape_key()).await;
                }
                return Err(Error::new(
                    ErrorKind::Ambiguous,
                    format!(
                        "{label} has {} choices named \"{}\"; nothing was changed; click it to open its list, observe, and click the one you mean by ref",
                        many.len(),
                        escape(text)
                    ),
                ));
            }
        }
    }
}

/// What a combo box shows: its choice (its value, else its selected item's name, else its
/// name) and its own name.
pub(crate) struct ComboShows {
    choice: Option<String>,
    name: String,
    pub(crate) expanded: bool,
    /// Its name is the name of one of its list's items: the box is named by its choice (Qt,
    /// GTK without a label).
    name_is_item: bool,
}

impl ComboShows {
    /// What the tree shows of the box: its selected item, else its name, as its choice.
    pub(crate) fn of(node: &Node) -> Self {
        fn selected(node: &Node) -> Option<&Node> {
            node.children.iter().find_map(|c| {
                if c.states.selected {
                    Some(c)
                } else {
                    selected(c)
                }
            })
        }
        let name = node.name.trim();
        // An app may name the combo box itself ("Color"): its chosen item says more.
        ComboShows {
            choice: selected(node)
                .map(|n| n.name.clone())
                .or_else(|| (!name.is_empty()).then(|| node.name.clone())),
            name_is_item: !name.is_empty()
                && node
                    .any(&|n| n.handle != node.handle && is_menu_entry(n) && n.name.trim() == name),
            name: node.name.clone(),
            expanded: node.states.expanded,
        }
    }

    /// The choice the box took: its name where it is named by its choice (a selection made only
    /// in its list, which Qt's popup keeps and the box never takes, is not mistaken for it),
    /// else its choice.
    pub(crate) fn taken(&self) -> Option<String> {
        if self.name_is_item {
            Some(self.name.clone())
        } else {
            self.choice.clone()
        }
    }
}

pub(crate) async fn combo_shows<B: Accessibility + Values>(
    backend: &B,
    window: &crate::model::WindowInfo,
    combo: &ElementHandle,
) -> Result<ComboShows> {
    if let Some(value) = backend
        .element_value(combo)
        .await?
        .filter(|v| !v.is_empty())
    {
        return Ok(ComboShows {
            choice: Some(value),
            name: String::new(),
            expanded: false,
            name_is_item: false,
        });
    }
    let tree = backend.tree(window).await?;
    Ok(tree.root.find(combo).map_or(
        ComboShows {
            choice: None,
            name: String::new(),
            expanded: false,
            name_is_item: false,
        },
        ComboShows::of,
    ))
}
