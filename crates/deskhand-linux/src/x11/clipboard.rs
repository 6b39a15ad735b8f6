//! The X11 CLIPBOARD selection: reading what its owner offers, and holding text for others.
//!
//! On X the clipboard is not a store but a promise: the program that copied keeps the data and
//! hands it out when asked, for as long as it runs. Written text is held by a holder process
//! (see [`crate::clipboard`]), which serves requests until another program takes the clipboard.
//!
//! Reading and serving block and bound every wait on another client themselves, so a hung
//! owner or requestor costs a deadline, never a stuck thread.

use std::io::{self, Read as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::rc::Rc;
use std::time::{Duration, Instant};

use x11rb::connection::Connection as _;
use x11rb::errors::ConnectionError;
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ChangeWindowAttributesAux, ConnectionExt as _, CreateWindowAux, EventMask,
    PropMode, Property, SELECTION_NOTIFY_EVENT, SelectionNotifyEvent, SelectionRequestEvent,
    Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{CURRENT_TIME, NONE};

use super::{During as _, X11Error};
use crate::clipboard::{
    ClipboardContents, ClipboardError, MAX_TEXT, READY, SERVER_TIMEOUT, close_inherited, detach,
};

/// How long the owner may take to answer one request or to send one INCR chunk.
const OWNER_TIMEOUT: Duration = Duration::from_secs(3);
/// Data larger than this goes out in INCR chunks of this size, well under any server's maximum
/// request size.
const CHUNK: usize = 256 * 1024;
/// How long a requestor may leave an INCR chunk untaken before the holder drops the transfer.
const REQUESTOR_TIMEOUT: Duration = Duration::from_secs(10);

x11rb::atom_manager! {
    pub(super) Atoms: AtomsCookie {
        CLIPBOARD,
        TARGETS,
        MULTIPLE,
        TIMESTAMP,
        SAVE_TARGETS,
        DELETE,
        INSERT_SELECTION,
        INSERT_PROPERTY,
        INCR,
        TEXT,
        UTF8_STRING,
        TEXT_PLAIN_UTF8: b"text/plain;charset=utf-8",
        TEXT_PLAIN: b"text/plain",
        DESKHAND_SELECTION,
    }
}

/// A connection of its own with a small unmapped window: selection replies and property
/// events are addressed to a window, and must not mix with other users' events.
pub(super) struct Endpoint {
    pub(super) conn: RustConnection,
    pub(super) window: Window,
    pub(super) atoms: Atoms,
}

impl Endpoint {
    pub(super) fn open() -> Result<Self, X11Error> {
        const OPENING: &str = "opening a connection for the clipboard";
        let display = std::env::var("DISPLAY").unwrap_or_default();
        if display.is_empty() {
            return Err(X11Error::NoDisplay);
        }
        let (conn, screen) =
            RustConnection::connect(Some(&display)).map_err(|cause| X11Error::Connect {
                display: display.clone(),
                cause,
            })?;
        let root = conn.setup().roots[screen].root;
        let atoms = Atoms::new(&conn).during(OPENING)?.reply().during(OPENING)?;
        let window = conn.generate_id().during(OPENING)?;
        conn.create_window(
            0,
            window,
            root,
            0,
            0,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            0,
            &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .during(OPENING)?
        .check()
        .during(OPENING)?;
        Ok(Self {
            conn,
            window,
            atoms,
        })
    }

    /// The next event, or `None` once `deadline` has passed; without one, waits for as long
    /// as it takes.
    fn next_event(
        &self,
        deadline: Option<Instant>,
        operation: &'static str,
    ) -> Result<Option<Event>, X11Error> {
        loop {
            self.conn.flush().during(operation)?;
            if let Some(event) = self.conn.poll_for_event().during(operation)? {
                return Ok(Some(event));
            }
            let timeout = match deadline {
                None => -1,
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    // Rounded up, so that a wait never ends just before its deadline.
                    i32::try_from(left.as_millis() + 1).unwrap_or(i32::MAX)
                }
            };
            let mut fd = libc::pollfd {
                fd: self.conn.stream().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd that outlives the call.
            if unsafe { libc::poll(&mut fd, 1, timeout) } < 0 {
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    return Err(X11Error::Connection {
                        operation,
                        cause: ConnectionError::IoError(err),
                    });
                }
            }
        }
    }

    /// A server timestamp: ICCCM asks owners for a real time rather than CurrentTime, so that
    /// requests and ownership changes can be ordered.
    pub(super) fn server_time(&self) -> Result<u32, ClipboardError> {
        const OPERATION: &str = "asking the X server for the time";
        self.conn
            .change_property8(
                PropMode::APPEND,
                self.window,
                self.atoms.DESKHAND_SELECTION,
                AtomEnum::STRING,
                &[],
            )
            .during(OPERATION)?;
        let deadline = Instant::now() + SERVER_TIMEOUT;
        loop {
            match self.next_event(Some(deadline), OPERATION)? {
                Some(Event::PropertyNotify(event)) if event.window == self.window => {
                    return Ok(event.time);
                }
                Some(_) => {}
                None => return Err(ClipboardError::ServerSilent { what: OPERATION }),
            }
        }
    }
}

/// The window that owns the clipboard; `NONE` where no program does.
pub(super) fn clipboard_owner(endpoint: &Endpoint) -> Result<Window, ClipboardError> {
    const OPERATION: &str = "asking who owns the clipboard";
    Ok(endpoint
        .conn
        .get_selection_owner(endpoint.atoms.CLIPBOARD)
        .during(OPERATION)?
        .reply()
        .during(OPERATION)?
        .owner)
}

/// Reads the clipboard's list of types and its text, if it offers text.
pub fn read(deadline: Instant) -> Result<ClipboardContents, ClipboardError> {
    let endpoint = Endpoint::open()?;
    let atoms = &endpoint.atoms;
    let owner = clipboard_owner(&endpoint)?;
    if owner == NONE {
        return Ok(ClipboardContents::default());
    }
    let reader = Reader {
        endpoint: &endpoint,
        owner,
        deadline,
    };
    let offered = reader
        .convert(atoms.TARGETS, "the request for its types")?
        .map(|targets| targets.atoms());
    let types = match &offered {
        Some(offered) => reader.names(offered)?,
        None => Vec::new(),
    };
    // Owners that do not list their targets may still convert to the common text types.
    let candidates: Vec<Atom> = match &offered {
        Some(offered) => [
            atoms.UTF8_STRING,
            atoms.TEXT_PLAIN_UTF8,
            AtomEnum::STRING.into(),
        ]
        .into_iter()
        .filter(|target| offered.contains(target))
        .collect(),
        None => vec![atoms.UTF8_STRING, AtomEnum::STRING.into()],
    };
    let mut text = None;
    for target in candidates {
        if let Some(value) = reader.convert(target, "the request for its text")? {
            text = value.text();
            break;
        }
    }
    Ok(ClipboardContents { text, types })
}

pub(super) struct Reader<'a> {
    pub(super) endpoint: &'a Endpoint,
    pub(super) owner: Window,
    pub(super) deadline: Instant,
}

