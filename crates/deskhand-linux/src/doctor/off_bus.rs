//! Why an app with a window is not on the accessibility bus, and what puts it there: one verdict,
//! which `deskhand doctor` reports in full and `observe` quotes in one line, so the two never
//! disagree. Each verdict first checks its own premise (the flag it would tell to set is not
//! already set, the package it would tell to install is not already installed).

use std::path::Path;

use super::{ProcessFacts, Toolkit, gtk2_modules_installed};

/// The Java class that is GNOME's ATK wrapper (Debian's libatk-wrapper-java).
const ATK_WRAPPER_CLASS: &str = "org.GNOME.Accessibility.AtkWrapper";
/// The wrapper's jar, where Debian installs it.
const ATK_WRAPPER_JAR: &str = "/usr/share/java/java-atk-wrapper.jar";
/// Where the wrapper's JNI library may be.
const ATK_WRAPPER_JNI: [&str; 3] = [
    "/usr/lib/x86_64-linux-gnu/jni/libatk-wrapper.so",
    "/usr/lib/aarch64-linux-gnu/jni/libatk-wrapper.so",
    "/usr/lib/jni/libatk-wrapper.so",
];

/// The verdict on a process with a window that is not on the accessibility bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffTheBus {
    /// Its toolkit has no accessibility at all (Tk, Xt, Motif): its windows are read from pixels.
    NoAccessibility,
    /// Something its facts show keeps it off the bus: what, and how to put it on.
    Kept { detail: String, fix: String },
    /// Nothing its facts show keeps it off: it may still be joining, or failed for a reason
    /// only it knows.
    Unexplained { detail: String, fix: String },
}

/// What the verdict needs besides the process's own facts.
#[derive(Debug, Clone, Copy, Default)]
pub struct BusFacts<'a> {
    /// `org.a11y.Status`'s `IsEnabled`, when known.
    pub enabled: Option<bool>,
    /// The session bus this process (deskhand) is on.
    pub our_session_bus: Option<&'a str>,
    /// Whether the app holds a connection on that session bus; `None`: not known.
    pub app_on_session_bus: Option<bool>,
}

/// Whether the app's toolkit puts it on the bus by itself when nothing keeps it off, so that
/// one not there yet is still starting rather than without a tree.
pub fn joins_by_itself(toolkit: Toolkit) -> bool {
    !matches!(toolkit, Toolkit::NoAccessibility | Toolkit::Unknown)
}

/// Why `facts`' process is not on the accessibility bus, and what to do.
pub fn off_the_bus(facts: &ProcessFacts, bus: BusFacts<'_>) -> OffTheBus {
    let toolkit = facts.toolkit.name();
    let kept = |why: String, fix: String| OffTheBus::Kept {
        detail: format!("{toolkit}, not on the accessibility bus: {why}"),
        fix,
    };
    if let Some(sandbox) = facts.sandbox {
        return kept(
            format!("it runs in a {sandbox} sandbox that does not let it reach the bus"),
            match sandbox {
                "Flatpak" => "allow it the accessibility bus: flatpak override --user --talk-name=org.a11y.Bus APP-ID, then restart it".into(),
                _ => "install the app from Debian's packages instead of the Snap, or connect its accessibility interface (snap connections), then restart it".into(),
            },
        );
    }
    if facts.var("NO_AT_BRIDGE") == Some("1") {
        return kept(
            "it was started with NO_AT_BRIDGE=1".into(),
            "restart it without NO_AT_BRIDGE in its environment".into(),
        );
    }
    match facts.toolkit {
        Toolkit::NoAccessibility => OffTheBus::NoAccessibility,
        Toolkit::Gtk2 => gtk2(facts),
        Toolkit::Java => java(facts),
        Toolkit::Chromium if facts.args.iter().any(|a| a == "--force-renderer-accessibility") => {
            OffTheBus::Unexplained {
                detail: format!("{toolkit}, not on the accessibility bus, though started with --force-renderer-accessibility"),
                fix: "restart it, and read its output for accessibility errors".into(),
            }
        }
        Toolkit::Chromium => kept(
            "it was started without --force-renderer-accessibility".into(),
            format!(
                "quit it and start it with --force-renderer-accessibility ({} --force-renderer-accessibility)",
                facts.program
            ),
        ),
        Toolkit::Qt5 | Toolkit::Qt6 => {
            let forced = facts.var("QT_LINUX_ACCESSIBILITY_ALWAYS_ON") == Some("1")
                || facts.var("QT_ACCESSIBILITY") == Some("1");
            if !forced && bus.enabled != Some(true) {
                return kept(
                    "it was started without QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 while the bus says accessibility is off".into(),
                    format!("restart it with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 in its environment (QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 {} &)", facts.program),
                );
            }
            // Qt finds the accessibility bus through the session bus: without that connection
            // no flag helps.
            session_bus(facts, bus).unwrap_or_else(|| OffTheBus::Unexplained {
                detail: format!("{toolkit}, not on the accessibility bus: its accessibility bridge did not register, though it was told to and reaches the session bus"),
                fix: "restart the app, and read its output for the bridge's errors".into(),
            })
        }
        Toolkit::Gtk3 | Toolkit::Gtk4 | Toolkit::Unknown => {
            session_bus(facts, bus).unwrap_or_else(|| OffTheBus::Unexplained {
                detail: format!("{toolkit}, not on the accessibility bus, for no reason the doctor knows"),
                fix: "restart the app; if it still has no tree, deskhand reads its window from pixels (observe with ocr: true)".into(),
            })
        }
    }
}

