//! The FFI shell: each capability of `core::backend` carried over to the macOS frameworks.

use deskhand_core::Error;
use deskhand_core::backend::{Accessibility, Apps, Capture, Clipboard, Input, Values, Windows};

/// The macOS backend. Holds nothing: every call asks the system afresh.
#[derive(Debug, Default)]
pub struct MacBackend;

impl MacBackend {
    pub fn connect() -> Result<MacBackend, Error> {
        Ok(MacBackend)
    }
}

impl Windows for MacBackend {}
impl Accessibility for MacBackend {}
impl Values for MacBackend {}
impl Input for MacBackend {}
impl Capture for MacBackend {}
impl Clipboard for MacBackend {}
impl Apps for MacBackend {}
