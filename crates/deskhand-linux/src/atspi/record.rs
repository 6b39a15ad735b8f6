//! What the accessibility bus answered, written down and played back.
//!
//! With `DESKHAND_RECORD_ATSPI=FILE`, every call this connection makes is appended to FILE as
//! one JSON line: the object, the method, its arguments and the reply as D-Bus bytes. A
//! connection made from such a file answers the same calls with the same replies and no bus, so
//! the tree reader can be tested on what a real application said, and a user's tree that reads
//! wrong can be reproduced without their application. The file holds whatever the application
//! showed (names, values, text; never a password field's content, which is never asked).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use zbus::DBusError;
use zbus::zvariant::serialized::{Context, Data, Format};
use zbus::zvariant::{DynamicType, Endian, Type};

use super::{AtspiError, ObjectRef};

/// The environment variable that names the file to record into.
pub const RECORD_ENV: &str = "DESKHAND_RECORD_ATSPI";

/// One call and what came back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordedCall {
    pub bus: String,
    pub path: String,
    pub interface: String,
    pub method: String,
    /// The arguments in D-Bus encoding, as hex.
    pub args: String,
    pub reply: RecordedReply,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedReply {
    /// The reply's body: its signature and its D-Bus encoding, as hex.
    Body { signature: String, bytes: String },
    /// A D-Bus error reply.
    Error { name: String, message: String },
    /// No reply within the timeout.
    Timeout,
}

fn context() -> Context {
    Context::new(Format::DBus, Endian::Little, 0)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A call's arguments as the recording keys them.
pub(super) fn encoded_args<B>(body: &B) -> String
where
    B: Serialize + DynamicType,
{
    zbus::zvariant::to_bytes(context(), body)
        .map(|data| hex(data.bytes()))
        .unwrap_or_default()
}

impl RecordedReply {
    /// A live reply as it is written down.
    pub(super) fn of(reply: &Result<zbus::Message, AtspiError>) -> Option<RecordedReply> {
        match reply {
            Ok(message) => {
                let body = message.body();
                let bytes = body.data().bytes();
                // A body whose byte order is not the recording's cannot be played back as is.
                let little = body.data().context().endian() == Endian::Little;
                little.then(|| RecordedReply::Body {
                    signature: body.signature().to_string(),
                    bytes: hex(bytes),
                })
            }
            Err(AtspiError::Timeout { .. }) => Some(RecordedReply::Timeout),
            Err(AtspiError::Call {
                source: zbus::Error::MethodError(name, message, _),
                ..
            }) => Some(RecordedReply::Error {
                name: name.to_string(),
                message: message.clone().unwrap_or_default(),
            }),
            Err(AtspiError::Call {
                source: zbus::Error::FDO(err),
                ..
            }) => Some(RecordedReply::Error {
                name: err.name().to_string(),
                message: err.description().unwrap_or_default().to_owned(),
            }),
            Err(_) => None,
        }
    }
}

/// Appends every call of a live connection to a file.
pub(super) struct Recorder {
    file: Mutex<std::fs::File>,
}

impl Recorder {
    pub(super) fn create(path: &Path) -> std::io::Result<Recorder> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Recorder {
            file: Mutex::new(file),
        })
    }

    /// Writes one call down; a call that cannot be written is left out, never failed.
    pub(super) fn write(&self, call: &RecordedCall) {
        if let Ok(mut line) = serde_json::to_string(call) {
            line.push('\n');
            let _ = self
                .file
                .lock()
                .expect("not poisoned")
                .write_all(line.as_bytes());
        }
    }
}

/// Recorded calls played back in place of a bus.
pub struct Replay {
    /// By call: the replies in the order they came; the last one answers every later call.
    replies: Mutex<HashMap<CallKey, Vec<RecordedReply>>>,
    /// Calls asked that the recording does not hold.
    missed: Mutex<Vec<String>>,
}

