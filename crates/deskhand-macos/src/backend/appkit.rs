//! AppKit and Foundation: installed bundles, running applications and the pasteboard.

use std::path::Path;

use objc2_app_kit::{
    NSApplicationActivationOptions, NSPasteboard, NSPasteboardTypeString, NSRunningApplication,
};
use objc2_foundation::{NSBundle, NSString};

use crate::apps::Bundle;

/// The `.app` bundles directly inside `dir`.
pub fn bundles_in(dir: &Path) -> Vec<Bundle> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "app"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| bundle(&path.to_string_lossy()))
        .collect()
}

fn bundle(path: &str) -> Option<Bundle> {
    let bundle = NSBundle::bundleWithPath(&NSString::from_str(path))?;
    let info = |key: &str| -> Option<String> {
        let value = bundle.objectForInfoDictionaryKey(&NSString::from_str(key))?;
        Some(value.downcast_ref::<NSString>()?.to_string())
    };
    Some(Bundle {
        path: path.to_owned(),
        id: bundle.bundleIdentifier().map(|id| id.to_string()),
        name: info("CFBundleDisplayName").or_else(|| info("CFBundleName")),
    })
}

/// The pids of the running instances of the app `id`.
pub fn running(id: &str) -> Vec<u32> {
    let apps =
        NSRunningApplication::runningApplicationsWithBundleIdentifier(&NSString::from_str(id));
    apps.iter()
        .map(|app| app.processIdentifier())
        .filter(|pid| *pid > 0)
        .map(|pid| pid as u32)
        .collect()
}

/// The pasteboard's text and the types it offers.
pub fn read_pasteboard() -> (Option<String>, Vec<String>) {
    let pasteboard = NSPasteboard::generalPasteboard();
    let types = pasteboard
        .types()
        .map(|types| types.iter().map(|t| t.to_string()).collect())
        .unwrap_or_default();
    // SAFETY: the type is a constant of the framework.
    let text = pasteboard
        .stringForType(unsafe { NSPasteboardTypeString })
        .map(|text| text.to_string());
    (text, types)
}

/// Replaces the pasteboard's content with `text`; false when the pasteboard refused it.
pub fn write_pasteboard(text: &str) -> bool {
    let pasteboard = NSPasteboard::generalPasteboard();
    pasteboard.clearContents();
    // SAFETY: the type is a constant of the framework.
    pasteboard.setString_forType(&NSString::from_str(text), unsafe { NSPasteboardTypeString })
}

/// Asks the app with process `pid` to quit as its Quit menu item would; false when no app has
/// that pid (a helper process, a daemon) or it declined at once.
pub fn ask_to_quit(pid: libc::pid_t) -> bool {
    NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
        .is_some_and(|app| app.terminate())
}

/// Activates the app with process `pid` as the Dock does, all its windows in front; false when
/// no app has that pid or macOS refused.
pub fn activate(pid: libc::pid_t) -> bool {
    // Ignoring other apps is what a background process needs before macOS 14; from 14 on the
    // system ignores the flag and decides itself, which the caller checks.
    #[allow(deprecated)]
    let options = NSApplicationActivationOptions::ActivateAllWindows
        | NSApplicationActivationOptions::ActivateIgnoringOtherApps;
    NSRunningApplication::runningApplicationWithProcessIdentifier(pid)
        .is_some_and(|app| app.activateWithOptions(options))
}
