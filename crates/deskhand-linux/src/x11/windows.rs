//! Top-level windows as the EWMH window manager lists them.

use x11rb::connection::RequestConnection as _;
use x11rb::cookie::Cookie;
use x11rb::errors::ReplyError;
use x11rb::properties::{WmClass, WmClassCookie};
use x11rb::protocol::ErrorKind;
use x11rb::protocol::res::{
    self, ClientIdMask, ClientIdSpec, ConnectionExt as _, QueryClientIdsReply,
};
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, GetGeometryReply, GetPropertyReply, TranslateCoordinatesReply,
    Window,
};
use x11rb::rust_connection::RustConnection;

use super::{During as _, X11, X11Error};

/// A rectangle in root-window (screen) pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct XRect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

/// A managed top-level window.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct XWindow {
    pub id: u32,
    pub title: String,
    /// `_NET_WM_PID`, else the process the X server knows for the window's local client: an
    /// app that sets no pid (xmessage, Xaw and Motif programs) is still told apart from the
    /// next one that gets the same window id.
    pub pid: Option<u32>,
    /// The class part of WM_CLASS (e.g. "Mousepad").
    pub wm_class: Option<String>,
    /// The client area (without window-manager frame) in root coordinates.
    pub rect: XRect,
    /// `_NET_FRAME_EXTENTS`: left, right, top, bottom.
    pub frame_extents: Option<[u32; 4]>,
    /// `_GTK_FRAME_EXTENTS` (client-side shadows): left, right, top, bottom.
    pub gtk_frame_extents: Option<[u32; 4]>,
    /// `_NET_WM_STATE_HIDDEN`, i.e. minimized.
    pub minimized: bool,
    /// Both `_NET_WM_STATE_MAXIMIZED_VERT` and `_HORZ`.
    pub maximized: bool,
}

const LIST_OPERATION: &str = "reading the window list";
const WINDOW_OPERATION: &str = "reading a window's properties";
const ACTIVE_OPERATION: &str = "reading the active window";
/// 64 KiB of title is more than any window shows.
const MAX_TEXT_WORDS: u32 = 16 * 1024;

/// Every request for one window, sent before any reply is awaited so that listing N windows
/// costs one round trip rather than N × 9.
struct Pending<'c> {
    id: Window,
    net_name: Cookie<'c, RustConnection, GetPropertyReply>,
    name: Cookie<'c, RustConnection, GetPropertyReply>,
    pid: Cookie<'c, RustConnection, GetPropertyReply>,
    class: WmClassCookie<'c, RustConnection>,
    geometry: Cookie<'c, RustConnection, GetGeometryReply>,
    origin: Cookie<'c, RustConnection, TranslateCoordinatesReply>,
    frame: Cookie<'c, RustConnection, GetPropertyReply>,
    gtk_frame: Cookie<'c, RustConnection, GetPropertyReply>,
    state: Cookie<'c, RustConnection, GetPropertyReply>,
    kind: Cookie<'c, RustConnection, GetPropertyReply>,
    client_pid: Option<Cookie<'c, RustConnection, QueryClientIdsReply>>,
}

impl X11 {
    /// Managed top-level windows, bottom to top in stacking order when the window manager
    /// provides it. Windows that disappear while being queried are left out, and so are splash
    /// screens: they take no input and close by themselves, and the window an app's launch
    /// waits for is the one after its splash (GIMP's "GIMP Startup").
    pub fn windows(&self) -> Result<Vec<XWindow>, X11Error> {
        let ids = self.client_list()?;
        let knows_clients = self.knows_clients()?;
        let pending = ids
            .iter()
            .map(|&id| self.request_window(id, knows_clients))
            .collect::<Result<Vec<_>, _>>()?;
        let mut windows = Vec::with_capacity(pending.len());
        for p in pending {
            if let Some(window) = self.collect_window(p)? {
                windows.push(window);
            }
        }
        Ok(windows)
    }

    /// [`X11::windows`] and [`X11::active_window`], the active window asked along with the
    /// list: a round trip less than one after the other.
    pub fn windows_and_active(&self) -> Result<(Vec<XWindow>, Option<u32>), X11Error> {
        let active = self.request_active()?;
        let windows = self.windows()?;
        Ok((windows, collect_active(active)?))
    }

