//! What a call did or found, as typed fields, and the one renderer that turns it into the reply:
//! its text and its structured data come from the same fields, so the two cannot disagree. This
//! file holds the actions' results and their wording; `reads.rs` the reads'.

use serde::Serialize;
use serde_json::json;

use crate::action::ClickSpec;
use crate::backend::{InputOutcome, Partial, SpotKind, TextRoute};
use crate::model::{MouseButton, Point, Rect, ScrollDirection, WindowChange};
use crate::render::{escape, plural};

use crate::desk::reply::{Outcome, Reply};

mod reads;
pub(crate) mod words;

use words::{
    ElementSaid, FocusAfterLaunch, PlaceSaid, SetBy, TypeTarget, WindowSaid, at_or_pointer,
    change_words, click_verb, menu_path, name_of, set_by_words, spot_words,
};

pub(crate) use reads::{
    AppRow, Batched, Captured, FoundWindow, Listed, MonitorRow, Observed, Page, Step, Waited,
    WindowRow,
};

/// What a text field held once typed into, read back through accessibility.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ReadBack {
    /// What was asked: after a replace the text alone, else the text typed into what it held,
    /// in place of the `replaced` characters it had selected.
    Holds { replaced: usize },
    /// Something else, cut as an observation shows a value.
    Differs(String),
}

/// An action's result: what it did, and whether all of its input was sent.
pub(crate) struct Acted {
    pub(crate) did: Did,
    pub(crate) sent: InputOutcome,
}

impl Acted {
    /// An action whose input went out whole.
    pub(crate) fn done(did: Did) -> Acted {
        Acted {
            did,
            sent: InputOutcome::Done,
        }
    }
}

/// How a click reached its element: the JSON's `path`.
#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ClickPath {
    Accessibility,
    Pointer,
}

