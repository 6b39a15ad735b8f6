//! Finding what a call names: the on-screen window behind a handle, its accessibility window,
//! the element a ref stands for, and the frontmost app.

use deskhand_core::model::ElementHandle;
use deskhand_core::{Error, ErrorKind, Result};

use crate::errors::{AxError, Request, classify};
use crate::handle::Handle;
use crate::tree::hash_of;
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

/// The element a handle names, checked to be the same kind and name as when it was read.
pub(super) fn resolve(handle: &ElementHandle) -> Result<Element> {
    let parsed = Handle::parse(handle).ok_or_else(|| {
        Error::bad_argument(format!(
            "\"{}\" is not an element of this macOS desktop; observe again for fresh refs",
            handle.0
        ))
    })?;
    let (mut element, _) = window_element(parsed.window, Some(parsed.pid))?;
    for step in &parsed.path {
        element = ax::step(&element, *step)
            .map_err(|err| classify(err, Request::Read, "Finding the element"))?
            .ok_or_else(|| gone("Finding the element"))?;
    }
    let attributes = ax::attributes(&element)
        .map_err(|err| classify(err, Request::Read, "Reading the element"))?;
    let same_name = parsed.path.is_empty() || hash_of(&attributes) == parsed.name_hash;
    if attributes.role() != parsed.role || !same_name {
        return Err(gone("Finding the element"));
    }
    Ok(element)
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
