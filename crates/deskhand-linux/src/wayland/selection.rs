//! The clipboard on a wlroots compositor, through `zwlr_data_control_v1`: reading what the
//! current selection offers, and holding text for others.
//!
//! As on X, the Wayland clipboard is a promise, not a store: the client that set the selection
//! hands the data out through a pipe whenever a paste asks, and the selection is gone when that
//! client disconnects. So written text is held by the deskhand binary run as a holder (see
//! [`crate::clipboard::start_holder`]), which serves until another client takes the
//! selection.
//!
//! Every wait on another client is bounded here: a hung owner costs its deadline. A compositor
//! that stops answering a round trip is bounded by the caller, which runs a read on a thread of
//! its own.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read as _, Write as _};
use std::os::fd::{AsFd as _, AsRawFd as _, BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wayland_client::backend::ObjectId;
use wayland_client::globals::GlobalListContents;
use wayland_client::protocol::wl_registry::WlRegistry;
use wayland_client::protocol::wl_seat::WlSeat;
use wayland_client::{
    Connection, Dispatch, EventQueue, Proxy, QueueHandle, delegate_dispatch, delegate_noop,
    event_created_child,
};
use wayland_protocols_wlr::data_control::v1::client::zwlr_data_control_device_v1::{
    self, ZwlrDataControlDeviceV1,
};
use wayland_protocols_wlr::data_control::v1::client::zwlr_data_control_manager_v1::ZwlrDataControlManagerV1;
use wayland_protocols_wlr::data_control::v1::client::zwlr_data_control_offer_v1::{
    self, ZwlrDataControlOfferV1,
};
use wayland_protocols_wlr::data_control::v1::client::zwlr_data_control_source_v1::{
    self, ZwlrDataControlSourceV1,
};

use super::WaylandError;
use super::registry::{Globals, bind, connect_with_globals};
use crate::clipboard::{ClipboardContents, ClipboardError, MAX_TEXT};

/// The text types a holder offers, and a reader asks for in this order: UTF-8 first. Plain
/// `text/plain` is taken as UTF-8 too, as GTK and Qt write it.
const TEXT_TYPES: [&str; 5] = [
    "text/plain;charset=utf-8",
    "UTF8_STRING",
    "text/plain",
    "TEXT",
    "STRING",
];
/// How long a holder gives one paste to take the text before it stops writing to it.
const REQUESTOR_TIMEOUT: Duration = Duration::from_secs(10);

/// What the data-control objects report, by object.
#[derive(Default)]
struct State {
    /// The types each offer announced, by the offer's id.
    offered: HashMap<ObjectId, Vec<String>>,
    /// The regular selection (not the primary one), once the device has said what it is.
    selection: Option<Option<ZwlrDataControlOfferV1>>,
    /// The compositor ended the device (its seat went away).
    finished: bool,
    /// A holder's source: the pastes asked for, and whether another client took the
    /// selection.
    requests: Vec<OwnedFd>,
    cancelled: bool,
}

/// One connection with a data device on the first seat.
struct Endpoint {
    connection: Connection,
    queue: EventQueue<State>,
    state: State,
    manager: ZwlrDataControlManagerV1,
    device: ZwlrDataControlDeviceV1,
}

impl Endpoint {
    fn open() -> Result<Self, WaylandError> {
        let (connection, globals, queue) = connect_with_globals::<State>()?;
        let handle = queue.handle();
        let seat: WlSeat = bind(&globals, &handle, 1..=7, "wl_seat")?;
        let manager: ZwlrDataControlManagerV1 = bind(
            &globals,
            &handle,
            1..=2,
            "zwlr_data_control_manager_v1 (the clipboard)",
        )?;
        let device = manager.get_data_device(&seat, &handle, ());
        let mut endpoint = Endpoint {
            connection,
            queue,
            state: State::default(),
            manager,
            device,
        };
        // The device announces the current selection right after it is made; its offer's
        // types come before that, on the same round trip.
        endpoint.roundtrip("reading the clipboard")?;
        Ok(endpoint)
    }

    fn roundtrip(&mut self, operation: &'static str) -> Result<(), WaylandError> {
        self.queue
            .roundtrip(&mut self.state)
            .map(|_| ())
            .map_err(|err| WaylandError::Lost {
                operation,
                cause: err.to_string(),
            })
    }

    fn flush(&self, operation: &'static str) -> Result<(), WaylandError> {
        self.connection.flush().map_err(|err| WaylandError::Lost {
            operation,
            cause: err.to_string(),
        })
    }
}

/// Reads the clipboard's types and its text, if it offers text, by `deadline`.
pub fn read(deadline: Instant) -> Result<ClipboardContents, ClipboardError> {
    const OPERATION: &str = "asking the clipboard's owner for its text";
    let endpoint = Endpoint::open()?;
    let Some(Some(offer)) = endpoint.state.selection.clone() else {
        return Ok(ClipboardContents::default());
    };
    let types = endpoint
        .state
        .offered
        .get(&offer.id())
        .cloned()
        .unwrap_or_default();
    let Some(wanted) = TEXT_TYPES
        .iter()
        .find(|wanted| types.iter().any(|offered| offered == *wanted))
    else {
        return Ok(ClipboardContents { text: None, types });
    };
    let (reading, writing) = pipe().map_err(ClipboardError::Pipe)?;
    offer.receive((*wanted).to_owned(), writing.as_fd());
    endpoint.flush(OPERATION)?;
    // The owner writes into its own copy; this one must close, or the read never sees the end.
    drop(writing);
    let bytes = read_until_closed(reading, deadline)?;
    offer.destroy();
    endpoint.device.destroy();
    // Errors here would only concern objects this read is done with.
    let _ = endpoint.flush(OPERATION);
    let text = String::from_utf8_lossy(&bytes)
        .trim_end_matches('\0')
        .to_owned();
    Ok(ClipboardContents {
        text: Some(text),
        types,
    })
}

/// A pipe whose ends close on exec, so no child of this process keeps one open.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors on success, and nothing else owns them.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both were just opened by pipe2 and are owned here alone.
    Ok(unsafe {
        use std::os::fd::FromRawFd as _;
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    })
}

