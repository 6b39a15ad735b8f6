//! The doctor on Linux: the display server and session, input and capture, the accessibility
//! bus and every app with a window on it, Tesseract, the clipboard.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use deskhand_core::backend::Windows as _;
use deskhand_linux::atspi::{Application, Atspi};
use deskhand_linux::doctor::{self as probe, OffTheBus, ProcessFacts, Session, Toolkit};
use deskhand_ocr::check as ocr;

use super::{Check, Status};

/// Each probe's own limit: a desktop that does not answer in this is a finding, not a hang.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1200);

const DISPLAY: &str = "display";
const ACCESSIBILITY: &str = "accessibility";
const PIXELS: &str = "text from pixels";
const CLIPBOARD: &str = "clipboard";

const START_DESKTOP: &str = "run deskhand in your desktop session (DISPLAY or WAYLAND_DISPLAY set), or start a private one: eval \"$(deskhand desktop start)\" (`deskhand mcp --headless` starts its own)";

/// With `load_models`, Tesseract and its models are loaded, as a read of pixels would; without,
/// only their files are looked for (the MCP server's check at start, which must be quick).
pub fn checks(load_models: bool) -> Vec<Check> {
    // Loading Tesseract and its models is the slowest probe and needs nothing else.
    let tesseract = std::thread::spawn(move || tesseract(load_models));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build();
    let mut checks = match runtime {
        Ok(runtime) => runtime.block_on(desktop()),
        Err(err) => vec![Check::problem(
            Status::Fail,
            DISPLAY,
            "runtime",
            format!("the async runtime could not start ({err})"),
            "free some memory or threads and run it again",
        )],
    };
    checks.extend(tesseract.join().unwrap_or_default());
    checks
}

async fn desktop() -> Vec<Check> {
    let mut checks = Vec::new();
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match crate::own_desktop::finding() {
        Some(Ok(found)) => checks.push(Check::ok(DISPLAY, "found", found)),
        Some(Err((reason, fix))) => {
            checks.push(Check::problem(
                Status::Fail,
                DISPLAY,
                "session",
                reason,
                fix,
            ));
        }
        None => {}
    }
    let session = Session::from_env();
    match &session {
        Session::X11 if checks.iter().any(|c| c.name == "session") => {}
        Session::X11 if var("DISPLAY").is_none() => {
            checks.push(Check::problem(
                Status::Fail,
                DISPLAY,
                "session",
                "no desktop: neither DISPLAY nor WAYLAND_DISPLAY is set",
                START_DESKTOP,
            ));
        }
        Session::X11 => x11(&mut checks, None),
        Session::OtherWayland(name) if var("DISPLAY").is_some() => x11(
            &mut checks,
            Some(format!(
                "a Wayland session of {name}, which deskhand does not drive: only X11 apps (XWayland) can be reached"
            )),
        ),
        Session::OtherWayland(name) => checks.push(Check::problem(
            Status::Fail,
            DISPLAY,
            "session",
            format!("a Wayland session of {name}, which deskhand does not drive, and no DISPLAY for XWayland"),
            "log in to a GNOME, sway or X11 session, or start a private desktop: eval \"$(deskhand desktop start)\"",
        )),
        Session::Sway(socket) => sway(&mut checks, socket),
        Session::Gnome => gnome(&mut checks).await,
    }
    let no_display = checks
        .iter()
        .any(|c| c.name == "session" && c.status == Status::Fail);
    accessibility(&mut checks, no_display).await;
    checks
}

