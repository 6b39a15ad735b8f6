//! Pixels: the screen through `BitBlt` from its device context, or one window through
//! `PrintWindow`, which has the window paint itself and so sees it when others cover it.
//! Both are read back with `GetDIBits` as top-down 32-bit rows, BGRX, and made RGB.

use deskhand_core::error::{Error, Result};
use deskhand_core::model::{Rect, RgbImage};
use windows::Win32::Foundation::HWND;
use windows::Win32::Graphics::Gdi::{
    BI_RGB, BITMAPINFO, BITMAPINFOHEADER, BitBlt, CAPTUREBLT, CreateCompatibleBitmap,
    CreateCompatibleDC, DIB_RGB_COLORS, DeleteDC, DeleteObject, GetDC, GetDIBits, HDC, ReleaseDC,
    SRCCOPY, SelectObject,
};
use windows::Win32::Storage::Xps::{PRINT_WINDOW_FLAGS, PW_CLIENTONLY, PrintWindow};

/// `PW_RENDERFULLCONTENT`: windows drawn by DirectComposition (browsers, store apps) paint
/// their content too, not a black rectangle. Not in the metadata's flag set.
const PW_RENDERFULLCONTENT: u32 = 2;

/// Paints `width`×`height` pixels into a memory bitmap with `paint` and reads them back.
fn read_pixels(width: u32, height: u32, paint: impl FnOnce(HDC, HDC) -> bool) -> Result<RgbImage> {
    let fail = || {
        Error::platform(
            "capturing the screen failed: Windows refused the drawing surface (the desktop may \
             be locked or the session disconnected); try again",
        )
    };
    // SAFETY: every GDI object made here is selected out and deleted before returning; the
    // pixel buffer has room for width × height 32-bit pixels, the format passed to GetDIBits.
    unsafe {
        let screen = GetDC(None);
        if screen.is_invalid() {
            return Err(fail());
        }
        let memory = CreateCompatibleDC(Some(screen));
        let bitmap = CreateCompatibleBitmap(screen, width as i32, height as i32);
        let previous = SelectObject(memory, bitmap.into());
        let painted = paint(memory, screen);
        SelectObject(memory, previous);
        let mut info = BITMAPINFO {
            bmiHeader: BITMAPINFOHEADER {
                biSize: size_of::<BITMAPINFOHEADER>() as u32,
                biWidth: width as i32,
                // Negative: rows top to bottom.
                biHeight: -(height as i32),
                biPlanes: 1,
                biBitCount: 32,
                biCompression: BI_RGB.0,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut bgrx = vec![0u8; width as usize * height as usize * 4];
        let rows = GetDIBits(
            memory,
            bitmap,
            0,
            height,
            Some(bgrx.as_mut_ptr().cast()),
            &mut info,
            DIB_RGB_COLORS,
        );
        let _ = DeleteObject(bitmap.into());
        let _ = DeleteDC(memory);
        ReleaseDC(None, screen);
        if !painted || rows != height as i32 {
            return Err(fail());
        }
        let data = bgrx
            .chunks_exact(4)
            .flat_map(|pixel| [pixel[2], pixel[1], pixel[0]])
            .collect();
        Ok(RgbImage {
            width,
            height,
            data,
        })
    }
}

/// The pixels of a screen rectangle, clipped to `screen`.
pub fn capture(rect: Rect, screen: Rect) -> Result<RgbImage> {
    let Some(rect) = rect.intersect(&screen) else {
        return Err(Error::bad_argument(
            "the rectangle to capture lies outside the screen; capture a part of the screen",
        ));
    };
    read_pixels(rect.width, rect.height, |memory, screen| {
        // SAFETY: both device contexts are live for the call; CAPTUREBLT includes layered
        // windows (tooltips, menus with shadows).
        unsafe {
            BitBlt(
                memory,
                0,
                0,
                rect.width as i32,
                rect.height as i32,
                Some(screen),
                rect.x,
                rect.y,
                SRCCOPY | CAPTUREBLT,
            )
        }
        .is_ok()
    })
}

/// The client area of one window as it paints itself, whatever covers it.
pub fn capture_window(window: HWND, client: Rect) -> Result<RgbImage> {
    read_pixels(client.width, client.height, |memory, _| {
        // SAFETY: the memory DC is live; a window that is gone makes the call fail.
        unsafe {
            PrintWindow(
                window,
                memory,
                PRINT_WINDOW_FLAGS(PW_CLIENTONLY.0 | PW_RENDERFULLCONTENT),
            )
        }
        .as_bool()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use windows::Win32::Foundation::{COLORREF, LPARAM, LRESULT, RECT, WPARAM};
    use windows::Win32::Graphics::Gdi::{CreateSolidBrush, DeleteObject, FillRect};
    use windows::Win32::UI::WindowsAndMessaging::{
        CreateWindowExW, DefWindowProcW, DestroyWindow, RegisterClassW, WINDOW_EX_STYLE,
        WM_PRINTCLIENT, WNDCLASSW, WS_OVERLAPPEDWINDOW, WS_VISIBLE,
    };
    use windows::core::w;

    /// Paints its whole client area green when asked to print it, and nothing else.
    extern "system" fn green(
        window: HWND,
        message: u32,
        wparam: WPARAM,
        lparam: LPARAM,
    ) -> LRESULT {
        if message == WM_PRINTCLIENT {
            // SAFETY: PrintWindow passes a live device context in wparam.
            unsafe {
                let brush = CreateSolidBrush(COLORREF(0x0000_FF00));
                FillRect(
                    HDC(wparam.0 as *mut _),
                    &RECT {
                        left: 0,
                        top: 0,
                        right: 50,
                        bottom: 40,
                    },
                    brush,
                );
                let _ = DeleteObject(brush.into());
            }
            return LRESULT(0);
        }
        // SAFETY: the default handling of this window's own message.
        unsafe { DefWindowProcW(window, message, wparam, lparam) }
    }

    /// Runs under Wine in scripts/wine-test. Wine paints only into device contexts of the
    /// process that asks, so the window is this test's own.
    #[test]
    fn print_window_reads_the_pixels_a_window_paints_for_itself() {
        // SAFETY: a window class and window of this thread, destroyed at the end.
        unsafe {
            let class = WNDCLASSW {
                lpfnWndProc: Some(green),
                lpszClassName: w!("DeskhandCaptureTest"),
                ..Default::default()
            };
            RegisterClassW(&class);
            let window = CreateWindowExW(
                WINDOW_EX_STYLE(0),
                w!("DeskhandCaptureTest"),
                w!("capture test"),
                WS_OVERLAPPEDWINDOW | WS_VISIBLE,
                50,
                50,
                300,
                200,
                None,
                None,
                None,
                None,
            )
            .expect("a window");
            let image = capture_window(window, Rect::new(0, 0, 50, 40));
            let _ = DestroyWindow(window);
            let image = image.expect("a capture");
            assert_eq!((image.width, image.height), (50, 40));
            assert!(
                image.data.chunks(3).all(|pixel| pixel == [0, 255, 0]),
                "the window's own green, not what the screen shows"
            );
        }
    }
}
