//! What an action did, as typed fields, and the one renderer that turns it into the reply: its
//! sentence and its structured data come from the same fields, so the text and the JSON cannot
//! disagree, and every action's wording is in this file.

use serde::Serialize;
use serde_json::json;

use crate::backend::{InputOutcome, Partial};
use crate::model::{InstalledApp, MouseButton, Point, Rect, ScrollDirection};
use crate::render::{FENCE, MAX_NAME_CHARS, Rendered, cut, escape, plural, thousands};

use super::{Outcome, Reply};

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

/// What an action did. Fields marked `skip` are only for the sentence: a place's description,
/// the verb a click's button and modifiers make.
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
        #[serde(skip)]
        verb: String,
        #[serde(skip)]
        label: String,
    },
    /// An element clicked with the pointer at its center.
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
        verb: String,
        #[serde(skip)]
        label: String,
        /// What the app said of the element once clicked, when it is worth saying.
        #[serde(skip)]
        read: &'static str,
    },
    /// A point clicked with the pointer.
    #[serde(rename = "click")]
    ClickAtPoint {
        path: ClickPath,
        pixel: Point,
        #[serde(skip)]
        verb: String,
        #[serde(skip)]
        at: String,
    },
    Hover {
        pixel: Point,
        #[serde(skip)]
        at: String,
    },
    Down {
        button: MouseButton,
        #[serde(skip)]
        at: String,
    },
    Up {
        button: MouseButton,
        #[serde(skip)]
        at: String,
    },
    Press {
        keys: String,
        #[serde(skip)]
        into: String,
    },
    Scroll {
        direction: ScrollDirection,
        amount: u32,
        #[serde(skip)]
        at: String,
    },
    Drag {
        from: Point,
        to: Point,
        points: usize,
        #[serde(skip)]
        from_at: String,
        #[serde(skip)]
        to_at: String,
        #[serde(skip)]
        via: usize,
    },
    /// Text typed; never the text itself, which may be a password.
    Type {
        characters: usize,
        replace: bool,
        #[serde(skip)]
        into: String,
        /// Only the content was selected, to be replaced: the selection did not go out whole.
        #[serde(skip)]
        selected_only: bool,
    },
    SetValue {
        #[serde(rename = "ref")]
        reference: String,
        value: Option<String>,
        confirmed: bool,
        #[serde(skip)]
        label: String,
        #[serde(skip)]
        wanted: String,
        /// How it was set when accessibility did not take it.
        #[serde(skip)]
        how: &'static str,
    },
    /// A password field set: its content is never read, so never checked.
    #[serde(rename = "set_value")]
    SetPassword {
        #[serde(rename = "ref")]
        reference: String,
        confirmed: bool,
        #[serde(skip)]
        label: String,
    },
    Select {
        window: String,
        path: Vec<String>,
        #[serde(skip)]
        item: String,
        #[serde(skip)]
        through_pointer: bool,
    },
    Launch {
        app: String,
        window: String,
        pid: u32,
        title: String,
        #[serde(skip)]
        name: String,
        #[serde(skip)]
        seconds: f64,
        /// Where the focus ended when the app was launched behind the focused window.
        #[serde(skip)]
        focus_note: String,
        #[serde(skip)]
        focus_kept: bool,
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
        unmet: Vec<String>,
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
            Did::Launch { focus_kept, .. } => *focus_kept,
            Did::LaunchedUnseen { .. } => false,
            Did::Close { closed, .. } => *closed,
            Did::Window { unmet, .. } => unmet.is_empty(),
            Did::WriteClipboard { read_back, .. } => *read_back,
            _ => true,
        }
    }

    fn sentence(&self) -> String {
        match self {
            Did::ClickByAction {
                accessibility_action,
                opened: Some(opened),
                verb,
                label,
                ..
            } => format!(
                "{verb} {label} through its accessibility action \"{accessibility_action}\"; it opened {opened} (the app answers the request only once that window closes)"
            ),
            Did::ClickByAction {
                accessibility_action,
                opened: None,
                verb,
                label,
                ..
            } => format!(
                "{verb} {label} through its accessibility action \"{accessibility_action}\" (pointer not moved)"
            ),
            Did::ClickOnElement {
                pixel,
                unblocked: true,
                verb,
                label,
                ..
            } => format!(
                "{verb} {label} with the pointer at its center (pixel {},{}): its accessibility action opened a dialog inside the accessibility request, which keeps this app from answering until the dialog closes, so deskhand closed that dialog at once and clicked with the pointer instead; the dialog it opens can be observed and answered",
                pixel.x, pixel.y
            ),
            Did::ClickOnElement {
                pixel,
                unblocked: false,
                verb,
                label,
                read,
                ..
            } => format!(
                "{verb} {label} with the pointer at its center (pixel {},{}){read}",
                pixel.x, pixel.y
            ),
            Did::ClickAtPoint { verb, at, .. } => format!("{verb} at {at} with the pointer"),
            Did::Hover { at, .. } => format!("moved the pointer to {at} without clicking"),
            Did::Down { button, at } => format!(
                "pressed the {} button {at}; it stays down until `up`",
                name_of(button)
            ),
            Did::Up { button, at } => format!("released the {} button {at}", name_of(button)),
            Did::Press { keys, into } => format!("pressed {keys} {into}"),
            Did::Scroll {
                direction,
                amount,
                at,
            } => format!(
                "scrolled {} {} {at}",
                name_of(direction),
                plural(*amount as usize, "click", "clicks")
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
                ..
            } => {
                let typed = plural(*characters, "character", "characters");
                if *replace {
                    format!("replaced the content of {into} with {typed}")
                } else {
                    format!("typed {typed} into {into}")
                }
            }
            Did::SetValue {
                confirmed: true,
                label,
                wanted,
                how,
                ..
            } => format!("set {label} to \"{}\"{how} (read back)", escape(wanted)),
            Did::SetValue {
                value,
                confirmed: false,
                label,
                wanted,
                ..
            } => format!(
                "set {label} to \"{}\", but it reads back {}; the app may round, limit or refuse the value: observe it before trying again",
                escape(wanted),
                match value {
                    Some(read) => format!("\"{}\"", escape(read)),
                    None => "no value".into(),
                }
            ),
            Did::SetPassword { label, .. } => format!(
                "set {label}; a password field's content is never read back, so it was not checked"
            ),
            Did::Select {
                window,
                item,
                through_pointer,
                ..
            } => format!(
                "selected {item} in {window} {}",
                if *through_pointer {
                    "by opening its menus through accessibility and clicking the item with the pointer"
                } else {
                    "through accessibility"
                }
            ),
            Did::Launch {
                app,
                window,
                title,
                name,
                seconds,
                focus_note,
                ..
            } => format!(
                "launched {name} as {app} with window {window} \"{}\" after {seconds:.1} s{focus_note}",
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
                        unmet.join(", ")
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

/// A unit enum's name as its JSON spells it (`right`, `down`).
fn name_of(value: &impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
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

/// What a read found, as typed fields: like [`Did`], its text and its JSON come from them.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Listed {
    Apps {
        apps: Vec<AppRow>,
    },
    Windows {
        windows: Vec<WindowRow>,
        /// Why no window's position is known (GNOME without deskhand's extension).
        #[serde(skip_serializing_if = "Option::is_none")]
        positions_unknown: Option<String>,
    },
    Installed {
        installed: Vec<InstalledApp>,
        /// Kinds of apps that could not be listed, one sentence each.
        not_listed: Vec<String>,
    },
    Clipboard {
        text: Option<String>,
        types: Vec<String>,
    },
    /// A page of one element's text.
    Read {
        action: ReadTag,
        text: String,
        offset: usize,
        end: usize,
        total: usize,
        #[serde(skip)]
        label: String,
    },
}

/// `"action": "read"` in a read's JSON, as the actions' results carry their name.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReadTag {
    Read,
}

#[derive(Serialize)]
pub(crate) struct AppRow {
    /// `a3`.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) pid: u32,
    pub(crate) windows: usize,
    pub(crate) focused: bool,
}

#[derive(Serialize)]
pub(crate) struct WindowRow {
    /// `w3`.
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) app: String,
    pub(crate) app_id: Option<String>,
    /// `None` where positions are unknown; the size is then given alone.
    pub(crate) bounds: Option<Rect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) size: Option<[u32; 2]>,
    pub(crate) focused: bool,
    pub(crate) minimized: bool,
}