    /// The managed window `id`, or `None` if it no longer exists or is not a managed top-level.
    pub fn window(&self, id: u32) -> Result<Option<XWindow>, X11Error> {
        // Its properties are asked before the list is read, all in one round trip; those of a
        // window the list does not name are dropped unread.
        let pending = self.request_window(id, self.knows_clients()?)?;
        if !self.client_list()?.contains(&id) {
            return Ok(None);
        }
        self.collect_window(pending)
    }

    /// [`X11::window`] and [`X11::active_window`] in one round trip, where one after the other
    /// took two: every observe of a window reads both.
    pub fn window_and_active(&self, id: u32) -> Result<(Option<XWindow>, Option<u32>), X11Error> {
        let pending = self.request_window(id, self.knows_clients()?)?;
        let active = self.request_active()?;
        let listed = self.client_list()?.contains(&id);
        let active = collect_active(active)?;
        let window = if listed {
            self.collect_window(pending)?
        } else {
            None
        };
        Ok((window, active))
    }

    /// Whether the server has X-Resource, which names the process behind a local client.
    fn knows_clients(&self) -> Result<bool, X11Error> {
        Ok(self
            .conn
            .extension_information(res::X11_EXTENSION_NAME)
            .during("checking for the X-Resource extension")?
            .is_some())
    }

    /// The window the window manager considers active (`_NET_ACTIVE_WINDOW`), if any.
    pub fn active_window(&self) -> Result<Option<u32>, X11Error> {
        collect_active(self.request_active()?)
    }

