//! What `deskhand doctor` asks of a Linux desktop: facts only (what the X server or the Wayland
//! compositor offers, what a process loaded and was started with, which accessibility modules are
//! installed). Judging them and saying what to do is the doctor's, in the binary, except the
//! verdict on an app off the accessibility bus (`off_bus`), which `observe` quotes too. Every
//! probe here reads; none changes the desktop.

mod off_bus;

pub use off_bus::{BusFacts, OffTheBus, joins_by_itself, off_the_bus};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _, ImageFormat};

pub use crate::wayland::Session;

/// Runs `probe` on a thread of its own and gives up after `timeout`: connecting to an X server
/// or a compositor blocks, and one that hangs must not hang the doctor.
pub fn within<T: Send + 'static>(
    timeout: Duration,
    what: &str,
    probe: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(probe());
    });
    receive.recv_timeout(timeout).unwrap_or_else(|_| {
        Err(format!(
            "{what} did not answer within {} ms",
            timeout.as_millis()
        ))
    })
}

/// What the X server named by `DISPLAY` offers deskhand.
#[derive(Debug, Clone)]
pub struct X11Facts {
    pub display: String,
    pub screen: (u16, u16),
    /// The XTEST extension, through which every key and click goes.
    pub xtest: bool,
    /// Reading a pixel of the root window worked, or why not.
    pub capture: Result<(), String>,
    /// An EWMH window manager answers (`_NET_SUPPORTING_WM_CHECK`): without one no window can
    /// be focused, moved or closed.
    pub window_manager: bool,
    /// The window that owns the CLIPBOARD selection, if any.
    pub clipboard_owner: Option<u32>,
    /// XInput 2.2, whose raw events tell a person's keys and buttons from deskhand's.
    pub xinput2: bool,
}

/// Connects to `DISPLAY` and asks what deskhand needs, within `timeout`.
pub fn x11(timeout: Duration) -> Result<X11Facts, String> {
    let display = std::env::var("DISPLAY").unwrap_or_default();
    let shown = display.clone();
    within(timeout, &format!("the X server {shown}"), move || {
        let (conn, number) = x11rb::connect(None).map_err(|err| err.to_string())?;
        let root = conn.setup().roots[number].clone();
        let failed = |err: x11rb::errors::ReplyError| err.to_string();
        let xtest = conn
            .extension_information(x11rb::protocol::xtest::X11_EXTENSION_NAME)
            .map_err(|err| err.to_string())?
            .is_some();
        let capture = conn
            .get_image(ImageFormat::Z_PIXMAP, root.root, 0, 0, 1, 1, !0)
            .map_err(|err| err.to_string())
            .and_then(|cookie| cookie.reply().map(drop).map_err(failed));
        let atom = |name: &str| -> Result<u32, String> {
            Ok(conn
                .intern_atom(false, name.as_bytes())
                .map_err(|err| err.to_string())?
                .reply()
                .map_err(failed)?
                .atom)
        };
        let check = atom("_NET_SUPPORTING_WM_CHECK")?;
        let window_manager = conn
            .get_property(false, root.root, check, AtomEnum::WINDOW, 0, 1)
            .map_err(|err| err.to_string())?
            .reply()
            .map_err(failed)?
            .value32()
            .and_then(|mut values| values.next())
            .is_some_and(|window| window != 0);
        let clipboard = atom("CLIPBOARD")?;
        let owner = conn
            .get_selection_owner(clipboard)
            .map_err(|err| err.to_string())?
            .reply()
            .map_err(failed)?
            .owner;
        let xinput2 = {
            use x11rb::protocol::xinput::ConnectionExt as _;
            conn.xinput_xi_query_version(2, 2)
                .ok()
                .and_then(|cookie| cookie.reply().ok())
                .is_some_and(|v| (v.major_version, v.minor_version) >= (2, 2))
        };
        Ok(X11Facts {
            xinput2,
            display,
            screen: (root.width_in_pixels, root.height_in_pixels),
            xtest,
            capture,
            window_manager,
            clipboard_owner: (owner != 0).then_some(owner),
        })
    })
}

/// The interfaces the compositor named by `WAYLAND_DISPLAY` offers, within `timeout`.
pub fn wayland_globals(timeout: Duration) -> Result<Vec<String>, String> {
    within(timeout, "the Wayland compositor", || {
        crate::wayland::global_interfaces().map_err(|err| err.to_string())
    })
}

/// What the session bus says of accessibility: where its bus is, and `org.a11y.Status`'s
/// `IsEnabled` (Qt and Chromium join the bus on their own only when it is true).
#[derive(Debug, Clone)]
pub struct A11yStatus {
    pub address: String,
    pub enabled: Option<bool>,
}