impl Listed {
    fn text(&self) -> String {
        match self {
            Listed::Apps { apps } => {
                let mut text = format!("apps · {}\n", plural(apps.len(), "app", "apps"));
                for app in apps {
                    text.push_str(&format!(
                        "{} \"{}\" pid {} · {}{}\n",
                        app.id,
                        escape(&app.name),
                        app.pid,
                        plural(app.windows, "window", "windows"),
                        if app.focused { " · focused" } else { "" }
                    ));
                }
                text
            }
            Listed::Windows {
                windows,
                positions_unknown,
            } => {
                let mut text = format!(
                    "windows · {} · {}\n",
                    plural(windows.len(), "window", "windows"),
                    match positions_unknown {
                        Some(why) => format!("focused first · {why}"),
                        None => "top first".to_owned(),
                    }
                );
                for window in windows {
                    let app = window
                        .app_id
                        .as_ref()
                        .map(|id| format!("{id} "))
                        .unwrap_or_default();
                    let place = match (window.bounds, window.size) {
                        (Some(b), _) => format!("{},{} {}x{}", b.x, b.y, b.width, b.height),
                        (None, Some([width, height])) => {
                            format!("size {width}x{height}, position unknown")
                        }
                        (None, None) => "position unknown".to_owned(),
                    };
                    text.push_str(&format!(
                        "{} \"{}\" · app {app}\"{}\" · {place}{}{}\n",
                        window.id,
                        escape(&cut(&window.title, MAX_NAME_CHARS).0),
                        escape(&window.app),
                        if window.focused { " · focused" } else { "" },
                        if window.minimized {
                            " · minimized"
                        } else {
                            ""
                        },
                    ));
                }
                text
            }
            Listed::Installed {
                installed,
                not_listed,
            } => {
                let not_listed: String = not_listed
                    .iter()
                    .map(|gap| format!(" · not listed: {}", escape(gap)))
                    .collect();
                let mut text = format!(
                    "installed · {} · launch one with {{\"action\": \"launch\", \"app\": id}}{not_listed}\n{FENCE}\n",
                    plural(installed.len(), "app", "apps")
                );
                for app in installed {
                    text.push_str(&format!("{} \"{}\"\n", escape(&app.id), escape(&app.name)));
                }
                text
            }
            Listed::Clipboard { text, types } => {
                let types_listed = if types.is_empty() {
                    "no types".to_string()
                } else {
                    types.join(", ")
                };
                match text {
                    Some(text) => format!(
                        "clipboard · {} · types: {types_listed}\n{FENCE}\n\"{}\"\n",
                        plural(text.chars().count(), "character", "characters"),
                        escape(text)
                    ),
                    None if types.is_empty() => "clipboard · empty\n".to_string(),
                    None => format!("clipboard · no text · types: {types_listed}\n"),
                }
            }
            Listed::Read {
                text,
                offset,
                end,
                total,
                label,
                ..
            } => {
                let more = if end < total {
                    format!(" · more: read with `offset` {end}")
                } else {
                    String::new()
                };
                let mut body = format!(
                    "read {label} · characters {}–{} of {}{more}\n{FENCE}\n",
                    thousands(*offset),
                    thousands(*end),
                    thousands(*total)
                );
                for line in text.split('\n') {
                    body.push_str(&format!("\"{}\"\n", escape(line)));
                }
                body
            }
        }
    }
}