    fn request_active(&self) -> Result<Cookie<'_, RustConnection, GetPropertyReply>, X11Error> {
        self.conn
            .get_property(
                false,
                self.root,
                self.atoms._NET_ACTIVE_WINDOW,
                AtomEnum::WINDOW,
                0,
                1,
            )
            .during(ACTIVE_OPERATION)
    }

    pub(super) fn client_list(&self) -> Result<Vec<Window>, X11Error> {
        for atom in [
            self.atoms._NET_CLIENT_LIST_STACKING,
            self.atoms._NET_CLIENT_LIST,
        ] {
            let reply = self
                .conn
                .get_property(false, self.root, atom, AtomEnum::WINDOW, 0, u32::MAX / 4)
                .during(LIST_OPERATION)?
                .reply()
                .during(LIST_OPERATION)?;
            if reply.type_ != x11rb::NONE {
                return Ok(reply.value32().map(Iterator::collect).unwrap_or_default());
            }
        }
        // Some window managers publish no client list until they manage a first window.
        let check = self
            .conn
            .get_property(
                false,
                self.root,
                self.atoms._NET_SUPPORTING_WM_CHECK,
                AtomEnum::WINDOW,
                0,
                1,
            )
            .during(LIST_OPERATION)?
            .reply()
            .during(LIST_OPERATION)?;
        if first_u32(&check).is_some_and(|id| id != x11rb::NONE) {
            return Ok(Vec::new());
        }
        Err(X11Error::NoWindowManager)
    }

    fn request_window(&self, id: Window, knows_clients: bool) -> Result<Pending<'_>, X11Error> {
        let conn = &self.conn;
        let atoms = &self.atoms;
        let property = |atom: u32, kind: AtomEnum, words: u32| {
            conn.get_property(false, id, atom, kind, 0, words)
                .during(WINDOW_OPERATION)
        };
        Ok(Pending {
            id,
            net_name: property(atoms._NET_WM_NAME, AtomEnum::ANY, MAX_TEXT_WORDS)?,
            name: property(AtomEnum::WM_NAME.into(), AtomEnum::ANY, MAX_TEXT_WORDS)?,
            pid: property(atoms._NET_WM_PID, AtomEnum::CARDINAL, 1)?,
            class: WmClassCookie::new(conn, id).during(WINDOW_OPERATION)?,
            geometry: conn.get_geometry(id).during(WINDOW_OPERATION)?,
            origin: conn
                .translate_coordinates(id, self.root, 0, 0)
                .during(WINDOW_OPERATION)?,
            frame: property(atoms._NET_FRAME_EXTENTS, AtomEnum::CARDINAL, 4)?,
            gtk_frame: property(atoms._GTK_FRAME_EXTENTS, AtomEnum::CARDINAL, 4)?,
            state: property(atoms._NET_WM_STATE, AtomEnum::ATOM, 1024)?,
            kind: property(atoms._NET_WM_WINDOW_TYPE, AtomEnum::ATOM, 16)?,
            client_pid: if knows_clients {
                let spec = ClientIdSpec {
                    client: id,
                    mask: ClientIdMask::LOCAL_CLIENT_PID,
                };
                Some(
                    conn.res_query_client_ids(&[spec])
                        .during(WINDOW_OPERATION)?,
                )
            } else {
                None
            },
        })
    }

    /// `None` if the window vanished after it was listed, or is a splash screen.
    fn collect_window(&self, p: Pending<'_>) -> Result<Option<XWindow>, X11Error> {
        let result = (|| {
            let net_name = p.net_name.reply()?;
            let name = p.name.reply()?;
            let pid = p.pid.reply()?;
            let class = p.class.reply()?;
            let geometry = p.geometry.reply()?;
            let origin = p.origin.reply()?;
            let frame = p.frame.reply()?;
            let gtk_frame = p.gtk_frame.reply()?;
            let state = p.state.reply()?;
            let kind = p.kind.reply()?;
            // A remote client has no process the server knows: the window then has none.
            let client_pid = p
                .client_pid
                .and_then(|cookie| cookie.reply().ok())
                .and_then(|reply| {
                    reply
                        .ids
                        .into_iter()
                        .find(|id| id.spec.mask == ClientIdMask::LOCAL_CLIENT_PID)
                        .and_then(|id| id.value.first().copied())
                });
            // The first type a window names is the one it asks to be treated as.
            if first_u32(&kind) == Some(self.atoms._NET_WM_WINDOW_TYPE_SPLASH) {
                return Ok(None);
            }
            let has_state = |atom| {
                state
                    .value32()
                    .is_some_and(|mut atoms| atoms.any(|a| a == atom))
            };
            Ok::<_, ReplyError>(Some(XWindow {
                id: p.id,
                title: title(&net_name, &name, self.atoms.UTF8_STRING),
                pid: first_u32(&pid).or(client_pid),
                wm_class: class.map(|c: WmClass| String::from_utf8_lossy(c.class()).into_owned()),
                rect: XRect {
                    x: i32::from(origin.dst_x),
                    y: i32::from(origin.dst_y),
                    width: u32::from(geometry.width),
                    height: u32::from(geometry.height),
                },
                frame_extents: extents(&frame),
                gtk_frame_extents: extents(&gtk_frame),
                minimized: has_state(self.atoms._NET_WM_STATE_HIDDEN),
                maximized: has_state(self.atoms._NET_WM_STATE_MAXIMIZED_VERT)
                    && has_state(self.atoms._NET_WM_STATE_MAXIMIZED_HORZ),
            }))
        })();
        match result {
            Ok(window) => Ok(window),
            Err(ReplyError::X11Error(e))
                if matches!(e.error_kind, ErrorKind::Window | ErrorKind::Drawable) =>
            {
                Ok(None)
            }
            Err(e) => Err(e).during(WINDOW_OPERATION),
        }
    }
}

fn collect_active(
    cookie: Cookie<'_, RustConnection, GetPropertyReply>,
) -> Result<Option<u32>, X11Error> {
    let reply = cookie.reply().during(ACTIVE_OPERATION)?;
    Ok(first_u32(&reply).filter(|&id| id != x11rb::NONE))
}

fn first_u32(reply: &GetPropertyReply) -> Option<u32> {
    reply.value32().and_then(|mut values| values.next())
}

fn extents(reply: &GetPropertyReply) -> Option<[u32; 4]> {
    let values: Vec<u32> = reply.value32()?.collect();
    values.try_into().ok()
}

/// `_NET_WM_NAME` (UTF-8) if set, else `WM_NAME`, which is Latin-1 when typed STRING.
fn title(net_name: &GetPropertyReply, name: &GetPropertyReply, utf8_string: u32) -> String {
    if net_name.type_ == utf8_string && !net_name.value.is_empty() {
        return String::from_utf8_lossy(&net_name.value).into_owned();
    }
    if name.type_ == u32::from(AtomEnum::STRING) {
        name.value.iter().map(|&b| char::from(b)).collect()
    } else {
        String::from_utf8_lossy(&name.value).into_owned()
    }
}
