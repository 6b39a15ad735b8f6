//! Every action in a file of its own: its row of the table ([`ACTIONS`]), the check of its
//! arguments (`parse`) and its handler, which runs it on what the call reaches and returns its
//! typed result. [`parse_call`] and [`perform`] send each call to its action's file.

use crate::action::{Action, ActionName, ActionSpec, Call, DesktopArgs, Given, args_at};
use crate::backend::Backend;
use crate::control::Control;
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::error::{Error, ErrorKind};
use crate::session::Session;

mod apps;
pub(crate) mod batch;
mod button;
pub(crate) mod click;
mod clipboard;
mod close;
mod drag;
mod focus;
mod forget;
mod hover;
mod kill;
mod launch;
mod observe;
mod press;
pub(crate) mod read;
mod recall;
mod screenshot;
mod scroll;
mod select;
mod set_value;
mod type_text;
mod wait;
mod window;
mod windows;
mod zoom;

/// Every action once, in the order of [`ActionName`]; validation, the policy, the audit log and
/// the CLI all read it from here.
pub const ACTIONS: [ActionSpec; 26] = [
    apps::SPEC,
    windows::SPEC,
    observe::SPEC,
    read::SPEC,
    click::SPEC,
    type_text::SPEC,
    press::SPEC,
    scroll::SPEC,
    drag::SPEC,
    screenshot::SPEC,
    zoom::SPEC,
    hover::SPEC,
    button::DOWN,
    button::UP,
    wait::SPEC,
    batch::SPEC,
    set_value::SPEC,
    select::SPEC,
    launch::SPEC,
    focus::SPEC,
    close::SPEC,
    kill::SPEC,
    window::SPEC,
    clipboard::SPEC,
    recall::SPEC,
    forget::SPEC,
];

impl ActionName {
    pub const ALL: [ActionName; 26] = {
        let mut all = [ActionName::Apps; 26];
        let mut i = 0;
        while i < all.len() {
            all[i] = ACTIONS[i].name;
            i += 1;
        }
        all
    };

    pub fn spec(self) -> &'static ActionSpec {
        &ACTIONS[self as usize]
    }

    /// The arguments this action takes besides `action`: anything else is refused, not ignored.
    pub fn fields(self) -> &'static [&'static str] {
        self.spec().fields
    }

    pub fn as_str(self) -> &'static str {
        self.spec().text
    }
}

/// Parses raw JSON arguments: unknown keys and wrong types are bad arguments, not protocol errors.
pub fn parse_call(arguments: serde_json::Value) -> Result<Call> {
    parse_at(arguments, "")
}

/// [`parse_call`] for arguments found at `at` in a call (`steps[2].` in a batch).
fn parse_at(arguments: serde_json::Value, at: &str) -> Result<Call> {
    validate(&args_at(arguments, at)?)
}

/// Checks that the action has what it needs and nothing it would ignore, with its own file's
/// `parse`: everything is checked before anything runs.
fn validate(args: &DesktopArgs) -> Result<Call> {
    if args.desktop.is_some() || args.end_desktop.is_some() {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "`desktop` and `end_desktop` choose a private desktop by its handle, which only `deskhand mcp --http --desktop-per-session` serves, and only in a call of its own (not in a batch's steps); nothing was done: leave them out here",
        ));
    }
    let Some(name) = args.action else {
        return Err(Error::bad_argument(format!(
            "`action` is missing; give one of {}",
            ActionName::ALL.map(ActionName::as_str).join(", ")
        )));
    };
    let spec = name.spec();
    if let Some(extra) = args
        .present_fields()
        .iter()
        .find(|field| !spec.fields.contains(field))
    {
        let takes = if spec.fields.is_empty() {
            "no other arguments".to_string()
        } else {
            spec.fields.join(", ")
        };
        return Err(Error::bad_argument(format!(
            "`{}` does not take `{extra}`; it takes {takes}",
            spec.text
        )));
    }
    let given = Given::new(args, name, spec.text)?;
    let action = match name {
        ActionName::Apps => apps::parse(&given),
        ActionName::Windows => windows::parse(&given),
        ActionName::Observe => observe::parse(&given),
        ActionName::Read => read::parse(&given),
        ActionName::Click => click::parse(&given),
        ActionName::Type => type_text::parse(&given),
        ActionName::Press => press::parse(&given),
        ActionName::Scroll => scroll::parse(&given),
        ActionName::Drag => drag::parse(&given),
        ActionName::Screenshot => screenshot::parse(&given),
        ActionName::Zoom => zoom::parse(&given),
        ActionName::Hover => hover::parse(&given),
        ActionName::Down | ActionName::Up => button::parse(&given),
        ActionName::Wait => wait::parse(&given),
        ActionName::Batch => batch::parse(&given, parse_at),
        ActionName::SetValue => set_value::parse(&given),
        ActionName::Select => select::parse(&given),
        ActionName::Launch => launch::parse(&given),
        ActionName::Focus => focus::parse(&given),
        ActionName::Close => close::parse(&given),
        ActionName::Kill => kill::parse(&given),
        ActionName::Window => window::parse(&given),
        ActionName::Clipboard => clipboard::parse(&given),
        ActionName::Recall => recall::parse(&given),
        ActionName::Forget => forget::parse(&given),
    }?;
    Ok(Call {
        name,
        action,
        target: given.target,
    })
}