fn x11(checks: &mut Vec<Check>, wayland_note: Option<String>) {
    let facts = match probe::x11(PROBE_TIMEOUT) {
        Ok(facts) => facts,
        Err(why) => {
            checks.push(Check::problem(
                Status::Fail,
                DISPLAY,
                "session",
                format!(
                    "the X server {} cannot be reached ({why})",
                    std::env::var("DISPLAY").unwrap_or_default()
                ),
                "check DISPLAY and XAUTHORITY (run `xdpyinfo` to see the same failure), or start a private desktop: eval \"$(deskhand desktop start)\"",
            ));
            return;
        }
    };
    let (width, height) = facts.screen;
    let seen = format!("X11 on {} ({width}x{height})", facts.display);
    checks.push(match wayland_note {
        Some(note) => Check::problem(
            Status::Warn,
            DISPLAY,
            "session",
            format!("{seen}, in {note}"),
            "log in to a GNOME, sway or X11 session to reach Wayland apps too",
        ),
        None => Check::ok(DISPLAY, "session", seen),
    });
    checks.push(if facts.window_manager {
        Check::ok(DISPLAY, "window manager", "an EWMH window manager answers")
    } else {
        Check::problem(
            Status::Warn,
            DISPLAY,
            "window manager",
            "no EWMH window manager answers: windows cannot be focused, moved or closed",
            "run a window manager on this display (Debian: apt-get install openbox; openbox &)",
        )
    });
    checks.push(if facts.xtest {
        Check::ok(DISPLAY, "input", "XTEST: keys and clicks can be sent")
    } else {
        Check::problem(
            Status::Fail,
            DISPLAY,
            "input",
            "the X server has no XTEST extension, through which every key and click goes",
            "start the X server with XTEST (Xvfb and Xorg have it unless started with -extension XTEST)",
        )
    });
    checks.push(if facts.xinput2 {
        Check::ok(
            DISPLAY,
            "takeover",
            "XInput 2: a person's own keys, buttons and pointer moves pause the agent (`--takeover on|off`)",
        )
    } else {
        Check::problem(
            Status::Warn,
            DISPLAY,
            "takeover",
            "the X server has no XInput 2.2, so a person's own input cannot be told from deskhand's: only the top-left corner stops deskhand",
            "run an X server with XInput 2.2 (Xorg and Xvfb since 1.12)",
        )
    });
    checks.push(match facts.capture {
        Ok(()) => Check::ok(DISPLAY, "capture", "the screen's pixels can be read"),
        Err(why) => Check::problem(
            Status::Fail,
            DISPLAY,
            "capture",
            format!("reading the screen's pixels failed ({why})"),
            "check that this user may read the display (XAUTHORITY), then run the doctor again",
        ),
    });
    let holder = std::env::current_exe().is_ok_and(|exe| exe.exists());
    checks.push(match (facts.clipboard_owner, holder) {
        (_, false) => Check::problem(
            Status::Warn,
            CLIPBOARD,
            "clipboard",
            "the running deskhand binary cannot be found, and writing the clipboard runs it to hold the text",
            "run deskhand from its installed path",
        ),
        (Some(owner), true) => Check::ok(
            CLIPBOARD,
            "clipboard",
            format!("readable (window 0x{owner:x} holds it); writing runs deskhand itself to hold the text"),
        ),
        (None, true) => Check::ok(
            CLIPBOARD,
            "clipboard",
            "empty now; writing runs deskhand itself to hold the text",
        ),
    });
}

fn sway(checks: &mut Vec<Check>, socket: &std::path::Path) {
    let globals = match probe::wayland_globals(PROBE_TIMEOUT) {
        Ok(globals) => globals,
        Err(why) => {
            checks.push(Check::problem(
                Status::Fail,
                DISPLAY,
                "session",
                format!("sway's Wayland socket cannot be reached ({why})"),
                "check WAYLAND_DISPLAY and XDG_RUNTIME_DIR, or start a private one: eval \"$(deskhand desktop start --wayland sway)\"",
            ));
            return;
        }
    };
    checks.push(if socket.exists() {
        Check::ok(
            DISPLAY,
            "session",
            format!("sway on Wayland (IPC {})", socket.display()),
        )
    } else {
        Check::problem(
            Status::Fail,
            DISPLAY,
            "session",
            format!("SWAYSOCK names {}, which does not exist", socket.display()),
            "export SWAYSOCK from the running sway (`sway --get-socketpath`)",
        )
    });
    let has = |name: &str| globals.iter().any(|g| g == name);
    let protocol = |area: &'static str, name: &str, needed: &[&str], what: &str| {
        let missing: Vec<&str> = needed.iter().copied().filter(|n| !has(n)).collect();
        if missing.is_empty() {
            Check::ok(area, name, format!("{what} ({})", needed.join(", ")))
        } else {
            Check::problem(
                Status::Fail,
                area,
                name,
                format!("sway does not offer {}, needed {what}", missing.join(", ")),
                "run sway 1.5 or later, which offers them to every client unless its config restricts them",
            )
        }
    };
    checks.push(protocol(
        DISPLAY,
        "input",
        &[
            "zwlr_virtual_pointer_manager_v1",
            "zwp_virtual_keyboard_manager_v1",
        ],
        "for keys and clicks",
    ));
    checks.push(Check::ok(
        DISPLAY,
        "takeover",
        if has("ext_idle_notifier_v1") || has("org_kde_kwin_idle") {
            deskhand_linux::person::TOLD_ON_SWAY
        } else {
            deskhand_linux::person::CANNOT_TELL_ON_SWAY
        },
    ));
    checks.push(protocol(
        DISPLAY,
        "capture",
        &["zwlr_screencopy_manager_v1"],
        "for the screen's pixels",
    ));
    checks.push(protocol(
        CLIPBOARD,
        "clipboard",
        &["zwlr_data_control_manager_v1"],
        "to read and write the clipboard",
    ));
}

