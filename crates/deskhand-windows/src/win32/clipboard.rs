//! The clipboard's text as `CF_UNICODETEXT`. Text is handed to Windows as a block it owns, so it
//! stays on the clipboard after deskhand exits, with no holder process.

use std::time::{Duration, Instant};

use deskhand_core::error::{Error, Result};
use deskhand_core::model::ClipboardContent;
use windows::Win32::Foundation::GlobalFree;
use windows::Win32::Foundation::{HANDLE, HGLOBAL, HWND};
use windows::Win32::System::DataExchange::{
    CloseClipboard, EmptyClipboard, EnumClipboardFormats, GetClipboardData,
    GetClipboardFormatNameW, OpenClipboard, SetClipboardData,
};
use windows::Win32::System::Memory::{GMEM_MOVEABLE, GlobalAlloc, GlobalLock, GlobalUnlock};
use windows::Win32::System::Ole::CF_UNICODETEXT;
use windows::Win32::UI::WindowsAndMessaging::{
    CreateWindowExW, DestroyWindow, HWND_MESSAGE, WINDOW_EX_STYLE, WINDOW_STYLE,
};
use windows::core::w;

/// Another program may hold the clipboard open for a moment (a clipboard manager reading it).
const OPEN_WAIT: Duration = Duration::from_millis(500);

/// The clipboard, open until dropped.
struct Open;

impl Open {
    fn new(owner: Option<HWND>) -> Result<Open> {
        let deadline = Instant::now() + OPEN_WAIT;
        loop {
            // SAFETY: opened here, closed by Drop.
            if unsafe { OpenClipboard(owner) }.is_ok() {
                return Ok(Open);
            }
            if Instant::now() >= deadline {
                return Err(Error::platform(
                    "the clipboard stayed open in another program for half a second, so it \
                     could not be used; try again",
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        // SAFETY: this thread opened the clipboard.
        let _ = unsafe { CloseClipboard() };
    }
}

/// The names of the standard formats (below 0x0200); registered formats are named by Windows.
fn format_name(format: u32) -> String {
    const STANDARD: &[(u32, &str)] = &[
        (1, "CF_TEXT"),
        (2, "CF_BITMAP"),
        (3, "CF_METAFILEPICT"),
        (7, "CF_OEMTEXT"),
        (8, "CF_DIB"),
        (13, "CF_UNICODETEXT"),
        (14, "CF_ENHMETAFILE"),
        (15, "CF_HDROP"),
        (16, "CF_LOCALE"),
        (17, "CF_DIBV5"),
    ];
    if let Some((_, name)) = STANDARD.iter().find(|(id, _)| *id == format) {
        return (*name).into();
    }
    let mut buffer = [0u16; 256];
    // SAFETY: writes at most the buffer's length.
    let length = unsafe { GetClipboardFormatNameW(format, &mut buffer) };
    if length > 0 {
        String::from_utf16_lossy(&buffer[..length as usize])
    } else {
        format!("format {format}")
    }
}

pub fn read() -> Result<ClipboardContent> {
    let _open = Open::new(None)?;
    let mut types = Vec::new();
    let mut format = 0;
    loop {
        // SAFETY: the clipboard is open on this thread.
        format = unsafe { EnumClipboardFormats(format) };
        if format == 0 {
            break;
        }
        types.push(format_name(format));
    }
    // SAFETY: the clipboard is open; the block is locked only while its UTF-16 text, which
    // ends at a NUL, is copied out.
    let text = unsafe {
        match GetClipboardData(CF_UNICODETEXT.0 as u32) {
            Ok(handle) if !handle.is_invalid() => {
                let block = HGLOBAL(handle.0);
                let start = GlobalLock(block) as *const u16;
                if start.is_null() {
                    None
                } else {
                    let mut length = 0;
                    while *start.add(length) != 0 {
                        length += 1;
                    }
                    let text = String::from_utf16_lossy(std::slice::from_raw_parts(start, length));
                    let _ = GlobalUnlock(block);
                    Some(text)
                }
            }
            _ => None,
        }
    };
    Ok(ClipboardContent { text, types })
}

pub fn write(text: &str) -> Result<()> {
    let units: Vec<u16> = text.encode_utf16().chain(std::iter::once(0)).collect();
    let fail =
        |what: &str| Error::platform(format!("writing the clipboard failed: {what}; try again"));
    // SAFETY: a message-only window owns the clipboard while it is set (SetClipboardData fails
    // for an owner of none) and is destroyed after; the block is filled while locked and
    // handed to the clipboard, which then owns it, or freed when that fails.
    unsafe {
        let owner = CreateWindowExW(
            WINDOW_EX_STYLE(0),
            w!("STATIC"),
            w!("deskhand clipboard"),
            WINDOW_STYLE(0),
            0,
            0,
            0,
            0,
            Some(HWND_MESSAGE),
            None,
            None,
            None,
        )
        .map_err(|_| fail("Windows refused a window to own it"))?;
        let result = (|| {
            let _open = Open::new(Some(owner))?;
            EmptyClipboard().map_err(|_| fail("Windows refused to empty it"))?;
            let block = GlobalAlloc(GMEM_MOVEABLE, units.len() * 2)
                .map_err(|_| fail("no memory for the text"))?;
            let start = GlobalLock(block) as *mut u16;
            if start.is_null() {
                let _ = GlobalFree(Some(block));
                return Err(fail("no memory for the text"));
            }
            std::ptr::copy_nonoverlapping(units.as_ptr(), start, units.len());
            let _ = GlobalUnlock(block);
            if SetClipboardData(CF_UNICODETEXT.0 as u32, Some(HANDLE(block.0))).is_err() {
                let _ = GlobalFree(Some(block));
                return Err(fail("Windows refused the text"));
            }
            Ok(())
        })();
        let _ = DestroyWindow(owner);
        result
    }
}
