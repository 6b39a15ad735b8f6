//! User Interface Privilege Isolation: Windows drops input a process sends to a window of a
//! process of higher integrity (an app run as administrator), and neither `SendInput`'s count
//! nor `GetLastError` says so (Microsoft's `SendInput` documentation). So before input goes
//! out, the integrity levels of deskhand and of the window it lands on are compared, and input
//! that cannot arrive is refused with the reason instead of being reported done.

use deskhand_core::error::{Error, ErrorKind};

/// The mandatory integrity levels (`SECURITY_MANDATORY_*_RID`), the last sub-authority of a
/// token's integrity label.
pub mod rid {
    pub const UNTRUSTED: u32 = 0x0000;
    pub const LOW: u32 = 0x1000;
    pub const MEDIUM: u32 = 0x2000;
    pub const MEDIUM_PLUS: u32 = 0x2100;
    pub const HIGH: u32 = 0x3000;
    pub const SYSTEM: u32 = 0x4000;
}

/// What could be read of the target process's integrity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Its level.
    Level(u32),
    /// Windows refused to open its token: a process of another account or one run as
    /// administrator, seen from a process that is not.
    Denied,
    /// Nothing to compare with (no window there, a process that is gone).
    Unknown,
}

/// What to do with input bound for a window.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Send,
    /// Send it, but it may be dropped: say it is applied but unconfirmed, with this reason.
    Unconfirmed(String),
    /// It would be dropped: nothing is sent, and this is the error.
    Refuse(Error),
}

fn level_name(level: u32) -> &'static str {
    match level {
        l if l >= rid::SYSTEM => "system",
        l if l >= rid::HIGH => "high (run as administrator)",
        l if l >= rid::MEDIUM_PLUS => "medium-plus",
        l if l >= rid::MEDIUM => "medium (a normal app)",
        l if l >= rid::LOW => "low (a sandboxed app)",
        _ => "untrusted",
    }
}

/// The verdict for input from a process at `own` (`None` where it cannot be read, as under
/// Wine) to the window `title` of a process at `target`.
pub fn verdict(own: Option<u32>, target: Target, title: &str) -> Verdict {
    let Some(own) = own else {
        return Verdict::Send;
    };
    match target {
        Target::Level(level) if level > own => Verdict::Refuse(Error::new(
            ErrorKind::Platform,
            format!(
                "the window \"{title}\" belongs to an app running at {} integrity, above \
                 deskhand's {}, and Windows silently drops input sent up to it (UIPI); nothing \
                 was sent. Run deskhand as administrator to drive it, or use another window",
                level_name(level),
                level_name(own)
            ),
        )),
        Target::Denied if own < rid::HIGH => Verdict::Unconfirmed(format!(
            "Windows would not tell the integrity of the app of \"{title}\" (it may run as \
             administrator, in which case Windows dropped the input without saying so); \
             observe it to see whether the input arrived, or run deskhand as administrator"
        )),
        _ => Verdict::Send,
    }
}

/// The verdict for input that may land on any of several windows (the wheel goes to the
/// window under the pointer, or to the focused one where "scroll inactive windows" is off): a
/// refusal for any refuses it, else any doubt makes it unconfirmed.
pub fn strictest(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let mut strictest = Verdict::Send;
    for verdict in verdicts {
        match (&strictest, verdict) {
            (_, refuse @ Verdict::Refuse(_)) => return refuse,
            (Verdict::Send, unconfirmed @ Verdict::Unconfirmed(_)) => strictest = unconfirmed,
            _ => {}
        }
    }
    strictest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_up_to_an_elevated_window_is_refused_before_anything_is_sent() {
        let Verdict::Refuse(error) =
            verdict(Some(rid::MEDIUM), Target::Level(rid::HIGH), "Regedit")
        else {
            panic!("medium to high must be refused")
        };
        assert!(!error.sent, "nothing went out");
        assert!(
            error.message.contains("\"Regedit\"")
                && error.message.contains("high (run as administrator)")
                && error.message.contains("Run deskhand as administrator"),
            "{}",
            error.message
        );
        assert!(matches!(
            verdict(Some(rid::LOW), Target::Level(rid::MEDIUM), "Notepad"),
            Verdict::Refuse(_)
        ));
    }

    #[test]
    fn input_at_or_below_deskhands_level_goes_out() {
        assert_eq!(
            verdict(Some(rid::MEDIUM), Target::Level(rid::MEDIUM), "Notepad"),
            Verdict::Send
        );
        assert_eq!(
            verdict(Some(rid::HIGH), Target::Level(rid::MEDIUM), "Notepad"),
            Verdict::Send
        );
        assert_eq!(
            verdict(Some(rid::MEDIUM), Target::Level(rid::LOW), "Edge"),
            Verdict::Send
        );
        assert_eq!(
            verdict(Some(rid::HIGH), Target::Level(rid::HIGH), "Regedit"),
            Verdict::Send
        );
    }

    #[test]
    fn an_unreadable_target_is_unconfirmed_and_an_unknown_one_or_own_level_sends() {
        let Verdict::Unconfirmed(reason) =
            verdict(Some(rid::MEDIUM), Target::Denied, "Task Manager")
        else {
            panic!("a token Windows withholds from a medium process may be elevated")
        };
        assert!(reason.contains("\"Task Manager\""), "{reason}");
        assert_eq!(
            verdict(Some(rid::HIGH), Target::Denied, "x"),
            Verdict::Send,
            "an elevated deskhand reaches every desktop window"
        );
        assert_eq!(
            verdict(Some(rid::MEDIUM), Target::Unknown, "x"),
            Verdict::Send
        );
        assert_eq!(
            verdict(None, Target::Level(rid::SYSTEM), "x"),
            Verdict::Send
        );
    }

    #[test]
    fn the_wheel_is_refused_when_either_window_it_may_reach_is_above_deskhand() {
        let medium = Some(rid::MEDIUM);
        let under_pointer = verdict(medium, Target::Level(rid::HIGH), "Registry Editor");
        let focused = verdict(medium, Target::Level(rid::MEDIUM), "Notepad");
        assert!(matches!(
            strictest([focused.clone(), under_pointer.clone()]),
            Verdict::Refuse(_)
        ));
        let doubtful = verdict(medium, Target::Denied, "Task Manager");
        assert!(matches!(
            strictest([focused.clone(), doubtful.clone()]),
            Verdict::Unconfirmed(_)
        ));
        assert!(matches!(
            strictest([doubtful, under_pointer]),
            Verdict::Refuse(_)
        ));
        assert_eq!(strictest([focused.clone(), focused]), Verdict::Send);
    }
}
