//! What deskhand switched on in which app to make Chromium and Electron build their
//! accessibility tree. `AXManualAccessibility` is asked first; only an app that refuses it
//! (older Chromium builds) gets `AXEnhancedUserInterface`, which also changes how the app
//! animates and breaks moving and resizing its windows, so it is switched off around
//! deskhand's own `window` changes and on again after.
//!
//! Processes are told apart by pid and start time: a pid is reused once its app is gone, and
//! a new app under an old pid was never switched on.

/// A process, as its pid and start time (microseconds since the epoch) tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub started: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    process: Process,
    enhanced: bool,
}

/// Processes remembered at most: far more apps than are ever open, few enough to scan.
const REMEMBERED: usize = 256;

/// The processes asked to build their tree, and which of them got `AXEnhancedUserInterface`.
#[derive(Debug, Default)]
pub struct Memory {
    entries: Vec<Entry>,
}

impl Memory {
    pub const fn new() -> Memory {
        Memory {
            entries: Vec::new(),
        }
    }

    fn entry(&mut self, process: Process) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.process == process)
    }

    /// Records that `process` is asked now; says whether it was the first time.
    pub fn first_time(&mut self, process: Process) -> bool {
        if self.entry(process).is_some() {
            return false;
        }
        // A reused pid's earlier app is gone: forget it.
        self.entries.retain(|e| e.process.pid != process.pid);
        if self.entries.len() >= REMEMBERED {
            self.entries.remove(0);
        }
        self.entries.push(Entry {
            process,
            enhanced: false,
        });
        true
    }

    pub fn set_enhanced(&mut self, process: Process) {
        if let Some(entry) = self.entry(process) {
            entry.enhanced = true;
        }
    }

    /// Whether deskhand switched `AXEnhancedUserInterface` on in `process`.
    pub fn enhanced(&self, process: Process) -> bool {
        self.entries
            .iter()
            .any(|e| e.process == process && e.enhanced)
    }
}

/// Whether to fall back to `AXEnhancedUserInterface`: only when the page is still empty after
/// the first look and the app refused `AXManualAccessibility` (`manual_taken` false), never on
/// an app that took the gentler switch.
pub fn fall_back_to_enhanced(first_look: bool, page_empty: bool, manual_taken: bool) -> bool {
    first_look && page_empty && !manual_taken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_pid_is_a_new_app_and_only_the_app_switched_on_is_reset() {
        let mut memory = Memory::new();
        let chrome = Process {
            pid: 501,
            started: 1_000,
        };
        assert!(memory.first_time(chrome));
        assert!(!memory.first_time(chrome));
        memory.set_enhanced(chrome);
        assert!(memory.enhanced(chrome));
        // Chrome quit; another app got its pid.
        let notes = Process {
            pid: 501,
            started: 9_000,
        };
        assert!(!memory.enhanced(notes), "never switched on in this one");
        assert!(memory.first_time(notes));
        assert!(!memory.enhanced(chrome), "the gone app is forgotten");
        for pid in 0..REMEMBERED as u32 + 10 {
            memory.first_time(Process { pid, started: 1 });
        }
        assert!(memory.entries.len() <= REMEMBERED);
    }

    #[test]
    fn enhanced_user_interface_is_only_for_apps_that_refused_the_manual_switch() {
        assert!(fall_back_to_enhanced(true, true, false));
        assert!(
            !fall_back_to_enhanced(true, true, true),
            "the manual switch was taken"
        );
        assert!(
            !fall_back_to_enhanced(true, false, false),
            "the page has content"
        );
        assert!(!fall_back_to_enhanced(false, true, false), "asked before");
    }
}
