//! What a shell switched to a private desktop keeps of the person's own.

/// The folders deskhand itself keeps using in a shell switched to a private desktop: the
/// person's policy, audit log and memory stay theirs, while the desktop's apps get folders of
/// their own. Empty where the variable was unset (its default under `HOME` then holds); kept as
/// they were when a desktop starts from a shell already switched to another.
pub(super) fn users_own_folders() -> Vec<(String, String)> {
    ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"]
        .into_iter()
        .map(|name| {
            let kept = format!("{USERS_OWN_PREFIX}{name}");
            let value = std::env::var(&kept)
                .or_else(|_| std::env::var(name))
                .unwrap_or_default();
            (kept, value)
        })
        .collect()
}

/// `DESKHAND_USER_XDG_CONFIG_HOME` and the like hold the person's own XDG folders in a shell
/// switched to a private desktop; deskhand reads its files from them.
const USERS_OWN_PREFIX: &str = "DESKHAND_USER_";
