//! Watching for a person at the desk, on the display servers where their input can be told
//! from deskhand's.

use std::sync::Arc;

use deskhand_core::person::Presence;

use super::LinuxBackend;
use super::session::Display;

impl LinuxBackend {
    /// Watches for a person's own mouse and keyboard input, which then pauses every action
    /// until they have left both alone for `idle`. Says why where the display server cannot
    /// tell their input from deskhand's.
    pub fn watch_for_person(&self, idle: std::time::Duration) -> std::result::Result<(), String> {
        if self.presence.get().is_some() {
            return Ok(());
        }
        let presence = Arc::new(Presence::new(idle));
        match &self.display {
            Display::X11(x11) => x11.watch_for_person(Arc::clone(&presence))?,
            Display::Sway(_) => return Err(crate::person::CANNOT_TELL_ON_SWAY.to_owned()),
            Display::Gnome(_) => return Err(crate::person::CANNOT_TELL_ON_GNOME.to_owned()),
        }
        let _ = self.presence.set(presence);
        Ok(())
    }
}
