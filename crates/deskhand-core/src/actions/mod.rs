//! Every action in a file of its own: its handler, which runs it on what the call reaches and
//! returns its typed result. [`perform`] sends each call to its handler.

use crate::action::{Action, Call};
use crate::backend::Backend;
use crate::control::Control;
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::error::Result;
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
