//! The VNC server of one private desktop's live view: x11vnc on the desktop's X display,
//! started when the first viewer connects, listening on loopback only behind the desktop's view
//! password, and killed when the last viewer leaves or with the desktop. Each viewer's WebSocket is carried by this server to it,
//! through the [`InputGate`] that lets the viewer's input through only while an operator holds
//! the desktop.

use std::process::Stdio;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

use super::rfb::InputGate;
use super::view::{InputFor, input_for};

/// x11vnc shows it is listening by this line on its standard output.
const PORT_LINE: &str = "PORT=";
/// How long x11vnc gets to connect to the display and listen.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a viewer's connection to x11vnc may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// VNC authentication reads 8 characters of a password at most.
const PASSWORD_LEN: usize = 8;

/// A running x11vnc; killed when dropped.
pub(crate) struct Vnc {
    _child: Child,
    port: u16,
}

impl Vnc {
    /// Starts x11vnc on `screen` (an X display name such as `:99`, as the desktop's process
    /// said it started).
    pub(crate) async fn start(screen: &str, password: &str) -> Result<Vnc, String> {
        let Some(number) = screen
            .strip_prefix(':')
            .filter(|n| n.parse::<u32>().is_ok())
        else {
            return Err(format!(
                "the live view shows X11 desktops, and this one runs on {screen}, a Wayland compositor; watch it with its own tools, or start the server without --wayland"
            ));
        };
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
            port,
        })
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
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

/// Carries the WebSocket of `viewer` to x11vnc on `port` and back until either side closes;
/// the viewer's input goes through only while `input` names it.
pub(crate) async fn carry(mut socket: WebSocket, port: u16, input: InputFor, viewer: String) {
    let connected =
        tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(("127.0.0.1", port))).await;
    let Ok(Ok(stream)) = connected else {
        tracing::warn!(port, "a viewer's connection to the VNC server failed");
        let _ = socket.send(Message::Close(None)).await;
        return;
    };
    let _ = stream.set_nodelay(true);
    let (mut from_vnc, mut to_vnc) = stream.into_split();
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
