//! Finding what a call names: the on-screen window behind a handle, its accessibility window,
//! the element a ref stands for, and the frontmost app.

use deskhand_core::model::ElementHandle;
use deskhand_core::{Error, ErrorKind, Result};

use crate::errors::{AxError, Request, classify};
use crate::handle::Handle;
use crate::tree::locate;
use crate::windows::{AxWindow, CgWindow, match_windows};

use super::ax::{self, Element};
use super::quartz;

pub(super) fn gone(what: &str) -> Error {
    Error::new(
        ErrorKind::ElementGone,
        format!("{what}: the element is no longer where it was observed; call observe again"),
    )
}

fn window_gone(handle: u64) -> Error {
    Error::new(
        ErrorKind::SurfaceGone,
        format!("window {handle} is no longer on screen; call windows to see what is open"),
    )
}

/// The accessibility windows of `pid`, each with its frame and title.
fn ax_windows(pid: u32) -> std::result::Result<Vec<(Element, AxWindow)>, AxError> {
    ax_windows_of(&ax::application(pid))
}

pub(super) fn ax_windows_of(
    app: &Element,
) -> std::result::Result<Vec<(Element, AxWindow)>, AxError> {
    let mut windows = Vec::new();
    for window in ax::all(app, "AXWindows")? {
        let attributes = ax::attributes(&window)?;
        if let Some(frame) = attributes.frame() {
            let title = attributes.title.clone().unwrap_or_default();
            windows.push((window, AxWindow { frame, title }));
        }
    }
    Ok(windows)
}

/// The accessibility window of the on-screen window `handle` of `pid`, and its Quartz entry.
pub(super) fn window_element(handle: u64, pid: Option<u32>) -> Result<(Element, CgWindow)> {
    let cg = quartz::window_list()
        .into_iter()
        .find(|w| w.id == handle && pid.is_none_or(|pid| pid == w.pid))
        .ok_or_else(|| window_gone(handle))?;
    let windows =
        ax_windows(cg.pid).map_err(|err| classify(err, Request::Read, "Finding the window"))?;
    let frames: Vec<AxWindow> = windows.iter().map(|(_, w)| w.clone()).collect();
    let matched = match_windows(std::slice::from_ref(&cg), &frames)[0];
    match matched {
        Some(index) => Ok((windows[index].0.clone(), cg)),
        None => Err(Error::new(
            ErrorKind::NoAccessibility,
            format!(
                "window {handle} of {} has no accessibility window of its place and size: the \
                 app may draw it without the Accessibility API; use screenshot and click by \
                 point",
                cg.owner
            ),
        )),
    }
}

/// The element a handle names, checked to be the same kind and name as when it was read, under
/// ancestors that are the same too (see `tree::identity`): a neighbour that took its place
/// answers "gone".
pub(super) fn resolve(handle: &ElementHandle) -> Result<Element> {
    if Handle::is_first_version(handle) {
        return Err(Error::new(
            ErrorKind::ElementGone,
            format!(
                "\"{}\" was made by an earlier deskhand, whose refs could not tell an element \
                 from its neighbour; call observe again for fresh refs",
                handle.0
            ),
        ));
    }
    let parsed = Handle::parse(handle).ok_or_else(|| {
        Error::bad_argument(format!(
            "\"{}\" is not an element of this macOS desktop; observe again for fresh refs",
            handle.0
        ))
    })?;
    let (window, cg) = window_element(parsed.window, Some(parsed.pid))?;
    let attributes = ax::attributes(&window)
        .map_err(|err| classify(err, Request::Read, "Reading the window"))?;
    let clip = attributes.frame().unwrap_or(cg.bounds).to_rect();
    locate(&ax::Reader, &window, attributes.role(), &parsed, clip)
        .map_err(|err| classify(err, Request::Read, "Finding the element"))?
        .ok_or_else(|| {
            Error::new(
                ErrorKind::ElementGone,
                "Finding the element: what is at its place now is another element, or nothing \
                 (the list or window changed since it was observed); call observe again",
            )
        })
}

/// The pid of the frontmost application.
pub(super) fn frontmost_pid() -> Option<u32> {
    let system = ax::system_wide();
    let app = ax::copy(&system, "AXFocusedApplication").ok()??;
    let app = app
        .downcast::<objc2_application_services::AXUIElement>()
        .ok()?;
    ax::pid(&app).ok()
}