impl From<Listed> for Reply {
    fn from(listed: Listed) -> Reply {
        Reply {
            text: listed.text(),
            outcome: Outcome::Observed,
            image: None,
            data: serde_json::to_value(&listed).unwrap_or_default(),
        }
    }
}

/// An observation: the tree as rendered, and what the header says of how it was read.
pub(crate) struct Observed {
    /// `w3` or `screen`.
    pub(crate) surface: String,
    /// The surface as the header names it: `w3 "Title"`.
    pub(crate) described: String,
    pub(crate) bounds: Rect,
    /// Whether the surface is one window, not the screen.
    pub(crate) of_window: bool,
    /// The window had no accessibility tree and its tree is the text read from its pixels.
    pub(crate) from_pixels: bool,
    /// No element at all was found.
    pub(crate) none_found: bool,
    /// `ocr: true`: how many texts read from pixels were added where the tree shows none.
    pub(crate) added: Option<usize>,
    /// Why a tree was read only in part, per window.
    pub(crate) partial: Vec<String>,
    /// Windows of a screen surface whose tree could not be read, with why.
    pub(crate) unreadable: Vec<String>,
    pub(crate) positions_unknown: Option<String>,
    /// What deskhand remembers of this window and says once.
    pub(crate) learned: Option<String>,
    pub(crate) rendered: Rendered,
}