/// What an action did. Fields marked `skip` are only for the sentence: the element, window or
/// place it went to, the kind of click.
#[derive(Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub(crate) enum Did {
    /// An element clicked through its accessibility action.
    #[serde(rename = "click")]
    ClickByAction {
        #[serde(rename = "ref")]
        reference: String,
        path: ClickPath,
        accessibility_action: String,
        /// The windows it opened, when the app answers the request only once they close.
        #[serde(skip_serializing_if = "Option::is_none")]
        opened: Option<String>,
        /// Its window went away, the app with it: the action closed it.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        closed: bool,
        #[serde(skip)]
        click: ClickSpec,
        #[serde(skip)]
        element: ElementSaid,
    },
    /// An element clicked with the pointer.
    #[serde(rename = "click")]
    ClickOnElement {
        #[serde(rename = "ref")]
        reference: String,
        path: ClickPath,
        pixel: Point,
        /// Its accessibility action opened a dialog inside the request, which was closed.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        unblocked: bool,
        #[serde(skip)]
        click: ClickSpec,
        #[serde(skip)]
        element: ElementSaid,
        /// Text read from pixels: it has no accessibility action to run.
        #[serde(skip)]
        from_pixels: bool,
        /// Which point of the element: its center, or where the center did not reach it, the
        /// point that did.
        #[serde(skip)]
        spot: SpotKind,
    },
    /// A point clicked with the pointer.
    #[serde(rename = "click")]
    ClickAtPoint {
        path: ClickPath,
        pixel: Point,
        #[serde(skip)]
        click: ClickSpec,
        #[serde(skip)]
        at: PlaceSaid,
    },
    Hover {
        pixel: Point,
        #[serde(skip)]
        at: PlaceSaid,
    },
    Down {
        button: MouseButton,
        #[serde(skip)]
        at: Option<PlaceSaid>,
    },
    Up {
        button: MouseButton,
        #[serde(skip)]
        at: Option<PlaceSaid>,
    },
    Press {
        keys: String,
        /// The window with the focus, where the keys went.
        #[serde(skip)]
        into: Option<WindowSaid>,
    },
    Scroll {
        direction: ScrollDirection,
        amount: u32,
        #[serde(skip)]
        at: Option<PlaceSaid>,
    },
    Drag {
        from: Point,
        to: Point,
        points: usize,
        #[serde(skip)]
        from_at: PlaceSaid,
        #[serde(skip)]
        to_at: PlaceSaid,
        #[serde(skip)]
        via: usize,
    },
    /// Text typed; never the text itself, which may be a password.
    Type {
        characters: usize,
        replace: bool,
        #[serde(skip)]
        into: TypeTarget,
        /// Only the content was selected, to be replaced: the selection did not go out whole.
        #[serde(skip)]
        selected_only: bool,
        /// How the text went, where the platform has more than one route.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        routes: Vec<TextRoute>,
        /// The platform's own clause on what became of the user's clipboard after a paste.
        #[serde(skip)]
        note: Option<String>,
        /// What the field held afterwards, where the toolkit shows it.
        #[serde(skip)]
        read_back: Option<ReadBack>,
    },
    SetValue {
        #[serde(rename = "ref")]
        reference: String,
        value: Option<String>,
        confirmed: bool,
        #[serde(skip)]
        element: ElementSaid,
        #[serde(skip)]
        wanted: String,
        #[serde(skip)]
        how: SetBy,
    },
    /// A password field set: its content is never read, so never checked.
    #[serde(rename = "set_value")]
    SetPassword {
        #[serde(rename = "ref")]
        reference: String,
        confirmed: bool,
        #[serde(skip)]
        element: ElementSaid,
    },
    Select {
        window: String,
        path: Vec<String>,
        #[serde(skip)]
        through_pointer: bool,
        /// The windows the item opened, when the app answers the request only once they close.
        #[serde(skip_serializing_if = "Option::is_none")]
        opened: Option<String>,
    },
    Launch {
        app: String,
        window: String,
        pid: u32,
        title: String,
        /// The app as the call named it.
        #[serde(skip)]
        name: String,
        #[serde(skip)]
        seconds: f64,
        #[serde(skip)]
        focus: FocusAfterLaunch,
    },
    /// An app started whose window did not appear in time.
    #[serde(rename = "launch")]
    LaunchedUnseen {
        app: String,
        pid: u32,
        #[serde(skip)]
        waited_s: u64,
    },
    Focus {
        window: String,
        #[serde(skip)]
        title: String,
    },
    Close {
        window: String,
        closed: bool,
        #[serde(skip)]
        waited_s: u64,
    },
    Kill {
        app: String,
        pid: u32,
    },
    Window {
        window: String,
        bounds: Rect,
        state: &'static str,
        /// The changes the window manager did not show.
        #[serde(skip)]
        unmet: Vec<WindowChange>,
    },
    #[serde(rename = "clipboard")]
    WriteClipboard {
        characters: usize,
        #[serde(skip)]
        read_back: bool,
    },
    Forget {
        app: Option<String>,
        windows: usize,
    },
}
impl Did {
    /// Whether the action's own check saw it take effect; the input may still have gone out
    /// only in part ([`Acted::sent`]).
    fn confirmed(&self) -> bool {
        match self {
            Did::SetValue { confirmed, .. } | Did::SetPassword { confirmed, .. } => *confirmed,
            Did::Launch { focus, .. } => !matches!(focus, FocusAfterLaunch::Lost(_)),
            Did::LaunchedUnseen { .. } => false,
            Did::Close { closed, .. } => *closed,
            Did::Window { unmet, .. } => unmet.is_empty(),
            Did::WriteClipboard { read_back, .. } => *read_back,
            Did::Type { read_back, .. } => !matches!(read_back, Some(ReadBack::Differs(_))),
            _ => true,
        }
    }