/// A converted selection, as it arrived.
pub(super) struct Value {
    pub(super) type_: Atom,
    pub(super) format: u8,
    pub(super) bytes: Vec<u8>,
}

impl Value {
    pub(super) fn atoms(&self) -> Vec<Atom> {
        if self.format != 32 {
            return Vec::new();
        }
        self.bytes
            .chunks_exact(4)
            .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    /// Text as the owner encoded it: STRING is Latin-1, everything else offered as text is
    /// UTF-8. Some owners count a C string's terminating NUL.
    fn text(&self) -> Option<String> {
        if self.format != 8 {
            return None;
        }
        let text = if self.type_ == Atom::from(AtomEnum::STRING) {
            self.bytes.iter().map(|&b| char::from(b)).collect()
        } else {
            String::from_utf8_lossy(&self.bytes).into_owned()
        };
        Some(text.trim_end_matches('\0').to_owned())
    }
}

impl Reader<'_> {
    /// Asks the owner to convert the clipboard to `target`; `None` when it refuses.
    pub(super) fn convert(
        &self,
        target: Atom,
        what: &'static str,
    ) -> Result<Option<Value>, ClipboardError> {
        const OPERATION: &str = "reading the clipboard";
        let Endpoint {
            conn,
            window,
            atoms,
        } = self.endpoint;
        conn.convert_selection(
            *window,
            atoms.CLIPBOARD,
            target,
            atoms.DESKHAND_SELECTION,
            CURRENT_TIME,
        )
        .during(OPERATION)?;
        let asked = Instant::now();
        let until = self.step();
        let notified = loop {
            match self.endpoint.next_event(Some(until), OPERATION)? {
                Some(Event::SelectionNotify(event))
                    if event.requestor == *window && event.selection == atoms.CLIPBOARD =>
                {
                    break event;
                }
                Some(_) => {}
                None => return Err(self.silent(what, asked)),
            }
        };
        if notified.property == NONE {
            return Ok(None);
        }
        let value = self.take_property(MAX_TEXT)?;
        if value.type_ == atoms.INCR {
            return self.incremental(value).map(Some);
        }
        Ok(Some(value))
    }

