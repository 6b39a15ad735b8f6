//! `--takeover on|off` and `--takeover-idle SECONDS`: whether a person's own mouse and keyboard
//! pause the agent, and how long they must be left alone before actions resume; `--overlay
//! on|off`: whether the person is shown where the agent acts.

use std::ffi::OsString;
use std::time::Duration;

use anyhow::bail;
use deskhand_core::person::DEFAULT_IDLE;

/// The flags for a person beside the agent, as given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct TakeoverFlags {
    /// Pause the agent while a person uses mouse or keyboard (else $DESKHAND_TAKEOVER; on by
    /// default on a person's own desktop, off on private headless ones).
    #[arg(long, value_name = "on|off")]
    pub takeover: Option<String>,
    /// Seconds of the person's idleness before actions resume (else $DESKHAND_TAKEOVER_IDLE,
    /// else 3).
    #[arg(long, value_name = "SECONDS")]
    pub takeover_idle: Option<String>,
    /// Show where the agent acts, and that it is connected (else $DESKHAND_OVERLAY; on by
    /// default on a person's own desktop, off on private headless ones).
    #[arg(long, value_name = "on|off")]
    pub overlay: Option<String>,
}

/// Whether the overlay is drawn. `private` is whether the desktop is a private headless one,
/// where no person sits.
pub fn overlay(
    flags: &TakeoverFlags,
    env: &dyn Fn(&str) -> Option<OsString>,
    private: bool,
) -> anyhow::Result<bool> {
    let given = flags.overlay.clone().or_else(|| {
        env("DESKHAND_OVERLAY")
            .filter(|v| !v.is_empty())
            .map(|v| v.to_string_lossy().into_owned())
    });
    match given.as_deref() {
        None => Ok(!private),
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => bail!("--overlay (or DESKHAND_OVERLAY) is {other:?}; give `on` or `off`"),
    }
}

/// How long the person must be idle, or `None` when their input is not watched. `private` is
/// whether the desktop is a private headless one, where no person sits.
pub fn takeover(
    flags: &TakeoverFlags,
    env: &dyn Fn(&str) -> Option<OsString>,
    private: bool,
) -> anyhow::Result<Option<Duration>> {
    let var = |name: &str| {
        env(name)
            .filter(|v| !v.is_empty())
            .map(|v| v.to_string_lossy().into_owned())
    };
    let on = match flags.takeover.clone().or_else(|| var("DESKHAND_TAKEOVER")) {
        None => !private,
        Some(value) => match value.as_str() {
            "on" => true,
            "off" => false,
            other => bail!("--takeover (or DESKHAND_TAKEOVER) is {other:?}; give `on` or `off`"),
        },
    };
    if !on {
        return Ok(None);
    }
    let idle = match flags
        .takeover_idle
        .clone()
        .or_else(|| var("DESKHAND_TAKEOVER_IDLE"))
    {
        None => DEFAULT_IDLE,
        Some(value) => match value.parse::<f64>() {
            Ok(secs) if (0.1..=600.0).contains(&secs) => Duration::from_secs_f64(secs),
            _ => bail!(
                "--takeover-idle (or DESKHAND_TAKEOVER_IDLE) is {value:?}; give the seconds a person must leave mouse and keyboard alone before actions resume, from 0.1 to 600"
            ),
        },
    };
    Ok(Some(idle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn on_by_default_on_a_persons_desktop_and_off_on_a_private_one() {
        let flags = TakeoverFlags::default();
        let none = env_of(&[]);
        assert_eq!(takeover(&flags, &none, false).unwrap(), Some(DEFAULT_IDLE));
        assert_eq!(takeover(&flags, &none, true).unwrap(), None);
        let on = env_of(&[
            ("DESKHAND_TAKEOVER", "on"),
            ("DESKHAND_TAKEOVER_IDLE", "1.5"),
        ]);
        assert_eq!(
            takeover(&flags, &on, true).unwrap(),
            Some(Duration::from_millis(1500))
        );
        let off = TakeoverFlags {
            takeover: Some("off".into()),
            ..TakeoverFlags::default()
        };
        assert_eq!(takeover(&off, &on, false).unwrap(), None);
    }

    #[test]
    fn a_bad_value_says_what_to_give() {
        let none = env_of(&[]);
        let bad = TakeoverFlags {
            takeover: Some("yes".into()),
            ..TakeoverFlags::default()
        };
        let err = takeover(&bad, &none, false).unwrap_err().to_string();
        assert!(err.contains("give `on` or `off`"), "{err}");
        let bad_idle = TakeoverFlags {
            takeover: None,
            takeover_idle: Some("0".into()),
            ..TakeoverFlags::default()
        };
        let err = takeover(&bad_idle, &none, false).unwrap_err().to_string();
        assert!(err.contains("from 0.1 to 600"), "{err}");
    }

    #[test]
    fn the_overlay_is_on_on_a_persons_desktop_and_off_on_a_private_one_unless_told() {
        let flags = TakeoverFlags::default();
        let none = env_of(&[]);
        assert!(overlay(&flags, &none, false).unwrap());
        assert!(!overlay(&flags, &none, true).unwrap());
        let on = env_of(&[("DESKHAND_OVERLAY", "on")]);
        assert!(overlay(&flags, &on, true).unwrap());
        let off = TakeoverFlags {
            overlay: Some("off".into()),
            ..TakeoverFlags::default()
        };
        assert!(!overlay(&off, &on, false).unwrap());
        let bad = TakeoverFlags {
            overlay: Some("yes".into()),
            ..TakeoverFlags::default()
        };
        let err = overlay(&bad, &none, false).unwrap_err().to_string();
        assert!(err.contains("give `on` or `off`"), "{err}");
    }
}