    fn sentence(&self) -> String {
        match self {
            Did::ClickByAction {
                accessibility_action,
                opened,
                closed,
                click,
                element,
                ..
            } => {
                let verb = click_verb(click);
                match (opened, closed) {
                    (Some(opened), _) => format!(
                        "{verb} {element} through its accessibility action \"{accessibility_action}\"; it opened {opened} (the app answers the request only once that window closes)"
                    ),
                    (None, true) => format!(
                        "{verb} {element} through its accessibility action \"{accessibility_action}\", and its window closed"
                    ),
                    (None, false) => format!(
                        "{verb} {element} through its accessibility action \"{accessibility_action}\" (pointer not moved)"
                    ),
                }
            }
            Did::ClickOnElement {
                pixel,
                unblocked: true,
                click,
                element,
                ..
            } => format!(
                "{} {element} with the pointer at its center (pixel {},{}): its accessibility action opened a dialog inside the accessibility request, which keeps this app from answering until the dialog closes, so deskhand closed that dialog at once and clicked with the pointer instead; the dialog it opens can be observed and answered",
                click_verb(click),
                pixel.x,
                pixel.y
            ),
            Did::ClickOnElement {
                pixel,
                unblocked: false,
                click,
                element,
                from_pixels,
                spot,
                ..
            } => format!(
                "{} {element} with the pointer at {} (pixel {},{}){}{}",
                click_verb(click),
                spot_words(*spot),
                pixel.x,
                pixel.y,
                if *from_pixels {
                    " (text read from pixels: no accessibility action to run)"
                } else {
                    ""
                },
                if *spot == SpotKind::Center {
                    ""
                } else {
                    ": its center is not where the app takes a click on it"
                }
            ),
            Did::ClickAtPoint { click, at, .. } => {
                format!("{} at {at} with the pointer", click_verb(click))
            }
            Did::Hover { at, .. } => format!("moved the pointer to {at} without clicking"),
            Did::Down { button, at } => format!(
                "pressed the {} button {}; it stays down until `up`",
                name_of(button),
                at_or_pointer(at)
            ),
            Did::Up { button, at } => format!(
                "released the {} button {}",
                name_of(button),
                at_or_pointer(at)
            ),
            Did::Press {
                keys,
                into: Some(window),
            } => format!("pressed {keys} in {window}, the focused window"),
            Did::Press { keys, into: None } => format!("pressed {keys} with no window focused"),
            Did::Scroll {
                direction,
                amount,
                at,
            } => format!(
                "scrolled {} {} {}",
                name_of(direction),
                plural(*amount as usize, "click", "clicks"),
                at_or_pointer(at)
            ),
            Did::Drag {
                from_at, to_at, via, ..
            } => {
                let through = match via {
                    0 => String::new(),
                    n => format!(" through {}", plural(*n, "point", "points")),
                };
                format!("dragged from {from_at} to {to_at}{through}")
            }
            Did::Type {
                into,
                selected_only: true,
                ..
            } => format!("selected all in {into} to replace it, but typed nothing"),
            Did::Type {
                characters,
                replace,
                into,
                routes,
                note,
                read_back,
                ..
            } => {
                let typed = plural(*characters, "character", "characters");
                let did = if *replace {
                    format!("replaced the content of {into} with {typed}")
                } else {
                    format!("typed {typed} into {into}")
                };
                // Text inserted in one request is said, in the same words on every platform:
                // the app's key handlers (a completion, a shortcut) never saw it.
                let did = if routes.contains(&TextRoute::Accessibility) {
                    format!("{did} {}", route_words(TextRoute::Accessibility))
                } else {
                    did
                };
                let did = match read_back {
                    None => did,
                    Some(ReadBack::Holds { replaced: 0 }) => format!("{did} (read back)"),
                    Some(ReadBack::Holds { replaced }) => format!(
                        "{did}, in place of the {} it had selected (read back)",
                        plural(*replaced, "character", "characters")
                    ),
                    Some(ReadBack::Differs(holds)) => format!(
                        "{did}, but the field holds \"{}\" (read back): {}; `read` it, then `set_value` it or type again",
                        escape(holds),
                        if *replace {
                            "not the text typed alone, so its old content was not all replaced"
                        } else {
                            "not its old text with the text typed in at its caret (the app changed or completed it)"
                        }
                    ),
                };
                // The routes are said when the clipboard was one of them: the user's clipboard
                // took part, and the reply says what became of it.
                if routes.contains(&TextRoute::Paste) {
                    let how: Vec<&str> = routes.iter().map(|route| route_words(*route)).collect();
                    let note = note.as_ref().map_or_else(String::new, |n| format!("; {n}"));
                    format!("{did}, {}{note}", how.join(" and "))
                } else {
                    did
                }
            }
            Did::SetValue {
                confirmed: true,
                element,
                wanted,
                how,
                ..
            } => format!(
                "set {element} to \"{}\"{} (read back)",
                escape(wanted),
                set_by_words(*how)
            ),
            Did::SetValue {
                value,
                confirmed: false,
                element,
                wanted,
                ..
            } => format!(
                "set {element} to \"{}\", but it reads back {}; the app may round, limit or refuse the value: observe it before trying again",
                escape(wanted),
                match value {
                    Some(read) => format!("\"{}\"", escape(read)),
                    None => "no value".into(),
                }
            ),
            Did::SetPassword { element, .. } => format!(
                "set {element}; a password field's content is never read back, so it was not checked"
            ),
            Did::Select {
                window,
                path,
                through_pointer,
                opened,
                ..
            } => format!(
                "selected {} in {window} {}{}",
                menu_path(path),
                if *through_pointer {
                    "by opening its menus through accessibility and clicking the item with the pointer"
                } else {
                    "through accessibility"
                },
                match opened {
                    Some(opened) => format!(
                        "; it opened {opened} (the app answers the request only once that window closes)"
                    ),
                    None => String::new(),
                }
            ),
            Did::Launch {
                app,
                window,
                title,
                name,
                seconds,
                focus,
                ..
            } => format!(
                "launched {name} as {app} with window {window} \"{}\" after {seconds:.1} s{focus}",
                escape(title)
            ),
            Did::LaunchedUnseen { app, pid, waited_s } => format!(
                "started {app} (process {pid}) but no window of it appeared within {waited_s} s; it may still be starting or may have handed over to a running instance: call `windows`, or `wait` with {{\"new_window\": true}}"
            ),
            Did::Focus { window, title } => format!(
                "{window} \"{}\" is raised and has the keyboard focus",
                escape(title)
            ),
            Did::Close {
                window,
                closed: true,
                ..
            } => format!("closed {window}"),
            Did::Close {
                window, waited_s, ..
            } => format!(
                "asked {window} to close, and it is still open after {waited_s} s: the app may be asking something (unsaved changes?); observe it, or `kill` its app if the user wants that"
            ),
            Did::Kill { app, pid } => {
                format!("killed {app} (process {pid}); its unsaved work is lost")
            }
            Did::Window {
                window,
                bounds: b,
                state,
                unmet,
            } => {
                let now = format!("{},{} {}x{} {state}", b.x, b.y, b.width, b.height);
                if unmet.is_empty() {
                    format!("{window} is now {now}")
                } else {
                    format!(
                        "the window manager did not show {} for {window}; it is now {now}",
                        unmet.iter().map(change_words).collect::<Vec<_>>().join(", ")
                    )
                }
            }
            Did::WriteClipboard {
                characters,
                read_back: true,
            } => format!(
                "the clipboard holds {} (read back)",
                plural(*characters, "character", "characters")
            ),
            Did::WriteClipboard { .. } => "the clipboard was written but reads back differently: another program may have taken it; read it with `clipboard`".into(),
            Did::Forget { app, windows } => format!(
                "memory forgot {} ({})",
                match app {
                    Some(app) => format!("what it knew of \"{}\"", escape(app)),
                    None => "everything it knew".to_string(),
                },
                plural(*windows, "window", "windows")
            ),
        }
    }
}