    /// Receives data the owner sends in chunks: each chunk is a new value of the property,
    /// sent once the previous one was deleted, and an empty one ends the transfer.
    fn incremental(&self, announced: Value) -> Result<Value, ClipboardError> {
        const OPERATION: &str = "reading the clipboard in chunks";
        let Endpoint { window, atoms, .. } = self.endpoint;
        // A lower bound of the size, which lets a transfer that is too large fail at once.
        if announced
            .atoms()
            .first()
            .is_some_and(|&size| size as usize > MAX_TEXT)
        {
            return Err(ClipboardError::TooLarge);
        }
        let mut received = Value {
            type_: NONE,
            format: 8,
            bytes: Vec::new(),
        };
        let mut asked = Instant::now();
        let mut until = self.step();
        loop {
            match self.endpoint.next_event(Some(until), OPERATION)? {
                Some(Event::PropertyNotify(event))
                    if event.window == *window
                        && event.atom == atoms.DESKHAND_SELECTION
                        && event.state == Property::NEW_VALUE =>
                {
                    let chunk = self.take_property(MAX_TEXT - received.bytes.len())?;
                    if chunk.bytes.is_empty() {
                        return Ok(received);
                    }
                    received.type_ = chunk.type_;
                    received.format = chunk.format;
                    received.bytes.extend_from_slice(&chunk.bytes);
                    asked = Instant::now();
                    until = self.step();
                }
                Some(_) => {}
                None => {
                    return Err(self.silent("the request for the next part of its text", asked));
                }
            }
        }
    }

    /// Reads and deletes the property the owner wrote; deleting it is what asks an INCR owner
    /// for the next chunk.
    fn take_property(&self, limit: usize) -> Result<Value, ClipboardError> {
        const OPERATION: &str = "reading the converted clipboard";
        let Endpoint {
            conn,
            window,
            atoms,
        } = self.endpoint;
        let words = u32::try_from(limit / 4 + 1).unwrap_or(u32::MAX);
        let reply = conn
            .get_property(
                true,
                *window,
                atoms.DESKHAND_SELECTION,
                AtomEnum::ANY,
                0,
                words,
            )
            .during(OPERATION)?
            .reply()
            .during(OPERATION)?;
        if reply.bytes_after > 0 || reply.value.len() > limit {
            return Err(ClipboardError::TooLarge);
        }
        Ok(Value {
            type_: reply.type_,
            format: reply.format,
            bytes: reply.value,
        })
    }

    /// The names of the offered targets that are data types, once each, in the owner's order.
    fn names(&self, offered: &[Atom]) -> Result<Vec<String>, ClipboardError> {
        const OPERATION: &str = "naming the clipboard's types";
        let Endpoint { conn, atoms, .. } = self.endpoint;
        let protocol = [
            atoms.TARGETS,
            atoms.MULTIPLE,
            atoms.TIMESTAMP,
            atoms.SAVE_TARGETS,
        ];
        let mut wanted: Vec<Atom> = Vec::new();
        for &atom in offered {
            if atom != NONE && !protocol.contains(&atom) && !wanted.contains(&atom) {
                wanted.push(atom);
            }
        }
        let cookies = wanted
            .iter()
            .map(|&atom| conn.get_atom_name(atom))
            .collect::<Result<Vec<_>, _>>()
            .during(OPERATION)?;
        let mut names = Vec::with_capacity(cookies.len());
        for cookie in cookies {
            let name = cookie.reply().during(OPERATION)?.name;
            names.push(String::from_utf8_lossy(&name).into_owned());
        }
        Ok(names)
    }

    /// The deadline of the next answer from the owner.
    fn step(&self) -> Instant {
        self.deadline.min(Instant::now() + OWNER_TIMEOUT)
    }