async fn gnome(checks: &mut Vec<Check>) {
    checks.push(Check::ok(DISPLAY, "session", "GNOME Shell on Wayland"));
    let idle_monitor =
        tokio::time::timeout(PROBE_TIMEOUT * 2, deskhand_linux::gnome::idle::readable()).await;
    checks.push(Check::ok(
        DISPLAY,
        "takeover",
        if idle_monitor == Ok(true) {
            deskhand_linux::person::TOLD_ON_GNOME
        } else {
            deskhand_linux::person::CANNOT_TELL_ON_GNOME
        },
    ));
    let gnome = deskhand_linux::gnome::Gnome::default();
    let extension = tokio::time::timeout(PROBE_TIMEOUT * 2, gnome.extension_running()).await;
    checks.push(match &extension {
        Ok(Ok(true)) => Check::ok(
            DISPLAY,
            "gnome extension",
            "deskhand's GNOME Shell extension answers: window positions and pixels are known",
        ),
        Ok(Ok(false)) => Check::problem(
            Status::Fail,
            DISPLAY,
            "gnome extension",
            "deskhand's GNOME Shell extension is not running: points, window pixels and window positions are unavailable",
            "deskhand gnome-extension install, then log out and back in",
        ),
        Ok(Err(err)) => Check::problem(
            Status::Fail,
            DISPLAY,
            "gnome extension",
            format!("GNOME Shell could not be asked about deskhand's extension ({})", err.message),
            "deskhand gnome-extension install, then log out and back in",
        ),
        Err(_) => Check::problem(
            Status::Fail,
            DISPLAY,
            "gnome extension",
            "GNOME Shell did not answer in time",
            "check that GNOME Shell is running on this session bus, then run the doctor again",
        ),
    });
    for (name, service, what) in [
        ("input", "org.gnome.Mutter.RemoteDesktop", "keys and clicks"),
        (
            "capture",
            "org.gnome.Mutter.ScreenCast",
            "the screen's pixels",
        ),
    ] {
        checks.push(match probe::session_name_owned(service, PROBE_TIMEOUT).await {
            Ok(true) => Check::ok(DISPLAY, name, format!("{service} answers, for {what}")),
            Ok(false) => Check::problem(
                Status::Fail,
                DISPLAY,
                name,
                format!("{service}, through which deskhand sends {what}, is not on the session bus"),
                "run GNOME Shell 42 or later with PipeWire (Debian: apt-get install pipewire wireplumber), then log in again",
            ),
            Err(why) => Check::problem(
                Status::Fail,
                DISPLAY,
                name,
                format!("the session bus could not be asked for {service} ({why})"),
                "check DBUS_SESSION_BUS_ADDRESS, then run the doctor again",
            ),
        });
    }
    // GNOME's clipboard is read and written through the extension.
    checks.push(if matches!(extension, Ok(Ok(true))) {
        Check::ok(
            CLIPBOARD,
            "clipboard",
            "through deskhand's GNOME Shell extension",
        )
    } else {
        Check::problem(
            Status::Fail,
            CLIPBOARD,
            "clipboard",
            "the clipboard is reached through deskhand's GNOME Shell extension, which is not running",
            "deskhand gnome-extension install, then log out and back in",
        )
    });
}

