//! Telling the agent, unasked, when a person takes over the desktop and when actions resume:
//! an MCP log message each time, and a line in the audit log with its time.
//!
//! Log messages are deprecated by SEP-2577 for a later MCP revision, but they are what the
//! revisions clients speak today offer for a server to tell its client something unasked.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::json;
use tokio::sync::broadcast::{self, error::RecvError};

use deskhand_core::Config;
use deskhand_core::person::{Handover, Presence};

/// The logger the messages name, so a client can tell them from others.
pub const LOGGER: &str = "deskhand.person";

/// How often a session's teller looks whether its client is gone, between two handovers.
const HANGUP_CHECK: Duration = Duration::from_secs(5);

/// A handover recorded in the audit log, and the sentence the agent hears of it.
#[derive(Debug, Clone)]
pub(crate) struct Told {
    handover: Handover,
    message: String,
}

/// Records every handover from now on in the audit log, once whatever the number of
/// sessions, and passes each on to whoever subscribes to the returned sender.
pub(crate) fn recorded(presence: &Presence, config: Config) -> broadcast::Sender<Told> {
    let mut handovers = presence.subscribe();
    let (told, _) = broadcast::channel(16);
    let passed = told.clone();
    tokio::spawn(async move {
        loop {
            let handover = match handovers.recv().await {
                Ok(handover) => handover,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            let message = handover.record(&config.audit, config.session.as_deref());
            // No session listening is no reason to stop recording.
            let _ = passed.send(Told { handover, message });
        }
    });
    told
}

/// Sends every handover `told` from now on to `peer`, until the client hangs up.
pub(crate) fn tell(mut told: broadcast::Receiver<Told>, peer: Peer<RoleServer>) {
    tokio::spawn(async move {
        loop {
            let Told { handover, message } = tokio::select! {
                next = told.recv() => match next {
                    Ok(told) => told,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                },
                () = tokio::time::sleep(HANGUP_CHECK) => {
                    if peer.is_transport_closed() {
                        return;
                    }
                    continue;
                }
            };
            let entry = handover.audit_entry();
            let level = match handover {
                Handover::TookOver { .. } => LoggingLevel::Warning,
                Handover::Resumed { .. } => LoggingLevel::Notice,
            };
            let mut param = LoggingMessageNotificationParam::new(
                level,
                json!({"event": entry.action, "at": entry.ts, "message": message}),
            );
            param.logger = Some(LOGGER.to_owned());
            if peer.notify_logging_message(param).await.is_err() {
                return;
            }
        }
    });
}

/// Records and sends every handover from now on to the one client of a stdio server.
pub(crate) fn forward(presence: &Presence, config: Config, peer: Peer<RoleServer>) {
    let told = recorded(presence, config);
    tell(told.subscribe(), peer);
}
