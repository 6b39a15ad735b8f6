//! The `Windows` capability: listing, focusing, closing, moving and resizing windows.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use deskhand_core::backend::Windows;
use deskhand_core::model::{Rect, WindowChange, WindowInfo, WindowKey};
use deskhand_core::{Error, ErrorKind, Result};
use objc2_core_graphics::CGPreflightScreenCaptureAccess;

use crate::attributes::AxValue;
use crate::display::{display_rects, screen};
use crate::errors::{AxError, Request, classify};
use crate::permissions::Permission;
use crate::windows::{
    AxWindow, CgWindow, front_window, is_app_window, is_parked, match_windows, not_in_front,
    window_infos,
};

use super::find::{ax_windows_of, frontmost_pid, window_element};
use super::{MacBackend, appkit, ax, blocking, quartz, require};

/// How long an app may take to say its windows' titles while windows are listed.
const TITLE_TIMEOUT_S: f32 = 0.25;

pub(super) fn list_windows() -> Vec<WindowInfo> {
    let cg = quartz::window_list();
    let displays = display_rects(&quartz::displays());
    let frontmost = frontmost_pid();
    let by_pid: RefCell<HashMap<u32, Vec<(ax::Element, AxWindow)>>> = RefCell::default();
    // The accessibility window of a Quartz one, asked briefly: a hung app must not hold up the
    // list of windows.
    let ax_window = |window: &CgWindow| -> Option<ax::Element> {
        let mut by_pid = by_pid.borrow_mut();
        let windows = by_pid.entry(window.pid).or_insert_with(|| {
            let app = ax::application(window.pid);
            // SAFETY: a plain setter on a valid element.
            let _ = unsafe { app.set_messaging_timeout(TITLE_TIMEOUT_S) };
            ax_windows_of(&app).unwrap_or_default()
        });
        let frames: Vec<AxWindow> = windows.iter().map(|(_, w)| w.clone()).collect();
        let found = match_windows(std::slice::from_ref(window), &frames)[0]?;
        Some(windows[found].0.clone())
    };
    // Quartz withholds other apps' titles without Screen Recording; Accessibility has them. It
    // is asked only then.
    let withheld = !CGPreflightScreenCaptureAccess();
    let ax_title = |window: &CgWindow| -> Option<String> {
        if !withheld {
            return None;
        }
        let element = ax_window(window)?;
        ax::attributes(&element).ok()?.title
    };
    // Off screen is minimized, hidden or on another Space; only the first is listed.
    let minimized = |window: &CgWindow| {
        ax_window(window).is_some_and(|element| {
            matches!(
                ax::value_of(&element, "AXMinimized"),
                Ok(Some(AxValue::Bool(true)))
            )
        })
    };
    window_infos(&cg, &ax_title, &minimized, frontmost, &displays)
}

impl Windows for MacBackend {
    async fn windows(&self) -> Result<Vec<WindowInfo>> {
        blocking("Listing windows", Request::Read, || Ok(list_windows())).await
    }

    async fn window(&self, handle: u64) -> Result<Option<WindowInfo>> {
        let windows = self.windows().await?;
        Ok(windows.into_iter().find(|w| w.handle == handle))
    }

    async fn screen(&self) -> Result<Rect> {
        blocking("Reading the screen size", Request::Read, || {
            screen(&quartz::displays())
                .ok_or_else(|| Error::new(ErrorKind::NoDisplay, "no active display was found"))
        })
        .await
    }

    async fn window_keys(&self) -> Result<Vec<WindowKey>> {
        blocking("Listing windows", Request::Read, || {
            Ok(quartz::window_list()
                .iter()
                // A window put away still exists: minimizing it is not closing it.
                .filter(|w| is_app_window(w) || is_parked(w))
                .map(|w| WindowKey {
                    handle: w.id,
                    pid: Some(w.pid),
                })
                .collect())
        })
        .await
    }

