//! `deskhand desktop ...`: bring a private headless desktop up and down from a shell.

use std::path::PathBuf;

use anyhow::Context as _;
use deskhand_linux::desktop::{self, StartOptions};

use crate::args::{DesktopCommand, WaylandCompositor};

/// Runs a `desktop` subcommand and returns the process exit code.
pub fn run(command: DesktopCommand) -> anyhow::Result<u8> {
    match command {
        DesktopCommand::Start {
            size,
            owner_pid,
            json,
            wayland,
            monitors,
        } => start(size, owner_pid, json, wayland, monitors),
        DesktopCommand::Stop { state } => stop(state),
        DesktopCommand::Watch { owner_pid, state } => desktop::watch(owner_pid, &state),
        DesktopCommand::Listen => listen(),
    }
}

fn listen() -> anyhow::Result<u8> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime failed")?;
    runtime
        .block_on(desktop::hold_accessibility_listener())
        .context("listening for accessibility changes failed")?;
    Ok(0)
}

/// The desktop module's name for a compositor the command line names.
pub fn compositor(wayland: WaylandCompositor) -> desktop::Compositor {
    match wayland {
        WaylandCompositor::Sway => desktop::Compositor::Sway,
        WaylandCompositor::Gnome => desktop::Compositor::Gnome,
    }
}

fn start(
    size: Option<(u32, u32)>,
    owner_pid: Option<u32>,
    json: bool,
    wayland: Option<WaylandCompositor>,
    monitors: u32,
) -> anyhow::Result<u8> {
    let mut opts = StartOptions {
        accessibility_listener: true,
        owner_pid,
        wayland: wayland.map(compositor),
        monitors,
        ..StartOptions::default()
    };
    if let Some((width, height)) = size {
        opts.width = width;
        opts.height = height;
    }
    let desktop = desktop::start(&opts)?;
    if json {
        let mut json = serde_json::json!({
            "display": desktop.display,
            "env": desktop
                .env
                .iter()
                .map(|(key, value)| (key.clone(), serde_json::Value::from(value.as_str())))
                .collect::<serde_json::Map<_, _>>(),
            "unset": desktop.unset,
            "state_file": desktop.state_file,
        });
        // Whom apps on a Wayland desktop must run as, when that is not the caller.
        if let Some((uid, gid)) = desktop.user {
            json["user"] = serde_json::json!({"uid": uid, "gid": gid});
        }
        println!("{json}");
    } else {
        print!("{}", desktop.export_lines());
    }
    Ok(0)
}

fn stop(state: Option<PathBuf>) -> anyhow::Result<u8> {
    let state_file = match state {
        Some(state) => state,
        None => std::env::var_os("DESKHAND_DESKTOP").map(PathBuf::from).context(
            "no desktop to stop: DESKHAND_DESKTOP is not set; pass --state FILE with the DESKHAND_DESKTOP value that `deskhand desktop start` printed, or run `eval \"$(deskhand desktop start)\"` in this shell first",
        )?,
    };
    desktop::stop(&state_file)?;
    Ok(0)
}

/// Writes deskhand's GNOME Shell extension for this user and turns it on; says what the user
/// must still do, since GNOME on Wayland loads a new extension only at log-in.
pub fn install_gnome_extension(shell_version: Option<u32>) -> anyhow::Result<u8> {
    use deskhand_linux::gnome::extension::{self, Extension};
    let major = match shell_version {
        Some(major) => major,
        None => {
            let out = std::process::Command::new("gnome-shell")
                .arg("--version")
                .output()
                .context(
                    "running `gnome-shell --version` to learn which extension form to write; give the version with `--shell-version N`",
                )?;
            extension::shell_major(&String::from_utf8_lossy(&out.stdout))?
        }
    };
    let data_home = extension::data_home().context(
        "neither XDG_DATA_HOME nor HOME is set, so there is no folder for the extension; set HOME",
    )?;
    let dir = Extension::for_shell(major)?.install(&data_home)?;
    println!(
        "wrote deskhand's GNOME Shell extension for GNOME Shell {major} into {}",
        dir.display()
    );
    match extension::enable() {
        Ok(true) => println!("turned it on in org.gnome.shell enabled-extensions"),
        Ok(false) => println!("it was turned on already"),
        Err(err) => println!("{err}"),
    }
    println!(
        "next: log out and back in (GNOME on Wayland loads a new extension only at log-in; on an X11 session, Alt+F2 then `r` restarts the shell instead), then check with `deskhand windows`"
    );
    Ok(0)
}
