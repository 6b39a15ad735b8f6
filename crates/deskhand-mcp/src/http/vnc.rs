//! The VNC server of one private desktop's live view, started when the first viewer connects
//! and killed when the last viewer leaves or with the desktop: x11vnc on an X11 desktop,
//! listening on loopback only behind the desktop's view password; wayvnc on a sway desktop,
//! listening on a socket in that desktop's own runtime folder, which only this user can open.
//! Each viewer's WebSocket is carried by this server to it, through the [`InputGate`] that lets
//! the viewer's input through only while an operator holds the desktop.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use super::rfb::InputGate;
use super::view::{InputFor, input_for};

/// x11vnc shows it is listening by this line on its standard output.
const PORT_LINE: &str = "PORT=";
/// How long the VNC server gets to connect to the display and listen.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a viewer's connection to x11vnc may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// VNC authentication reads 8 characters of a password at most.
const PASSWORD_LEN: usize = 8;

/// Where a viewer's connection reaches a desktop's VNC server.
#[derive(Debug, Clone)]
pub(crate) enum Endpoint {
    /// x11vnc's port on loopback.
    Port(u16),
    /// wayvnc's socket.
    Socket(PathBuf),
}

/// A running VNC server; killed when dropped, and its socket removed.
pub(crate) struct Vnc {
    _child: Child,
    endpoint: Endpoint,
}