/// Asks the session bus for the accessibility bus and its status, within `timeout`.
pub async fn accessibility_status(timeout: Duration) -> Result<A11yStatus, String> {
    let ask = async {
        let session = zbus::Connection::session().await?;
        let address = crate::atspi::bus_address_on(&session).await?;
        let enabled = session
            .call_method(
                Some("org.a11y.Bus"),
                "/org/a11y/bus",
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &("org.a11y.Status", "IsEnabled"),
            )
            .await
            .ok()
            .and_then(|reply| {
                reply
                    .body()
                    .deserialize::<zbus::zvariant::OwnedValue>()
                    .ok()
            })
            .and_then(|value| bool::try_from(value).ok());
        Ok::<_, zbus::Error>(A11yStatus { address, enabled })
    };
    match tokio::time::timeout(timeout, ask).await {
        Ok(Ok(status)) => Ok(status),
        Ok(Err(err)) => Err(err.to_string()),
        Err(_) => Err(format!(
            "the session bus did not answer within {} ms",
            timeout.as_millis()
        )),
    }
}

/// Whether a name has an owner on the session bus (a GNOME Shell service), within `timeout`.
pub async fn session_name_owned(name: &str, timeout: Duration) -> Result<bool, String> {
    let ask = async {
        let session = zbus::Connection::session().await?;
        let owned: bool = session
            .call_method(
                Some("org.freedesktop.DBus"),
                "/org/freedesktop/DBus",
                Some("org.freedesktop.DBus"),
                "NameHasOwner",
                &(name,),
            )
            .await?
            .body()
            .deserialize()?;
        Ok::<_, zbus::Error>(owned)
    };
    match tokio::time::timeout(timeout, ask).await {
        Ok(result) => result.map_err(|err| err.to_string()),
        Err(_) => Err(format!(
            "the session bus did not answer within {} ms",
            timeout.as_millis()
        )),
    }
}

/// Whether process `pid` holds a connection on this session bus, within `timeout`: an app that
/// does not cannot find the accessibility bus (Qt, GTK and Java all ask the session bus for it).
pub async fn on_session_bus(pid: u32, timeout: Duration) -> Result<bool, String> {
    let ask = async {
        let session = zbus::Connection::session().await?;
        let dbus = zbus::fdo::DBusProxy::new(&session).await?;
        for name in dbus.list_names().await? {
            if !name.starts_with(':') {
                continue;
            }
            let owner = zbus::names::BusName::from(name.clone());
            if dbus.get_connection_unix_process_id(owner).await.ok() == Some(pid) {
                return Ok(true);
            }
        }
        Ok::<_, zbus::Error>(false)
    };
    match tokio::time::timeout(timeout, ask).await {
        Ok(result) => result.map_err(|err| err.to_string()),
        Err(_) => Err(format!(
            "the session bus did not answer within {} ms",
            timeout.as_millis()
        )),
    }
}

/// The toolkit a process draws its windows with, from the libraries it loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolkit {
    Gtk2,
    Gtk3,
    Gtk4,
    Qt5,
    Qt6,
    /// Chromium, Chrome or an Electron app.
    Chromium,
    /// A Java virtual machine (Swing, AWT).
    Java,
    /// Tk, Xt/Athena (xterm, xmessage), Motif: toolkits with no accessibility at all.
    NoAccessibility,
    Unknown,
}

impl Toolkit {
    pub fn name(self) -> &'static str {
        match self {
            Toolkit::Gtk2 => "GTK 2",
            Toolkit::Gtk3 => "GTK 3",
            Toolkit::Gtk4 => "GTK 4",
            Toolkit::Qt5 => "Qt 5",
            Toolkit::Qt6 => "Qt 6",
            Toolkit::Chromium => "Chromium/Electron",
            Toolkit::Java => "Java",
            Toolkit::NoAccessibility => "a toolkit without accessibility (Tk, Xt, Motif)",
            Toolkit::Unknown => "an unrecognized toolkit",
        }
    }
}

/// The environment variables that decide whether a process joins the accessibility bus.
pub const ACCESSIBILITY_VARS: [&str; 8] = [
    "GTK2_MODULES",
    "GTK_MODULES",
    "NO_AT_BRIDGE",
    "QT_LINUX_ACCESSIBILITY_ALWAYS_ON",
    "QT_ACCESSIBILITY",
    "DBUS_SESSION_BUS_ADDRESS",
    "AT_SPI_BUS_ADDRESS",
    "JAVA_TOOL_OPTIONS",
];

/// What one process is: its program, arguments, toolkit and accessibility environment.
#[derive(Debug, Clone)]
pub struct ProcessFacts {
    pub pid: u32,
    /// The program's file name (`gimp-2.10`, `chromium`).
    pub program: String,
    pub args: Vec<String>,
    pub toolkit: Toolkit,
    /// Whether the process loaded a library whose file name contains each of these.
    pub loaded: Vec<String>,
    /// Those of [`ACCESSIBILITY_VARS`] it was started with; `None`: its environment is not
    /// readable (another user's process).
    pub env: Option<HashMap<String, String>>,
    /// Flatpak or Snap, when the process runs in one's sandbox.
    pub sandbox: Option<&'static str>,
}

