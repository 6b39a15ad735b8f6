//! The client of deskhand's GNOME Shell extension (`dev.deskhand.Shell`): windows, their frames
//! and buffers, focus, geometry and pixels, as only the compositor knows them on Wayland.

use std::time::Duration;

use deskhand_core::model::{Rect, RgbImage};
use serde::Deserialize;

use super::{GnomeError, call};

const SERVICE: &str = "dev.deskhand.Shell";
const PATH: &str = "/dev/deskhand/Shell";

/// The methods the client calls; the extension's own test checks it exports each.
pub const METHODS: [&str; 13] = [
    "Windows",
    "Activate",
    "Close",
    "MoveResize",
    "SetState",
    "Screenshot",
    "Pointer",
    "Ready",
    "CommitText",
    "ReadClipboard",
    "WriteClipboard",
    "ShowOverlay",
    "Mark",
];

/// A screenshot of the whole 1280×800 screen takes about 0.1 s in the shell; a large screen on
/// a loaded machine several times that.
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(5);

/// One window as the shell knows it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ShellWindow {
    /// Mutter's window id: stable for the window's life, never reused in a session.
    pub id: u64,
    pub title: String,
    pub pid: u32,
    pub wm_class: String,
    pub app_id: String,
    /// Where the window's visible frame is on the screen.
    pub frame: [i32; 4],
    /// The window's whole surface, client-side shadows included: what a toolkit's
    /// window-relative coordinates count from.
    pub buffer: [i32; 4],
    pub focused: bool,
    pub minimized: bool,
    pub maximized: bool,
    pub fullscreen: bool,
    /// An XWayland window, not a native one.
    pub x11: bool,
}

fn rect([x, y, width, height]: [i32; 4]) -> Rect {
    Rect::new(x, y, width.max(0) as u32, height.max(0) as u32)
}

impl ShellWindow {
    pub fn frame_rect(&self) -> Rect {
        rect(self.frame)
    }

    pub fn buffer_rect(&self) -> Rect {
        rect(self.buffer)
    }
}

/// Parses the extension's window list; windows that have no size yet (mapped but not drawn)
/// are left out, as nothing can be done with them.
pub fn parse_windows(json: &str) -> Result<Vec<ShellWindow>, GnomeError> {
    let windows: Vec<ShellWindow> =
        serde_json::from_str(json).map_err(|err| GnomeError::BadReply(err.to_string()))?;
    Ok(windows
        .into_iter()
        .filter(|w| w.frame[2] > 0 && w.frame[3] > 0)
        .collect())
}

/// A window state the shell can put a window in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowState {
    Normal,
    Maximized,
    Minimized,
    Fullscreen,
}

impl WindowState {
    fn as_str(self) -> &'static str {
        match self {
            WindowState::Normal => "normal",
            WindowState::Maximized => "maximized",
            WindowState::Minimized => "minimized",
            WindowState::Fullscreen => "fullscreen",
        }
    }
}

pub struct Shell {
    conn: zbus::Connection,
    timeout: Duration,
}

impl Shell {
    pub fn new(conn: zbus::Connection, timeout: Duration) -> Self {
        Self { conn, timeout }
    }

    async fn call<B, R>(&self, method: &str, body: &B, timeout: Duration) -> Result<R, GnomeError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
        R: for<'d> Deserialize<'d> + zbus::zvariant::Type,
    {
        call(&self.conn, SERVICE, PATH, SERVICE, method, body, timeout)
            .await
            .map_err(GnomeError::from_shell_call)
    }

    /// Windows bottom to top.
    pub async fn windows(&self) -> Result<Vec<ShellWindow>, GnomeError> {
        let json: String = self.call("Windows", &(), self.timeout).await?;
        parse_windows(&json)
    }

    /// Raises and focuses the window; false if it is gone.
    pub async fn activate(&self, id: u64) -> Result<bool, GnomeError> {
        self.call("Activate", &(id,), self.timeout).await
    }

    /// Asks the window to close, as its close button would; false if it is gone.
    pub async fn close(&self, id: u64) -> Result<bool, GnomeError> {
        self.call("Close", &(id,), self.timeout).await
    }

    /// Moves and resizes the window's frame; false if it is gone.
    pub async fn move_resize(&self, id: u64, frame: Rect) -> Result<bool, GnomeError> {
        let (width, height) = (frame.width as i32, frame.height as i32);
        self.call(
            "MoveResize",
            &(id, frame.x, frame.y, width, height),
            self.timeout,
        )
        .await
    }

    pub async fn set_state(&self, id: u64, state: WindowState) -> Result<bool, GnomeError> {
        self.call("SetState", &(id, state.as_str()), self.timeout)
            .await
    }

    /// Where the pointer is, whoever moved it.
    pub async fn pointer(&self) -> Result<(i32, i32), GnomeError> {
        self.call("Pointer", &(), self.timeout).await
    }

    /// The interface version of the running extension.
    pub async fn version(&self) -> Result<u32, GnomeError> {
        let value: zbus::zvariant::OwnedValue = call(
            &self.conn,
            SERVICE,
            PATH,
            "org.freedesktop.DBus.Properties",
            "Get",
            &(SERVICE, "Version"),
            self.timeout,
        )
        .await
        .map_err(GnomeError::from_shell_call)?;
        u32::try_from(value)
            .map_err(|err| GnomeError::BadReply(format!("the extension's version: {err}")))
    }

