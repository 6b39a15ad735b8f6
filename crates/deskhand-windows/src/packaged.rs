//! Packaged (Store and MSIX) apps as the Apps folder (`shell:AppsFolder`) lists them: which of
//! its entries are packaged, how they join the Start-menu shortcuts in one list, and what the
//! shell's answers mean when listing or starting one fails.
//!
//! The Apps folder shows every app a user can start, desktop programs included; those already
//! come from their Start-menu shortcuts (with a command line to show), so of the folder only
//! the packaged apps are taken, by their Application User Model ID
//! (`PackageFamilyName!AppId`), which is also their id for `launch`.

use deskhand_core::error::{Error, ErrorKind};
use deskhand_core::model::InstalledApp;

/// The most entries one listing reads from the Apps folder: a few hundred on a real system.
pub const MOST_ENTRIES: usize = 4000;

/// Whether an Apps-folder entry's parsing name is a packaged app's AUMID: a package family
/// name (`Name_PublisherId`, the publisher id 13 characters of Crockford base32 in lower
/// case), `!`, and the app's id within the package. Desktop programs are listed by path,
/// known-folder path (`{GUID}\app.exe`) or an id of their own choosing without a package.
pub fn is_packaged_aumid(name: &str) -> bool {
    let Some((family, app)) = name.split_once('!') else {
        return false;
    };
    let Some((package, publisher)) = family.rsplit_once('_') else {
        return false;
    };
    let package_ok = (3..=50).contains(&package.len())
        && package
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    let publisher_ok = publisher.len() == 13
        && publisher
            .chars()
            .all(|c| c.is_ascii_digit() || (c.is_ascii_lowercase() && !"ilou".contains(c)));
    let app_ok = (1..=64).contains(&app.len())
        && app.starts_with(|c: char| c.is_ascii_alphabetic())
        && app.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
    package_ok && publisher_ok && app_ok
}

/// An Apps-folder entry, by its display name and parsing name, as an installed app; `None`
/// for a desktop program, which its shortcut lists.
pub fn packaged_app(display_name: &str, parsing_name: &str) -> Option<InstalledApp> {
    is_packaged_aumid(parsing_name).then(|| InstalledApp {
        id: parsing_name.to_owned(),
        name: display_name.trim().to_owned(),
        command: format!(r"shell:AppsFolder\{parsing_name}"),
    })
}

/// The shortcuts and the packaged apps in one list sorted by name; an id met twice keeps its
/// shortcut, which `launch` also finds first.
pub fn merge(shortcuts: Vec<InstalledApp>, packaged: Vec<InstalledApp>) -> Vec<InstalledApp> {
    let mut apps = shortcuts;
    for app in packaged {
        if !apps
            .iter()
            .any(|known| known.id.eq_ignore_ascii_case(&app.id))
        {
            apps.push(app);
        }
    }
    apps.sort_by_key(|app| app.name.to_lowercase());
    apps
}

/// HRESULTs the shell answers here.
mod hresult {
    pub const E_ACCESSDENIED: i32 = 0x8007_0005_u32 as i32;
    pub const FILE_NOT_FOUND: i32 = 0x8007_0002_u32 as i32;
    pub const MK_E_NOOBJECT: i32 = 0x8004_01E5_u32 as i32;
    pub const REGDB_E_CLASSNOTREG: i32 = 0x8004_0154_u32 as i32;
    pub const ERROR_CANCELLED: i32 = 0x8007_04C7_u32 as i32;
    pub const APPX_E_NOT_REGISTERED: i32 = 0x8027_0254_u32 as i32;
    pub const E_APPLICATION_ACTIVATION_TIMED_OUT: i32 = 0x8027_025A_u32 as i32;
    pub const E_APPLICATION_ACTIVATION_EXEC_FAILURE: i32 = 0x8027_025B_u32 as i32;
}

/// Why the Apps folder could not be listed, as a sentence: on a system without it (Wine, old
/// Windows) the known folder does not exist or cannot enumerate.
pub fn listing_failure(code: i32) -> String {
    let why = match code {
        hresult::FILE_NOT_FOUND | hresult::MK_E_NOOBJECT | hresult::REGDB_E_CLASSNOTREG => {
            "this system has no Apps folder to list (as under Wine), so it lists no packaged \
             Store apps"
        }
        _ => "the shell did not list it",
    };
    format!(
        "the Apps folder (shell:AppsFolder) could not be read: {why} (HRESULT 0x{:08X})",
        code as u32
    )
}

