//! What the crate's X11 test binaries share: a private Xvfb server of their own.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// An Xvfb server on the first free display from `first`, sized `screen` (`1920x1080x24`), with
/// `args` added, once `ready` connects to it: the display's name, the server, and what `ready`
/// made of it. Parallel runs take different displays: a number in use, or lost in a race with
/// another run, is skipped.
pub fn start_xvfb<T>(
    first: u32,
    screen: &str,
    args: &[&str],
    mut ready: impl FnMut(&str) -> Option<T>,
) -> (String, Child, T) {
    deskhand_linux::desktop::make_x11_socket_dir(Path::new("/tmp"))
        .unwrap_or_else(|e| panic!("{e}"));
    for n in first..first + 100 {
        if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            || Path::new(&format!("/tmp/.X{n}-lock")).exists()
        {
            continue;
        }
        let display = format!(":{n}");
        let mut process = Command::new("Xvfb")
            .args([&display, "-screen", "0", screen, "-nolisten", "tcp"])
            // Else the server resets as its last client leaves, and what it drew is gone.
            .arg("-noreset")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("could not start Xvfb: {e}; install the xvfb package"));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if process.try_wait().ok().flatten().is_some() {
                break; // lost a race for this display number
            }
            if let Some(made) = ready(&display) {
                return (display, process, made);
            }
            sleep(Duration::from_millis(50));
        }
        let _ = process.kill();
        let _ = process.wait();
    }
    panic!(
        "found no free X display between :{first} and :{}",
        first + 99
    );
}
