//! Arguments checked into one typed [`Call`]: everything is checked before anything runs.

use crate::coords::check_unit;
use crate::error::{Error, Result};
use crate::keys::Keys;
use crate::memory::Recall;
use crate::model::{MouseButton, Role};

use super::args::*;
use super::call::*;
use super::limits::*;
use super::table::*;

/// Text to type: not empty, not enormous, no control characters but newline and tab.
fn checked_text(text: String) -> Result<String> {
    if text.is_empty() {
        return Err(Error::bad_argument(
            "`type` needs a non-empty `text`; to press keys such as Return use `press`",
        ));
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(Error::bad_argument(format!(
            "`text` has {chars} characters, more than {MAX_TEXT_CHARS}; type it in parts"
        )));
    }
    if let Some(bad) = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'))
    {
        return Err(Error::bad_argument(format!(
            "`text` contains the control character U+{:04X}; only newline and tab can be typed, use `press` for other keys",
            bad as u32
        )));
    }
    Ok(text)
}

/// A role as observe prints it.
fn parse_role(text: &str) -> Result<Role> {
    serde_json::from_value(serde_json::Value::String(text.trim().to_lowercase())).map_err(|_| {
        Error::bad_argument(format!(
            "`role` {text:?} is not a role; give one as observe prints it, e.g. button, text, check, menuitem, combobox, slider, label"
        ))
    })
}

impl FindArgs {
    pub fn validate(&self) -> Result<Find> {
        let name = self
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        if name
            .as_ref()
            .is_some_and(|n| n.chars().count() > MAX_QUERY_CHARS)
        {
            return Err(Error::bad_argument(format!(
                "`find` name is longer than {MAX_QUERY_CHARS} characters; give a shorter part of it"
            )));
        }
        let role = self.role.as_deref().map(parse_role).transpose()?;
        if name.is_none() && role.is_none() {
            return Err(Error::bad_argument(
                "`find` needs a non-empty `name`, a `role`, or both, e.g. {\"name\": \"Save\", \"role\": \"button\"}",
            ));
        }
        Ok(Find { name, role })
    }
}