    /// The error for an owner that stopped answering: hung, or gone because the clipboard
    /// changed hands mid-read, which a second read resolves.
    fn silent(&self, what: &'static str, since: Instant) -> ClipboardError {
        let waited = since.elapsed();
        let owner_now = self
            .endpoint
            .conn
            .get_selection_owner(self.endpoint.atoms.CLIPBOARD)
            .ok()
            .and_then(|cookie| cookie.reply().ok())
            .map(|reply| reply.owner);
        match owner_now {
            Some(owner) if owner != self.owner => ClipboardError::Replaced,
            _ => ClipboardError::OwnerTimeout {
                owner: self.owner,
                what,
                waited,
            },
        }
    }
}

/// The holder's side: reads the text from standard input, takes the clipboard, prints the
/// ready line, lets go of its standard streams and its caller's session, and serves the text
/// until another program takes the clipboard and the transfers under way are done. With
/// `restoring`, standard input is a clipboard saved before a paste ([`super::paste`]), served
/// again target for target.
pub fn serve_clipboard(restoring: bool) -> Result<(), ClipboardError> {
    close_inherited();
    let mut input = Vec::new();
    io::stdin()
        .read_to_end(&mut input)
        .map_err(ClipboardError::Caller)?;
    let endpoint = Endpoint::open()?;
    let offer = if restoring {
        super::paste::Saved::decode(&input).ok_or(ClipboardError::Caller(io::Error::new(
            io::ErrorKind::InvalidData,
            "the saved clipboard it was handed is cut short",
        )))?
    } else {
        Offer::text(&endpoint.atoms, &String::from_utf8_lossy(&input))
    };
    let acquired = take(&endpoint)?;
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{READY}")
        .and_then(|()| stdout.flush())
        .map_err(ClipboardError::Caller)?;
    drop(stdout);
    detach();
    Holder::new(&endpoint, offer, acquired).serve()
}

/// Makes `endpoint`'s window the clipboard's owner; the time it owns it from.
pub(super) fn take(endpoint: &Endpoint) -> Result<u32, ClipboardError> {
    const OPERATION: &str = "taking the clipboard";
    let atoms = &endpoint.atoms;
    let acquired = endpoint.server_time()?;
    endpoint
        .conn
        .set_selection_owner(endpoint.window, atoms.CLIPBOARD, acquired)
        .during(OPERATION)?;
    let owner = endpoint
        .conn
        .get_selection_owner(atoms.CLIPBOARD)
        .during(OPERATION)?
        .reply()
        .during(OPERATION)?
        .owner;
    if owner != endpoint.window {
        return Err(ClipboardError::Lost);
    }
    Ok(acquired)
}

/// One target a holder converts the clipboard to: the property type and format it answers
/// with, and the data.
pub(super) struct Offered {
    pub(super) target: Atom,
    pub(super) type_: Atom,
    pub(super) format: u8,
    pub(super) data: Rc<[u8]>,
}

/// What a holder serves: the targets it lists when asked for TARGETS, and their data.
pub(super) struct Offer {
    pub(super) listed: Vec<Atom>,
    pub(super) targets: Vec<Offered>,
}

impl Offer {
    /// Text, as GTK encodes it: UTF-8 where the target allows it, Latin-1 for STRING, ASCII
    /// for bare text/plain, `?` for what they lack.
    pub(super) fn text(atoms: &Atoms, text: &str) -> Offer {
        let narrowed = |top: u8| -> Rc<[u8]> {
            text.chars()
                .map(|c| u8::try_from(c).ok().filter(|&b| b <= top).unwrap_or(b'?'))
                .collect()
        };
        let utf8: Rc<[u8]> = Rc::from(text.as_bytes());
        let offered = |target: Atom, type_: Atom, data: &Rc<[u8]>| Offered {
            target,
            type_,
            format: 8,
            data: Rc::clone(data),
        };
        let string = Atom::from(AtomEnum::STRING);
        let targets = vec![
            offered(atoms.UTF8_STRING, atoms.UTF8_STRING, &utf8),
            offered(atoms.TEXT_PLAIN_UTF8, atoms.TEXT_PLAIN_UTF8, &utf8),
            offered(string, string, &narrowed(0xff)),
            offered(atoms.TEXT, atoms.UTF8_STRING, &utf8),
            offered(atoms.TEXT_PLAIN, atoms.TEXT_PLAIN, &narrowed(0x7f)),
        ];
        let mut listed = vec![atoms.TARGETS, atoms.TIMESTAMP];
        listed.extend(targets.iter().map(|t| t.target));
        Offer { listed, targets }
    }
}

