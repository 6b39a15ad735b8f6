//! deskhand: an MCP server and a CLI that give an agent eyes and hands on a real desktop.

mod cli;
#[cfg(target_os = "linux")]
mod desktop_cmd;
mod platform;
mod safety;

use std::process::ExitCode;

fn main() -> ExitCode {
    // A long-lived server runs X calls on a pool whose threads come and go; glibc gives each new
    // thread its own heap arena, and the memory of arenas is rarely handed back. Two arenas keep
    // the server's footprint flat over thousands of calls.
    // SAFETY: called first thing, before any other thread exists or allocates.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            print!("{}", cli::USAGE);
            0
        }
        Some("-V" | "--version") => {
            println!("deskhand {}", env!("CARGO_PKG_VERSION"));
            0
        }
        #[cfg(target_os = "linux")]
        Some("desktop") => report(desktop_cmd::run(&args[1..])),
        #[cfg(not(target_os = "linux"))]
        Some("desktop") => report(Err(anyhow::anyhow!(
            "`deskhand desktop` starts a private X11 desktop, which only Linux has"
        ))),
        Some("mcp") => report(cli::mcp(&args[1..])),
        // Not a user command: `write_clipboard` runs the binary this way to hold the text.
        #[cfg(target_os = "linux")]
        Some(deskhand_linux::CLIPBOARD_HOLDER_ARG) => report(
            deskhand_linux::serve_clipboard()
                .map(|()| 0)
                .map_err(Into::into),
        ),
        Some(_) => report(cli::action(&args)),
    };
    ExitCode::from(code)
}

/// Setup failures (no display, no bus) print as one sentence and exit 1.
fn report(result: anyhow::Result<u8>) -> u8 {
    result.unwrap_or_else(|err| {
        eprintln!("deskhand: {err:#}");
        1
    })
}