/// Runs one call, unguarded, on what `reach` resolves; a batch runs its steps through `steps`.
pub(crate) async fn perform<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
    reach: &mut Reach,
    control: &Control,
    steps: &dyn batch::RunStep,
) -> Result<Reply> {
    match call.action {
        Action::Apps => apps::apps(backend, session).await,
        Action::Installed => apps::installed(backend).await,
        Action::Windows => windows::windows(backend, session).await,
        Action::Observe(spec) => observe::observe(backend, session, config, reach, &spec).await,
        Action::Screenshot => screenshot::screenshot(backend, session, config, reach).await,
        Action::Zoom { region } => zoom::zoom(backend, session, config, reach, region).await,
        Action::Click { place, click } => {
            click::click_at(backend, session, config, reach, place, click).await
        }
        Action::Type {
            text,
            place,
            replace,
        } => type_text::type_text(backend, session, reach, &text, place, replace).await,
        Action::Read { place, offset } => {
            read::read_text(backend, session, reach, &place, offset).await
        }
        Action::Hover { place } => hover::hover(backend, session, reach, &place).await,
        Action::Button {
            down,
            place,
            button,
            modifiers,
        } => {
            button::button(
                backend,
                session,
                reach,
                down,
                place.as_ref(),
                button,
                &modifiers,
            )
            .await
        }
        Action::Wait(spec) => {
            wait::wait(backend, session, config.ocr.as_ref(), reach, &spec, control).await
        }
        Action::Batch(calls) => Ok(batch::batch(backend, session, calls, control, steps).await),
        Action::SetValue { place, value } => {
            set_value::set_value(backend, session, reach, &place, &value).await
        }
        Action::Select { path } => select::select(backend, session, config, reach, &path).await,
        Action::Launch { app, focus } => {
            launch::launch(backend, session, &app, focus, control).await
        }
        Action::Focus => focus::focus(backend, session, reach).await,
        Action::Close => close::close(backend, session, reach).await,
        Action::Kill => kill::kill(backend, session, reach).await,
        Action::Window(spec) => window::arrange(backend, session, reach, &spec).await,
        Action::ReadClipboard => clipboard::read_clipboard(backend).await,
        Action::WriteClipboard { text } => clipboard::write_clipboard(backend, &text).await,
        Action::Recall(request) => recall::recall(config, &request),
        Action::Forget { app } => forget::forget(config, app),
        Action::Press { keys } => press::press(backend, session, &keys).await,
        Action::Scroll {
            place,
            direction,
            amount,
        } => scroll::scroll(backend, session, reach, place.as_ref(), direction, amount).await,
        Action::Drag {
            from,
            to,
            via,
            duration_ms,
            button,
            modifiers,
        } => {
            let spec = drag::DragSpec {
                from: &from,
                to: &to,
                via: &via,
                duration_ms,
                button,
                modifiers: &modifiers,
            };
            drag::drag(backend, session, reach, spec).await
        }
    }
}

#[cfg(test)]
mod tests;
