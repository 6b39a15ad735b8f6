//! The one place that picks the platform's backend: Linux's on Linux, macOS's on macOS,
//! Windows' on Windows,
//! elsewhere the null backend whose every call answers `unsupported` until that platform's own
//! lands.

use deskhand_core::Error;

#[cfg(target_os = "linux")]
pub type PlatformBackend = deskhand_linux::LinuxBackend;

#[cfg(target_os = "macos")]
pub type PlatformBackend = deskhand_macos::MacBackend;

#[cfg(target_os = "windows")]
pub type PlatformBackend = deskhand_windows::WindowsBackend;

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
pub type PlatformBackend = deskhand_core::NullBackend;

/// `DESKHAND_TREE_READER=plain` reads every element one call at a time instead of starting from
/// the applications' caches: slower, and the reference the fast reader is tested against.
#[cfg(target_os = "linux")]
pub fn connect() -> Result<PlatformBackend, Error> {
    let backend = PlatformBackend::connect()?;
    Ok(match std::env::var("DESKHAND_TREE_READER").as_deref() {
        Ok("plain") => backend.without_cache(),
        _ => backend,
    })
}

/// [`connect`] for a server, which keeps the trees of the windows it observed live between
/// calls; `DESKHAND_TREE_READER=walk` (or `plain`) walks every window at every observe: the
/// reference the live trees are tested against.
#[cfg(target_os = "linux")]
pub fn connect_serving() -> Result<PlatformBackend, Error> {
    let backend = connect()?;
    Ok(match std::env::var("DESKHAND_TREE_READER").as_deref() {
        Ok("walk" | "plain") => backend,
        _ => backend.with_live_trees(),
    })
}

#[cfg(not(target_os = "linux"))]
pub fn connect_serving() -> Result<PlatformBackend, Error> {
    connect()
}

#[cfg(any(target_os = "macos", target_os = "windows"))]
pub fn connect() -> Result<PlatformBackend, Error> {
    PlatformBackend::connect()
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
pub fn connect() -> Result<PlatformBackend, Error> {
    Ok(PlatformBackend::default())
}

/// What reads text from pixels where a window has no accessibility tree: Tesseract where it is
/// linked (Linux for now), else nothing, and such windows answer `no-accessibility`.
#[cfg(target_os = "linux")]
pub fn text_reader() -> Option<deskhand_core::ocr::TextReader> {
    Some(std::sync::Arc::new(deskhand_ocr::Tesseract::default()))
}

#[cfg(not(target_os = "linux"))]
pub fn text_reader() -> Option<deskhand_core::ocr::TextReader> {
    None
}

/// Watches for a person's own input, which pauses the agent until they have been idle for
/// `idle`; says why where it cannot be told.
#[cfg(target_os = "linux")]
pub fn watch_for_person(
    backend: &PlatformBackend,
    idle: std::time::Duration,
) -> Result<(), String> {
    backend.watch_for_person(idle)
}

/// Shows a person where the agent acts, and that it is connected; says why where it cannot.
#[cfg(target_os = "linux")]
pub fn show_overlay(backend: &PlatformBackend) -> Result<(), String> {
    backend.show_overlay()
}

#[cfg(not(target_os = "linux"))]
pub fn show_overlay(_backend: &PlatformBackend) -> Result<(), String> {
    Err(
        "the overlay that shows where the agent acts is drawn on Linux (X11 and sway) only so far"
            .into(),
    )
}

#[cfg(not(target_os = "linux"))]
pub fn watch_for_person(
    _backend: &PlatformBackend,
    _idle: std::time::Duration,
) -> Result<(), String> {
    Err("a person's input is watched on X11 only so far, so only the top-left corner stops deskhand here".into())
}