impl From<Observed> for Reply {
    fn from(observed: Observed) -> Reply {
        let Observed {
            surface,
            described,
            bounds,
            of_window,
            from_pixels,
            none_found,
            added,
            partial,
            unreadable,
            positions_unknown,
            learned,
            rendered,
        } = observed;
        let mut header = format!(
            "observe {described} · {}x{} px · {}",
            bounds.width,
            bounds.height,
            rendered.summary(&surface)
        );
        if let Some(why) = &positions_unknown {
            header.push_str(&format!(" · no points: {why}"));
        }
        if from_pixels {
            header.push_str(" · no accessibility tree: text read from pixels");
            if none_found {
                header.push_str(", none found (take a `screenshot` to see what it shows)");
            }
        }
        if let Some(added) = added {
            header.push_str(&format!(
                " · {} read from pixels where the tree shows none",
                plural(added, "text", "texts")
            ));
        }
        if !partial.is_empty() {
            header.push_str(&format!(" · partial: {}", partial.join("; ")));
        }
        if !unreadable.is_empty() {
            header.push_str(&format!(" · unreadable: {}", unreadable.join("; ")));
        }
        // App text is fenced: the line after the header says quoted text is data.
        let mut text = format!("{header}\n{FENCE}\n{}", rendered.body);
        if let Some(learned) = learned {
            text.push_str(&learned);
            text.push('\n');
        }
        let mut data = json!({
            "surface": surface,
            "bounds": bounds,
            "nodes": rendered.nodes,
            "names_cut": rendered.names_cut,
            "values_cut": rendered.values_cut,
            "hidden": rendered.hidden,
            "partial": partial,
            "elements": rendered.elements,
        });
        if from_pixels {
            data["from_pixels"] = json!(true);
        }
        if let Some(why) = positions_unknown {
            if of_window {
                data["bounds"] = serde_json::Value::Null;
            }
            data["positions_unknown"] = json!(why);
        }
        // Only what a call asked for, or a cut, adds fields: the common reply stays as short.
        if rendered.total > rendered.elements.len() {
            data["elements_total"] = json!(rendered.total);
            data["limit"] = json!(rendered.limit);
        }
        if let Some((query, matches)) = &rendered.query {
            data["query"] = json!(query);
            data["matches"] = json!(matches);
        }
        if rendered.below_depth > 0 {
            data["below_depth"] = json!(rendered.below_depth);
        }
        if let Some(since) = rendered.since {
            data["since"] = match since {
                Some(changes) => {
                    json!({"previous": true, "added": changes.added, "removed": changes.removed, "changed": changes.changed})
                }
                None => json!({"previous": false}),
            };
        }
        Reply {
            text,
            outcome: Outcome::Observed,
            image: None,
            data,
        }
    }
}