async fn accessibility(checks: &mut Vec<Check>, no_display: bool) {
    let status = match probe::accessibility_status(PROBE_TIMEOUT).await {
        Ok(status) => status,
        Err(why) if std::env::var("DBUS_SESSION_BUS_ADDRESS").is_ok_and(|a| !a.is_empty()) => {
            checks.push(Check::problem(
                Status::Fail,
                ACCESSIBILITY,
                "bus",
                format!("the accessibility bus cannot be found ({why}): no app's tree can be read, only pixels"),
                "install at-spi2-core (Debian: apt-get install at-spi2-core) and log in again, or start a private desktop: eval \"$(deskhand desktop start)\"",
            ));
            return;
        }
        // The accessibility bus is asked for on the session bus: without one, the fix is the bus.
        Err(_) => {
            checks.push(Check::problem(
                Status::Fail,
                ACCESSIBILITY,
                "bus",
                "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and this user's runtime folder holds no `bus`, so the accessibility bus cannot be asked for: no app's tree can be read, only pixels",
                "add DBUS_SESSION_BUS_ADDRESS to deskhand's environment (the MCP client's `env` block) with the value `echo $DBUS_SESSION_BUS_ADDRESS` prints in a terminal of your desktop",
            ));
            return;
        }
    };
    let atspi = match Atspi::connect(PROBE_TIMEOUT).await {
        Ok(atspi) => atspi,
        Err(err) => {
            checks.push(Check::problem(
                Status::Fail,
                ACCESSIBILITY,
                "bus",
                format!("the accessibility bus at {} cannot be reached ({err})", status.address),
                "restart at-spi2-core's bus (log out and in), or start a private desktop: eval \"$(deskhand desktop start)\"",
            ));
            return;
        }
    };
    let apps = match atspi.applications().await {
        Ok(apps) => apps,
        Err(err) => {
            checks.push(Check::problem(
                Status::Fail,
                ACCESSIBILITY,
                "bus",
                format!("the accessibility registry did not list its applications ({err})"),
                "restart at-spi2-core's registry (log out and in), then run the doctor again",
            ));
            return;
        }
    };
    let enabled = match status.enabled {
        Some(true) => "accessibility is enabled",
        Some(false) => "accessibility is not enabled (Qt and Chromium join only when told to)",
        None => "its status is unknown",
    };
    checks.push(Check::ok(
        ACCESSIBILITY,
        "bus",
        format!(
            "answers; {} registered; {enabled}",
            match apps.len() {
                1 => "1 application".to_owned(),
                n => format!("{n} applications"),
            }
        ),
    ));
    if no_display {
        return;
    }
    let windows = match crate::platform::connect() {
        Ok(backend) => tokio::time::timeout(PROBE_TIMEOUT, backend.windows()).await,
        Err(_) => return,
    };
    let Ok(Ok(windows)) = windows else {
        checks.push(Check::problem(
            Status::Warn,
            ACCESSIBILITY,
            "apps",
            "the display did not list its windows in time, so no app was checked",
            "run the doctor again; if it persists, check the window manager",
        ));
        return;
    };
    // Each process with a window, by pid, named as `windows` names it.
    let owners: BTreeMap<u32, String> = windows
        .iter()
        .filter_map(|w| Some((w.pid?, w.app_name.clone())))
        .collect();
    for window in windows.iter().filter(|w| w.pid.is_none()) {
        checks.push(Check::ok(
            ACCESSIBILITY,
            format!("\"{}\"", window.title),
            "a window that does not say which process owns it, so it has no tree to read: deskhand reads it from pixels (OCR)",
        ));
    }
    let on_bus: HashSet<u32> = apps.iter().filter_map(|a| a.pid).collect();
    for (pid, name) in owners {
        let Some(facts) = probe::process(pid) else {
            continue;
        };
        let registered: Vec<&Application> = apps.iter().filter(|a| a.pid == Some(pid)).collect();
        let joined = on_bus.contains(&pid);
        // Asked only of an app off the bus: a verdict that blames the session bus checks it.
        let on_session_bus = if joined {
            None
        } else {
            probe::on_session_bus(pid, PROBE_TIMEOUT).await.ok()
        };
        checks.push(app_check(
            &name,
            &facts,
            &registered,
            (joined, on_session_bus),
            status.enabled,
        ));
    }
}

