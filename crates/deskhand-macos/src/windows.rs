//! Windows as Quartz lists them (`CGWindowListCopyWindowInfo`), and which accessibility window
//! of the same process each one is: the AX API has no window ids, so they are matched by pid
//! and frame, the title breaking ties.

use deskhand_core::model::{Rect, WindowInfo};

use crate::attributes::FrameF;

/// One entry of `CGWindowListCopyWindowInfo`, the keys deskhand reads.
#[derive(Debug, Clone, PartialEq)]
pub struct CgWindow {
    /// `kCGWindowNumber`.
    pub id: u64,
    /// `kCGWindowOwnerPID`.
    pub pid: u32,
    /// `kCGWindowOwnerName`.
    pub owner: String,
    /// `kCGWindowName`: empty without the Screen Recording permission, for other apps' windows.
    pub title: String,
    /// `kCGWindowBounds`, in global display points.
    pub bounds: FrameF,
    /// `kCGWindowLayer`: 0 is the normal window level; menus, the Dock and the menu bar are
    /// above it.
    pub layer: i64,
    /// `kCGWindowAlpha`.
    pub alpha: f64,
    /// `kCGWindowIsOnscreen`: false for a minimized window, a hidden app's and one on another
    /// Space, which still exist and can be changed or restored.
    pub on_screen: bool,
}

/// An accessibility window of one process: its frame and title.
#[derive(Debug, Clone, PartialEq)]
pub struct AxWindow {
    pub frame: FrameF,
    pub title: String,
}

/// Windows smaller than this are a process's helpers (a status item, an invisible key window).
const MIN_SIDE: f64 = 20.0;

/// Whether an on-screen entry is a window an agent works with: the normal layer, visible,
/// larger than a helper.
pub fn is_app_window(window: &CgWindow) -> bool {
    window.on_screen && is_app_sized(window)
}

/// Whether an off-screen entry may be an app's window put away (minimized, hidden, on another
/// Space) rather than a helper: the normal layer, larger than a helper.
pub fn is_parked(window: &CgWindow) -> bool {
    !window.on_screen && is_app_sized(window)
}

fn is_app_sized(window: &CgWindow) -> bool {
    window.layer == 0
        && window.alpha > 0.0
        && window.bounds.width >= MIN_SIDE
        && window.bounds.height >= MIN_SIDE
}

/// Frames that differ by less than this are the same window read twice (half points on Retina,
/// a title bar's rounding).
const SAME_FRAME: f64 = 2.0;

fn same_frame(a: FrameF, b: FrameF) -> bool {
    (a.x - b.x).abs() < SAME_FRAME
        && (a.y - b.y).abs() < SAME_FRAME
        && (a.width - b.width).abs() < SAME_FRAME
        && (a.height - b.height).abs() < SAME_FRAME
}

/// For each Quartz window of one process, the index of its accessibility window among `ax`, each
/// used once: the same frame, the same title where several share a frame (tabs of one size);
/// `None` where none has its frame.
pub fn match_windows(cg: &[CgWindow], ax: &[AxWindow]) -> Vec<Option<usize>> {
    let mut taken = vec![false; ax.len()];
    let mut matched = vec![None; cg.len()];
    // Two passes: frame and title first, so a titled match is not lost to a window that matched
    // on frame alone.
    for with_title in [true, false] {
        for (i, window) in cg.iter().enumerate() {
            if matched[i].is_some() {
                continue;
            }
            let found = ax.iter().enumerate().position(|(j, candidate)| {
                !taken[j]
                    && same_frame(window.bounds, candidate.frame)
                    && (!with_title
                        || (!window.title.is_empty() && window.title == candidate.title))
            });
            if let Some(j) = found {
                taken[j] = true;
                matched[i] = Some(j);
            }
        }
    }
    matched
}

/// The core's windows from Quartz's list, which gives the on-screen ones front to back: bottom
/// to top, as the core wants them, titled from the accessibility window where Quartz withheld
/// the title. The front window of the frontmost application has the focus; a window that fills
/// a display is maximized. Minimized windows (`minimized` asks the accessibility window of an
/// off-screen one) come first, below every window on screen, so that `window state=minimized`
/// finds the window it minimized and `restore` can bring it back.
pub fn window_infos(
    front_to_back: &[CgWindow],
    ax_title: &dyn Fn(&CgWindow) -> Option<String>,
    minimized: &dyn Fn(&CgWindow) -> bool,
    frontmost_pid: Option<u32>,
    displays: &[Rect],
) -> Vec<WindowInfo> {
    let focused = front_window(front_to_back, frontmost_pid);
    let parked = front_to_back
        .iter()
        .filter(|w| is_parked(w) && minimized(w))
        .map(|w| (w, true));
    let on_screen = front_to_back
        .iter()
        .filter(|w| is_app_window(w))
        .rev()
        .map(|w| (w, false));
    parked
        .chain(on_screen)
        .map(|(window, minimized)| {
            let bounds = window.bounds.to_rect();
            let title = if window.title.is_empty() {
                ax_title(window).unwrap_or_default()
            } else {
                window.title.clone()
            };
            WindowInfo {
                handle: window.id,
                title,
                pid: Some(window.pid),
                app_name: window.owner.clone(),
                bounds,
                focused: focused == Some(window.id),
                minimized,
                maximized: !minimized && displays.contains(&bounds),
            }
        })
        .collect()
}