type CallKey = (String, String, String, String, String);

impl Replay {
    /// Reads a recording: one JSON line per call.
    pub fn parse(text: &str) -> Result<Replay, serde_json::Error> {
        let mut replies: HashMap<CallKey, Vec<RecordedReply>> = HashMap::new();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let call: RecordedCall = serde_json::from_str(line)?;
            replies
                .entry((call.bus, call.path, call.interface, call.method, call.args))
                .or_default()
                .push(call.reply);
        }
        Ok(Replay {
            replies: Mutex::new(replies),
            missed: Mutex::new(Vec::new()),
        })
    }

    /// Every call asked that the recording did not hold, as `Interface.Method on bus/path`.
    pub fn missed(&self) -> Vec<String> {
        self.missed.lock().expect("not poisoned").clone()
    }

    /// Makes every later call to the object's method time out, as an application that stopped
    /// answering does.
    pub fn stop_answering(&self, bus: &str, path: &str, interface: &str, method: &str) {
        for (key, replies) in self.replies.lock().expect("not poisoned").iter_mut() {
            if (
                key.0.as_str(),
                key.1.as_str(),
                key.2.as_str(),
                key.3.as_str(),
            ) == (bus, path, interface, method)
            {
                *replies = vec![RecordedReply::Timeout];
            }
        }
    }

    pub(super) fn answer<R>(
        &self,
        object: &ObjectRef,
        interface: &str,
        method: &str,
        args: String,
        timeout_ms: u128,
    ) -> Result<R, AtspiError>
    where
        R: DeserializeOwned + Type,
    {
        let what = format!("{interface}.{method} on {}{}", object.bus, object.path);
        let key = (
            object.bus.clone(),
            object.path.clone(),
            interface.to_owned(),
            method.to_owned(),
            args,
        );
        let reply = {
            let mut replies = self.replies.lock().expect("not poisoned");
            match replies.get_mut(&key) {
                Some(queue) if queue.len() > 1 => Some(queue.remove(0)),
                Some(queue) => queue.first().cloned(),
                None => None,
            }
        };
        let failed = |source: zbus::fdo::Error| AtspiError::Call {
            what: what.clone(),
            source: zbus::Error::FDO(Box::new(source)),
        };
        match reply {
            None => {
                self.missed.lock().expect("not poisoned").push(what.clone());
                Err(failed(zbus::fdo::Error::Failed(
                    "the recording holds no such call".into(),
                )))
            }
            Some(RecordedReply::Timeout) => Err(AtspiError::Timeout {
                what,
                ms: timeout_ms,
            }),
            Some(RecordedReply::Error { name, message }) => Err(failed(fdo_error(&name, message))),
            Some(RecordedReply::Body { signature, bytes }) => {
                let bytes = unhex(&bytes).unwrap_or_default();
                Data::new(bytes, context())
                    .deserialize_for_signature::<_, R>(signature.as_str())
                    .map(|(value, _)| value)
                    .map_err(|err| failed(zbus::fdo::Error::Failed(err.to_string())))
            }
        }
    }
}

/// A recorded error reply as the error zbus gives for it.
fn fdo_error(name: &str, message: String) -> zbus::fdo::Error {
    use zbus::fdo::Error as Fdo;
    match name.trim_start_matches("org.freedesktop.DBus.Error.") {
        "NoReply" => Fdo::NoReply(message),
        "ServiceUnknown" => Fdo::ServiceUnknown(message),
        "NameHasNoOwner" => Fdo::NameHasNoOwner(message),
        "UnknownMethod" => Fdo::UnknownMethod(message),
        "UnknownObject" => Fdo::UnknownObject(message),
        "UnknownInterface" => Fdo::UnknownInterface(message),
        "UnknownProperty" => Fdo::UnknownProperty(message),
        "InvalidArgs" => Fdo::InvalidArgs(message),
        _ => Fdo::Failed(format!("{name}: {message}")),
    }
}
