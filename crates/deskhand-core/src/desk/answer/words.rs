//! The facts results are made of (an element, a window, a place, a click, how a field got the
//! focus) and the words every reply names them with. Handlers fill these with what they found;
//! only the renderer turns them into English, so a sentence is worded once.

use std::fmt;

use serde::Serialize;

use crate::action::{ClickSpec, RefId};
use crate::backend::SpotKind;
use crate::model::{MouseButton, Point, Role, WindowChange};
use crate::render::{MAX_NAME_CHARS, cut, escape};

/// An element as replies name it: `e3 button "OK"`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ElementSaid {
    pub(crate) id: RefId,
    pub(crate) role: Role,
    pub(crate) name: String,
}

impl fmt::Display for ElementSaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "{} {}", self.id, self.role.as_str())
        } else {
            write!(
                f,
                "{} {} \"{}\"",
                self.id,
                self.role.as_str(),
                escape(&self.name)
            )
        }
    }
}

/// A window as replies name it: `w5 "Save as..."`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WindowSaid {
    pub(crate) id: u32,
    pub(crate) title: String,
}

impl fmt::Display for WindowSaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "w{} \"{}\"",
            self.id,
            escape(&cut(&self.title, MAX_NAME_CHARS).0)
        )
    }
}

/// A surface as a capture's or an observation's header names it:
/// `w3 "Untitled" · app a2 "mousepad"`, `w4 "notes.txt - Mousepad" · app a2`, or `screen`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SurfaceSaid {
    Screen,
    /// `m2`.
    Monitor(u32),
    Window {
        window: WindowSaid,
        app: Option<u32>,
        app_name: String,
    },
}

impl fmt::Display for SurfaceSaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceSaid::Screen => f.write_str("screen"),
            SurfaceSaid::Monitor(id) => write!(f, "m{id}"),
            SurfaceSaid::Window {
                window,
                app,
                app_name,
            } => {
                write!(f, "{window} · app")?;
                if let Some(app) = app {
                    write!(f, " a{app}")?;
                    // The app's ref is what an agent names it by; its name only repeats what
                    // a title like "notes.txt - Mousepad" already says.
                    if window
                        .title
                        .to_lowercase()
                        .contains(&app_name.to_lowercase())
                    {
                        return Ok(());
                    }
                }
                write!(f, " \"{}\"", escape(app_name))
            }
        }
    }
}

/// A place a call named, resolved to a pixel of the screen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PlaceSaid {
    /// An element, by ref or `find`, at its current center.
    Element { element: ElementSaid, pixel: Point },
    /// A point 0–1000 of a surface (`w1`, `screen`).
    Point {
        x: f64,
        y: f64,
        surface: String,
        pixel: Point,
    },
}

impl PlaceSaid {
    pub(crate) fn pixel(&self) -> Point {
        match self {
            PlaceSaid::Element { pixel, .. } | PlaceSaid::Point { pixel, .. } => *pixel,
        }
    }
}

impl fmt::Display for PlaceSaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaceSaid::Element { element, pixel } => {
                write!(f, "{element} (pixel {},{})", pixel.x, pixel.y)
            }
            PlaceSaid::Point {
                x,
                y,
                surface,
                pixel,
            } => write!(f, "{x},{y} of {surface} (pixel {},{})", pixel.x, pixel.y),
        }
    }
}

/// Where a pointer action went: `at` the place named, or where the pointer already was.
pub(crate) fn at_or_pointer(place: &Option<PlaceSaid>) -> String {
    match place {
        Some(place) => format!("at {place}"),
        None => "where the pointer is".to_owned(),
    }
}

/// What a click is called: `clicked`, `right-double-clicked with ctrl held`.
pub(crate) fn click_verb(click: &ClickSpec) -> String {
    let times = match click.count {
        1 => "",
        2 => "double-",
        _ => "triple-",
    };
    let button = match click.button {
        MouseButton::Left => "",
        MouseButton::Middle => "middle-",
        MouseButton::Right => "right-",
    };
    let held = if click.modifiers.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = click.modifiers.iter().map(name_of).collect();
        format!(" with {} held", names.join("+"))
    };
    format!("{button}{times}clicked{held}")
}