    /// Sends text to the focused text field through the input method, as GNOME's on-screen
    /// keyboard does; false when no field takes input-method text.
    pub async fn commit_text(&self, text: &str) -> Result<bool, GnomeError> {
        self.call("CommitText", &(text,), self.timeout).await
    }

    /// The clipboard's text (when it holds any) and the types it is offered as.
    pub async fn read_clipboard(&self) -> Result<(Option<String>, Vec<String>), GnomeError> {
        let (has_text, text, types): (bool, String, Vec<String>) =
            self.call("ReadClipboard", &(), self.timeout).await?;
        Ok((has_text.then_some(text), types))
    }

    pub async fn write_clipboard(&self, text: &str) -> Result<(), GnomeError> {
        self.call("WriteClipboard", &(text,), self.timeout).await
    }

    /// Shows the overlay that marks where this process acts, for as long as this connection
    /// lasts, with the line that an agent is acting when `indicator`.
    pub async fn show_overlay(&self, indicator: bool) -> Result<(), GnomeError> {
        self.call("ShowOverlay", &(indicator,), self.timeout).await
    }

    /// Marks, for a second, where an action acts: `point` a ring around a point (`area`'s
    /// corner), `element` and `typing` a frame just inside `area`.
    pub async fn mark(&self, kind: &str, area: Rect) -> Result<(), GnomeError> {
        let (width, height) = (area.width as i32, area.height as i32);
        self.call("Mark", &(kind, area.x, area.y, width, height), self.timeout)
            .await
    }

    /// The pixels of a region of the screen, without the overlay if this process shows it.
    pub async fn screenshot(&self, region: Rect) -> Result<RgbImage, GnomeError> {
        // The shell writes a PNG to a path it is given; the file lives only for this call.
        let file = tempfile_path();
        let path = file.to_string_lossy().into_owned();
        let (width, height) = (region.width as i32, region.height as i32);
        let written: Result<(), GnomeError> = self
            .call(
                "Screenshot",
                &(region.x, region.y, width, height, path.as_str()),
                SCREENSHOT_TIMEOUT,
            )
            .await;
        let png = written.and_then(|()| {
            std::fs::read(&file).map_err(|err| {
                GnomeError::BadReply(format!("the screenshot file {path} cannot be read: {err}"))
            })
        });
        let _ = std::fs::remove_file(&file);
        decode_png(&png?)
    }
}

/// A private file name for one screenshot: the shell runs as the same user and writes it.
fn tempfile_path() -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::var_os("XDG_RUNTIME_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    dir.join(format!("deskhand-shot-{}-{n}.png", std::process::id()))
}

/// The shell's PNG (RGBA or RGB, 8 bits) as the core's RGB pixels.
fn decode_png(bytes: &[u8]) -> Result<RgbImage, GnomeError> {
    let bad = |err: String| {
        GnomeError::BadReply(format!("the screenshot is not a PNG deskhand reads: {err}"))
    };
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| bad(e.to_string()))?;
    let mut buffer = vec![
        0;
        reader
            .output_buffer_size()
            .ok_or_else(|| bad("too large".into()))?
    ];
    let info = reader
        .next_frame(&mut buffer)
        .map_err(|e| bad(e.to_string()))?;
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        other => return Err(bad(format!("colour type {other:?}"))),
    };
    let pixels = &buffer[..info.buffer_size()];
    let mut data = Vec::with_capacity(info.width as usize * info.height as usize * 3);
    for pixel in pixels.chunks_exact(channels) {
        match channels {
            1 | 2 => data.extend_from_slice(&[pixel[0]; 3]),
            _ => data.extend_from_slice(&pixel[..3]),
        }
    }
    Ok(RgbImage {
        width: info.width,
        height: info.height,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_read_with_frames_and_buffers_and_undrawn_ones_left_out() {
        let json = r#"[
          {"id":1147779254,"title":"Calculator","pid":10410,"wm_class":"org.gnome.Calculator",
           "app_id":"org.gnome.Calculator","frame":[98,134,360,489],"buffer":[37,79,482,611],
           "focused":false,"minimized":false,"maximized":false,"fullscreen":false,"x11":false},
          {"id":1147779253,"title":"GTK Widget Factory","pid":10412,"wm_class":"org.gtk.WidgetFactory4",
           "app_id":"org.gtk.WidgetFactory4","frame":[0,0,0,0],"buffer":[0,0,0,0],
           "focused":true,"minimized":false,"maximized":false,"fullscreen":false,"x11":false}
        ]"#;
        let windows = parse_windows(json).unwrap();
        assert_eq!(windows.len(), 1);
        assert_eq!(windows[0].frame_rect(), Rect::new(98, 134, 360, 489));
        assert_eq!(windows[0].buffer_rect(), Rect::new(37, 79, 482, 611));
        assert!(matches!(
            parse_windows("[{\"id\": \"x\"}]"),
            Err(GnomeError::BadReply(_))
        ));
    }

    #[test]
    fn a_png_from_the_shell_becomes_rgb_pixels() {
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, 2, 1);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            writer
                .write_image_data(&[255, 0, 0, 255, 0, 0, 255, 128])
                .unwrap();
        }
        let image = decode_png(&bytes).unwrap();
        assert_eq!((image.width, image.height), (2, 1));
        assert_eq!(image.data, vec![255, 0, 0, 0, 0, 255]);
        assert!(matches!(
            decode_png(b"not a png"),
            Err(GnomeError::BadReply(_))
        ));
    }
}
