//! The one executor: every call, from MCP, the CLI or later a batch, runs through [`execute`].
//! It guards and audits each action; `actions/` holds the actions themselves.

use std::future::Future;
use std::pin::Pin;

use crate::action::Call;
use crate::actions::batch::RunStep;
use crate::actions::perform;
use crate::audit::AuditEntry;
use crate::backend::Backend;
use crate::control::Control;
use crate::error::{Error, Result};
use crate::safety;
use crate::session::Session;

pub(crate) mod answer;
pub(crate) mod config;
pub(crate) mod focus;
pub(crate) mod reach;
pub(crate) mod reply;
pub(crate) mod secret;
pub(crate) mod settle;
pub(crate) mod surface;

pub use config::Config;
use reach::Reach;
pub use reply::{Outcome, Reply};

/// Runs one validated call against the backend, updating the session. An action (click, type,
/// press, scroll, drag, …) first passes the kill switch and the policy, and is audited.
pub async fn execute<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
) -> Result<Reply> {
    execute_with(backend, session, config, call, &Control::default()).await
}

/// [`execute`] for a caller that can cancel the call and hear its progress.
pub async fn execute_with<B: Backend>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    call: Call,
    control: &Control,
) -> Result<Reply> {
    let mut reach = Reach::new(call.target, config.ocr.clone());
    let executor = Executor {
        backend,
        config,
        control,
    };
    if !call.actuates() {
        return perform(
            backend, session, config, call, &mut reach, control, &executor,
        )
        .await;
    }
    let mut entry = AuditEntry::of(&call, session);
    let guarded = async {
        let admitted =
            safety::admit(backend, session, config, &call, &mut reach, &mut entry).await?;
        // One cheap listing, so a `new_window` wait after this action knows what was there
        // before.
        session.windows_before_action = backend
            .window_keys()
            .await
            .ok()
            .map(|keys| (keys, crate::learn::unix_ms()));
        let performed = perform(
            backend, session, config, call, &mut reach, control, &executor,
        )
        .await;
        session.acted_at_ms = Some(crate::learn::unix_ms());
        let mut reply = performed?;
        if admitted.resumed {
            safety::note_resumed(session, &mut entry, &mut reply);
        }
        if admitted.after_takeover {
            safety::note_after_takeover(session, &mut entry, &mut reply);
        }
        Ok::<Reply, Error>(reply)
    };
    let mut result = guarded.await.or_else(|err| {
        if err.sent {
            Ok(Reply::unconfirmed(err))
        } else {
            Err(err)
        }
    });
    safety::audit(config, &mut entry, &mut result);
    result
}

/// The executor as a batch runs its steps through it.
struct Executor<'a, B> {
    backend: &'a B,
    config: &'a Config,
    control: &'a Control,
}

impl<B: Backend> RunStep for Executor<'_, B> {
    fn run<'a>(
        &'a self,
        session: &'a mut Session,
        step: Call,
    ) -> Pin<Box<dyn Future<Output = Result<Reply>> + Send + 'a>> {
        Box::pin(execute_with(
            self.backend,
            session,
            self.config,
            step,
            self.control,
        ))
    }
}