/// The window with the focus: the front window of the frontmost application. An app being
/// frontmost is not enough for a window: another of its windows may be in front of it, and
/// keys would go to that document.
pub fn front_window(front_to_back: &[CgWindow], frontmost_pid: Option<u32>) -> Option<u64> {
    let pid = frontmost_pid?;
    front_to_back
        .iter()
        .find(|w| w.pid == pid && is_app_window(w))
        .map(|w| w.id)
}

/// The window a person named: its handle, or the one window whose title holds the words.
pub fn pick_window<'w>(
    windows: &'w [WindowInfo],
    which: &str,
) -> deskhand_core::Result<&'w WindowInfo> {
    if let Ok(handle) = which.parse::<u64>()
        && let Some(window) = windows.iter().find(|w| w.handle == handle)
    {
        return Ok(window);
    }
    let words = which.to_lowercase();
    let titled: Vec<&WindowInfo> = windows
        .iter()
        .filter(|w| w.title.to_lowercase().contains(&words))
        .collect();
    match titled.as_slice() {
        [window] => Ok(window),
        [] => Err(deskhand_core::Error::bad_argument(format!(
            "no window has the handle or a title with \"{which}\"; run `deskhand windows` to \
             list them"
        ))),
        _ => Err(deskhand_core::Error::bad_argument(format!(
            "{} windows have \"{which}\" in their title; give the handle `deskhand windows` \
             lists instead",
            titled.len()
        ))),
    }
}

