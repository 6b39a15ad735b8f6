//! One call to an application over the accessibility bus: many at once on one connection, each
//! under a timeout, and an application that stops answering found out once, not at every call.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use zbus::zvariant::{DynamicType, OwnedObjectPath, OwnedValue, Type};

use super::*;

impl Atspi {
    pub(super) async fn call<B, R>(
        &self,
        object: &ObjectRef,
        interface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, AtspiError>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        if let Some(secs) = self.still_stalled(&object.bus).await {
            return Err(AtspiError::Stalled {
                what: format!("{interface}.{method} on {}{}", object.bus, object.path),
                secs,
            });
        }
        let result = self
            .send(object, interface, method, body, self.call_timeout)
            .await;
        if matches!(result, Err(AtspiError::Timeout { .. })) {
            let now = Instant::now();
            self.stalls
                .lock()
                .expect("not poisoned")
                .entry(object.bus.clone())
                .or_insert(Stall {
                    since: now,
                    probed: now,
                });
        }
        result
    }

    /// Seconds since the application stopped answering, if it did and a probe (at most one a
    /// second) finds it still silent; `None` lets the call go out.
    pub(super) async fn still_stalled(&self, bus: &str) -> Option<u64> {
        let stall = {
            let mut stalls = self.stalls.lock().expect("not poisoned");
            let stall = stalls.get_mut(bus)?;
            if stall.probed.elapsed() < STALL_PROBE_EVERY {
                return Some(stall.since.elapsed().as_secs());
            }
            stall.probed = Instant::now();
            *stall
        };
        let root = ObjectRef {
            bus: bus.to_owned(),
            path: ROOT_PATH.into(),
        };
        let probe: Result<Vec<u32>, _> = self
            .send(&root, ACCESSIBLE, "GetState", &(), STALL_PROBE_TIMEOUT)
            .await;
        if probe.is_ok() {
            self.stalls.lock().expect("not poisoned").remove(bus);
            None
        } else {
            Some(stall.since.elapsed().as_secs())
        }
    }

    pub(super) async fn send<B, R>(
        &self,
        object: &ObjectRef,
        interface: &str,
        method: &str,
        body: &B,
        timeout: Duration,
    ) -> Result<R, AtspiError>
    where
        B: serde::Serialize + DynamicType,
        R: DeserializeOwned + Type,
    {
        let _permit = self.in_flight.acquire().await.expect("never closed");
        self.calls.fetch_add(1, Ordering::Relaxed);
        let (conn, recorder) = match &self.link {
            Link::Bus { conn, recorder } => (conn, recorder),
            Link::Replay(replay) => {
                let args = record::encoded_args(body);
                return replay.answer(object, interface, method, args, timeout.as_millis());
            }
        };
        let reply = self
            .bus_call(conn, object, interface, method, body, timeout)
            .await;
        if let Some(recorder) = recorder
            && let Some(reply) = record::RecordedReply::of(&reply)
        {
            recorder.write(&record::RecordedCall {
                bus: object.bus.clone(),
                path: object.path.clone(),
                interface: interface.to_owned(),
                method: method.to_owned(),
                args: record::encoded_args(body),
                reply,
            });
        }
        reply?
            .body()
            .deserialize::<R>()
            .map_err(|source| AtspiError::Call {
                what: format!("{interface}.{method} on {}{}", object.bus, object.path),
                source,
            })
    }

    /// One method call on the bus, under `timeout`.
    async fn bus_call<B>(
        &self,
        conn: &zbus::Connection,
        object: &ObjectRef,
        interface: &str,
        method: &str,
        body: &B,
        timeout: Duration,
    ) -> Result<zbus::Message, AtspiError>
    where
        B: serde::Serialize + DynamicType,
    {
        let what = || format!("{interface}.{method} on {}{}", object.bus, object.path);
        tokio::time::timeout(
            timeout,
            conn.call_method(
                Some(object.bus.as_str()),
                object.path.as_str(),
                Some(interface),
                method,
                body,
            ),
        )
        .await
        .map_err(|_| AtspiError::Timeout {
            what: what(),
            ms: timeout.as_millis(),
        })?
        .map_err(|source| match &source {
            // The connection's own method timeout (the same length) usually fires first.
            zbus::Error::InputOutput(io) if io.kind() == std::io::ErrorKind::TimedOut => {
                AtspiError::Timeout {
                    what: what(),
                    ms: timeout.as_millis(),
                }
            }
            // The bus itself went away: no call on this connection can work any more.
            zbus::Error::InputOutput(io)
                if matches!(
                    io.kind(),
                    std::io::ErrorKind::BrokenPipe
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::NotConnected
                        | std::io::ErrorKind::UnexpectedEof
                ) =>
            {
                AtspiError::NoBus(format!("the connection was lost: {io}"))
            }
            _ => AtspiError::Call {
                what: what(),
                source,
            },
        })
    }

    pub(super) async fn property(
        &self,
        object: &ObjectRef,
        interface: &str,
        name: &str,
    ) -> Result<OwnedValue, AtspiError> {
        self.call(
            object,
            "org.freedesktop.DBus.Properties",
            "Get",
            &(interface, name),
        )
        .await
    }

    pub(super) async fn string_property(
        &self,
        object: &ObjectRef,
        interface: &str,
        name: &str,
    ) -> Result<String, AtspiError> {
        let value = self.property(object, interface, name).await?;
        Ok(String::try_from(value).unwrap_or_default())
    }

    pub(super) async fn children(&self, object: &ObjectRef) -> Result<Vec<ObjectRef>, AtspiError> {
        let children: Vec<(String, OwnedObjectPath)> =
            self.call(object, ACCESSIBLE, "GetChildren", &()).await?;
        Ok(elements(children))
    }
}

/// An application that let a request time out.
#[derive(Debug, Clone, Copy)]
pub(super) struct Stall {
    since: Instant,
    /// When it was last probed; calls in between fail at once.
    probed: Instant,
}

/// How often a stalled application is probed again; calls to it in between fail at once.
pub(super) const STALL_PROBE_EVERY: Duration = Duration::from_millis(1000);

/// A probe of a stalled application: a live app answers a state read well within this.
pub(super) const STALL_PROBE_TIMEOUT: Duration = Duration::from_millis(300);
