//! Windows and monitors, from the session's display server.

use deskhand_core::backend::Windows;
use deskhand_core::error::Result;
use deskhand_core::model::{Monitor, Point, Rect, WindowChange, WindowInfo, WindowKey};

use super::LinuxBackend;
use super::display::DisplayServer as _;
use super::errors::positions_unknown_note;
use super::session::{Display, on_display};

impl Windows for LinuxBackend {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        on_display!(&self.display, server => server.windows().await)
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        on_display!(&self.display, server => server.window(handle).await)
    }

    async fn screen(&self) -> Result<Rect> {
        on_display!(&self.display, server => server.screen().await)
    }

    async fn monitors(&self) -> Result<Vec<Monitor>> {
        on_display!(&self.display, server => server.monitors().await)
    }

    /// The primary monitor's top-left: X11 reads it without naming the monitors, which costs a
    /// round trip each.
    async fn corner(&self) -> Point {
        let corner = match &*self.display {
            Display::X11(server) => server.corner().await,
            _ => self.monitors().await.map(|monitors| {
                deskhand_core::monitors::corner(&deskhand_core::monitors::ordered(monitors))
            }),
        };
        corner.unwrap_or(Point { x: 0, y: 0 })
    }

    async fn positions_unknown(&self) -> Option<String> {
        let unplaced = on_display!(&self.display, server => server.unplaced().await);
        unplaced
            .is_ok_and(|unplaced| unplaced)
            .then(positions_unknown_note)
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        on_display!(&self.display, server => server.window_keys().await)
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        on_display!(&self.display, server => server.activate(window).await)
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        on_display!(&self.display, server => server.close(window).await)
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        on_display!(&self.display, server => server.change_window(window, change).await)
    }
}