    async fn activate(&self, window: &WindowInfo) -> Result<()> {
        require(Permission::Accessibility)?;
        let (handle, pid) = (window.handle, window.pid);
        blocking("Focusing the window", Request::Change, move || {
            let (element, cg) = window_element(handle, pid)?;
            // Every way is tried, and the result checked: each one alone fails somewhere.
            let app = ax::application(cg.pid);
            let steps = [
                (
                    "app activation",
                    libc::pid_t::try_from(cg.pid).is_ok_and(appkit::activate),
                ),
                ("AXRaise", ax::perform(&element, "AXRaise").is_ok()),
                ("AXMain", ax::set_bool(&element, "AXMain", true).is_ok()),
                (
                    "AXFrontmost",
                    ax::set_bool(&app, "AXFrontmost", true).is_ok(),
                ),
            ];
            let until = Instant::now() + Duration::from_secs(1);
            while Instant::now() < until {
                if front_window(&quartz::window_list(), frontmost_pid()) == Some(handle) {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(Error::platform(not_in_front(&cg.owner, &steps)).after_sending())
        })
        .await
    }

    async fn close(&self, window: &WindowInfo) -> Result<()> {
        require(Permission::Accessibility)?;
        let (handle, pid) = (window.handle, window.pid);
        blocking("Closing the window", Request::Change, move || {
            let (element, _) = window_element(handle, pid)?;
            let button = ax::copy(&element, "AXCloseButton")
                .map_err(|err| classify(err, Request::Read, "Closing the window"))?
                .and_then(|b| b.downcast::<objc2_application_services::AXUIElement>().ok())
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::Unsupported,
                        "the window has no close button; press cmd+w with it focused instead",
                    )
                })?;
            ax::perform(&button, "AXPress")
                .map_err(|err| classify(err, Request::Change, "Closing the window"))
        })
        .await
    }

    async fn change_window(&self, window: &WindowInfo, change: WindowChange) -> Result<()> {
        require(Permission::Accessibility)?;
        let (handle, pid) = (window.handle, window.pid);
        blocking("Changing the window", Request::Change, move || {
            let (element, cg) = window_element(handle, pid)?;
            let failed = |err| classify(err, Request::Change, "Changing the window");
            // With AXEnhancedUserInterface on, an app animates its own frame changes and moves
            // and resizes land wrong: it is off while deskhand changes the window.
            let process = super::apps::process(cg.pid)
                .filter(|process| super::accessibility::switched_on().enhanced(*process));
            let app = ax::application(cg.pid);
            if process.is_some() {
                let _ = ax::set_bool(&app, "AXEnhancedUserInterface", false);
            }
            let changed = match change {
                WindowChange::Move { x, y } => {
                    ax::set_point(&element, "AXPosition", f64::from(x), f64::from(y))
                }
                WindowChange::Resize { width, height } => {
                    ax::set_size(&element, "AXSize", f64::from(width), f64::from(height))
                }
                WindowChange::Minimize => ax::set_bool(&element, "AXMinimized", true),
                WindowChange::Restore => {
                    ax::set_bool(&element, "AXMinimized", false).and_then(|()| {
                        match ax::value_of(&element, "AXFullScreen") {
                            Ok(Some(AxValue::Bool(true))) => {
                                ax::set_bool(&element, "AXFullScreen", false)
                            }
                            _ => Ok(()),
                        }
                    })
                }
                // The zoom button fills the screen without entering a full-screen space.
                WindowChange::Maximize => ax::copy(&element, "AXZoomButton").and_then(|zoom| {
                    let zoom = zoom
                        .and_then(|b| b.downcast::<objc2_application_services::AXUIElement>().ok())
                        .ok_or(AxError::ATTRIBUTE_UNSUPPORTED)?;
                    ax::perform(&zoom, "AXPress")
                }),
            };
            if process.is_some() {
                let _ = ax::set_bool(&app, "AXEnhancedUserInterface", true);
            }
            changed.map_err(failed)
        })
        .await
    }
}