/// Waits until `fd` is ready for `events`, or the deadline passes (`false`).
fn ready(fd: BorrowedFd<'_>, events: libc::c_short, deadline: Instant) -> io::Result<bool> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        let mut poll = libc::pollfd {
            fd: fd.as_raw_fd(),
            events,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd, for a descriptor open for the duration of the call.
        match unsafe { libc::poll(&mut poll, 1, ms) } {
            0 => continue,
            n if n > 0 => return Ok(true),
            _ => {
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
    }
}

/// Everything written into the pipe until its writer closes it, at most [`MAX_TEXT`] bytes.
fn read_until_closed(reading: OwnedFd, deadline: Instant) -> Result<Vec<u8>, ClipboardError> {
    let started = Instant::now();
    let mut file = File::from(reading);
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        if !ready(file.as_fd(), libc::POLLIN, deadline).map_err(ClipboardError::Pipe)? {
            return Err(ClipboardError::OwnerSilent(started.elapsed()));
        }
        match file.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) if bytes.len() + n > MAX_TEXT => return Err(ClipboardError::TooLarge),
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(ClipboardError::Pipe(err)),
        }
    }
}

/// The holder's side: reads the text from standard input, takes the selection, prints the
/// ready line, lets go of its caller, and serves the text until another client takes the
/// selection.
pub fn serve() -> Result<(), ClipboardError> {
    const OPERATION: &str = "taking the clipboard";
    crate::clipboard::close_inherited();
    let mut text = String::new();
    io::stdin()
        .read_to_string(&mut text)
        .map_err(ClipboardError::Caller)?;
    let mut endpoint = Endpoint::open()?;
    let handle = endpoint.queue.handle();
    let source = endpoint.manager.create_data_source(&handle, ());
    for offered in TEXT_TYPES {
        source.offer(offered.to_owned());
    }
    endpoint.device.set_selection(Some(&source));
    endpoint.roundtrip(OPERATION)?;
    if endpoint.state.cancelled {
        return Err(ClipboardError::Lost);
    }
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{}", crate::clipboard::READY)
        .and_then(|()| stdout.flush())
        .map_err(ClipboardError::Caller)?;
    drop(stdout);
    crate::clipboard::detach();
    let text: Arc<[u8]> = Arc::from(text.into_bytes());
    let mut pastes = Vec::new();
    while !endpoint.state.cancelled && !endpoint.state.finished {
        endpoint
            .queue
            .blocking_dispatch(&mut endpoint.state)
            .map_err(|err| WaylandError::Lost {
                operation: "holding the clipboard",
                cause: err.to_string(),
            })?;
        // Each paste writes on a thread of its own: one that stops reading holds up no other.
        for request in endpoint.state.requests.drain(..) {
            let text = Arc::clone(&text);
            pastes.push(std::thread::spawn(move || give(request, &text)));
        }
        pastes.retain(|paste| !paste.is_finished());
    }
    source.destroy();
    let _ = endpoint.flush("letting go of the clipboard");
    // Pastes under way still get their text; each ends by its own deadline.
    for paste in pastes {
        let _ = paste.join();
    }
    Ok(())
}