/// Data a requestor takes in INCR chunks.
struct Transfer {
    requestor: Window,
    property: Atom,
    type_: Atom,
    data: Rc<[u8]>,
    sent: usize,
    deadline: Instant,
}

pub(super) struct Holder<'a> {
    endpoint: &'a Endpoint,
    acquired: u32,
    offer: Offer,
    transfers: Vec<Transfer>,
    /// Another program owns the clipboard now.
    pub(super) replaced: bool,
    /// The requestors sent data (not TARGETS or TIMESTAMP), their transfers done.
    pub(super) delivered_to: Vec<Window>,
}

impl<'a> Holder<'a> {
    pub(super) fn new(endpoint: &'a Endpoint, offer: Offer, acquired: u32) -> Self {
        Self {
            endpoint,
            acquired,
            offer,
            transfers: Vec::new(),
            replaced: false,
            delivered_to: Vec::new(),
        }
    }

    fn serve(mut self) -> Result<(), ClipboardError> {
        // Once another program owns the clipboard no new request comes, but transfers under
        // way still get their remaining chunks: their requestors asked while the text was ours.
        self.serve_until(None, |holder| {
            holder.replaced && holder.transfers.is_empty()
        })?;
        // The X server drops the requests of a client whose connection it sees closed before it
        // has read them; a round trip makes sure the last answers were carried out.
        self.endpoint.conn.sync().during("holding the clipboard")?;
        Ok(())
    }

    /// Serves requests until `done` holds, or `until` has passed.
    pub(super) fn serve_until(
        &mut self,
        until: Option<Instant>,
        done: impl Fn(&Self) -> bool,
    ) -> Result<(), ClipboardError> {
        const OPERATION: &str = "holding the clipboard";
        let clipboard = self.endpoint.atoms.CLIPBOARD;
        while !done(self) {
            let deadline = self.transfers.iter().map(|t| t.deadline).chain(until).min();
            match self.endpoint.next_event(deadline, OPERATION)? {
                Some(Event::SelectionClear(event)) if event.selection == clipboard => {
                    self.replaced = true;
                }
                Some(Event::SelectionRequest(request)) => self.answer(&request)?,
                Some(Event::PropertyNotify(event)) if event.state == Property::DELETE => {
                    self.next_chunk(event.window, event.atom)?;
                }
                // Errors come from requestors that vanished mid-transfer; they ask nothing more.
                Some(_) => {}
                None if until.is_some_and(|until| Instant::now() >= until) => break,
                None => self.drop_stalled()?,
            }
        }
        // The last answers are written out now: the caller may let the connection go next.
        self.endpoint.conn.flush().during(OPERATION)?;
        Ok(())
    }

    fn answer(&mut self, request: &SelectionRequestEvent) -> Result<(), ClipboardError> {
        const OPERATION: &str = "answering a clipboard request";
        let Endpoint {
            conn,
            window,
            atoms,
        } = self.endpoint;
        // Clients from before ICCCM 2.0 name no property and expect the target's name.
        let property = if request.property == NONE {
            request.target
        } else {
            request.property
        };
        let ours = request.selection == atoms.CLIPBOARD
            && request.owner == *window
            && (request.time == CURRENT_TIME || request.time >= self.acquired);
        let answered = ours && self.convert(request, property)?;
        let notify = SelectionNotifyEvent {
            response_type: SELECTION_NOTIFY_EVENT,
            sequence: 0,
            time: request.time,
            requestor: request.requestor,
            selection: request.selection,
            target: request.target,
            property: if answered { property } else { NONE },
        };
        conn.send_event(false, request.requestor, EventMask::NO_EVENT, notify)
            .during(OPERATION)?;
        Ok(())
    }