/// The point of an element a pointer click went to.
pub(crate) fn spot_words(spot: SpotKind) -> &'static str {
    match spot {
        SpotKind::Center => "its center",
        SpotKind::Text => "its text",
        SpotKind::Part => "a part of it",
        SpotKind::Inside => "a point inside it",
    }
}

/// A menu path as replies name it: `"File" > "Save As…"`.
pub(crate) fn menu_path(walked: &[String]) -> String {
    walked
        .iter()
        .map(|s| format!("\"{}\"", escape(s)))
        .collect::<Vec<_>>()
        .join(" > ")
}

/// How an element typed into came to have the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FocusedBy {
    /// It had it, or took it when asked through accessibility.
    Asking,
    /// A click at its center gave it the focus, which it then reported.
    Click(Point),
    /// Text read from pixels, clicked at its center: nothing can confirm its focus.
    ClickOnPixels(Point),
}

/// What a `type` went into.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TypeTarget {
    /// The element the call named, given the focus in its window.
    Element {
        element: ElementSaid,
        focused_by: FocusedBy,
        window: WindowSaid,
    },
    /// Whatever took the click at the point the call named.
    ClickedAt(PlaceSaid),
    /// The focused element of the surface the call targeted (`w1`).
    FocusOfTarget(String),
    /// The focused element of the window that had the focus.
    FocusOf(WindowSaid),
    /// The focused element, while no window had the focus.
    FocusOfNone,
}

impl fmt::Display for TypeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeTarget::Element {
                element,
                focused_by,
                window,
            } => {
                write!(f, "{element}")?;
                match focused_by {
                    FocusedBy::Asking => {}
                    FocusedBy::Click(pixel) => {
                        write!(f, " (focused by a click at pixel {},{})", pixel.x, pixel.y)?;
                    }
                    FocusedBy::ClickOnPixels(pixel) => write!(
                        f,
                        " (focused by a click at pixel {},{}; text read from pixels, so the focus is not confirmed)",
                        pixel.x, pixel.y
                    )?,
                }
                write!(f, " in {window}")
            }
            TypeTarget::ClickedAt(place) => write!(f, "what was clicked at {place}"),
            TypeTarget::FocusOfTarget(surface) => write!(f, "the focused element of {surface}"),
            TypeTarget::FocusOf(window) => write!(f, "the focused element of {window}"),
            TypeTarget::FocusOfNone => f.write_str("the focused element (no window has the focus)"),
        }
    }
}

/// Where the keyboard focus ended after a launch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum FocusAfterLaunch {
    /// The new window has it, as asked (or nothing else had it).
    OnNew,
    /// The new window took it and it was given back to the window that had it (`w{id}`).
    GivenBack(u32),
    /// The window that had it kept it.
    Stayed(u32),
    /// It could not be kept on the window that had it.
    Lost(u32),
}

impl fmt::Display for FocusAfterLaunch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FocusAfterLaunch::OnNew => Ok(()),
            FocusAfterLaunch::GivenBack(id) => write!(f, "; the focus was given back to w{id}"),
            FocusAfterLaunch::Stayed(id) => write!(f, "; the focus stayed on w{id}"),
            FocusAfterLaunch::Lost(id) => {
                write!(
                    f,
                    "; but the focus could not be kept on w{id}: check `windows`"
                )
            }
        }
    }
}

/// How `set_value` set a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum SetBy {
    Accessibility,
    /// The field did not take the change through accessibility: the value was typed over it.
    Typing,
    /// A combo box did not take it: its item was clicked in the open list.
    ClickingInList,
}

pub(crate) fn set_by_words(how: SetBy) -> &'static str {
    match how {
        SetBy::Accessibility => "",
        SetBy::Typing => " by typing (it did not take the change through accessibility)",
        SetBy::ClickingInList => {
            " by clicking it in the open list (it did not take the change through accessibility)"
        }
    }
}

/// A change to a window as replies name it.
pub(crate) fn change_words(change: &WindowChange) -> String {
    match change {
        WindowChange::Move { x, y } => format!("the move to {x},{y}"),
        WindowChange::Resize { width, height } => format!("the size {width}x{height}"),
        WindowChange::Minimize => "minimized".into(),
        WindowChange::Maximize => "maximized".into(),
        WindowChange::Restore => "the normal state".into(),
    }
}

/// A unit enum's name as its JSON spells it (`right`, `down`).
pub(crate) fn name_of(value: &impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