/// The error when a window did not come to the front: every way was tried (activating the app
/// as the Dock does, raising the window, making it main), and `steps` says which the system
/// refused, so the reason is not guessed.
pub fn not_in_front(owner: &str, steps: &[(&str, bool)]) -> String {
    let refused: Vec<&str> = steps
        .iter()
        .filter(|(_, done)| !done)
        .map(|(name, _)| *name)
        .collect();
    let tried = if refused.is_empty() {
        "every request was accepted".to_owned()
    } else {
        format!("refused: {}", refused.join(", "))
    };
    format!(
        "{owner} did not come to the front within a second ({tried}); nothing was typed or \
         clicked. macOS may refuse to switch apps while another one holds a modal dialog or \
         the user is typing: observe the screen, then try again or click into the window"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_left_behind_says_which_requests_macos_refused() {
        let message = not_in_front(
            "TextEdit",
            &[
                ("app activation", false),
                ("AXRaise", true),
                ("AXMain", false),
            ],
        );
        assert!(
            message.starts_with("TextEdit did not come to the front")
                && message.contains("refused: app activation, AXMain")
                && message.contains("nothing was typed"),
            "{message}"
        );
        assert!(not_in_front("Mail", &[("AXRaise", true)]).contains("every request was accepted"));
    }

    fn frame(x: f64, y: f64, width: f64, height: f64) -> FrameF {
        FrameF {
            x,
            y,
            width,
            height,
        }
    }

    fn cg(id: u64, pid: u32, title: &str, bounds: FrameF) -> CgWindow {
        CgWindow {
            id,
            pid,
            owner: "TextEdit".into(),
            title: title.into(),
            bounds,
            layer: 0,
            alpha: 1.0,
            on_screen: true,
        }
    }

    fn ax(title: &str, frame: FrameF) -> AxWindow {
        AxWindow {
            frame,
            title: title.into(),
        }
    }

    #[test]
    fn windows_match_by_frame_and_the_title_breaks_ties() {
        let same = frame(100.0, 80.0, 600.0, 400.0);
        let cg_windows = [
            cg(11, 7, "Notes.txt", same),
            cg(12, 7, "Untitled", same),
            cg(13, 7, "", frame(300.5, 200.0, 500.0, 300.0)),
            cg(14, 7, "", frame(0.0, 0.0, 50.0, 50.0)),
        ];
        let ax_windows = [
            ax("Untitled", same),
            ax("Report", frame(300.0, 200.5, 500.0, 300.0)),
            ax("Notes.txt", same),
        ];
        assert_eq!(
            match_windows(&cg_windows, &ax_windows),
            [Some(2), Some(0), Some(1), None]
        );
    }

    #[test]
    fn without_screen_recording_titles_come_from_accessibility() {
        let cg_windows = [
            cg(21, 7, "", frame(0.0, 25.0, 800.0, 600.0)),
            cg(22, 7, "", frame(50.0, 25.0, 800.0, 600.0)),
        ];
        let ax_windows = [
            ax("Second", frame(50.0, 25.0, 800.0, 600.0)),
            ax("First", frame(0.0, 25.0, 800.0, 600.0)),
        ];
        let matched = match_windows(&cg_windows, &ax_windows);
        assert_eq!(matched, [Some(1), Some(0)], "frames alone suffice");
    }

    #[test]
    fn the_list_runs_bottom_to_top_without_helpers_and_focuses_the_front_window() {
        let mut menu = cg(1, 9, "Menu", frame(0.0, 0.0, 300.0, 200.0));
        menu.layer = 101;
        let mut faded = cg(2, 9, "Gone", frame(0.0, 0.0, 300.0, 200.0));
        faded.alpha = 0.0;
        let front = [
            menu,
            cg(3, 7, "Front", frame(10.0, 30.0, 400.0, 300.0)),
            faded,
            cg(4, 8, "", frame(0.0, 0.0, 1440.0, 900.0)),
            cg(5, 7, "Behind", frame(40.0, 60.0, 400.0, 300.0)),
            cg(6, 7, "", frame(0.0, 0.0, 16.0, 16.0)),
        ];
        let title = |w: &CgWindow| (w.id == 4).then(|| "From AX".to_owned());
        let displays = [Rect::new(0, 0, 1440, 900)];
        let infos = window_infos(&front, &title, &|_| false, Some(7), &displays);
        let summary: Vec<(u64, &str, bool, bool)> = infos
            .iter()
            .map(|w| (w.handle, w.title.as_str(), w.focused, w.maximized))
            .collect();
        assert_eq!(
            summary,
            [
                (5, "Behind", false, false),
                (4, "From AX", false, true),
                (3, "Front", true, false),
            ]
        );
        assert_eq!(infos[2].bounds, Rect::new(10, 30, 400, 300));
        assert_eq!(infos[2].pid, Some(7));
    }

    #[test]
    fn a_window_is_in_front_only_when_it_leads_its_frontmost_app_not_when_its_app_does() {
        let front = [
            cg(3, 7, "Report.pages", frame(10.0, 30.0, 400.0, 300.0)),
            cg(5, 7, "Letter.pages", frame(40.0, 60.0, 400.0, 300.0)),
            cg(8, 9, "Notes", frame(0.0, 0.0, 400.0, 300.0)),
        ];
        // Pages is frontmost, but Letter is behind Report: keys would go to Report.
        assert_eq!(front_window(&front, Some(7)), Some(3));
        assert_ne!(front_window(&front, Some(7)), Some(5));
        assert_eq!(front_window(&front, Some(9)), Some(8));
        assert_eq!(front_window(&front, None), None);
        let mut helper_first = front.to_vec();
        helper_first.insert(0, cg(2, 7, "", frame(0.0, 0.0, 16.0, 16.0)));
        assert_eq!(front_window(&helper_first, Some(7)), Some(3));
    }

    #[test]
    fn a_minimized_window_is_still_listed_as_minimized_and_one_on_another_space_is_not_gone() {
        let off = |mut window: CgWindow| {
            window.on_screen = false;
            window
        };
        let list = [
            cg(3, 7, "Front", frame(10.0, 30.0, 400.0, 300.0)),
            off(cg(5, 7, "Docked", frame(40.0, 60.0, 400.0, 300.0))),
            off(cg(6, 7, "Other Space", frame(40.0, 60.0, 500.0, 300.0))),
            off(cg(9, 7, "", frame(0.0, 0.0, 10.0, 10.0))),
        ];
        let minimized = |w: &CgWindow| w.id == 5;
        let infos = window_infos(&list, &|_| None, &minimized, Some(7), &[]);
        let summary: Vec<(u64, bool, bool)> = infos
            .iter()
            .map(|w| (w.handle, w.minimized, w.focused))
            .collect();
        assert_eq!(summary, [(5, true, false), (3, false, true)]);
        // Off screen, they are not the app's front window, but still exist.
        assert_eq!(front_window(&list, Some(7)), Some(3));
        assert!(is_parked(&list[1]) && is_parked(&list[2]) && !is_parked(&list[3]));
    }

    #[test]
    fn a_window_is_picked_by_handle_or_by_the_one_title_that_holds_the_words() {
        let list = [
            cg(3, 7, "Report.pages", frame(10.0, 30.0, 400.0, 300.0)),
            cg(5, 7, "Letter.pages", frame(40.0, 60.0, 400.0, 300.0)),
        ];
        let infos = window_infos(&list, &|_| None, &|_| false, Some(7), &[]);
        assert_eq!(pick_window(&infos, "5").unwrap().title, "Letter.pages");
        assert_eq!(pick_window(&infos, "report").unwrap().handle, 3);
        let both = pick_window(&infos, ".pages").unwrap_err();
        assert!(both.message.contains("2 windows"), "{}", both.message);
        assert!(pick_window(&infos, "Numbers").is_err());
    }
}