/// Writes the text into one paste's pipe, giving up at the requestor's deadline.
fn give(request: OwnedFd, text: &[u8]) {
    let deadline = Instant::now() + REQUESTOR_TIMEOUT;
    // SAFETY: fcntl on a descriptor owned here; a failure leaves it blocking, bounded by the
    // poll below before every write all the same.
    unsafe {
        let flags = libc::fcntl(request.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(request.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    let mut file = File::from(request);
    let mut sent = 0;
    while sent < text.len() {
        if !matches!(ready(file.as_fd(), libc::POLLOUT, deadline), Ok(true)) {
            return;
        }
        match file.write(&text[sent..]) {
            Ok(n) => sent += n,
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
            Err(_) => return,
        }
    }
}

delegate_dispatch!(State: [WlRegistry: GlobalListContents] => Globals);

impl Dispatch<ZwlrDataControlDeviceV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrDataControlDeviceV1,
        event: zwlr_data_control_device_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_data_control_device_v1::Event::DataOffer { id } => {
                state.offered.insert(id.id(), Vec::new());
            }
            zwlr_data_control_device_v1::Event::Selection { id } => {
                // The offer it replaces is dead: its types go with it.
                if let Some(Some(old)) = state.selection.take() {
                    state.offered.remove(&old.id());
                    old.destroy();
                }
                state.selection = Some(id);
            }
            zwlr_data_control_device_v1::Event::PrimarySelection { id: Some(offer) } => {
                state.offered.remove(&offer.id());
                offer.destroy();
            }
            zwlr_data_control_device_v1::Event::Finished => state.finished = true,
            _ => {}
        }
    }

    event_created_child!(State, ZwlrDataControlDeviceV1, [
        zwlr_data_control_device_v1::EVT_DATA_OFFER_OPCODE => (ZwlrDataControlOfferV1, ()),
    ]);
}

impl Dispatch<ZwlrDataControlOfferV1, ()> for State {
    fn event(
        state: &mut Self,
        offer: &ZwlrDataControlOfferV1,
        event: zwlr_data_control_offer_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let zwlr_data_control_offer_v1::Event::Offer { mime_type } = event {
            state.offered.entry(offer.id()).or_default().push(mime_type);
        }
    }
}

impl Dispatch<ZwlrDataControlSourceV1, ()> for State {
    fn event(
        state: &mut Self,
        _: &ZwlrDataControlSourceV1,
        event: zwlr_data_control_source_v1::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        match event {
            zwlr_data_control_source_v1::Event::Send { fd, .. } => state.requests.push(fd),
            zwlr_data_control_source_v1::Event::Cancelled => state.cancelled = true,
            _ => {}
        }
    }
}

delegate_noop!(State: ignore WlSeat);
delegate_noop!(State: ignore ZwlrDataControlManagerV1);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_read_ends_when_its_writer_closes_and_times_out_while_it_is_silent() {
        let (reading, writing) = pipe().expect("a pipe");
        let mut writer = File::from(writing);
        writer.write_all(b"clip \xc3\xa9\0").expect("written");
        drop(writer);
        let bytes = read_until_closed(reading, Instant::now() + Duration::from_secs(2))
            .expect("read to the end");
        assert_eq!(bytes, b"clip \xc3\xa9\0");

        let (reading, _writing) = pipe().expect("a pipe");
        let silent = read_until_closed(reading, Instant::now() + Duration::from_millis(100));
        assert!(
            matches!(silent, Err(ClipboardError::OwnerSilent(_))),
            "{silent:?}"
        );
    }

    #[test]
    fn a_paste_gets_the_whole_text_even_when_it_is_larger_than_a_pipe() {
        let (reading, writing) = pipe().expect("a pipe");
        let text: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let sent = text.clone();
        let giver = std::thread::spawn(move || give(writing, &sent));
        let bytes = read_until_closed(reading, Instant::now() + Duration::from_secs(5))
            .expect("read to the end");
        giver.join().expect("the giver");
        assert_eq!(bytes, text);
    }
}
