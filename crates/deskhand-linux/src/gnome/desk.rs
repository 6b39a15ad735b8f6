//! GNOME on Wayland as the capability traits need it: windows, focus, geometry and pixels from
//! deskhand's shell extension, pointer and keys through Mutter's remote desktop, both in the
//! core's terms and errors.

use std::time::Duration;

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{MouseButton, Point, Rect, RgbImage, WindowChange, WindowInfo};
use deskhand_core::render::escape;
use tokio::sync::OnceCell;

use super::remote::RemoteInput;
use super::shell::{Shell, ShellWindow, WindowState};
use super::{GnomeError, session_bus};

/// One D-Bus round trip to the shell or to Mutter never takes this long when they are alive.
const CALL_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a window may take to show a focus, place or state it was given.
const SETTLE: Duration = Duration::from_millis(1500);
const POLL: Duration = Duration::from_millis(30);

pub fn gnome_error(err: GnomeError) -> Error {
    let kind = match &err {
        GnomeError::ExtensionAbsent(_) | GnomeError::NoRemoteDesktop(_) => ErrorKind::NoDisplay,
        GnomeError::Timeout { .. } => ErrorKind::Timeout,
        GnomeError::Call { .. } | GnomeError::BadReply(_) => ErrorKind::Platform,
    };
    Error::new(kind, err.to_string())
}

/// The connection to GNOME Shell, made on first use; the remote-desktop session is started on
/// the first input, since it shows a screen-sharing indicator while it lasts.
#[derive(Default)]
pub struct Gnome {
    shell: OnceCell<Shell>,
    input: OnceCell<RemoteInput>,
}

fn window_info(window: &ShellWindow) -> WindowInfo {
    let app_name = crate::process::program_name(window.pid)
        .or_else(|| (!window.app_id.is_empty()).then(|| window.app_id.clone()))
        .or_else(|| (!window.wm_class.is_empty()).then(|| window.wm_class.clone()))
        .unwrap_or_else(|| "unknown".into());
    WindowInfo {
        handle: window.id,
        title: window.title.clone(),
        pid: (window.pid > 0).then_some(window.pid),
        app_name,
        bounds: window.frame_rect(),
        focused: window.focused,
        minimized: window.minimized,
        maximized: window.maximized,
    }
}

impl Gnome {
    async fn shell(&self) -> Result<&Shell> {
        self.shell
            .get_or_try_init(|| async {
                let conn = session_bus(CALL_TIMEOUT).await?;
                Ok(Shell::new(conn, CALL_TIMEOUT))
            })
            .await
            .map_err(gnome_error)
    }

    async fn input(&self) -> Result<&RemoteInput> {
        self.input
            .get_or_try_init(|| async {
                let conn = session_bus(CALL_TIMEOUT).await?;
                RemoteInput::start(conn, CALL_TIMEOUT).await
            })
            .await
            .map_err(gnome_error)
    }

    /// Windows as the shell lists them, bottom to top, with their frames and buffers.
    pub async fn shell_windows(&self) -> Result<Vec<ShellWindow>> {
        self.shell().await?.windows().await.map_err(gnome_error)
    }

    /// Windows top first, as the core lists them.
    pub async fn windows(&self) -> Result<Vec<WindowInfo>> {
        let mut windows: Vec<WindowInfo> = self
            .shell_windows()
            .await?
            .iter()
            .map(window_info)
            .collect();
        windows.reverse();
        Ok(windows)
    }

