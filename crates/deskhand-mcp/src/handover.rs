//! Telling the agent, unasked, when a person takes over the desktop and when actions resume:
//! an MCP log message each time, and a line in the audit log with its time.
//!
//! Log messages are deprecated by SEP-2577 for a later MCP revision, but they are what the
//! revisions clients speak today offer for a server to tell its client something unasked.
#![allow(deprecated)]

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use deskhand_core::Config;
use deskhand_core::person::{Handover, Presence};

/// The logger the messages name, so a client can tell them from others.
pub const LOGGER: &str = "deskhand.person";

/// Forwards every handover from now on to `peer` until it hangs up.
pub(crate) fn forward(presence: &Presence, config: Config, peer: Peer<RoleServer>) {
    let mut handovers = presence.subscribe();
    tokio::spawn(async move {
        loop {
            let handover = match handovers.recv().await {
                Ok(handover) => handover,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            let message = handover.record(&config.audit, config.session.as_deref());
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