/// A wait's end: its conditions held, or the time ran out with the evidence of the last look.
#[derive(Serialize)]
pub(crate) struct Waited {
    pub(crate) held: bool,
    pub(crate) elapsed_ms: u64,
    /// On a timeout: the conditions that did not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) not_met: Option<Vec<String>>,
    /// Per condition, what was seen at the last look.
    pub(crate) evidence: Vec<String>,
    #[serde(flatten)]
    pub(crate) found: Option<FoundWindow>,
    /// What was waited on: `w3`, `screen`.
    #[serde(skip)]
    pub(crate) label: String,
    #[serde(skip)]
    pub(crate) looks: u32,
}

/// The windows a held wait's conditions found.
#[derive(Serialize)]
pub(crate) struct FoundWindow {
    pub(crate) new_window: Option<String>,
    /// The window a window condition found, which the wait makes current.
    pub(crate) window: Option<String>,
}

impl From<Waited> for Reply {
    fn from(waited: Waited) -> Reply {
        let seconds = waited.elapsed_ms as f64 / 1000.0;
        let (label, looks, evidence) = (&waited.label, waited.looks, waited.evidence.join("\n"));
        let (text, outcome) = match &waited.not_met {
            None => (
                format!(
                    "wait {label} · held after {seconds:.1} s ({looks} {})\n{FENCE}\n{evidence}\n",
                    if looks == 1 { "look" } else { "looks" },
                ),
                Outcome::Observed,
            ),
            Some(unmet) => (
                format!(
                    "timeout: waited {seconds:.1} s on {label} ({looks} looks); not met: {}; what was there at the last look follows; wait again, or observe to see why\n{FENCE}\n{evidence}\n",
                    unmet.join("; "),
                ),
                Outcome::Failed,
            ),
        };
        Reply {
            text,
            outcome,
            image: None,
            data: serde_json::to_value(&waited).unwrap_or_default(),
        }
    }
}

/// A batch's steps as they ran, up to the first that failed.
pub(crate) struct Batched {
    pub(crate) steps: Vec<Step>,
    /// How many steps the batch had.
    pub(crate) total: usize,
    /// Whether a step that ran was an action, so a stop may have left changes behind.
    pub(crate) changed_something: bool,
    /// The outcome of the last step that ran.
    pub(crate) last_outcome: Outcome,
}

pub(crate) struct Step {
    pub(crate) index: usize,
    pub(crate) action: &'static str,
    pub(crate) result: crate::error::Result<Reply>,
}