/// An id that looks like a packaged app's but that the Apps folder could not confirm, because
/// the folder itself could not be read.
pub fn unlisted(aumid: &str, listing: &str) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!(
            "\"{aumid}\" names a packaged app, but {listing}; start a Start-menu shortcut instead \
             (call apps with installed to list their ids)"
        ),
    )
}

/// A packaged app the Apps folder does not list.
pub fn not_installed(aumid: &str) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!(
            "no packaged app with the id \"{aumid}\" is installed for this user; call apps with \
             installed to list the ids"
        ),
    )
}

/// A failed activation of a packaged app as the core's error. `sent`: the activation request
/// had reached the shell, so an app that timed out while starting may still come up.
pub fn launch_failure(code: i32, aumid: &str, sent: bool) -> Error {
    use hresult as h;
    let (kind, why) = match code {
        h::REGDB_E_CLASSNOTREG => (
            ErrorKind::Unsupported,
            "this system cannot start packaged apps (its ApplicationActivationManager is not \
             registered, as under Wine); start a Start-menu shortcut instead",
        ),
        h::APPX_E_NOT_REGISTERED => (
            ErrorKind::NotFound,
            "the app is not registered for this user; call apps with installed to list the ids",
        ),
        h::E_ACCESSDENIED => (
            ErrorKind::Platform,
            "Windows denied it: packaged apps cannot be started from an elevated process; run \
             deskhand without administrator rights",
        ),
        h::ERROR_CANCELLED => (
            ErrorKind::Platform,
            "the start was cancelled (the app or the user closed it while it started); try again",
        ),
        h::E_APPLICATION_ACTIVATION_TIMED_OUT => (
            ErrorKind::Timeout,
            "the app did not finish starting in time; call windows to see whether it came up",
        ),
        h::E_APPLICATION_ACTIVATION_EXEC_FAILURE => (
            ErrorKind::Platform,
            "the app's program failed to start; it may need repairing in Settings, Apps",
        ),
        _ => (ErrorKind::Platform, "the shell did not start it"),
    };
    let error = Error::new(
        kind,
        format!(
            "Starting the packaged app \"{aumid}\" failed: {why} (HRESULT 0x{:08X})",
            code as u32
        ),
    );
    if sent && kind == ErrorKind::Timeout {
        error.after_sending()
    } else {
        error
    }
}

/// What is known of a Store app's frame (`ApplicationFrameWindow`, owned by
/// ApplicationFrameHost.exe) when its app is looked for.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    pub pid: Option<u32>,
    pub title: &'a str,
    /// The pid of the frame's `Windows.UI.Core.CoreWindow` child, the app's own window.
    pub child: Option<u32>,
    /// The app's pid as learnt from the child before, by this process.
    pub remembered: Option<u32>,
}

