//! What an executor is configured with for its whole life: the image size, the policy, the
//! audit log, the memory and the text reader.

use crate::audit::AuditLog;
use crate::error::{Error, ErrorKind, Result};
use crate::image::DEFAULT_MAX_EDGE;
use crate::policy::Policy;

#[derive(Debug, Clone)]
pub struct Config {
    /// Screenshots are scaled down so their long edge is at most this many pixels.
    pub max_image_edge: u32,
    /// What the user allows, fixed when the server or CLI starts. Default: everything.
    pub policy: Policy,
    /// Where every action is recorded. Default: nowhere.
    pub audit: AuditLog,
    /// What deskhand remembers across sessions. Default: nothing.
    pub memory: Option<std::sync::Arc<dyn crate::memory::Memory>>,
    /// What reads text from pixels, for windows without an accessibility tree. Default: none
    /// (such a window answers `no-accessibility`).
    pub ocr: Option<crate::ocr::TextReader>,
    /// The client session the calls come from, named in every audit line, where one server
    /// serves several sessions. Default: none.
    pub session: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_image_edge: DEFAULT_MAX_EDGE,
            policy: Policy::default(),
            audit: AuditLog::default(),
            memory: None,
            ocr: None,
            session: None,
        }
    }
}

impl Config {
    /// The memory, or the error that says it is off.
    pub(crate) fn memory(&self) -> Result<&dyn crate::memory::Memory> {
        self.memory.as_deref().ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                "memory is off for this deskhand (started with `--memory off`); observe instead, or ask the user to turn memory on",
            )
        })
    }
}