impl From<Batched> for Reply {
    fn from(batched: Batched) -> Reply {
        let total = batched.total;
        let mut text = String::new();
        let mut listed = Vec::with_capacity(batched.steps.len());
        let mut failed_index = None;
        let mut image = None;
        for Step {
            index,
            action,
            result,
        } in batched.steps
        {
            match result {
                Ok(reply) => {
                    let failed = reply.outcome == Outcome::Failed;
                    if failed {
                        failed_index = Some(index);
                    }
                    text.push_str(&format!("[{index}] {}", indent(&reply.text)));
                    listed.push(json!({
                        "index": index, "action": action, "ok": !failed,
                        "outcome": reply.outcome, "text": reply.text, "data": reply.data,
                    }));
                    if reply.image.is_some() {
                        image = reply.image;
                    }
                }
                Err(err) => {
                    failed_index = Some(index);
                    text.push_str(&format!("[{index}] {}", err.reply_text()));
                    if err.kind == crate::error::ErrorKind::Cancelled {
                        text.push_str("the client cancelled the batch\n");
                    }
                    listed.push(json!({
                        "index": index, "action": action, "ok": false,
                        "error": err.kind, "message": err.message,
                    }));
                }
            }
        }
        let completed = failed_index.unwrap_or(total);
        let header = match failed_index {
            None => format!("batch · {completed} of {total} steps completed\n"),
            Some(index) => format!(
                "batch · {completed} of {total} steps completed · stopped at step {index}{}\n",
                if batched.changed_something {
                    "; the steps before it took effect: check before running them again"
                } else {
                    "; nothing was changed"
                }
            ),
        };
        let outcome = match failed_index {
            Some(_) if batched.changed_something => Outcome::Unconfirmed,
            Some(_) => Outcome::Failed,
            None if batched.changed_something => Outcome::Done,
            None => batched.last_outcome,
        };
        Reply {
            text: format!("{header}{text}"),
            outcome,
            image,
            data: json!({
                "steps": listed, "completed": completed, "failed_index": failed_index,
            }),
        }
    }
}

/// A step's reply under its `[i]` marker, its later lines indented.
fn indent(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                line.to_owned()
            } else {
                format!("    {line}")
            }
        })
        .collect();
    lines.join("\n") + "\n"
}

/// A screenshot or a zoom: the picture, and what it shows.
#[derive(Serialize)]
pub(crate) struct Captured {
    pub(crate) surface: String,
    /// `screenshot` or `zoom`.
    pub(crate) kind: &'static str,
    /// The screen pixels it shows.
    pub(crate) pixels: Rect,
    /// The picture's size, after a screenshot is scaled down to the largest edge allowed.
    pub(crate) width: u32,
    pub(crate) height: u32,
    #[serde(skip)]
    pub(crate) described: String,
    #[serde(skip)]
    pub(crate) region: Option<[f64; 4]>,
    /// The size on the screen, before any scaling.
    #[serde(skip)]
    pub(crate) native: [u32; 2],
    #[serde(skip)]
    pub(crate) png: Vec<u8>,
}