    /// Writes the clipboard converted to the request's target into `property`; `false` for a
    /// target it cannot be converted to.
    fn convert(
        &mut self,
        request: &SelectionRequestEvent,
        property: Atom,
    ) -> Result<bool, ClipboardError> {
        const OPERATION: &str = "answering a clipboard request";
        let Endpoint { conn, atoms, .. } = self.endpoint;
        if request.target == atoms.TARGETS {
            conn.change_property32(
                PropMode::REPLACE,
                request.requestor,
                property,
                AtomEnum::ATOM,
                &self.offer.listed,
            )
            .during(OPERATION)?;
        } else if request.target == atoms.TIMESTAMP {
            conn.change_property32(
                PropMode::REPLACE,
                request.requestor,
                property,
                AtomEnum::INTEGER,
                &[self.acquired],
            )
            .during(OPERATION)?;
        } else if let Some(offered) = self
            .offer
            .targets
            .iter()
            .find(|offered| offered.target == request.target)
        {
            let (type_, format, data) = (offered.type_, offered.format, Rc::clone(&offered.data));
            self.send(request.requestor, property, type_, format, data)?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    fn send(
        &mut self,
        requestor: Window,
        property: Atom,
        type_: Atom,
        format: u8,
        data: Rc<[u8]>,
    ) -> Result<(), ClipboardError> {
        const OPERATION: &str = "sending the clipboard's text";
        let Endpoint { conn, atoms, .. } = self.endpoint;
        // Chunks are cut in bytes, which only 8-bit data allows; other data is small (atoms,
        // numbers).
        if data.len() <= CHUNK || format != 8 {
            let units = u32::try_from(data.len() / usize::from(format / 8)).unwrap_or(u32::MAX);
            conn.change_property(
                PropMode::REPLACE,
                requestor,
                property,
                type_,
                format,
                units,
                &data,
            )
            .during(OPERATION)?;
            self.delivered_to.push(requestor);
            return Ok(());
        }
        // The requestor's deletions of the property pace the chunks; listen before announcing.
        conn.change_window_attributes(
            requestor,
            &ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
        )
        .during(OPERATION)?;
        let size = u32::try_from(data.len()).unwrap_or(u32::MAX);
        conn.change_property32(PropMode::REPLACE, requestor, property, atoms.INCR, &[size])
            .during(OPERATION)?;
        self.transfers.push(Transfer {
            requestor,
            property,
            type_,
            data,
            sent: 0,
            deadline: Instant::now() + REQUESTOR_TIMEOUT,
        });
        Ok(())
    }

    /// The requestor deleted a property: if it is one of ours in transfer, writes the next
    /// chunk, or the empty one that ends the transfer.
    fn next_chunk(&mut self, requestor: Window, property: Atom) -> Result<(), ClipboardError> {
        const OPERATION: &str = "sending the clipboard's text in chunks";
        let Some(index) = self
            .transfers
            .iter()
            .position(|t| t.requestor == requestor && t.property == property)
        else {
            return Ok(());
        };
        let conn = &self.endpoint.conn;
        let transfer = &mut self.transfers[index];
        let end = (transfer.sent + CHUNK).min(transfer.data.len());
        conn.change_property8(
            PropMode::REPLACE,
            requestor,
            property,
            transfer.type_,
            &transfer.data[transfer.sent..end],
        )
        .during(OPERATION)?;
        if transfer.sent == end {
            self.transfers.swap_remove(index);
            self.delivered_to.push(requestor);
            self.stop_listening(requestor)?;
        } else {
            transfer.sent = end;
            transfer.deadline = Instant::now() + REQUESTOR_TIMEOUT;
        }
        Ok(())
    }

    /// Gives up transfers whose requestor stopped taking chunks (it exited or hangs).
    fn drop_stalled(&mut self) -> Result<(), ClipboardError> {
        let now = Instant::now();
        let (stalled, going): (Vec<Transfer>, Vec<Transfer>) =
            self.transfers.drain(..).partition(|t| t.deadline <= now);
        self.transfers = going;
        for transfer in stalled {
            self.stop_listening(transfer.requestor)?;
        }
        Ok(())
    }

    /// Stops property events from a requestor once no transfer to it remains.
    fn stop_listening(&self, requestor: Window) -> Result<(), ClipboardError> {
        if self.transfers.iter().any(|t| t.requestor == requestor) {
            return Ok(());
        }
        self.endpoint
            .conn
            .change_window_attributes(
                requestor,
                &ChangeWindowAttributesAux::new().event_mask(EventMask::NO_EVENT),
            )
            .during("finishing a clipboard transfer")?;
        Ok(())
    }
}
