//! A wedged X server costs the overlay's and the person watch's setup their deadline, never a
//! hung start. Xvfb stopped with SIGSTOP is one: the kernel still accepts connections on its
//! socket, and nothing answers them.

mod common;

use std::process::Child;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use deskhand_core::person::Presence;
use deskhand_linux::x11::X11;
use deskhand_linux::{overlay, person};

/// The setup deadline, and what a start may take beyond it.
const DEADLINE: Duration = Duration::from_secs(5);
const MARGIN: Duration = Duration::from_secs(2);

/// Starts the overlay or the watch, and says why it did not.
type Starter = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// The X server, stopped while held and ended on drop, also when an assertion panics.
struct Server(Child);

impl Server {
    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill has no memory-safety preconditions; the pid is a child this test started.
        let sent = unsafe { libc::kill(self.0.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0, "kill({}, {signal}) failed", self.0.id());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_overlay_and_the_watch_give_up_on_an_x_server_that_does_not_answer() {
    let first = 400 + std::process::id() % 200;
    let (display, xvfb, x11) = common::start_xvfb(first, "1280x800x24", &[], |display| {
        X11::connect_to(display).ok()
    });
    let server = Server(xvfb);
    let x11 = Arc::new(x11);
    let presence = || Arc::new(Presence::new(Duration::from_secs(1)));

    // On a live server both start.
    overlay::x11::start(&display, true, Arc::clone(&x11)).expect("the overlay on a live server");
    person::x11::start(&display, presence(), Arc::clone(&x11)).expect("the watch on a live server");

    server.signal(libc::SIGSTOP);
    let (told, starts) = mpsc::channel();
    let starters: [(&str, Starter); 2] = [
        ("overlay", {
            let (display, x11) = (display.clone(), Arc::clone(&x11));
            Box::new(move || {
                overlay::x11::start(&display, true, x11)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
        }),
        ("watch", {
            let (display, x11) = (display.clone(), Arc::clone(&x11));
            let presence = presence();
            Box::new(move || person::x11::start(&display, presence, x11).map_err(|e| e.to_string()))
        }),
    ];
    for (what, starter) in starters {
        let told = told.clone();
        std::thread::spawn(move || {
            let began = Instant::now();
            let started = starter();
            let _ = told.send((what, began.elapsed(), started));
        });
    }
    for _ in 0..2 {
        let (what, took, started) = starts
            .recv_timeout(DEADLINE + MARGIN * 3)
            .expect("a setup hung on an X server that does not answer");
        let why = started.expect_err("a setup succeeded on a stopped X server");
        assert!(took < DEADLINE + MARGIN, "the {what} took {took:?}: {why}");
        assert!(
            why.contains(&format!("the X server on {display} did not answer"))
                && why.contains("within 5 s")
                && why.contains("check that the display is alive"),
            "the {what}: {why}"
        );
    }
}