impl From<Captured> for Reply {
    fn from(captured: Captured) -> Reply {
        let [native_w, native_h] = captured.native;
        let scaled = if [captured.width, captured.height] != captured.native {
            format!(" · scaled to {}x{}", captured.width, captured.height)
        } else {
            String::new()
        };
        let region = captured
            .region
            .map(|[x0, y0, x1, y1]| format!(" region [{x0}, {y0}, {x1}, {y1}]"))
            .unwrap_or_default();
        Reply {
            text: format!(
                "{} {}{region} · {native_w}x{native_h} px{scaled}\n",
                captured.kind, captured.described
            ),
            outcome: Outcome::Observed,
            data: serde_json::to_value(&captured).unwrap_or_default(),
            image: Some(captured.png),
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
    use crate::action::ACTIONS;

    fn pixel() -> Point {
        Point { x: 10, y: 20 }
    }

    /// One of each kind of result, as a handler fills it.
    fn samples() -> Vec<Did> {
        let verb = || "clicked".to_string();
        let label = || "e3 button \"OK\"".to_string();
        vec![
            Did::ClickByAction {
                reference: "e3".into(),
                path: ClickPath::Accessibility,
                accessibility_action: "click".into(),
                opened: None,
                verb: verb(),
                label: label(),
            },
            Did::ClickOnElement {
                reference: "e3".into(),
                path: ClickPath::Pointer,
                pixel: pixel(),
                unblocked: false,
                verb: verb(),
                label: label(),
                read: "",
            },
            Did::ClickAtPoint {
                path: ClickPath::Pointer,
                pixel: pixel(),
                verb: verb(),
                at: "500,500 of w1".into(),
            },
            Did::Hover {
                pixel: pixel(),
                at: "e3".into(),
            },
            Did::Down {
                button: MouseButton::Left,
                at: "where the pointer is".into(),
            },
            Did::Up {
                button: MouseButton::Right,
                at: "where the pointer is".into(),
            },
            Did::Press {
                keys: "ctrl+s".into(),
                into: "in w1, the focused window".into(),
            },
            Did::Scroll {
                direction: ScrollDirection::Down,
                amount: 3,
                at: "where the pointer is".into(),
            },
            Did::Drag {
                from: pixel(),
                to: pixel(),
                points: 2,
                from_at: "e1".into(),
                to_at: "e2".into(),
                via: 0,
            },
            Did::Type {
                characters: 5,
                replace: false,
                into: label(),
                selected_only: false,
            },
            Did::SetValue {
                reference: "e3".into(),
                value: Some("7".into()),
                confirmed: true,
                label: label(),
                wanted: "7".into(),
                how: "",
            },
            Did::SetPassword {
                reference: "e3".into(),
                confirmed: false,
                label: label(),
            },
            Did::Select {
                window: "w1".into(),
                path: vec!["File".into(), "Save".into()],
                item: "File > Save".into(),
                through_pointer: false,
            },
            Did::Launch {
                app: "a2".into(),
                window: "w4".into(),
                pid: 42,
                title: "Untitled".into(),
                name: "mousepad".into(),
                seconds: 0.8,
                focus_note: String::new(),
                focus_kept: true,
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
            at: "e3 button \"OK\" (pixel 10,20)".into(),
        })
        .unwrap();
        assert_eq!(
            data,
            serde_json::json!({"action": "hover", "pixel": serde_json::to_value(pixel()).unwrap()})
        );
        let data = serde_json::to_value(Did::Type {
            characters: 5,
            replace: false,
            into: "e3 entry \"Password\"".into(),
            selected_only: false,
        })
        .unwrap();
        assert_eq!(
            data,
            serde_json::json!({"action": "type", "characters": 5, "replace": false})
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
                into: "in w1, the focused window".into(),
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
                .contains("only 1 of 2 key chords were sent before the input failed (the X server went away); intended: pressed ctrl+s in w1, the focused window;"),
            "{}",
            reply.text
        );
    }

    #[test]
    fn a_window_without_a_known_position_gives_its_size_alone_in_both_forms() {
        let row = |bounds, size| WindowRow {
            id: "w1".into(),
            title: "Calculator".into(),
            app: "gnome-calculator".into(),
            app_id: Some("a1".into()),
            bounds,
            size,
            focused: true,
            minimized: false,
        };
        let b = Rect {
            x: 5,
            y: 6,
            width: 300,
            height: 400,
        };
        let placed = Reply::from(Listed::Windows {
            windows: vec![row(Some(b), None)],
            positions_unknown: None,
        });
        assert!(
            placed.text.contains("· 5,6 300x400 · focused"),
            "{}",
            placed.text
        );
        assert_eq!(placed.data["windows"][0]["bounds"]["width"], 300);
        assert!(placed.data["windows"][0].get("size").is_none());
        assert!(placed.data.get("positions_unknown").is_none());
        let unplaced = Reply::from(Listed::Windows {
            windows: vec![row(None, Some([300, 400]))],
            positions_unknown: Some("the extension is not loaded".into()),
        });
        assert!(
            unplaced
                .text
                .starts_with("windows · 1 window · focused first · the extension is not loaded\n"),
            "{}",
            unplaced.text
        );
        assert!(unplaced.text.contains("size 300x400, position unknown"));
        assert!(unplaced.data["windows"][0]["bounds"].is_null());
        assert_eq!(
            unplaced.data["windows"][0]["size"],
            serde_json::json!([300, 400])
        );
        assert_eq!(
            unplaced.data["positions_unknown"],
            "the extension is not loaded"
        );
    }
}