impl ConditionArgs {
    fn validate(&self) -> Result<Condition> {
        let element = self.name.is_some() || self.role.is_some() || self.element.is_some();
        let kinds = [
            element,
            self.title.is_some(),
            self.window.is_some(),
            self.new_window.is_some(),
            self.gone.is_some(),
            self.stable_ms.is_some(),
            self.text.is_some(),
        ];
        let element_only = self.is.is_some()
            || self.value.is_some()
            || self.value_not.is_some()
            || self.value_has.is_some();
        let kinds_given = kinds.iter().filter(|k| **k).count();
        if element_only && !element && self.text.is_none() && kinds_given <= 1 {
            return Err(Error::bad_argument(
                "`is`, `value`, `value_has` and `value_not` need the element they are about: `name`, `role` or `ref`",
            ));
        }
        if kinds_given != 1 {
            return Err(Error::bad_argument(
                "give exactly one kind of condition: an element (`name`, `role` or `ref`), `title`, `window`, `new_window`, `gone`, `stable_ms` or `text`; list several conditions to combine them",
            ));
        }
        if let Some(text) = &self.text {
            if text.trim().is_empty() {
                return Err(Error::bad_argument(
                    "`text` is empty; give the words the surface's pixels will show",
                ));
            }
            if self.value.is_some() || self.value_not.is_some() || self.value_has.is_some() {
                return Err(Error::bad_argument(
                    "`text` goes with `is` \"present\" or \"absent\" only: text read from pixels has no value",
                ));
            }
            let absent = match self.is {
                None | Some(ElementIs::Present) => false,
                Some(ElementIs::Absent) => true,
                Some(_) => {
                    return Err(Error::bad_argument(
                        "`text` goes with `is` \"present\" or \"absent\" only: text read from pixels cannot be enabled or focused",
                    ));
                }
            };
            return Ok(Condition::TextShown {
                text: text.trim().to_owned(),
                absent,
            });
        }
        if self.region.is_some() && self.stable_ms.is_none() {
            return Err(Error::bad_argument(
                "`region` goes with `stable_ms`: the pixels there must stay the same that long",
            ));
        }
        if element {
            let which = match &self.element {
                Some(_) if self.name.is_some() || self.role.is_some() => {
                    return Err(Error::bad_argument(
                        "give either `ref` or `name`/`role`, not both",
                    ));
                }
                Some(text) => ElementMatch::Ref(RefId::parse(text)?),
                None => ElementMatch::Find(
                    FindArgs {
                        name: self.name.clone(),
                        role: self.role.clone(),
                    }
                    .validate()?,
                ),
            };
            let given = [
                self.is.is_some_and(|is| is != ElementIs::Present),
                self.value.is_some(),
                self.value_not.is_some(),
                self.value_has.is_some(),
            ];
            if given.iter().filter(|g| **g).count() > 1 {
                return Err(Error::bad_argument(
                    "give one of `is`, `value`, `value_has` or `value_not` per condition; list several conditions to combine them",
                ));
            }
            let check = match (&self.is, &self.value, &self.value_not) {
                (_, Some(value), _) => Check::ValueEquals(value.clone()),
                (_, _, Some(value)) => Check::ValueNot(value.clone()),
                _ if self
                    .value_has
                    .as_deref()
                    .is_some_and(|v| v.trim().is_empty()) =>
                {
                    return Err(Error::bad_argument(
                        "`value_has` is empty; give the text the value will contain",
                    ));
                }
                _ if self.value_has.is_some() => {
                    Check::ValueHas(self.value_has.clone().unwrap_or_default())
                }
                (Some(ElementIs::Absent), _, _) => Check::Absent,
                (Some(ElementIs::Enabled), _, _) => Check::Enabled,
                (Some(ElementIs::Focused), _, _) => Check::Focused,
                _ => Check::Present,
            };
            return Ok(Condition::Element { which, check });
        }
        if let Some(title) = &self.title {
            if title.is_empty() {
                return Err(Error::bad_argument(
                    "`title` is empty; give text the window's title will contain",
                ));
            }
            return Ok(Condition::TitleContains(title.clone()));
        }
        if let Some(title) = &self.window {
            if title.trim().is_empty() {
                return Err(Error::bad_argument(
                    "`window` is empty; give text the window's title will contain",
                ));
            }
            return Ok(Condition::WindowOpen(title.trim().to_owned()));
        }
        if let Some(flag) = self.new_window {
            return match flag {
                true => Ok(Condition::NewWindow),
                false => Err(Error::bad_argument(
                    "`new_window` can only be true; leave it out otherwise",
                )),
            };
        }
        if let Some(flag) = self.gone {
            return match flag {
                true => Ok(Condition::Gone),
                false => Err(Error::bad_argument(
                    "`gone` can only be true; to wait while a window is open, wait on one of its elements",
                )),
            };
        }
        let ms = self.stable_ms.unwrap_or_default();
        if !(1..=MAX_STABLE_MS).contains(&ms) {
            return Err(Error::bad_argument(format!(
                "`stable_ms` is {ms}; give 1–{MAX_STABLE_MS}"
            )));
        }
        match self.region {
            Some(region) => {
                crate::coords::check_region(region)?;
                Ok(Condition::PixelsStable { region, ms })
            }
            None => Ok(Condition::TreeStable { ms }),
        }
    }
}

/// Parses raw JSON arguments: unknown keys and wrong types are bad arguments, not protocol errors.
pub fn parse_call(arguments: serde_json::Value) -> Result<Call> {
    args_at(arguments, "")?.validate()
}