    pub async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        Ok(self
            .shell_windows()
            .await?
            .iter()
            .find(|w| w.id == handle)
            .map(window_info))
    }

    /// The window's whole surface, client-side shadows included: what GTK3's window-relative
    /// accessibility extents count from (GTK4's count from the frame).
    pub async fn buffer_of(&self, handle: u64) -> Result<Option<Rect>> {
        Ok(self
            .shell_windows()
            .await?
            .iter()
            .find(|w| w.id == handle)
            .map(ShellWindow::buffer_rect))
    }

    pub async fn screen(&self) -> Result<Rect> {
        Ok(self.input().await?.screen())
    }

    fn gone(window: &WindowInfo, doing: &str) -> Error {
        Error::new(
            ErrorKind::SurfaceGone,
            format!(
                "the window \"{}\" closed before it could be {doing}; call `windows`",
                escape(&window.title)
            ),
        )
    }

    pub async fn activate(&self, window: &WindowInfo) -> Result<()> {
        let shell = self.shell().await?;
        if !shell.activate(window.handle).await.map_err(gnome_error)? {
            return Err(Self::gone(window, "focused"));
        }
        let until = tokio::time::Instant::now() + SETTLE;
        loop {
            let windows = self.shell_windows().await?;
            match windows.iter().find(|w| w.id == window.handle) {
                None => return Err(Self::gone(window, "focused")),
                Some(found) if found.focused => return Ok(()),
                Some(_) => {}
            }
            if tokio::time::Instant::now() >= until {
                let holder = windows.iter().find(|w| w.focused);
                return Err(Error::platform(format!(
                    "GNOME did not give the window \"{}\" the focus within {} ms{}; answer any dialog of that app first, then call `focus` again",
                    escape(&window.title),
                    SETTLE.as_millis(),
                    holder.map_or_else(String::new, |w| format!(
                        " and kept it on \"{}\"",
                        escape(&w.title)
                    ))
                ))
                .after_sending());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    pub async fn close(&self, window: &WindowInfo) -> Result<()> {
        let closed = self
            .shell()
            .await?
            .close(window.handle)
            .await
            .map_err(|err| gnome_error(err).after_sending())?;
        if closed {
            Ok(())
        } else {
            Err(Self::gone(window, "closed"))
        }
    }

    pub async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        let shell = self.shell().await?;
        let frame = window.bounds;
        let found = match change {
            WindowChange::Move { x, y } => {
                shell
                    .move_resize(window.handle, Rect::new(x, y, frame.width, frame.height))
                    .await
            }
            WindowChange::Resize { width, height } => {
                shell
                    .move_resize(window.handle, Rect::new(frame.x, frame.y, width, height))
                    .await
            }
            WindowChange::Minimize => shell.set_state(window.handle, WindowState::Minimized).await,
            WindowChange::Maximize => shell.set_state(window.handle, WindowState::Maximized).await,
            WindowChange::Restore => shell.set_state(window.handle, WindowState::Normal).await,
        }
        .map_err(|err| gnome_error(err).after_sending())?;
        if !found {
            return Err(Self::gone(window, "changed"));
        }
        let until = tokio::time::Instant::now() + SETTLE;
        while tokio::time::Instant::now() < until {
            match self.window(window.handle).await? {
                Some(now) if now == *window => tokio::time::sleep(POLL).await,
                _ => break,
            }
        }
        Ok(())
    }

    pub async fn pointer(&self) -> Result<Point> {
        let (x, y) = self.shell().await?.pointer().await.map_err(gnome_error)?;
        Ok(Point { x, y })
    }

    pub async fn move_pointer(&self, to: Point) -> Result<()> {
        self.input()
            .await?
            .move_to(to)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    pub async fn button(&self, button: MouseButton, down: bool) -> Result<()> {
        self.input()
            .await?
            .button(button, down)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    /// A key by keysym, pressed or released.
    pub async fn key(&self, keysym: u32, down: bool) -> Result<()> {
        self.input()
            .await?
            .key(keysym, down)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    pub async fn scroll(&self, vertical: bool, steps: i32) -> Result<()> {
        self.input()
            .await?
            .scroll(vertical, steps)
            .await
            .map_err(|err| gnome_error(err).after_sending())
    }

    pub async fn capture(&self, rect: Rect) -> Result<RgbImage> {
        self.shell()
            .await?
            .screenshot(rect)
            .await
            .map_err(gnome_error)
    }

    /// Leaves the Activities overview GNOME starts in.
    pub async fn hide_overview(&self) -> Result<()> {
        self.shell()
            .await?
            .hide_overview()
            .await
            .map_err(gnome_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_keeps_the_shell_id_and_its_frame_as_bounds() {
        let shell = ShellWindow {
            id: 7,
            title: "Calculator".into(),
            pid: 0,
            wm_class: "gnome-calculator".into(),
            app_id: "org.gnome.Calculator".into(),
            frame: [98, 134, 360, 489],
            buffer: [37, 79, 482, 611],
            focused: true,
            minimized: false,
            maximized: false,
            fullscreen: false,
            x11: false,
        };
        let info = window_info(&shell);
        assert_eq!(info.handle, 7);
        assert_eq!(info.pid, None);
        assert_eq!(info.app_name, "org.gnome.Calculator");
        assert_eq!(info.bounds, Rect::new(98, 134, 360, 489));
        assert!(info.focused);
    }

    #[test]
    fn a_missing_extension_names_the_install_command() {
        let err = gnome_error(GnomeError::ExtensionAbsent("no owner".into()));
        assert_eq!(err.kind, ErrorKind::NoDisplay);
        assert!(err.message.contains("deskhand gnome-extension install"));
        assert!(err.message.contains("log out"));
    }
}