impl ProcessFacts {
    pub fn has_loaded(&self, part: &str) -> bool {
        self.loaded.iter().any(|library| library.contains(part))
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.as_ref()?.get(name).map(String::as_str)
    }
}

/// Reads `/proc/<pid>`; `None` when the process is gone.
pub fn process(pid: u32) -> Option<ProcessFacts> {
    let dir = PathBuf::from(format!("/proc/{pid}"));
    let args: Vec<String> = std::fs::read(dir.join("cmdline"))
        .ok()?
        .split(|b| *b == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect();
    let exe = std::fs::read_link(dir.join("exe")).ok();
    let program = exe
        .as_deref()
        .or_else(|| args.first().map(Path::new))
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let loaded = loaded_libraries(&dir);
    let env = std::fs::read(dir.join("environ")).ok().map(|bytes| {
        bytes
            .split(|b| *b == 0)
            .filter_map(|pair| {
                let pair = String::from_utf8_lossy(pair);
                let (name, value) = pair.split_once('=')?;
                ACCESSIBILITY_VARS
                    .contains(&name)
                    .then(|| (name.to_owned(), value.to_owned()))
            })
            .collect()
    });
    let sandbox = if dir.join("root/.flatpak-info").exists() {
        Some("Flatpak")
    } else if exe.as_deref().is_some_and(|exe| exe.starts_with("/snap/")) {
        Some("Snap")
    } else {
        None
    };
    let toolkit = toolkit_of(&program, &loaded);
    Some(ProcessFacts {
        pid,
        program,
        args,
        toolkit,
        loaded,
        env,
        sandbox,
    })
}

/// The file names of the shared libraries mapped into the process.
fn loaded_libraries(dir: &Path) -> Vec<String> {
    let Ok(maps) = std::fs::read_to_string(dir.join("maps")) else {
        return Vec::new();
    };
    let mut names: Vec<String> = maps
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.contains(".so"))
        .filter_map(|path| Path::new(path).file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn toolkit_of(program: &str, loaded: &[String]) -> Toolkit {
    let has = |part: &str| loaded.iter().any(|library| library.starts_with(part));
    // GTK 2 first: a GTK 2 app loads no other GTK, but a Qt app may load GTK 3 for its dialogs.
    if has("libgtk-x11-2.0") {
        Toolkit::Gtk2
    } else if has("libQt6Gui") {
        Toolkit::Qt6
    } else if has("libQt5Gui") {
        Toolkit::Qt5
    } else if has("libjvm") {
        Toolkit::Java
    } else if ["chrome", "chromium", "electron"]
        .iter()
        .any(|name| program.contains(name))
        || has("libcef")
        || has("libnode")
    {
        Toolkit::Chromium
    } else if has("libgtk-4") {
        Toolkit::Gtk4
    } else if has("libgtk-3") {
        Toolkit::Gtk3
    } else if has("libtk8") || has("libXaw") || has("libXm.") {
        Toolkit::NoAccessibility
    } else {
        Toolkit::Unknown
    }
}

/// Where GTK 2 looks for its modules, newest layout first.
const GTK2_MODULE_DIRS: [&str; 3] = [
    "/usr/lib/x86_64-linux-gnu/gtk-2.0/modules",
    "/usr/lib/aarch64-linux-gnu/gtk-2.0/modules",
    "/usr/lib/gtk-2.0/modules",
];

/// Whether GTK 2's two accessibility modules are installed: `libgail.so` (Debian's
/// libgail-common) and `libatk-bridge.so` (libatk-adaptor).
pub fn gtk2_modules_installed() -> (bool, bool) {
    let installed = |file: &str| {
        GTK2_MODULE_DIRS
            .iter()
            .any(|dir| Path::new(dir).join(file).exists())
    };
    (installed("libgail.so"), installed("libatk-bridge.so"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn libs(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_toolkit_is_told_by_the_libraries_loaded() {
        assert_eq!(
            toolkit_of("gimp-2.10", &libs(&["libc.so.6", "libgtk-x11-2.0.so.0"])),
            Toolkit::Gtk2
        );
        assert_eq!(
            toolkit_of("featherpad", &libs(&["libQt5Gui.so.5", "libgtk-3.so.0"])),
            Toolkit::Qt5
        );
        assert_eq!(
            toolkit_of("chromium", &libs(&["libgtk-3.so.0"])),
            Toolkit::Chromium
        );
        assert_eq!(
            toolkit_of("wish8.6", &libs(&["libtk8.6.so"])),
            Toolkit::NoAccessibility
        );
        assert_eq!(toolkit_of("x", &libs(&["libgtk-4.so.1"])), Toolkit::Gtk4);
        assert_eq!(toolkit_of("x", &libs(&["libc.so.6"])), Toolkit::Unknown);
    }

    #[test]
    fn this_process_reads_as_itself() {
        let facts = process(std::process::id()).expect("this process");
        assert!(!facts.program.is_empty());
        assert!(facts.has_loaded("libc"), "{:?}", facts.loaded);
        assert!(facts.env.is_some());
    }
}