/// The pid of the app a Store app's frame shows. Minimizing the app takes its CoreWindow out
/// of the frame (it becomes a top-level window of its own, titled as the frame), so the frame
/// alone would say ApplicationFrameHost: the window would seem gone and its app renamed. The
/// child, else what was learnt from it before, else the one top-level CoreWindow of the same
/// title (`core_windows`: title and pid); the frame's own pid when none tells.
pub fn frame_app_pid(frame: Frame<'_>, core_windows: &[(String, u32)]) -> Option<u32> {
    if let Some(pid) = frame.child.or(frame.remembered) {
        return Some(pid);
    }
    let mut titled = core_windows
        .iter()
        .filter(|(title, _)| !title.is_empty() && title == frame.title);
    match (titled.next(), titled.next()) {
        (Some((_, pid)), None) => Some(*pid),
        _ => frame.pid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packaged_app_ids_are_told_from_desktop_programs_in_the_apps_folder() {
        for aumid in [
            "Microsoft.WindowsCalculator_8wekyb3d8bbwe!App",
            "Microsoft.WindowsNotepad_8wekyb3d8bbwe!App",
            "Microsoft.WindowsTerminal_8wekyb3d8bbwe!App",
            "MicrosoftCorporationII.QuickAssist_8wekyb3d8bbwe!App",
            "SpotifyAB.SpotifyMusic_zpdnekdrzrea0!Spotify",
            "Microsoft.Windows.Photos_8wekyb3d8bbwe!App.Photos",
        ] {
            assert!(is_packaged_aumid(aumid), "{aumid}");
        }
        for desktop in [
            r"{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\notepad.exe",
            r"{6D809377-6AF0-444B-8957-A3773F02200E}\Mozilla Firefox\firefox.exe",
            "Microsoft.Windows.Explorer",
            "Chrome",
            r"C:\Tools\app.exe",
            "Microsoft.WindowsCalculator_8wekyb3d8bbwe",
            // Publisher ids never hold i, l, o or u, and have 13 characters.
            "Contoso.App_8wekyb3d8bbwo!App",
            "Contoso.App_8wekyb3d8bb!App",
            "Contoso.App_8wekyb3d8bbwe!",
            "Contoso.App_8wekyb3d8bbwe!1App",
            "!App",
        ] {
            assert!(!is_packaged_aumid(desktop), "{desktop}");
        }
    }

    #[test]
    fn only_packaged_entries_become_apps_and_launch_by_their_aumid() {
        assert_eq!(
            packaged_app(
                " Calculator ",
                "Microsoft.WindowsCalculator_8wekyb3d8bbwe!App"
            ),
            Some(InstalledApp {
                id: "Microsoft.WindowsCalculator_8wekyb3d8bbwe!App".into(),
                name: "Calculator".into(),
                command: r"shell:AppsFolder\Microsoft.WindowsCalculator_8wekyb3d8bbwe!App".into(),
            })
        );
        assert_eq!(
            packaged_app(
                "Notepad",
                r"{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\notepad.exe"
            ),
            None
        );
    }

    fn app(id: &str, name: &str) -> InstalledApp {
        InstalledApp {
            id: id.into(),
            name: name.into(),
            command: String::new(),
        }
    }

    #[test]
    fn packaged_apps_join_the_shortcuts_sorted_by_name_and_a_shortcut_keeps_its_id() {
        let merged = merge(
            vec![app("Zeal", "Zeal"), app("Accessories/Notepad", "Notepad")],
            vec![
                app(
                    "Microsoft.WindowsCalculator_8wekyb3d8bbwe!App",
                    "Calculator",
                ),
                app("zeal", "Zeal (Store)"),
            ],
        );
        let names: Vec<&str> = merged.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["Calculator", "Notepad", "Zeal"]);
        // An empty Apps folder (Wine) leaves the shortcuts as they were.
        assert_eq!(
            merge(vec![app("Zeal", "Zeal")], Vec::new()),
            vec![app("Zeal", "Zeal")]
        );
    }

    #[test]
    fn failures_say_what_this_system_lacks_and_what_to_do_instead() {
        let listing = listing_failure(0x8007_0002_u32 as i32);
        assert!(listing.contains("no Apps folder") && listing.contains("0x80070002"));
        let error = unlisted("Microsoft.WindowsCalculator_8wekyb3d8bbwe!App", &listing);
        assert_eq!(error.kind, ErrorKind::NotFound);
        assert!(error.message.contains("shell:AppsFolder") && error.message.contains("shortcut"));

        let unregistered = launch_failure(0x8004_0154_u32 as i32, "A_8wekyb3d8bbwe!App", true);
        assert_eq!(unregistered.kind, ErrorKind::Unsupported);
        assert!(!unregistered.sent);
        assert!(
            unregistered
                .message
                .contains("ApplicationActivationManager")
        );

        let slow = launch_failure(0x8027_025A_u32 as i32, "A_8wekyb3d8bbwe!App", true);
        assert_eq!(slow.kind, ErrorKind::Timeout);
        assert!(slow.sent, "a start that timed out may still come up");
        assert!(!launch_failure(0x8027_025A_u32 as i32, "x", false).sent);
        assert_eq!(
            launch_failure(0x8027_0254_u32 as i32, "x", true).kind,
            ErrorKind::NotFound
        );
    }

    #[test]
    fn a_minimized_store_apps_frame_keeps_its_apps_pid() {
        const FRAME_HOST: u32 = 900;
        let frame = Frame {
            pid: Some(FRAME_HOST),
            title: "Calculator",
            child: Some(41),
            remembered: None,
        };
        assert_eq!(frame_app_pid(frame, &[]), Some(41));
        // Minimized: the CoreWindow left the frame; what was learnt from it tells.
        let minimized = Frame {
            child: None,
            remembered: Some(41),
            ..frame
        };
        assert_eq!(frame_app_pid(minimized, &[]), Some(41));
        // Seen minimized first (a new CLI process): the top-level CoreWindow of its title.
        let first_sight = Frame {
            remembered: None,
            ..minimized
        };
        let cores = [("Photos".to_owned(), 52), ("Calculator".to_owned(), 41)];
        assert_eq!(frame_app_pid(first_sight, &cores), Some(41));
        // Two of that title, or none: nothing tells, and the frame stays its host's.
        let twins = [("Calculator".to_owned(), 41), ("Calculator".to_owned(), 43)];
        assert_eq!(frame_app_pid(first_sight, &twins), Some(FRAME_HOST));
        assert_eq!(frame_app_pid(first_sight, &[]), Some(FRAME_HOST));
    }
}