/// The arguments as typed; `at` is where they sit in the call (`steps[2].` in a batch), so the
/// error names the bad key by its whole path, as an agent would write it.
fn args_at(arguments: serde_json::Value, at: &str) -> Result<DesktopArgs> {
    serde_path_to_error::deserialize(arguments).map_err(|err| {
        let mut path = err.path().to_string();
        let mut why = err.into_inner().to_string();
        // A condition read by hand names the path inside it (`[1].txt`, `txt`): one path,
        // `until[1].txt`, `until.txt`.
        if let Some((inner, rest)) = why.strip_prefix('`').and_then(|why| why.split_once("`: ")) {
            let joint = if inner.starts_with('[') { "" } else { "." };
            (path, why) = (format!("{path}{joint}{inner}"), rest.to_owned());
        }
        // An empty path (".") is the arguments as a whole: not an object.
        let key = match (at, path.as_str()) {
            ("", ".") => String::new(),
            (at, ".") => format!("`{}`: ", at.trim_end_matches('.')),
            (at, path) => format!("`{at}{path}`: "),
        };
        Error::bad_argument(format!(
            "the arguments do not fit the desktop tool: {key}{why}; see the tool's input schema"
        ))
    })
}

impl DesktopArgs {
    /// Checks that the action has what it needs and nothing it would ignore.
    pub fn validate(self) -> Result<Call> {
        let Some(name) = self.action else {
            return Err(Error::bad_argument(format!(
                "`action` is missing; give one of {}",
                ActionName::ALL.map(ActionName::as_str).join(", ")
            )));
        };
        let action_name = name.as_str();
        let present = self.present_fields();
        let allowed = name.fields();
        if let Some(extra) = present.iter().find(|field| !allowed.contains(field)) {
            let takes = if allowed.is_empty() {
                "no other arguments".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(Error::bad_argument(format!(
                "`{action_name}` does not take `{extra}`; it takes {takes}"
            )));
        }
        // Scrolling without a place goes where the pointer is, whatever the target.
        let placed =
            self.element.is_some() || self.find.is_some() || self.x.is_some() || self.y.is_some();
        if self.target.is_some() && name == ActionName::Scroll && !placed {
            return Err(Error::bad_argument(
                "`scroll` takes `target` only together with `ref`, `find` or `x`/`y`; without them it goes where the pointer is",
            ));
        }
        let target = self.target.as_deref().map(TargetId::parse).transpose()?;
        let element = self.element.as_deref().map(RefId::parse).transpose()?;
        let find = self.find.as_ref().map(FindArgs::validate).transpose()?;
        let place = |required: bool| -> Result<Option<Place>> {
            let point = self.x.is_some() || self.y.is_some();
            if [element.is_some(), find.is_some(), point]
                .iter()
                .filter(|given| **given)
                .count()
                > 1
            {
                return Err(Error::bad_argument(format!(
                    "`{action_name}` takes one of `ref`, `find` or `x`/`y`, not several"
                )));
            }
            match (element, &find, self.x, self.y) {
                (Some(r), _, _, _) => Ok(Some(Place::Ref(r))),
                (_, Some(find), _, _) => Ok(Some(Place::Find(find.clone()))),
                (None, None, Some(x), Some(y)) => Ok(Some(Place::Point {
                    x: check_unit("x", x)?,
                    y: check_unit("y", y)?,
                })),
                (None, None, Some(_), None) | (None, None, None, Some(_)) => {
                    Err(Error::bad_argument(format!(
                        "`{action_name}` needs both `x` and `y` (0–1000 of the surface)"
                    )))
                }
                (None, None, None, None) if required => Err(Error::bad_argument(format!(
                    "`{action_name}` needs a `ref` from observe, a `find` {{\"name\", \"role\"}}, or `x` and `y` (0–1000 of the surface)"
                ))),
                (None, None, None, None) => Ok(None),
            }
        };
        let modifiers = self.modifiers.clone().unwrap_or_default();
        let action = match name {
            ActionName::Apps if self.installed == Some(true) => Action::Installed,
            ActionName::Apps => Action::Apps,
            ActionName::Windows => Action::Windows,
            ActionName::Observe => Action::Observe(self.observe_spec()?),
            ActionName::Screenshot => Action::Screenshot,
            ActionName::Click => {
                let count = self.count.unwrap_or(1);
                if !(1..=MAX_CLICKS).contains(&count) {
                    return Err(Error::bad_argument(format!(
                        "`count` is {count}; give 1, 2 (double click) or 3 (triple click)"
                    )));
                }
                Action::Click {
                    place: place(true)?.expect("required place"),
                    click: ClickSpec {
                        button: self.button.unwrap_or(MouseButton::Left),
                        count,
                        modifiers,
                    },
                }
            }
            ActionName::Type => Action::Type {
                text: checked_text(self.text.clone().unwrap_or_default())?,
                place: place(false)?,
                replace: self.replace.unwrap_or(false),
            },
            ActionName::Read => {
                if element.is_none() && find.is_none() {
                    return Err(Error::bad_argument(
                        "`read` needs the element: a `ref` from observe, or a `find` {\"name\", \"role\"}",
                    ));
                }
                Action::Read {
                    place: place(true)?.expect("required place"),
                    offset: self.offset.unwrap_or(0) as usize,
                }
            }
            ActionName::Press => {
                let keys = self.keys.clone().unwrap_or_default();
                if keys.trim().is_empty() {
                    return Err(Error::bad_argument(
                        "`press` needs `keys`, e.g. \"ctrl+s\", \"Return\" or \"ctrl+a Delete\"",
                    ));
                }
                Action::Press {
                    keys: Keys::parse(&keys).map_err(|err| Error::bad_argument(err.to_string()))?,
                }
            }
            ActionName::Scroll => {
                let direction = self.direction.ok_or_else(|| {
                    Error::bad_argument("`scroll` needs `direction`: up, down, left or right")
                })?;
                let amount = self.amount.unwrap_or(3);
                if !(1..=MAX_SCROLL).contains(&amount) {
                    return Err(Error::bad_argument(format!(
                        "`amount` is {amount}; give 1–{MAX_SCROLL} wheel clicks"
                    )));
                }
                Action::Scroll {
                    place: place(false)?,
                    direction,
                    amount,
                }
            }
            ActionName::Drag => {
                let spot = |name: &str, spot: &Option<Spot>| -> Result<Place> {
                    match spot {
                        None => Err(Error::bad_argument(format!(
                            "`drag` needs `{name}`: a ref \"eN\" or a point [x, y] 0–1000 of the surface"
                        ))),
                        Some(Spot::Ref(text)) => RefId::parse(text).map(Place::Ref),
                        Some(Spot::Point([x, y])) => Ok(Place::Point {
                            x: check_unit(&format!("{name}[0]"), *x)?,
                            y: check_unit(&format!("{name}[1]"), *y)?,
                        }),
                    }
                };
                let via = self.via.clone().unwrap_or_default();
                if via.len() > MAX_VIA {
                    return Err(Error::bad_argument(format!(
                        "`via` has {} points, more than {MAX_VIA}; give fewer points along the path",
                        via.len()
                    )));
                }
                for (i, [x, y]) in via.iter().enumerate() {
                    check_unit(&format!("via[{i}][0]"), *x)?;
                    check_unit(&format!("via[{i}][1]"), *y)?;
                }
                let duration_ms = self.duration_ms.unwrap_or(0);
                if duration_ms > MAX_DRAG_MS {
                    return Err(Error::bad_argument(format!(
                        "`duration_ms` is {duration_ms}; give 0–{MAX_DRAG_MS}"
                    )));
                }
                Action::Drag {
                    from: spot("from", &self.from)?,
                    to: spot("to", &self.to)?,
                    via,
                    duration_ms,
                    button: self.button.unwrap_or(MouseButton::Left),
                    modifiers,
                }
            }
            ActionName::Zoom => {
                let region = self.region.ok_or_else(|| {
                    Error::bad_argument(
                        "`zoom` needs `region`: [x0, y0, x1, y1], 0–1000 of the surface",
                    )
                })?;
                Action::Zoom { region }
            }
            ActionName::Hover => Action::Hover {
                place: place(true)?.expect("required place"),
            },
            ActionName::Down | ActionName::Up => Action::Button {
                down: name == ActionName::Down,
                place: place(false)?,
                button: self.button.unwrap_or(MouseButton::Left),
                modifiers,
            },
            ActionName::Wait => Action::Wait(self.wait_spec(target)?),
            ActionName::Batch => Action::Batch(self.batch_steps()?),
            ActionName::SetValue => {
                let value = self.value.clone().ok_or_else(|| {
                    Error::bad_argument(
                        "`set_value` needs `value`: text for a text field or combo box, a number for a slider or spin button",
                    )
                })?;
                // `x`/`y` are refused above: a value is set on an element, never at a point.
                if element.is_none() && find.is_none() {
                    return Err(Error::bad_argument(
                        "`set_value` needs the element: a `ref` from observe, or a `find` {\"name\", \"role\"}",
                    ));
                }
                let place = place(true)?.expect("required place");
                if let ValueArg::Text(text) = &value
                    && text.chars().count() > MAX_TEXT_CHARS
                {
                    return Err(Error::bad_argument(format!(
                        "`value` has more than {MAX_TEXT_CHARS} characters; set a shorter text"
                    )));
                }
                Action::SetValue { place, value }
            }
            ActionName::Select => {
                let path = self.path.clone().unwrap_or_default();
                if path.is_empty() || path.len() > MAX_MENU_DEPTH {
                    return Err(Error::bad_argument(format!(
                        "`select` needs `path`: 1–{MAX_MENU_DEPTH} menu item names from the menu bar down, e.g. [\"File\", \"Save As…\"]"
                    )));
                }
                if let Some(i) = path.iter().position(|p| p.trim().is_empty()) {
                    return Err(Error::bad_argument(format!(
                        "`path[{i}]` is empty; give each menu item's name as observe shows it"
                    )));
                }
                Action::Select { path }
            }
            ActionName::Launch => {
                let app = self.app.clone().unwrap_or_default();
                if app.trim().is_empty() {
                    return Err(Error::bad_argument(
                        "`launch` needs `app`: a desktop-file id or a name from apps {\"installed\": true}",
                    ));
                }
                Action::Launch {
                    app: app.trim().to_owned(),
                    focus: self.focus.unwrap_or(true),
                }
            }
            ActionName::Focus => Action::Focus,
            ActionName::Close => Action::Close,
            ActionName::Kill => Action::Kill,
            ActionName::Window => {
                if self.state.is_none() && self.position.is_none() && self.size.is_none() {
                    return Err(Error::bad_argument(
                        "`window` needs `state` (normal, minimized, maximized), `position` [x, y] or `size` [width, height]",
                    ));
                }
                if let Some([w, h]) = self.size
                    && (w == 0 || h == 0 || w > MAX_WINDOW_PIXELS || h > MAX_WINDOW_PIXELS)
                {
                    return Err(Error::bad_argument(format!(
                        "`size` is [{w}, {h}]; give a width and height of 1–{MAX_WINDOW_PIXELS} pixels"
                    )));
                }
                if self.state == Some(WindowState::Minimized)
                    && (self.position.is_some() || self.size.is_some())
                {
                    return Err(Error::bad_argument(
                        "a minimized window cannot be moved or resized; give `state` \"normal\" with `position` or `size`",
                    ));
                }
                Action::Window(WindowSpec {
                    state: self.state,
                    position: self.position,
                    size: self.size,
                })
            }
            ActionName::Recall => {
                let clean = |field: &str, text: &Option<String>| -> Result<Option<String>> {
                    match text.as_deref().map(str::trim) {
                        None => Ok(None),
                        Some("") => Err(Error::bad_argument(format!(
                            "`{field}` is empty; leave it out to recall more widely"
                        ))),
                        Some(t) if t.chars().count() > MAX_QUERY_CHARS => Err(Error::bad_argument(
                            format!("`{field}` is longer than {MAX_QUERY_CHARS} characters"),
                        )),
                        Some(t) => Ok(Some(t.to_owned())),
                    }
                };
                let recall = Recall {
                    app: clean("app", &self.app)?,
                    window: clean("window", &self.window)?,
                    query: clean("query", &self.query)?,
                };
                if recall.window.is_some() && recall.app.is_none() {
                    return Err(Error::bad_argument(
                        "`window` goes with `app`: recall {\"app\": \"Mousepad\", \"window\": \"Preferences\"}",
                    ));
                }
                Action::Recall(recall)
            }
            ActionName::Forget => match (self.app.as_deref().map(str::trim), self.all) {
                (Some(app), None) if !app.is_empty() => Action::Forget {
                    app: Some(app.to_owned()),
                },
                (None, Some(true)) => Action::Forget { app: None },
                _ => {
                    return Err(Error::bad_argument(
                        "`forget` needs either `app` (an app's name as recall lists it) or `all: true`, not both",
                    ));
                }
            },
            ActionName::Clipboard => match self.text.clone() {
                None => Action::ReadClipboard,
                Some(text) => {
                    if text.chars().count() > MAX_CLIPBOARD_CHARS {
                        return Err(Error::bad_argument(format!(
                            "`text` has more than {MAX_CLIPBOARD_CHARS} characters; put less on the clipboard"
                        )));
                    }
                    Action::WriteClipboard { text }
                }
            },
        };
        let needs_window = matches!(
            action,
            Action::Focus | Action::Close | Action::Kill | Action::Window(_)
        );
        if needs_window && !matches!(target, Some(TargetId::Window(_) | TargetId::App(_))) {
            return Err(Error::bad_argument(format!(
                "`{action_name}` needs `target`: a window id \"wN\" from `windows` or an app id \"aN\" from `apps`"
            )));
        }
        Ok(Call {
            name,
            action,
            target,
        })
    }

    fn wait_spec(&self, target: Option<TargetId>) -> Result<WaitSpec> {
        let conditions = match self.until.clone() {
            None => {
                return Err(Error::bad_argument(
                    "`wait` needs `until`: e.g. {\"name\": \"Save\", \"role\": \"button\"}, {\"title\": \"Done\"}, {\"new_window\": true} or {\"stable_ms\": 500}",
                ));
            }
            Some(Conditions::One(one)) => vec![*one],
            Some(Conditions::All(all)) => all,
        };
        if conditions.is_empty() || conditions.len() > MAX_CONDITIONS {
            return Err(Error::bad_argument(format!(
                "`until` has {} conditions; give 1–{MAX_CONDITIONS}",
                conditions.len()
            )));
        }
        let conditions = conditions
            .iter()
            .enumerate()
            .map(|(i, c)| {
                c.validate().map_err(|err| {
                    Error::bad_argument(format!("`until` condition {}: {}", i + 1, err.message))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if target == Some(TargetId::Screen)
            && conditions
                .iter()
                .any(|c| matches!(c, Condition::TitleContains(_) | Condition::Gone))
        {
            return Err(Error::bad_argument(
                "the screen has no title and cannot close; wait on a window (`target` \"wN\")",
            ));
        }
        let timeout_ms = self.timeout_ms.unwrap_or(DEFAULT_WAIT_MS);
        if !(1..=MAX_WAIT_MS).contains(&timeout_ms) {
            return Err(Error::bad_argument(format!(
                "`timeout_ms` is {timeout_ms}; give 1–{MAX_WAIT_MS} (default {DEFAULT_WAIT_MS}); for longer, wait again"
            )));
        }
        let interval_ms = self.interval_ms.unwrap_or(DEFAULT_INTERVAL_MS);
        if !(MIN_INTERVAL_MS..=MAX_INTERVAL_MS).contains(&interval_ms) {
            return Err(Error::bad_argument(format!(
                "`interval_ms` is {interval_ms}; give {MIN_INTERVAL_MS}–{MAX_INTERVAL_MS} (default {DEFAULT_INTERVAL_MS})"
            )));
        }
        Ok(WaitSpec {
            conditions,
            timeout_ms,
            interval_ms,
        })
    }

    /// Every step is parsed before any runs: one bad step and nothing runs.
    fn batch_steps(&self) -> Result<Vec<Call>> {
        let steps = self.steps.clone().unwrap_or_default();
        if steps.is_empty() || steps.len() > MAX_STEPS {
            return Err(Error::bad_argument(format!(
                "`steps` has {} steps; give 1–{MAX_STEPS}, each the arguments of one action",
                steps.len()
            )));
        }
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| {
                let call = args_at(step, &format!("steps[{i}]."))
                    .and_then(DesktopArgs::validate)
                    .map_err(|err| {
                    Error::bad_argument(format!(
                        "step {i} is not valid, so no step ran: {}",
                        err.message
                    ))
                })?;
                if matches!(call.action, Action::Batch(_)) {
                    return Err(Error::bad_argument(format!(
                        "step {i} is a batch, so no step ran; a batch cannot contain a batch: list its steps instead"
                    )));
                }
                Ok(call)
            })
            .collect()
    }

    fn observe_spec(&self) -> Result<ObserveSpec> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Error::bad_argument(format!(
                "`limit` is {limit}; give 1–{MAX_LIMIT} elements (default {DEFAULT_LIMIT}), or a `query` to list only what you look for"
            )));
        }
        if let Some(depth) = self.max_depth.filter(|d| *d > MAX_DEPTH) {
            return Err(Error::bad_argument(format!(
                "`max_depth` is {depth}; give 0–{MAX_DEPTH} (0 lists only the window itself), or leave it out to list every depth"
            )));
        }
        let query = match self.query.as_deref().map(str::trim) {
            None => None,
            Some("") => {
                return Err(Error::bad_argument(
                    "`query` is empty; give text to find in element names, roles or values, or leave it out to list everything",
                ));
            }
            Some(text) => {
                let chars = text.chars().count();
                if chars > MAX_QUERY_CHARS {
                    return Err(Error::bad_argument(format!(
                        "`query` has {chars} characters, more than {MAX_QUERY_CHARS}; give a shorter part of the text you look for"
                    )));
                }
                Some(text.to_string())
            }
        };
        Ok(ObserveSpec {
            limit: limit as usize,
            query,
            max_depth: self.max_depth.map(|d| d as usize),
            hidden: self.hidden.unwrap_or(false),
            points: self.points.unwrap_or(false),
            since: self.since.unwrap_or(false),
            ocr: self.ocr.unwrap_or(false),
        })
    }

    fn present_fields(&self) -> Vec<&'static str> {
        [
            ("target", self.target.is_some()),
            ("ref", self.element.is_some()),
            ("x", self.x.is_some()),
            ("y", self.y.is_some()),
            ("region", self.region.is_some()),
            ("text", self.text.is_some()),
            ("replace", self.replace.is_some()),
            ("offset", self.offset.is_some()),
            ("keys", self.keys.is_some()),
            ("direction", self.direction.is_some()),
            ("amount", self.amount.is_some()),
            ("from", self.from.is_some()),
            ("to", self.to.is_some()),
            ("button", self.button.is_some()),
            ("count", self.count.is_some()),
            ("modifiers", self.modifiers.is_some()),
            ("limit", self.limit.is_some()),
            ("query", self.query.is_some()),
            ("max_depth", self.max_depth.is_some()),
            ("hidden", self.hidden.is_some()),
            ("points", self.points.is_some()),
            ("since", self.since.is_some()),
            ("ocr", self.ocr.is_some()),
            ("find", self.find.is_some()),
            ("via", self.via.is_some()),
            ("duration_ms", self.duration_ms.is_some()),
            ("value", self.value.is_some()),
            ("path", self.path.is_some()),
            ("app", self.app.is_some()),
            ("focus", self.focus.is_some()),
            ("installed", self.installed.is_some()),
            ("state", self.state.is_some()),
            ("position", self.position.is_some()),
            ("size", self.size.is_some()),
            ("until", self.until.is_some()),
            ("timeout_ms", self.timeout_ms.is_some()),
            ("interval_ms", self.interval_ms.is_some()),
            ("steps", self.steps.is_some()),
            ("window", self.window.is_some()),
            ("all", self.all.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, present)| present.then_some(name))
        .collect()
    }
}
