//! Joining the compositor, as every Wayland connection of deskhand's does (input and capture,
//! the kill switch's corner, the clipboard): the connection, its globals, and its outputs by the
//! names the compositor gives them.

use std::os::fd::AsRawFd as _;
use std::time::Duration;

use wayland_client::globals::{GlobalList, GlobalListContents, registry_queue_init};
use wayland_client::protocol::wl_output::{self, WlOutput};
use wayland_client::protocol::wl_registry::{self, WlRegistry};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle, delegate_dispatch};

use super::WaylandError;

/// A new connection to the compositor named by `$WAYLAND_DISPLAY`, with its globals.
pub(super) fn connect_with_globals<S>()
-> Result<(Connection, GlobalList, EventQueue<S>), WaylandError>
where
    S: Dispatch<WlRegistry, GlobalListContents> + 'static,
{
    let connection =
        Connection::connect_to_env().map_err(|err| WaylandError::Connect(err.to_string()))?;
    let (globals, queue) = registry_queue_init::<S>(&connection)
        .map_err(|err| WaylandError::Connect(err.to_string()))?;
    Ok((connection, globals, queue))
}

/// Reads and handles what the compositor sent, waiting up to `limit` for something to come:
/// for a thread that also serves something else between its reads.
pub(super) fn read_events<S>(
    queue: &mut EventQueue<S>,
    state: &mut S,
    limit: Duration,
    operation: &'static str,
) -> Result<(), WaylandError> {
    let lost = |cause: String| WaylandError::Lost { operation, cause };
    queue.flush().map_err(|err| lost(err.to_string()))?;
    if let Some(guard) = queue.prepare_read() {
        let mut fd = libc::pollfd {
            fd: guard.connection_fd().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout = i32::try_from(limit.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd that outlives the call. A failed poll only ends this wait
        // early; the read below says whether the connection broke.
        let ready = unsafe { libc::poll(&mut fd, 1, timeout) };
        if ready > 0 {
            guard.read().map_err(|err| lost(err.to_string()))?;
        }
    }
    queue
        .dispatch_pending(state)
        .map_err(|err| lost(err.to_string()))?;
    Ok(())
}

/// A connection that only reads the compositor's globals.
struct Listing;

delegate_dispatch!(Listing: [WlRegistry: GlobalListContents] => Globals);

/// The interfaces the compositor named by `$WAYLAND_DISPLAY` offers.
pub(crate) fn global_interfaces() -> Result<Vec<String>, WaylandError> {
    let (_connection, globals, _queue) = connect_with_globals::<Listing>()?;
    Ok(globals
        .contents()
        .clone_list()
        .into_iter()
        .map(|global| global.interface)
        .collect())
}

/// The global `I` at a version in `versions`, or the error that the compositor lacks `name`.
pub(super) fn bind<I, S>(
    globals: &GlobalList,
    handle: &QueueHandle<S>,
    versions: std::ops::RangeInclusive<u32>,
    name: &'static str,
) -> Result<I, WaylandError>
where
    I: Proxy + 'static,
    S: Dispatch<I, ()> + 'static,
{
    globals
        .bind(handle, versions, ())
        .map_err(|_| WaylandError::Missing(name))
}

/// The compositor's outputs, each with its name once the compositor has said it (wl_output 4,
/// on the next round trip).
#[derive(Debug, Default)]
pub(super) struct Outputs(Vec<(WlOutput, Option<String>)>);

impl Outputs {
    /// Binds every output the compositor announced.
    pub(super) fn bind<S>(globals: &GlobalList, handle: &QueueHandle<S>) -> Self
    where
        S: Dispatch<WlOutput, ()> + 'static,
    {
        Self(globals.contents().with_list(|list| {
            list.iter()
                .filter(|global| global.interface == WlOutput::interface().name)
                .map(|global| {
                    let output: WlOutput =
                        globals
                            .registry()
                            .bind(global.name, global.version.min(4), handle, ());
                    (output, None)
                })
                .collect()
        }))
    }

    /// The output the compositor calls `name`.
    pub(super) fn named(&self, name: &str) -> Option<&WlOutput> {
        self.0
            .iter()
            .find(|(_, known)| known.as_deref() == Some(name))
            .map(|(output, _)| output)
    }

    /// The one output, when there is just one.
    pub(super) fn only(&self) -> Option<&WlOutput> {
        match self.0.as_slice() {
            [(output, _)] => Some(output),
            _ => None,
        }
    }
}

/// A connection's state that keeps the compositor's outputs.
pub(super) trait KeepsOutputs {
    fn outputs(&mut self) -> &mut Outputs;
}

/// Handles what the registry and the outputs say, for any connection's state: delegate to it
/// with `wayland_client::delegate_dispatch!`.
pub(super) struct Globals;

impl<S> Dispatch<WlRegistry, GlobalListContents, S> for Globals
where
    S: Dispatch<WlRegistry, GlobalListContents>,
{
    /// The globals were read once at connection; outputs plugged in later are not followed.
    fn event(
        _: &mut S,
        _: &WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<S>,
    ) {
    }
}

impl<S> Dispatch<WlOutput, (), S> for Globals
where
    S: Dispatch<WlOutput, ()> + KeepsOutputs,
{
    fn event(
        state: &mut S,
        output: &WlOutput,
        event: wl_output::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<S>,
    ) {
        if let wl_output::Event::Name { name } = event
            && let Some(entry) = state.outputs().0.iter_mut().find(|(o, _)| o == output)
        {
            entry.1 = Some(name);
        }
    }
}
