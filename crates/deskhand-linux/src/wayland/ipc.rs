//! sway's IPC (the i3 protocol on a unix socket): the window tree, and commands on windows.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

const MAGIC: &[u8; 6] = b"i3-ipc";
const RUN_COMMAND: u32 = 0;
const GET_OUTPUTS: u32 = 3;
const GET_TREE: u32 = 4;
/// sway answers in microseconds; a compositor that takes this long is not answering.
const IPC_TIMEOUT: Duration = Duration::from_secs(3);
/// A tree of thousands of windows is a few megabytes; anything larger is not sway talking.
const MAX_REPLY: u32 = 64 << 20;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IpcError {
    #[error(
        "could not reach sway's IPC socket {}: {cause}; check that sway runs and that SWAYSOCK names its socket",
        path.display()
    )]
    Connect { path: PathBuf, cause: io::Error },
    #[error(
        "sway's IPC failed while {operation}: {cause}; check that sway still runs, then try again"
    )]
    Io {
        operation: &'static str,
        cause: io::Error,
    },
    #[error(
        "sway answered {operation} with something that is not its protocol ({why}); check that SWAYSOCK names sway's socket"
    )]
    Protocol {
        operation: &'static str,
        why: String,
    },
    #[error("sway refused the command `{command}`: {why}")]
    Refused { command: String, why: String },
}

/// One connection to sway's IPC socket. Every read and write has a timeout.
pub struct SwayIpc {
    stream: UnixStream,
}

/// A window as sway's tree shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwayWindow {
    /// The container id, stable for the window's life.
    pub id: u64,
    pub app_id: Option<String>,
    pub title: String,
    pub pid: Option<u32>,
    pub focused: bool,
    /// Where the window's own surface is, in global pixels: the container's rect plus the
    /// window's place inside it (below a title bar, inside borders).
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub floating: bool,
    pub fullscreen: bool,
    /// On the scratchpad or another hidden place: not shown.
    pub hidden: bool,
}

impl SwayIpc {
    pub fn connect(path: &Path) -> Result<Self, IpcError> {
        let connect_err = |cause| IpcError::Connect {
            path: path.to_owned(),
            cause,
        };
        let stream = UnixStream::connect(path).map_err(connect_err)?;
        stream
            .set_read_timeout(Some(IPC_TIMEOUT))
            .and_then(|()| stream.set_write_timeout(Some(IPC_TIMEOUT)))
            .map_err(connect_err)?;
        Ok(Self { stream })
    }

    fn request(
        &mut self,
        kind: u32,
        payload: &[u8],
        operation: &'static str,
    ) -> Result<Value, IpcError> {
        let io_err = |cause| IpcError::Io { operation, cause };
        let mut message = Vec::with_capacity(14 + payload.len());
        message.extend_from_slice(MAGIC);
        let len = u32::try_from(payload.len()).map_err(|_| IpcError::Protocol {
            operation,
            why: "the request is too long".into(),
        })?;
        message.extend_from_slice(&len.to_le_bytes());
        message.extend_from_slice(&kind.to_le_bytes());
        message.extend_from_slice(payload);
        self.stream.write_all(&message).map_err(io_err)?;
        let mut header = [0u8; 14];
        self.stream.read_exact(&mut header).map_err(io_err)?;
        let protocol = |why: String| IpcError::Protocol { operation, why };
        if &header[..6] != MAGIC {
            return Err(protocol("the reply lacks the i3-ipc magic".into()));
        }
        let len = u32::from_le_bytes(header[6..10].try_into().expect("4 bytes"));
        let reply_kind = u32::from_le_bytes(header[10..14].try_into().expect("4 bytes"));
        if reply_kind != kind {
            return Err(protocol(format!(
                "a reply of type {reply_kind} to a request of type {kind}"
            )));
        }
        if len > MAX_REPLY {
            return Err(protocol(format!("a reply of {len} bytes")));
        }
        let mut body = vec![0u8; len as usize];
        self.stream.read_exact(&mut body).map_err(io_err)?;
        serde_json::from_slice(&body).map_err(|err| protocol(err.to_string()))
    }

