//! Installed applications: the `.app` bundles of the Applications folders, by bundle id.

use std::path::Path;

use deskhand_core::model::InstalledApp;

/// Where applications are installed, the user's own first.
pub fn application_dirs(home: &Path) -> Vec<std::path::PathBuf> {
    vec![
        home.join("Applications"),
        "/Applications".into(),
        "/Applications/Utilities".into(),
        "/System/Applications".into(),
        "/System/Applications/Utilities".into(),
    ]
}

/// A bundle as read from its `Info.plist`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    pub path: String,
    /// `CFBundleIdentifier`.
    pub id: Option<String>,
    /// `CFBundleDisplayName`, else `CFBundleName`.
    pub name: Option<String>,
}

/// The installed apps, sorted by name, one per bundle id (the first folder's wins); a bundle
/// without an id cannot be launched by one and is left out.
pub fn installed(bundles: Vec<Bundle>) -> Vec<InstalledApp> {
    let mut apps: Vec<InstalledApp> = Vec::new();
    for bundle in bundles {
        let Some(id) = bundle.id.filter(|id| !id.is_empty()) else {
            continue;
        };
        if apps.iter().any(|app| app.id == id) {
            continue;
        }
        let name = bundle
            .name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| bundle_stem(&bundle.path));
        apps.push(InstalledApp {
            command: format!("open -b {id}"),
            id,
            name,
        });
    }
    apps.sort_by_cached_key(|app| app.name.to_lowercase());
    apps
}

/// Whether `id` reads as a bundle id ("com.apple.TextEdit"): it goes to `open -b`.
pub fn is_bundle_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with(['-', '.'])
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// "TextEdit" of "/System/Applications/TextEdit.app".
fn bundle_stem(path: &str) -> String {
    let file = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path);
    file.strip_suffix(".app").unwrap_or(file).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(path: &str, id: Option<&str>, name: Option<&str>) -> Bundle {
        Bundle {
            path: path.into(),
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
        }
    }

    #[test]
    fn apps_are_listed_by_name_once_per_bundle_id() {
        let apps = installed(vec![
            bundle(
                "/Users/a/Applications/Safari.app",
                Some("com.apple.Safari"),
                None,
            ),
            bundle(
                "/System/Applications/TextEdit.app",
                Some("com.apple.TextEdit"),
                Some("TextEdit"),
            ),
            bundle(
                "/Applications/Safari.app",
                Some("com.apple.Safari"),
                Some("Safari"),
            ),
            bundle("/Applications/Broken.app", None, Some("Broken")),
            bundle(
                "/System/Applications/Calculator.app/",
                Some("com.apple.calculator"),
                Some(""),
            ),
        ]);
        let listed: Vec<(&str, &str, &str)> = apps
            .iter()
            .map(|a| (a.id.as_str(), a.name.as_str(), a.command.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "com.apple.calculator",
                    "Calculator",
                    "open -b com.apple.calculator"
                ),
                ("com.apple.Safari", "Safari", "open -b com.apple.Safari"),
                (
                    "com.apple.TextEdit",
                    "TextEdit",
                    "open -b com.apple.TextEdit"
                ),
            ]
        );
    }

    #[test]
    fn only_bundle_ids_reach_open() {
        assert!(is_bundle_id("com.apple.TextEdit"));
        assert!(is_bundle_id("org.mozilla.firefox"));
        assert!(!is_bundle_id("-a Calculator"));
        assert!(!is_bundle_id("com.apple.TextEdit; rm"));
        assert!(!is_bundle_id(""));
    }
}
