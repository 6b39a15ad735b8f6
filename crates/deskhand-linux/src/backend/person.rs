//! A person at the desk: watching for their input, on the display servers where it can be told
//! from deskhand's, and the overlay that shows them where the agent acts.

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
        match &*self.display {
            Display::X11(x11) => x11.watch_for_person(Arc::clone(&presence))?,
            Display::Sway(sway) => sway
                .watch_for_person(Arc::clone(&presence))
                .map_err(|err| match err {
                    crate::wayland::idle::IdleWatchError::Wayland(
                        crate::wayland::WaylandError::Missing(_),
                    ) => crate::person::CANNOT_TELL_ON_SWAY.to_owned(),
                    other => other.to_string(),
                })?,
            Display::Gnome(gnome) => gnome.watch_for_person(Arc::clone(&presence))?,
        }
        let _ = self.presence.set(presence);
        Ok(())
    }

    /// Shows a person where the agent acts, and that an agent is connected. Says why where
    /// the overlay is not drawn.
    pub fn show_overlay(&self) -> std::result::Result<(), String> {
        match &*self.display {
            Display::X11(x11) => x11.show_overlay(),
            Display::Sway(sway) => sway.show_overlay(),
            Display::Gnome(gnome) => gnome.show_overlay(),
        }
    }
}