impl OffTheBus {
    /// The verdict in one line, for a reply that has no room for the doctor's report.
    pub fn one_line(&self) -> Option<String> {
        match self {
            OffTheBus::Kept { detail, fix } | OffTheBus::Unexplained { detail, fix } => {
                Some(format!("{detail}; {fix}"))
            }
            OffTheBus::NoAccessibility => None,
        }
    }
}

/// The session-bus premise: an app started on another session bus, or with no connection to
/// this one, cannot find this accessibility bus whatever else it is told.
fn session_bus(facts: &ProcessFacts, bus: BusFacts<'_>) -> Option<OffTheBus> {
    let toolkit = facts.toolkit.name();
    let theirs = facts
        .var("DBUS_SESSION_BUS_ADDRESS")
        .filter(|address| !address.is_empty());
    let program = &facts.program;
    let ours = bus.our_session_bus.unwrap_or("ADDRESS");
    if let Some(theirs) = theirs
        && bus.our_session_bus.is_some_and(|ours| ours != theirs)
    {
        return Some(OffTheBus::Kept {
            detail: format!(
                "{toolkit}, not on this accessibility bus: it was started on another session bus ({theirs})"
            ),
            fix: format!(
                "restart it from this session (DBUS_SESSION_BUS_ADDRESS={ours} {program} &), or run deskhand with that app's DBUS_SESSION_BUS_ADDRESS"
            ),
        });
    }
    // Only Qt has no other way to the accessibility bus than the session bus: GTK's bridge
    // also reads the X root window's AT_SPI_BUS.
    let qt = matches!(facts.toolkit, Toolkit::Qt5 | Toolkit::Qt6);
    if qt && bus.app_on_session_bus == Some(false) && facts.var("AT_SPI_BUS_ADDRESS").is_none() {
        let started = match theirs {
            None => "it was started with no DBUS_SESSION_BUS_ADDRESS",
            Some(_) => "its login on the session bus failed",
        };
        return Some(OffTheBus::Kept {
            detail: format!(
                "{toolkit}, not on the accessibility bus: it has no connection to the session bus ({started}; its own output says why), so it cannot find the accessibility bus"
            ),
            fix: format!(
                "restart it where it can reach this session bus (DBUS_SESSION_BUS_ADDRESS={ours} {program} &)"
            ),
        });
    }
    None
}

fn gtk2(facts: &ProcessFacts) -> OffTheBus {
    let has_module = |module: &str| {
        ["GTK2_MODULES", "GTK_MODULES"].iter().any(|var| {
            facts
                .var(var)
                .is_some_and(|value| value.split(':').any(|m| m == module))
        })
    };
    let (gail, bridge) = gtk2_modules_installed();
    let packages: Vec<&str> = [(gail, "libgail-common"), (bridge, "libatk-adaptor")]
        .into_iter()
        .filter(|(installed, _)| !installed)
        .map(|(_, package)| package)
        .collect();
    let unset = !(has_module("gail") && has_module("atk-bridge"));
    let mut why = Vec::new();
    if !packages.is_empty() {
        why.push(format!(
            "GTK 2's accessibility modules are not installed ({})",
            packages.join(", ")
        ));
    }
    if unset {
        why.push("it was started without GTK2_MODULES=gail:atk-bridge".to_owned());
    }
    let mut fix = Vec::new();
    if !packages.is_empty() {
        fix.push(format!("apt-get install {}", packages.join(" ")));
    }
    fix.push(format!("restart it with GTK2_MODULES=gail:atk-bridge in its environment (GTK2_MODULES=gail:atk-bridge {} &)", facts.program));
    let detail = format!(
        "GTK 2, not on the accessibility bus: {}",
        if why.is_empty() {
            "its modules did not load".to_owned()
        } else {
            why.join(", and ")
        }
    );
    let fix = fix.join("; then ");
    if why.is_empty() {
        OffTheBus::Unexplained { detail, fix }
    } else {
        OffTheBus::Kept { detail, fix }
    }
}

/// The ATK wrapper joins a Java app to the bus only when named as its assistive technology:
/// Debian installs it with that line of `accessibility.properties` commented out ("Doesn't
/// work"), so it is named on the command line, its jar on the class path.
fn java(facts: &ProcessFacts) -> OffTheBus {
    let jar = Path::new(ATK_WRAPPER_JAR).exists();
    let jni = ATK_WRAPPER_JNI.iter().any(|path| Path::new(path).exists());
    let named = facts.args.iter().any(|arg| arg.contains(ATK_WRAPPER_CLASS))
        || facts
            .var("JAVA_TOOL_OPTIONS")
            .is_some_and(|options| options.contains(ATK_WRAPPER_CLASS));
    let options = format!(
        "-Djavax.accessibility.assistive_technologies={ATK_WRAPPER_CLASS} -Xbootclasspath/a:{ATK_WRAPPER_JAR}"
    );
    let restart = format!(
        "restart it with the wrapper named on its command line: JAVA_TOOL_OPTIONS=\"{options}\" {} … & (Debian leaves assistive_technologies commented out in accessibility.properties)",
        facts.program
    );
    if !jar || !jni {
        return OffTheBus::Kept {
            detail: "Java, not on the accessibility bus: the Java ATK wrapper is not installed"
                .into(),
            fix: format!(
                "apt-get install libatk-wrapper-java libatk-wrapper-java-jni; then {restart}"
            ),
        };
    }
    if !named && !facts.has_loaded("atk-wrapper") {
        return OffTheBus::Kept {
            detail: "Java, not on the accessibility bus: the ATK wrapper is installed but was not named as its assistive technology when it started".into(),
            fix: restart,
        };
    }
    OffTheBus::Unexplained {
        detail:
            "Java, not on the accessibility bus: the ATK wrapper was named but did not register"
                .into(),
        fix: "restart the app, and read its output for the wrapper's errors".into(),
    }
}
