//! What an executor is configured with for its whole life: the image size, the policy, the
//! audit log, the memory and the text reader.

use crate::audit::AuditLog;
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
}

impl Default for Config {
    fn default() -> Self {
        Self {
            max_image_edge: DEFAULT_MAX_EDGE,
            policy: Policy::default(),
            audit: AuditLog::default(),
            memory: None,
            ocr: None,
        }
    }
}