    pub fn output_names(&mut self) -> Result<Vec<String>, IpcError> {
        let outputs = self.request(GET_OUTPUTS, b"", "listing outputs")?;
        Ok(outputs
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|output| output["name"].as_str().map(str::to_owned))
            .collect())
    }

    /// Each active output's name and place in the layout.
    pub fn outputs(&mut self) -> Result<Vec<(String, deskhand_core::model::Rect)>, IpcError> {
        Ok(self
            .monitors()?
            .into_iter()
            .map(|monitor| (monitor.name, monitor.bounds))
            .collect())
    }

    /// Each active output as a monitor: its name, place in the layout and scale. sway calls
    /// none primary.
    pub fn monitors(&mut self) -> Result<Vec<deskhand_core::model::Monitor>, IpcError> {
        let outputs = self.request(GET_OUTPUTS, b"", "listing outputs")?;
        Ok(outputs
            .as_array()
            .into_iter()
            .flatten()
            .filter(|output| output["active"].as_bool() != Some(false))
            .filter_map(|output| {
                let rect = Rect::of(&output["rect"])?;
                Some(deskhand_core::model::Monitor {
                    name: output["name"].as_str()?.to_owned(),
                    bounds: deskhand_core::model::Rect::new(
                        rect.x,
                        rect.y,
                        rect.width,
                        rect.height,
                    ),
                    scale: output["scale"].as_f64().unwrap_or(1.0),
                    primary: false,
                })
            })
            .collect())
    }

    /// The bounding box of all active outputs, in global pixels.
    pub fn screen(&mut self) -> Result<(i32, i32, u32, u32), IpcError> {
        let outputs = self.request(GET_OUTPUTS, b"", "listing outputs")?;
        let rects: Vec<Rect> = outputs
            .as_array()
            .into_iter()
            .flatten()
            .filter(|output| output["active"].as_bool() != Some(false))
            .filter_map(|output| Rect::of(&output["rect"]))
            .collect();
        let left = rects.iter().map(|r| r.x).min().unwrap_or(0);
        let top = rects.iter().map(|r| r.y).min().unwrap_or(0);
        let right = rects
            .iter()
            .map(|r| r.x + r.width as i32)
            .max()
            .unwrap_or(0);
        let bottom = rects
            .iter()
            .map(|r| r.y + r.height as i32)
            .max()
            .unwrap_or(0);
        Ok((
            left,
            top,
            (right - left).max(0) as u32,
            (bottom - top).max(0) as u32,
        ))
    }

    /// Every window sway manages, in the tree's order.
    pub fn windows(&mut self) -> Result<Vec<SwayWindow>, IpcError> {
        let tree = self.request(GET_TREE, b"", "reading the window tree")?;
        let mut windows = Vec::new();
        collect_windows(&tree, false, false, &mut windows);
        Ok(windows)
    }

    /// Runs one command (`[con_id=5] focus`); sway's refusal is an error naming its reason.
    pub fn command(&mut self, command: &str) -> Result<(), IpcError> {
        let replies = self.request(RUN_COMMAND, command.as_bytes(), "running a command")?;
        let failure = replies
            .as_array()
            .into_iter()
            .flatten()
            .find(|reply| reply["success"].as_bool() != Some(true));
        match failure {
            None => Ok(()),
            Some(reply) => Err(IpcError::Refused {
                command: command.to_owned(),
                why: reply["error"]
                    .as_str()
                    .unwrap_or("no reason given")
                    .to_owned(),
            }),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Rect {
    x: i32,
    y: i32,
    width: u32,
    height: u32,
}

impl Rect {
    fn of(value: &Value) -> Option<Rect> {
        let number = |key: &str| value[key].as_i64();
        Some(Rect {
            x: i32::try_from(number("x")?).ok()?,
            y: i32::try_from(number("y")?).ok()?,
            width: u32::try_from(number("width")?).ok()?,
            height: u32::try_from(number("height")?).ok()?,
        })
    }
}

/// Walks the tree; a node with a pid or an app id is a window. The scratchpad workspace
/// (`__i3_scratch`) holds windows that are not shown.
fn collect_windows(node: &Value, floating: bool, hidden: bool, out: &mut Vec<SwayWindow>) {
    let hidden = hidden || node["name"].as_str() == Some("__i3_scratch");
    let is_window = node["type"]
        .as_str()
        .is_some_and(|t| t == "con" || t == "floating_con")
        && (node["pid"].is_u64() || node["app_id"].is_string());
    if is_window
        && let (Some(outer), Some(inner)) =
            (Rect::of(&node["rect"]), Rect::of(&node["window_rect"]))
    {
        out.push(SwayWindow {
            id: node["id"].as_u64().unwrap_or_default(),
            app_id: node["app_id"].as_str().map(str::to_owned),
            title: node["name"].as_str().unwrap_or_default().to_owned(),
            pid: node["pid"].as_u64().and_then(|pid| u32::try_from(pid).ok()),
            focused: node["focused"].as_bool() == Some(true),
            x: outer.x + inner.x,
            y: outer.y + inner.y,
            width: inner.width,
            height: inner.height,
            floating,
            fullscreen: node["fullscreen_mode"]
                .as_u64()
                .is_some_and(|mode| mode != 0),
            hidden: hidden || node["visible"].as_bool() == Some(false),
        });
    }
    for child in node["nodes"].as_array().into_iter().flatten() {
        collect_windows(child, floating, hidden, out);
    }
    for child in node["floating_nodes"].as_array().into_iter().flatten() {
        collect_windows(child, true, hidden, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_placed_at_their_container_plus_their_place_inside_it() {
        let tree = serde_json::json!({
            "type": "root", "name": "root", "nodes": [
                {"type": "output", "name": "HEADLESS-1", "nodes": [
                    {"type": "workspace", "name": "1", "nodes": [
                        {"type": "con", "id": 5, "name": "Calc", "pid": 42, "app_id": "calc",
                         "focused": true, "visible": true, "fullscreen_mode": 0,
                         "rect": {"x": 640, "y": 0, "width": 640, "height": 800},
                         "window_rect": {"x": 2, "y": 25, "width": 636, "height": 773},
                         "nodes": [], "floating_nodes": []}
                    ], "floating_nodes": [
                        {"type": "floating_con", "id": 7, "name": "Dialog", "pid": 43,
                         "focused": false, "visible": true,
                         "rect": {"x": 100, "y": 100, "width": 300, "height": 200},
                         "window_rect": {"x": 0, "y": 0, "width": 300, "height": 200},
                         "nodes": [], "floating_nodes": []}
                    ]}
                ]},
                {"type": "output", "name": "__i3", "nodes": [
                    {"type": "workspace", "name": "__i3_scratch", "nodes": [], "floating_nodes": [
                        {"type": "floating_con", "id": 9, "name": "Stashed", "pid": 44,
                         "rect": {"x": 0, "y": 0, "width": 10, "height": 10},
                         "window_rect": {"x": 0, "y": 0, "width": 10, "height": 10},
                         "nodes": [], "floating_nodes": []}
                    ]}
                ]}
            ]
        });
        let mut windows = Vec::new();
        collect_windows(&tree, false, false, &mut windows);
        assert_eq!(windows.len(), 3);
        let calc = &windows[0];
        assert_eq!(
            (calc.id, calc.pid, calc.focused, calc.floating, calc.hidden),
            (5, Some(42), true, false, false)
        );
        assert_eq!(
            (calc.x, calc.y, calc.width, calc.height),
            (642, 25, 636, 773)
        );
        assert_eq!(calc.app_id.as_deref(), Some("calc"));
        assert!(windows[1].floating && !windows[1].hidden);
        assert!(windows[2].hidden, "the scratchpad's windows are not shown");
    }
}
