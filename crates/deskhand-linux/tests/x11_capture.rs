//! The two ways a capture comes from the X server give the same bytes: through memory shared
//! with it (MIT-SHM) and over the socket. Two private Xvfb servers, one without MIT-SHM, show
//! the same pattern drawn on their root windows.
//!
//! Needs Xvfb (the test says so when it is missing).
#![cfg(target_os = "linux")]

mod common;

use std::process::Child;

use deskhand_linux::x11::{X11, XRect};
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::shm;
use x11rb::protocol::xproto::{ConnectionExt as _, CreateGCAux, ImageFormat};
use x11rb::rust_connection::RustConnection;

/// An Xvfb server, killed when dropped (also when an assertion panics).
struct Server {
    display: String,
    process: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Xvfb on the first free display from `first`, with `args` added.
fn start_xvfb(first: u32, args: &[&str]) -> Server {
    let (display, process, ()) = common::start_xvfb(first, "640x480x24", args, |display| {
        RustConnection::connect(Some(display)).ok().map(|_| ())
    });
    Server { display, process }
}

const WIDTH: u16 = 256;
const HEIGHT: u16 = 96;
const AT: (i16, i16) = (40, 30);

/// The red, green and blue of the pattern at (x, y): every channel changes across it, each
/// its own way, so a swapped channel or a shifted row shows.
fn pattern(x: u16, y: u16) -> [u8; 3] {
    let (x, y) = (x as u32, y as u32);
    [x as u8, (y * 2 + x / 2) as u8, (255 - x + y * 3) as u8]
}

/// Draws the pattern on the root window of `display` with PutImage, and waits for the server
/// to have done it. Returns whether the server offers MIT-SHM.
fn draw(display: &str) -> bool {
    let (conn, screen_num) = RustConnection::connect(Some(display)).expect("connecting");
    let screen = &conn.setup().roots[screen_num];
    assert_eq!(screen.root_depth, 24, "Xvfb was asked for a 24-bit screen");
    let gc = conn.generate_id().expect("an id");
    conn.create_gc(gc, screen.root, &CreateGCAux::new())
        .expect("create_gc");
    // A 24-bit ZPixmap on Xvfb is 32 bits a pixel, least significant byte first: blue,
    // green, red, pad.
    let mut data = Vec::with_capacity(usize::from(WIDTH) * usize::from(HEIGHT) * 4);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let [r, g, b] = pattern(x, y);
            data.extend_from_slice(&[b, g, r, 0]);
        }
    }
    conn.put_image(
        ImageFormat::Z_PIXMAP,
        screen.root,
        gc,
        WIDTH,
        HEIGHT,
        AT.0,
        AT.1,
        0,
        24,
        &data,
    )
    .expect("put_image")
    .check()
    .expect("the server drew the pattern");
    conn.get_input_focus()
        .expect("a round trip")
        .reply()
        .expect("the server answered");
    conn.extension_information(shm::X11_EXTENSION_NAME)
        .expect("asking for MIT-SHM")
        .is_some()
}

/// Descriptors this process holds open on capture segments in /dev/shm.
fn capture_segments() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| {
            target
                .to_string_lossy()
                .starts_with("/dev/shm/deskhand-capture-")
        })
        .count()
}

#[test]
fn a_capture_through_shared_memory_is_the_same_as_one_over_the_socket() {
    let first = 400 + std::process::id() % 200;
    let shared = start_xvfb(first, &[]);
    let socket = start_xvfb(first + 100, &["-extension", "MIT-SHM"]);
    assert!(draw(&shared.display), "Xvfb offers MIT-SHM");
    assert!(
        !draw(&socket.display),
        "Xvfb started without MIT-SHM offers none"
    );
    // The pattern and some of the root's own background around it.
    let region = XRect {
        x: i32::from(AT.0) - 8,
        y: i32::from(AT.1) - 5,
        width: u32::from(WIDTH) + 16,
        height: u32::from(HEIGHT) + 10,
    };
    let before = capture_segments();
    let memory = X11::connect_to(&shared.display).expect("connecting");
    let through_memory = memory
        .capture(region)
        .expect("capturing through shared memory");
    assert_eq!(
        capture_segments(),
        before + 1,
        "the capture went through a segment in /dev/shm"
    );
    drop(memory);
    let over_socket = X11::connect_to(&socket.display)
        .expect("connecting")
        .capture(region)
        .expect("capturing over the socket");
    assert_eq!(
        capture_segments(),
        before,
        "a capture over the socket holds no segment, and one goes with its connection"
    );
    assert_eq!(
        (through_memory.width, through_memory.height),
        (region.width, region.height)
    );
    assert!(
        through_memory == over_socket,
        "the two captures differ in {} of {} bytes",
        through_memory
            .data
            .iter()
            .zip(&over_socket.data)
            .filter(|(a, b)| a != b)
            .count(),
        through_memory.data.len()
    );
    // And both are the pattern where it was drawn.
    let stride = region.width as usize * 3;
    for (y, x) in [(0, 0), (17, 200), (95, 255), (50, 128)] {
        let at = (y + 5) * stride + (x + 8) * 3;
        assert_eq!(
            through_memory.data[at..at + 3],
            pattern(x as u16, y as u16),
            "at {x},{y} of the pattern"
        );
    }
}