fn route_words(route: TextRoute) -> &'static str {
    match route {
        TextRoute::Keys => "as keys",
        TextRoute::InputMethod => "through the input method",
        TextRoute::Paste => "by pasting through the clipboard",
        TextRoute::Accessibility => "through accessibility, in one request",
    }
}

impl From<Acted> for Reply {
    fn from(acted: Acted) -> Reply {
        let did = acted.did.sentence();
        let data = serde_json::to_value(&acted.did).unwrap_or_default();
        let (text, outcome) = match acted.sent {
            InputOutcome::Partial(Partial {
                sent,
                total,
                unit,
                reason,
            }) => (
                format!(
                    "applied but unconfirmed: only {sent} of {total} {unit} were sent before the input failed ({reason}); intended: {did}; check the target's state before acting again\n"
                ),
                Outcome::Unconfirmed,
            ),
            InputOutcome::Done if acted.did.confirmed() => {
                (format!("done: {did}\n"), Outcome::Done)
            }
            InputOutcome::Done => (
                format!("applied but unconfirmed: {did}\n"),
                Outcome::Unconfirmed,
            ),
        };
        Reply {
            text,
            outcome,
            image: None,
            data,
        }
    }
}

impl Reply {
    /// A failure after the request went out: the app may have acted, so it is not `failed`.
    pub(crate) fn unconfirmed(err: crate::error::Error) -> Reply {
        Reply {
            text: format!(
                "applied but unconfirmed: {}; observe or take a screenshot to see what happened before acting again\n",
                crate::render::one_line(err.message.trim_end_matches('.'))
            ),
            outcome: Outcome::Unconfirmed,
            image: None,
            data: json!({"confirmed": false, "error": err.kind, "message": err.message}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::ACTIONS;
    use words::FocusedBy;

    fn pixel() -> Point {
        Point { x: 10, y: 20 }
    }

    fn ok_button() -> ElementSaid {
        ElementSaid {
            id: crate::action::RefId(3),
            role: crate::model::Role::Button,
            name: "OK".into(),
        }
    }

    fn left_click() -> ClickSpec {
        ClickSpec {
            button: MouseButton::Left,
            count: 1,
            modifiers: Vec::new(),
        }
    }

    fn on_button() -> PlaceSaid {
        PlaceSaid::Element {
            element: ok_button(),
            pixel: pixel(),
        }
    }

    fn into_button() -> TypeTarget {
        TypeTarget::Element {
            element: ok_button(),
            focused_by: FocusedBy::Asking,
            window: WindowSaid {
                id: 1,
                title: "Untitled".into(),
            },
        }
    }

    /// One of each kind of result, as a handler fills it.
    fn samples() -> Vec<Did> {
        vec![
            Did::ClickByAction {
                reference: "e3".into(),
                path: ClickPath::Accessibility,
                accessibility_action: "click".into(),
                opened: None,
                closed: false,
                click: left_click(),
                element: ok_button(),
            },
            Did::ClickOnElement {
                reference: "e3".into(),
                path: ClickPath::Pointer,
                pixel: pixel(),
                unblocked: false,
                click: left_click(),
                element: ok_button(),
                from_pixels: false,
                spot: SpotKind::Center,
            },
            Did::ClickAtPoint {
                path: ClickPath::Pointer,
                pixel: pixel(),
                click: left_click(),
                at: PlaceSaid::Point {
                    x: 500.0,
                    y: 500.0,
                    surface: "w1".into(),
                    pixel: pixel(),
                },
            },
            Did::Hover {
                pixel: pixel(),
                at: on_button(),
            },
            Did::Down {
                button: MouseButton::Left,
                at: None,
            },
            Did::Up {
                button: MouseButton::Right,
                at: None,
            },
            Did::Press {
                keys: "ctrl+s".into(),
                into: Some(WindowSaid {
                    id: 1,
                    title: "Untitled".into(),
                }),
            },
            Did::Scroll {
                direction: ScrollDirection::Down,
                amount: 3,
                at: None,
            },
            Did::Drag {
                from: pixel(),
                to: pixel(),
                points: 2,
                from_at: on_button(),
                to_at: on_button(),
                via: 0,
            },
            Did::Type {
                characters: 5,
                replace: false,
                into: into_button(),
                selected_only: false,
                routes: Vec::new(),
                note: None,
                read_back: None,
            },
            Did::Type {
                characters: 9,
                replace: false,
                into: into_button(),
                selected_only: false,
                routes: vec![TextRoute::Keys, TextRoute::Paste],
                note: Some("the clipboard holds again the text it held before (read back)".into()),
                read_back: None,
            },
            Did::SetValue {
                reference: "e3".into(),
                value: Some("7".into()),
                confirmed: true,
                element: ok_button(),
                wanted: "7".into(),
                how: SetBy::Accessibility,
            },
            Did::SetPassword {
                reference: "e3".into(),
                confirmed: false,
                element: ok_button(),
            },
            Did::Select {
                window: "w1".into(),
                path: vec!["File".into(), "Save".into()],
                through_pointer: false,
                opened: None,
            },
            Did::Launch {
                app: "a2".into(),
                window: "w4".into(),
                pid: 42,
                title: "Untitled".into(),
                name: "mousepad".into(),
                seconds: 0.8,
                focus: FocusAfterLaunch::OnNew,
            },
            Did::LaunchedUnseen {
                app: "mousepad".into(),
                pid: 42,
                waited_s: 20,
            },
            Did::Focus {
                window: "w1".into(),
                title: "Untitled".into(),
            },
            Did::Close {
                window: "w1".into(),
                closed: true,
                waited_s: 3,
            },
            Did::Kill {
                app: "a2".into(),
                pid: 42,
            },
            Did::Window {
                window: "w1".into(),
                bounds: Rect {
                    x: 0,
                    y: 0,
                    width: 640,
                    height: 480,
                },
                state: "normal",
                unmet: Vec::new(),
            },
            Did::WriteClipboard {
                characters: 4,
                read_back: true,
            },
            Did::Forget {
                app: None,
                windows: 3,
            },
        ]
    }

    #[test]
    fn every_result_names_its_action_as_the_table_spells_it() {
        for did in samples() {
            let data = serde_json::to_value(&did).unwrap();
            let name = data["action"].as_str().unwrap().to_owned();
            assert!(
                ACTIONS.iter().any(|spec| spec.text == name),
                "{name} is not an action"
            );
        }
    }

    #[test]
    fn what_only_the_sentence_needs_stays_out_of_the_data() {
        let data = serde_json::to_value(Did::Hover {
            pixel: pixel(),
            at: on_button(),
        })
        .unwrap();
        assert_eq!(
            data,
            serde_json::json!({"action": "hover", "pixel": serde_json::to_value(pixel()).unwrap()})
        );
        let data = serde_json::to_value(Did::Type {
            characters: 5,
            replace: false,
            into: into_button(),
            selected_only: false,
            routes: Vec::new(),
            note: None,
            read_back: None,
        })
        .unwrap();
        assert_eq!(
            data,
            serde_json::json!({"action": "type", "characters": 5, "replace": false})
        );
    }

    #[test]
    fn typing_says_its_routes_when_the_clipboard_was_one_of_them() {
        let typed = |routes: Vec<TextRoute>| Did::Type {
            characters: 9,
            replace: false,
            into: TypeTarget::FocusOf(WindowSaid {
                id: 1,
                title: "Untitled".into(),
            }),
            selected_only: false,
            routes,
            note: Some("the clipboard was put back".into()),
            read_back: None,
        };
        let pasted = typed(vec![TextRoute::Keys, TextRoute::Paste]);
        assert_eq!(
            pasted.sentence(),
            "typed 9 characters into the focused element of w1 \"Untitled\", as keys and by pasting through the clipboard; the clipboard was put back"
        );
        assert_eq!(
            serde_json::to_value(&pasted).unwrap()["routes"],
            serde_json::json!(["keys", "paste"])
        );
        let committed = typed(vec![TextRoute::InputMethod]);
        assert_eq!(
            committed.sentence(),
            "typed 9 characters into the focused element of w1 \"Untitled\""
        );
        assert_eq!(
            serde_json::to_value(&committed).unwrap()["routes"],
            serde_json::json!(["input_method"])
        );
        let inserted = typed(vec![TextRoute::Accessibility]);
        assert_eq!(
            inserted.sentence(),
            "typed 9 characters into the focused element of w1 \"Untitled\" through accessibility, in one request"
        );
        assert_eq!(
            serde_json::to_value(&inserted).unwrap()["routes"],
            serde_json::json!(["accessibility"])
        );
    }

    #[test]
    fn done_only_when_the_input_went_out_whole_and_the_action_saw_it_take_effect() {
        for did in samples() {
            let confirmed = did.confirmed();
            let sentence = did.sentence();
            let reply = Reply::from(Acted::done(did));
            let (prefix, outcome) = if confirmed {
                ("done: ", Outcome::Done)
            } else {
                ("applied but unconfirmed: ", Outcome::Unconfirmed)
            };
            assert_eq!(reply.text, format!("{prefix}{sentence}\n"));
            assert_eq!(reply.outcome, outcome);
        }
        let still_open = Did::Close {
            window: "w1".into(),
            closed: false,
            waited_s: 3,
        };
        assert!(!still_open.confirmed());
        let reply = Reply::from(Acted {
            did: Did::Press {
                keys: "ctrl+s".into(),
                into: Some(WindowSaid {
                    id: 1,
                    title: "Untitled".into(),
                }),
            },
            sent: InputOutcome::Partial(Partial {
                sent: 1,
                total: 2,
                unit: "key chords",
                reason: "the X server went away".into(),
            }),
        });
        assert_eq!(reply.outcome, Outcome::Unconfirmed);
        assert!(
            reply
                .text
                .contains("only 1 of 2 key chords were sent before the input failed (the X server went away); intended: pressed ctrl+s in w1 \"Untitled\", the focused window;"),
            "{}",
            reply.text
        );
    }
}