impl Drop for Vnc {
    fn drop(&mut self) {
        if let Endpoint::Socket(path) = &self.endpoint {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Vnc {
    /// Starts the VNC server of the desktop on `screen`, as the desktop's process said it
    /// started: an X display name such as `:99`, or the path of a Wayland socket.
    pub(crate) async fn start(screen: &str, password: &str) -> Result<Vnc, String> {
        match screen
            .strip_prefix(':')
            .filter(|n| n.parse::<u32>().is_ok())
        {
            Some(number) => Self::start_x11vnc(screen, number, password).await,
            None => Self::start_wayvnc(Path::new(screen)).await,
        }
    }

    async fn start_x11vnc(screen: &str, number: &str, password: &str) -> Result<Vnc, String> {
        // Where the desktop's processes find their X authority, as deskhand's headless desktop
        // lays out its folder.
        let xauthority = format!("/tmp/deskhand-{number}/Xauthority");
        let file = password_file(number, password)?;
        let port = free_port()?;
        let mut command = Command::new("x11vnc");
        command
            .args(["-display", screen, "-auth", &xauthority])
            .args(["-localhost", "-rfbport", &port.to_string()])
            .args(["-forever", "-shared", "-quiet", "-noremote", "-nobell"])
            // Without it x11vnc polls through some 65 System V shared-memory segments, which
            // outlive it when it is killed (as it is when the view closes): a few dozen views
            // used up the system's 4,096 and broke MIT-SHM for every X client on the machine.
            .arg("-noshm")
            // rm: has x11vnc delete the file once read, so the password is nowhere on disk.
            .arg("-passwdfile")
            .arg(format!("rm:{}", file.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|err| {
            let _ = std::fs::remove_file(&file);
            format!(
                "x11vnc could not be started ({err}); install it (apt-get install x11vnc) and reload the page"
            )
        })?;
        let Some(stdout) = child.stdout.take() else {
            unreachable!("piped above")
        };
        let listening = tokio::time::timeout(START_TIMEOUT, async {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.starts_with(PORT_LINE) {
                    return true;
                }
            }
            false
        })
        .await;
        let _ = std::fs::remove_file(&file);
        if listening != Ok(true) {
            let _ = child.kill().await;
            return Err(format!(
                "x11vnc did not start on display {screen} within {START_TIMEOUT:?}; the desktop may be stopping: reload the page, and if it persists check the server's log"
            ));
        }
        tracing::info!(
            x_display = screen,
            port,
            pid = child.id(),
            "live view's VNC server started"
        );
        Ok(Vnc {
            _child: child,
            endpoint: Endpoint::Port(port),
        })
    }

    /// wayvnc on the compositor whose socket is `wayland`: it needs wlroots' screen copy and
    /// virtual input, which sway has and GNOME's Mutter has not. It reads no configuration of
    /// the user's (`-C /dev/null`), so nothing there can open it to the network.
    async fn start_wayvnc(wayland: &Path) -> Result<Vnc, String> {
        let (Some(runtime), Some(name)) = (wayland.parent(), wayland.file_name()) else {
            return Err(format!(
                "this desktop's display {} is neither an X display nor a Wayland socket, so there is nothing to show; check the server's log",
                wayland.display()
            ));
        };
        let socket = runtime.join(format!("deskhand-view-{}.vnc", std::process::id()));
        let _ = std::fs::remove_file(&socket);
        let mut command = Command::new("wayvnc");
        command
            .env("XDG_RUNTIME_DIR", runtime)
            .env("WAYLAND_DISPLAY", name)
            .args(["-C", "/dev/null", "-L", "quiet", "-u"])
            .arg(&socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|err| {
            format!(
                "wayvnc could not be started ({err}); install it (apt-get install wayvnc) and reload the page"
            )
        })?;
        let started = tokio::time::timeout(START_TIMEOUT, async {
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(status);
                }
                if socket.exists() {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        match started {
            Ok(Ok(())) => {}
            Ok(Err(status)) => {
                return Err(format!(
                    "wayvnc could not show the desktop on {} ({status}): it needs a wlroots compositor such as sway, and GNOME's desktops have no live view",
                    wayland.display()
                ));
            }
            Err(_) => {
                let _ = child.kill().await;
                let _ = std::fs::remove_file(&socket);
                return Err(format!(
                    "wayvnc did not start on {} within {START_TIMEOUT:?}; the desktop may be stopping: reload the page, and if it persists check the server's log",
                    wayland.display()
                ));
            }
        }
        tracing::info!(
            wayland = %wayland.display(),
            socket = %socket.display(),
            pid = child.id(),
            "live view's VNC server started"
        );
        Ok(Vnc {
            _child: child,
            endpoint: Endpoint::Socket(socket),
        })
    }

    pub(crate) fn endpoint(&self) -> Endpoint {
        self.endpoint.clone()
    }
}

/// A port free on loopback now, for x11vnc to listen on.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|err| format!("no free loopback port for the live view ({err}); reload the page"))
}

/// A password for VNC authentication, which takes 8 characters.
pub(crate) fn random_password() -> Result<String, String> {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut bits = [0u8; PASSWORD_LEN];
    getrandom::fill(&mut bits)
        .map_err(|err| format!("no random numbers for the live view's password ({err})"))?;
    Ok(bits
        .iter()
        .map(|byte| char::from(LETTERS[usize::from(*byte) % LETTERS.len()]))
        .collect())
}

/// The password in a file only this user reads, for x11vnc's `-passwdfile`: on its command
/// line every user would see it.
fn password_file(number: &str, password: &str) -> Result<std::path::PathBuf, String> {
    use std::io::Write as _;
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt as _;
    let path = std::env::temp_dir().join(format!(
        "deskhand-view-{number}-{}.pass",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    options
        .open(&path)
        .and_then(|mut file| writeln!(file, "{password}"))
        .map_err(|err| {
            format!(
                "the live view's password file {} could not be written ({err}); check that the temporary folder is writable",
                path.display()
            )
        })?;
    Ok(path)
}

/// Carries the WebSocket of `viewer` to the VNC server at `endpoint` and back until either side
/// closes; the viewer's input goes through only while `input` names it.
pub(crate) async fn carry(
    mut socket: WebSocket,
    endpoint: Endpoint,
    input: InputFor,
    viewer: String,
) {
    let connected = tokio::time::timeout(CONNECT_TIMEOUT, async {
        match &endpoint {
            Endpoint::Port(port) => TcpStream::connect(("127.0.0.1", *port))
                .await
                .map(|stream| {
                    let _ = stream.set_nodelay(true);
                    let (from_vnc, to_vnc) = stream.into_split();
                    Halves::Tcp(from_vnc, to_vnc)
                }),
            Endpoint::Socket(path) => connect_socket(path).await,
        }
    })
    .await;
    match connected {
        Ok(Ok(Halves::Tcp(from_vnc, to_vnc))) => {
            relay(socket, from_vnc, to_vnc, input, viewer).await
        }
        #[cfg(unix)]
        Ok(Ok(Halves::Unix(from_vnc, to_vnc))) => {
            relay(socket, from_vnc, to_vnc, input, viewer).await
        }
        _ => {
            tracing::warn!(?endpoint, "a viewer's connection to the VNC server failed");
            let _ = socket.send(Message::Close(None)).await;
        }
    }
}

/// A connection to the VNC server, split in its two directions.
enum Halves {
    Tcp(
        tokio::net::tcp::OwnedReadHalf,
        tokio::net::tcp::OwnedWriteHalf,
    ),
    #[cfg(unix)]
    Unix(
        tokio::net::unix::OwnedReadHalf,
        tokio::net::unix::OwnedWriteHalf,
    ),
}

#[cfg(unix)]
async fn connect_socket(path: &Path) -> std::io::Result<Halves> {
    let stream = tokio::net::UnixStream::connect(path).await?;
    let (from_vnc, to_vnc) = stream.into_split();
    Ok(Halves::Unix(from_vnc, to_vnc))
}

/// wayvnc's socket, made only where the desktops are Wayland compositors, is a Unix one.
#[cfg(not(unix))]
async fn connect_socket(_: &Path) -> std::io::Result<Halves> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "a VNC server's socket is a Unix socket, and this system has none",
    ))
}

async fn relay(
    socket: WebSocket,
    mut from_vnc: impl AsyncRead + Unpin,
    mut to_vnc: impl AsyncWrite + Unpin,
    input: InputFor,
    viewer: String,
) {
    let (mut to_viewer, mut from_viewer) = socket.split();
    let down = async {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match from_vnc.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let bytes = axum::body::Bytes::copy_from_slice(&buffer[..n]);
                    if to_viewer.send(Message::Binary(bytes)).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to_viewer.send(Message::Close(None)).await;
    };
    let up = async {
        let mut gate = InputGate::default();
        while let Some(Ok(message)) = from_viewer.next().await {
            let data = match message {
                Message::Binary(data) => data,
                Message::Text(text) => axum::body::Bytes::from(text.as_str().to_owned()),
                Message::Close(_) => break,
                Message::Ping(_) | Message::Pong(_) => continue,
            };
            let allowed = input_for(&input).as_deref() == Some(viewer.as_str());
            let passed = match gate.feed(&data, allowed) {
                Ok(passed) => passed,
                Err(why) => {
                    tracing::warn!(%why, "a viewer's connection was closed");
                    break;
                }
            };
            if !passed.is_empty() && to_vnc.write_all(&passed).await.is_err() {
                break;
            }
        }
        let _ = to_vnc.shutdown().await;
    };
    tokio::select! {
        () = down => {}
        () = up => {}
    }
}
