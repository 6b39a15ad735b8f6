//! deskhand: an MCP server and a CLI that give an agent eyes and hands on a real desktop.

mod args;
mod cli;
#[cfg(target_os = "linux")]
mod desktop_cmd;
mod doctor;
mod own_desktop;
mod person;
mod platform;
mod recording;
mod safety;
mod serve;

use std::process::ExitCode;

use args::Invocation;

fn main() -> ExitCode {
    // Text Input Sources answer on the main thread only, so on macOS the main thread serves the
    // main queue and the program runs beside it.
    #[cfg(target_os = "macos")]
    deskhand_macos::serve_main_queue_while(run);
    #[cfg(not(target_os = "macos"))]
    ExitCode::from(run())
}

/// The program, returning its exit code.
fn run() -> u8 {
    // A long-lived server runs X calls on a pool whose threads come and go; glibc gives each new
    // thread its own heap arena, and the memory of arenas is rarely handed back. Two arenas keep
    // the server's footprint flat over thousands of calls.
    // SAFETY: called first thing, before any other thread exists or allocates.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    // Tesseract's OpenMP reads OMP_THREAD_LIMIT once, when the library is loaded for the first
    // read of pixels, and on a machine with few cores it reads a window 1.5-2.5x faster on one
    // thread than on all: so it is set here, unless the user set it.
    #[cfg(target_os = "linux")]
    if std::env::var_os("OMP_THREAD_LIMIT").is_none() {
        // SAFETY: called before any other thread exists that could read the environment.
        unsafe {
            std::env::set_var("OMP_THREAD_LIMIT", "1");
            std::env::set_var(deskhand_linux::launch::OWN_THREAD_LIMIT, "1");
        }
    }
    // Not a user command, so not in the help: `write_clipboard` runs the binary this way to hold
    // the text.
    #[cfg(target_os = "linux")]
    if std::env::args_os().nth(1).as_deref()
        == Some(std::ffi::OsStr::new(deskhand_linux::CLIPBOARD_HOLDER_ARG))
    {
        return report(
            deskhand_linux::serve_clipboard()
                .map(|()| 0)
                .map_err(Into::into),
        );
    }
    let invocation = args::parse(std::env::args_os());
    if let Ok(invocation) = &invocation {
        find_own_desktop(invocation);
    }
    match invocation {
        // Help and version are "errors" to clap too, printed to stdout with exit 0.
        Err(err) => {
            let _ = err.print();
            u8::try_from(err.exit_code()).unwrap_or(2)
        }
        Ok(Invocation::Help(help)) => {
            print!("{help}");
            0
        }
        Ok(Invocation::Mcp(mcp)) => report(cli::mcp(*mcp)),
        #[cfg(target_os = "linux")]
        Ok(Invocation::Desktop(command)) => report(desktop_cmd::run(command)),
        #[cfg(not(target_os = "linux"))]
        Ok(Invocation::Desktop(_)) => report(Err(anyhow::anyhow!(
            "`deskhand desktop` starts a private X11 desktop, which only Linux has"
        ))),
        #[cfg(target_os = "linux")]
        Ok(Invocation::GnomeExtension(args::GnomeExtensionCommand::Install { shell_version })) => {
            report(desktop_cmd::install_gnome_extension(shell_version))
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Invocation::GnomeExtension(_)) => report(Err(anyhow::anyhow!(
            "`deskhand gnome-extension` installs an extension for GNOME Shell, which runs on Linux only"
        ))),
        Ok(Invocation::Doctor {
            dump_tree: Some(window),
            ..
        }) => report(doctor::dump_tree(&window)),
        Ok(Invocation::Doctor { json, safety, .. }) => report(doctor::command(json, &safety)),
        Ok(Invocation::Completions(shell)) => {
            clap_complete::generate(
                shell,
                &mut args::command(),
                "deskhand",
                &mut std::io::stdout(),
            );
            0
        }
        Ok(Invocation::Man) => {
            report(
                clap_mangen::Man::new(args::command().about(
                    "eyes and hands on a real desktop for AI agents: an MCP server and a CLI",
                ))
                .render(&mut std::io::stdout())
                .map(|()| 0)
                .map_err(Into::into),
            )
        }
        Ok(Invocation::Action(call)) => report(cli::action(call)),
        Ok(Invocation::Replay(replay)) => report(recording::replay(replay)),
        Ok(Invocation::Report { dir, output }) => report(recording::report(&dir, output)),
    }
}

/// What acts on the user's desktop finds the session its environment lacks (an MCP client
/// passes little more than `HOME` and `PATH`); what starts a private desktop needs none.
fn find_own_desktop(invocation: &Invocation) {
    let choice = match invocation {
        Invocation::Mcp(mcp) if !mcp.headless && !mcp.serve.desktop_per_session => {
            mcp.safety.session.clone()
        }
        Invocation::Action(call) => call.options.safety.session.clone(),
        Invocation::Doctor { safety, .. } => safety.session.clone(),
        Invocation::Replay(replay) => replay.safety.session.clone(),
        _ => return,
    };
    own_desktop::apply(choice);
}

/// Setup failures (no display, no bus) print as one sentence and exit 1.
fn report(result: anyhow::Result<u8>) -> u8 {
    result.unwrap_or_else(|err| {
        eprintln!("deskhand: {err:#}");
        1
    })
}
