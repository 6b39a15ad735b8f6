//! The X server's side of a desktop: a free display number, its socket directory and its
//! authority cookie.

use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use x11rb::rust_connection::{DefaultStream, RustConnection};

use super::*;

pub(super) const FIRST_DISPLAY: u32 = 99;

pub(super) const LAST_DISPLAY: u32 = 999;

pub(super) const COOKIE_PROTOCOL: &str = "MIT-MAGIC-COOKIE-1";

pub(super) fn display_in_use(tmp: &Path, number: u32) -> bool {
    tmp.join(format!(".X11-unix/X{number}")).exists()
        || tmp.join(format!(".X{number}-lock")).exists()
}

/// Claims the first display from `first` that has no X server and no deskhand directory, by
/// creating that directory: `mkdir` is atomic, so concurrent starts never share a display.
pub(super) fn claim_display(tmp: &Path, first: u32) -> Result<(u32, PathBuf), DesktopError> {
    for number in first..=LAST_DISPLAY {
        if display_in_use(tmp, number) {
            continue;
        }
        let dir = tmp.join(format!("{DIR_PREFIX}{number}"));
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok((number, dir)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(cause) => {
                return Err(DesktopError::Io {
                    action: format!("create the desktop directory {}", dir.display()),
                    hint: "check that /tmp exists and is writable",
                    cause,
                });
            }
        }
    }
    Err(DesktopError::NoFreeDisplay {
        first: FIRST_DISPLAY,
        last: LAST_DISPLAY,
    })
}

/// Makes the directory X servers put their sockets in (`.X11-unix` under `tmp`), as they make it
/// (writable by all, sticky), when no server has yet. Call it before starting an X server: each
/// server makes it itself when it is missing, but two starting at once race for it, and the one
/// that finds it made between its look and its `mkdir` gives up its socket there and never
/// accepts a connection (seen on a fresh machine, where the test binaries' first desktops all
/// start together).
pub fn make_x11_socket_dir(tmp: &Path) -> Result<(), DesktopError> {
    let dir = tmp.join(".X11-unix");
    let made = match fs::create_dir(&dir) {
        Ok(()) => fs::set_permissions(&dir, fs::Permissions::from_mode(0o1777)),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(err),
    };
    made.map_err(|cause| DesktopError::Io {
        action: format!("create the X socket directory {}", dir.display()),
        hint: "check that /tmp exists and is writable",
        cause,
    })
}

/// An Xauthority entry of family Wild, which matches any host name: the hostname-bound entry
/// `xauth add` writes stops matching if the hostname changes under a container.
pub(super) fn xauthority_entry(number: u32, cookie: &[u8]) -> Vec<u8> {
    const FAMILY_WILD: u16 = 0xffff;
    let mut entry = FAMILY_WILD.to_be_bytes().to_vec();
    let display = number.to_string();
    for field in [
        &[][..],
        display.as_bytes(),
        COOKIE_PROTOCOL.as_bytes(),
        cookie,
    ] {
        let len = u16::try_from(field.len()).expect("Xauthority fields are short");
        entry.extend_from_slice(&len.to_be_bytes());
        entry.extend_from_slice(field);
    }
    entry
}

pub(super) fn random_cookie() -> io::Result<[u8; 16]> {
    let mut cookie = [0; 16];
    File::open("/dev/urandom")?.read_exact(&mut cookie)?;
    Ok(cookie)
}

pub(super) fn connect_x11(socket: &Path, cookie: &[u8]) -> Option<RustConnection> {
    let stream = UnixStream::connect(socket).ok()?;
    let (stream, _) = DefaultStream::from_unix_stream(stream).ok()?;
    RustConnection::connect_to_stream_with_auth_info(
        stream,
        0,
        COOKIE_PROTOCOL.as_bytes().to_vec(),
        cookie.to_vec(),
    )
    .ok()
}
