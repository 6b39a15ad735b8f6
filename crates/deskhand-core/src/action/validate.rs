//! Arguments checked into one typed [`Call`]: everything is checked before anything runs.

use crate::coords::check_unit;
use crate::error::{Error, Result};
use crate::model::{Modifier, Role};

use super::args::*;
use super::call::*;
use super::limits::*;
use super::table::*;

/// Text to type: not empty, not enormous, no control characters but newline and tab.
pub(crate) fn checked_text(text: String) -> Result<String> {
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
    pub(crate) fn validate(&self) -> Result<Condition> {
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

/// The arguments as typed; `at` is where they sit in the call (`steps[2].` in a batch), so the
/// error names the bad key by its whole path, as an agent would write it.
pub(crate) fn args_at(arguments: serde_json::Value, at: &str) -> Result<DesktopArgs> {
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

/// What every action's check starts from: the arguments, and the parts several actions read
/// (the target, the element named by ref or `find`), each already checked.
pub(crate) struct Given<'a> {
    pub(crate) args: &'a DesktopArgs,
    pub(crate) name: ActionName,
    /// The action as the agent spelled it, for error messages.
    pub(crate) action: &'static str,
    pub(crate) target: Option<TargetId>,
    pub(crate) element: Option<RefId>,
    pub(crate) find: Option<Find>,
}

impl<'a> Given<'a> {
    pub(crate) fn new(
        args: &'a DesktopArgs,
        name: ActionName,
        action: &'static str,
    ) -> Result<Self> {
        Ok(Given {
            args,
            name,
            action,
            target: args.target.as_deref().map(TargetId::parse).transpose()?,
            element: args.element.as_deref().map(RefId::parse).transpose()?,
            find: args.find.as_ref().map(FindArgs::validate).transpose()?,
        })
    }

    /// The element or point the call names: one of `ref`, `find` or `x`/`y`.
    pub(crate) fn place(&self, required: bool) -> Result<Option<Place>> {
        let action = self.action;
        let args = self.args;
        let point = args.x.is_some() || args.y.is_some();
        if [self.element.is_some(), self.find.is_some(), point]
            .iter()
            .filter(|given| **given)
            .count()
            > 1
        {
            return Err(Error::bad_argument(format!(
                "`{action}` takes one of `ref`, `find` or `x`/`y`, not several"
            )));
        }
        match (self.element, &self.find, args.x, args.y) {
            (Some(r), _, _, _) => Ok(Some(Place::Ref(r))),
            (_, Some(find), _, _) => Ok(Some(Place::Find(find.clone()))),
            (None, None, Some(x), Some(y)) => Ok(Some(Place::Point {
                x: check_unit("x", x)?,
                y: check_unit("y", y)?,
            })),
            (None, None, Some(_), None) | (None, None, None, Some(_)) => Err(Error::bad_argument(
                format!("`{action}` needs both `x` and `y` (0–1000 of the surface)"),
            )),
            (None, None, None, None) if required => Err(Error::bad_argument(format!(
                "`{action}` needs a `ref` from observe, a `find` {{\"name\", \"role\"}}, or `x` and `y` (0–1000 of the surface)"
            ))),
            (None, None, None, None) => Ok(None),
        }
    }

    pub(crate) fn modifiers(&self) -> Vec<Modifier> {
        self.args.modifiers.clone().unwrap_or_default()
    }

    /// Refuses a window action without a window to act on.
    pub(crate) fn window_target(&self) -> Result<()> {
        match self.target {
            Some(TargetId::Window(_) | TargetId::App(_)) => Ok(()),
            _ => Err(Error::bad_argument(format!(
                "`{}` needs `target`: a window id \"wN\" from `windows` or an app id \"aN\" from `apps`",
                self.action
            ))),
        }
    }
}

impl DesktopArgs {
    pub(crate) fn present_fields(&self) -> Vec<&'static str> {
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
            ("monitor", self.monitor.is_some()),
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