/// Whether an app with a window can be read, and if not, why and what to do.
fn app_check(
    name: &str,
    facts: &ProcessFacts,
    registered: &[&Application],
    (on_bus, app_on_session_bus): (bool, Option<bool>),
    enabled: Option<bool>,
) -> Check {
    let label = format!("{name} (pid {})", facts.pid);
    let toolkit = facts.toolkit.name();
    let problem = |status, detail: String, fix: String| {
        Check::problem(status, ACCESSIBILITY, label.clone(), detail, fix)
    };
    if on_bus {
        if registered.iter().all(|app| !app.answering) {
            return problem(
                Status::Warn,
                format!(
                    "{toolkit}, registered but not answering the accessibility bus (busy or hung)"
                ),
                "wait for it, or restart the app".into(),
            );
        }
        if facts.toolkit == Toolkit::Chromium
            && !facts
                .args
                .iter()
                .any(|a| a == "--force-renderer-accessibility")
        {
            return problem(
                Status::Warn,
                format!(
                    "{toolkit}, on the bus, but started without --force-renderer-accessibility: its pages may show no content"
                ),
                format!(
                    "quit it and start it with --force-renderer-accessibility ({} --force-renderer-accessibility)",
                    facts.program
                ),
            );
        }
        return Check::ok(
            ACCESSIBILITY,
            label,
            format!("{toolkit}, on the accessibility bus"),
        );
    }
    let our_session_bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok();
    let verdict = probe::off_the_bus(
        facts,
        probe::BusFacts {
            enabled,
            our_session_bus: our_session_bus.as_deref(),
            app_on_session_bus,
        },
    );
    match verdict {
        OffTheBus::NoAccessibility => Check::ok(
            ACCESSIBILITY,
            label,
            format!("{toolkit}: no tree to read; deskhand reads its window from pixels (OCR)"),
        ),
        OffTheBus::Kept { detail, fix } => problem(Status::Fail, detail, fix),
        OffTheBus::Unexplained { detail, fix } => problem(Status::Warn, detail, fix),
    }
}

fn tesseract(load: bool) -> Vec<Check> {
    let found = ocr::check(load);
    let name = "tesseract";
    let mut checks = Vec::new();
    match found.library {
        Some(Err(why)) => {
            return vec![Check::problem(
                Status::Fail,
                PIXELS,
                name,
                format!(
                    "Tesseract's library did not load ({why}): windows without a tree cannot be read"
                ),
                "apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-ell",
            )];
        }
        Some(Ok(())) => checks.push(Check::ok(PIXELS, name, "libtesseract 5 loads")),
        None => {}
    }
    let verb = if load { "loads" } else { "is there" };
    for model in found.models {
        let label = format!("language {}", model.language);
        checks.push(match model.found {
            Ok(()) => Check::ok(
                PIXELS,
                label,
                format!(
                    "{} {verb}",
                    found
                        .datapath
                        .join(format!("{}.traineddata", model.language))
                        .display()
                ),
            ),
            Err(why) => Check::problem(
                if model.required {
                    Status::Fail
                } else {
                    Status::Warn
                },
                PIXELS,
                label,
                if model.required {
                    format!("{why}: no text can be read from pixels")
                } else {
                    format!(
                        "{why}: lone Greek symbols (a calculator's π) are read as Latin letters"
                    )
                },
                format!(
                    "apt-get install {}{}",
                    model.package,
                    if std::env::var_os("TESSDATA_PREFIX").is_some() {
                        ", or point TESSDATA_PREFIX at the folder that holds it"
                    } else {
                        ""
                    }
                ),
            ),
        });
    }
    checks
}

/// Linux's reader is tested against live apps on a private desktop, not against dumps.
pub fn dump_tree(_window: &str) -> anyhow::Result<String> {
    anyhow::bail!(
        "--dump-tree writes what the Windows and macOS readers return, for their tests; on Linux \
         run `deskhand observe` on the window instead and attach its output"
    )
}
