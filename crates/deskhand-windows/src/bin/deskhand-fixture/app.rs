use std::fs::File;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use windows::Win32::Foundation::{COLORREF, HWND, LPARAM, LRESULT, RECT, WPARAM};
use windows::Win32::Graphics::Gdi::{
    BeginPaint, COLOR_WINDOW, CreateSolidBrush, DeleteObject, EndPaint, FillRect, GetSysColorBrush,
    HDC, PAINTSTRUCT,
};
use windows::Win32::System::Com::{
    CLSCTX_INPROC_SERVER, COINIT_APARTMENTTHREADED, CoCreateInstance, CoInitializeEx, IPersistFile,
};
use windows::Win32::System::LibraryLoader::{
    FindResourceW, GetModuleHandleW, LOAD_LIBRARY_AS_DATAFILE, LOAD_LIBRARY_AS_IMAGE_RESOURCE,
    LoadLibraryExW, LoadResource, LockResource, SizeofResource,
};
use windows::Win32::UI::Input::KeyboardAndMouse::SetFocus;
use windows::Win32::UI::Shell::{IShellLinkW, ShellLink};
use windows::Win32::UI::WindowsAndMessaging::*;
use windows::core::{HSTRING, Interface, PCWSTR, w};

/// Client-area place of the red block the capture tests look for.
const RED_BLOCK: RECT = RECT {
    left: 300,
    top: 120,
    right: 400,
    bottom: 220,
};

const MENU_NEW: u16 = 101;
const MENU_DIALOG: u16 = 102;
const MENU_EXIT: u16 = 103;
const ACCEL_SAVE: u16 = 104;
const ACCEL_SAVE_AS: u16 = 105;
pub(crate) const BUTTON_PRESS: u16 = 201;
const BUTTON_DIALOG: u16 = 202;
const CHECK_REMEMBER: u16 = 203;
pub(crate) const EDIT: u16 = 204;
pub(crate) const LIST: u16 = 205;
pub(crate) const BUTTON_ADD_ROW: u16 = 206;

/// Asks the window's thread to focus its control with the id in wParam (a UI Automation
/// provider's SetFocus, which may run on another thread).
pub(crate) const WM_FOCUS_CONTROL: u32 = WM_APP + 1;

static LOG: Mutex<Option<File>> = Mutex::new(None);

/// `--uia`: the window answers UI Automation with providers of its own (see `uia`).
static SERVES_UIA: AtomicBool = AtomicBool::new(false);

pub(crate) fn log(line: &str) {
    if let Some(file) = LOG.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
        let _ = writeln!(file, "{line}");
        let _ = file.flush();
    }
}

pub(crate) fn text_of(window: HWND) -> String {
    // SAFETY: the buffer's length goes with it.
    unsafe {
        let mut buffer = vec![0u16; GetWindowTextLengthW(window).max(0) as usize + 1];
        let length = GetWindowTextW(window, &mut buffer);
        String::from_utf16_lossy(&buffer[..length.max(0) as usize])
    }
}

pub(crate) fn child(parent: HWND, id: u16) -> HWND {
    // SAFETY: a lookup among the window's children.
    unsafe { GetDlgItem(Some(parent), id as i32) }.unwrap_or_default()
}

fn paint(hdc: HDC) {
    // SAFETY: a brush made and deleted here, drawn into a live device context.
    unsafe {
        let red = CreateSolidBrush(COLORREF(0x0000_00FF));
        FillRect(hdc, &RED_BLOCK, red);
        let _ = DeleteObject(red.into());
    }
}

/// `wparam` holds MK_CONTROL (0x8) and MK_SHIFT (0x4) while those keys are down.
fn mouse(what: &str, wparam: WPARAM, lparam: LPARAM) {
    let (x, y) = (
        (lparam.0 & 0xFFFF) as i16 as i32,
        ((lparam.0 >> 16) & 0xFFFF) as i16 as i32,
    );
    let mut held = Vec::new();
    if wparam.0 & 0x0008 != 0 {
        held.push("ctrl");
    }
    if wparam.0 & 0x0004 != 0 {
        held.push("shift");
    }
    log(&format!("mouse {what} {x},{y} held={}", held.join("+")));
}

fn command(window: HWND, id: u16, code: u32) {
    match (id, code) {
        (MENU_NEW, _) => log("menu New"),
        (MENU_DIALOG, _) | (BUTTON_DIALOG, BN_CLICKED) => {
            log("dialog opened");
            // SAFETY: a modal message box owned by the window.
            let result = unsafe {
                MessageBoxW(
                    Some(window),
                    w!("A modal dialog"),
                    w!("Fixture dialog"),
                    MB_OKCANCEL,
                )
            };
            log(&format!("dialog closed result={}", result.0));
        }
        (MENU_EXIT, _) => {
            // SAFETY: the window is alive: this is its own message.
            let _ = unsafe { DestroyWindow(window) };
        }
        (ACCEL_SAVE, _) => log("accelerator ctrl+s"),
        (ACCEL_SAVE_AS, _) => log("accelerator ctrl+shift+s"),
        (BUTTON_PRESS, BN_CLICKED) => log("button Press me clicked"),
        (BUTTON_ADD_ROW, BN_CLICKED) => {
            // Above every row: each row's index, and so its runtime id, moves down by one.
            let row = HSTRING::from("Aardvark");
            // SAFETY: a string for the call's length, into the window's own list.
            unsafe {
                SendMessageW(
                    child(window, LIST),
                    LB_INSERTSTRING,
                    Some(WPARAM(0)),
                    Some(LPARAM(row.as_ptr() as isize)),
                )
            };
            log("row added Aardvark");
        }
        (CHECK_REMEMBER, BN_CLICKED) => {
            // SAFETY: a state query on the window's own check box.
            let checked =
                unsafe { SendMessageW(child(window, CHECK_REMEMBER), BM_GETCHECK, None, None) };
            log(&format!(
                "check Remember {}",
                if checked.0 == 1 { "on" } else { "off" }
            ));
        }
        (EDIT, EN_CHANGE) => log(&format!("edit text={:?}", text_of(child(window, EDIT)))),
        (LIST, LBN_SELCHANGE) => {
            let list = child(window, LIST);
            // SAFETY: queries on the window's own list; the buffer holds the longest item.
            let item = unsafe {
                let index = SendMessageW(list, LB_GETCURSEL, None, None).0;
                let mut buffer = [0u16; 64];
                let length = SendMessageW(
                    list,
                    LB_GETTEXT,
                    Some(WPARAM(index as usize)),
                    Some(LPARAM(buffer.as_mut_ptr() as isize)),
                )
                .0;
                String::from_utf16_lossy(&buffer[..length.max(0) as usize])
            };
            log(&format!("list selected={item}"));
        }
        _ => {}
    }
}

extern "system" fn window_proc(
    window: HWND,
    message: u32,
    wparam: WPARAM,
    lparam: LPARAM,
) -> LRESULT {
    match message {
        WM_COMMAND => command(window, (wparam.0 & 0xFFFF) as u16, (wparam.0 >> 16) as u32),
        WM_PAINT => {
            let mut ps = PAINTSTRUCT::default();
            // SAFETY: paired BeginPaint/EndPaint on this window's own paint message.
            unsafe {
                let hdc = BeginPaint(window, &mut ps);
                paint(hdc);
                let _ = EndPaint(window, &ps);
            }
            return LRESULT(0);
        }
        WM_PRINTCLIENT => {
            let hdc = HDC(wparam.0 as *mut _);
            let mut client = RECT::default();
            // SAFETY: PrintWindow passes a live device context in wparam.
            unsafe {
                let _ = GetClientRect(window, &mut client);
                FillRect(hdc, &client, GetSysColorBrush(COLOR_WINDOW));
            }
            paint(hdc);
            return LRESULT(0);
        }
        WM_LBUTTONDOWN => mouse("left down", wparam, lparam),
        WM_LBUTTONUP => mouse("left up", wparam, lparam),
        WM_RBUTTONDOWN => mouse("right down", wparam, lparam),
        WM_MBUTTONDOWN => mouse("middle down", wparam, lparam),
        WM_MOUSEWHEEL => log(&format!("wheel {}", (wparam.0 >> 16) as u16 as i16)),
        WM_MOUSEHWHEEL => log(&format!("hwheel {}", (wparam.0 >> 16) as u16 as i16)),
        WM_MOVE | WM_SIZE => {
            let mut client = RECT::default();
            // SAFETY: queries on this window.
            unsafe {
                let _ = GetClientRect(window, &mut client);
            }
            log(&format!(
                "{} {}x{}",
                if message == WM_MOVE { "moved" } else { "sized" },
                client.right,
                client.bottom
            ));
        }
        WM_GETOBJECT if SERVES_UIA.load(Ordering::Relaxed) => {
            log(&format!("uia getobject objid={}", lparam.0 as i32));
            if let Some(answer) = crate::uia::get_object(window, wparam, lparam) {
                return answer;
            }
        }
        WM_FOCUS_CONTROL => {
            // SAFETY: one of this window's own controls, on its thread.
            let _ = unsafe { SetFocus(Some(child(window, wparam.0 as u16))) };
            return LRESULT(0);
        }
        WM_CLOSE => log("close requested"),
        WM_DESTROY => {
            log("destroyed");
            // SAFETY: ends this thread's message loop.
            unsafe { PostQuitMessage(0) };
            return LRESULT(0);
        }
        _ => {}
    }
    // SAFETY: the default handling of this window's own message.
    unsafe { DefWindowProcW(window, message, wparam, lparam) }
}

/// A stand-in for Chromium's renderer window (`Chrome_RenderWidgetHostHWND`): it logs each
/// `WM_GETOBJECT` it receives, which is how an assistive client asks Chromium to build its
/// accessibility tree.
extern "system" fn renderer_proc(
    window: HWND,
    message: u32,
    wparam: WPARAM,
    lparam: LPARAM,
) -> LRESULT {
    if message == WM_GETOBJECT {
        log(&format!("getobject objid={}", lparam.0 as i32));
        return LRESULT(0);
    }
    // SAFETY: the default handling of this window's own message.
    unsafe { DefWindowProcW(window, message, wparam, lparam) }
}

/// The app inside a Store app's frame (`Windows.UI.Core.CoreWindow`), in a process of its own
/// as on Windows: it ends when its frame goes.
extern "system" fn core_proc(
    window: HWND,
    message: u32,
    wparam: WPARAM,
    lparam: LPARAM,
) -> LRESULT {
    if message == WM_DESTROY {
        // SAFETY: ends this thread's message loop.
        unsafe { PostQuitMessage(0) };
        return LRESULT(0);
    }
    // SAFETY: the default handling of this window's own message.
    unsafe { DefWindowProcW(window, message, wparam, lparam) }
}

/// `--core-window HWND --log FILE`: the app half of a Store app's frame, a child of the frame
/// window `HWND` of another process.
fn core_window(frame: isize) -> ExitCode {
    // SAFETY: as in `main`: a class, one child window of the given frame, a message loop.
    unsafe {
        let instance = GetModuleHandleW(None).unwrap_or_default();
        let class = WNDCLASSW {
            lpfnWndProc: Some(core_proc),
            hInstance: instance.into(),
            lpszClassName: w!("Windows.UI.Core.CoreWindow"),
            ..Default::default()
        };
        RegisterClassW(&class);
        if CreateWindowExW(
            WINDOW_EX_STYLE(0),
            w!("Windows.UI.Core.CoreWindow"),
            w!(""),
            WS_CHILD | WS_VISIBLE,
            0,
            0,
            100,
            100,
            Some(HWND(frame as *mut _)),
            None,
            Some(instance.into()),
            None,
        )
        .is_err()
        {
            log("failed to create the core window");
            return ExitCode::FAILURE;
        }
        log(&format!("core pid={}", std::process::id()));
        let mut message = MSG::default();
        while GetMessageW(&mut message, None, 0, 0).as_bool() {
            DispatchMessageW(&message);
        }
    }
    ExitCode::SUCCESS
}

struct Options {
    log: String,
    title: String,
    at: (i32, i32),
    /// The window is a Store app's frame (`ApplicationFrameWindow`), with the app's window
    /// inside it from a second process.
    frame_host: bool,
    /// `--core-window`: the frame window this process puts the app's window into.
    core_window: Option<isize>,
    /// `--uia`: the window serves UI Automation providers, with an "Add row" button.
    uia: bool,
}

fn parse(args: &[String]) -> Option<Options> {
    let mut options = Options {
        log: String::new(),
        title: "deskhand fixture".into(),
        at: (100, 100),
        frame_host: false,
        core_window: None,
        uia: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--log" => options.log = args.next()?.clone(),
            "--title" => options.title = args.next()?.clone(),
            "--at" => {
                let (x, y) = args.next()?.split_once(',')?;
                options.at = (x.parse().ok()?, y.parse().ok()?);
            }
            "--frame-host" => options.frame_host = true,
            "--uia" => options.uia = true,
            "--core-window" => options.core_window = Some(args.next()?.parse().ok()?),
            _ => return None,
        }
    }
    (!options.log.is_empty()).then_some(options)
}

/// Writes a shortcut that starts this program with `arguments`.
fn write_shortcut(path: &str, arguments: &[String]) -> windows::core::Result<()> {
    let program = std::env::current_exe().map_err(|_| windows::core::Error::from_thread())?;
    // SAFETY: COM calls on an in-process ShellLink this function owns.
    unsafe {
        let _ = CoInitializeEx(None, COINIT_APARTMENTTHREADED);
        let link: IShellLinkW = CoCreateInstance(&ShellLink, None, CLSCTX_INPROC_SERVER)?;
        link.SetPath(&HSTRING::from(program.as_os_str()))?;
        link.SetArguments(&HSTRING::from(arguments.join(" ")))?;
        link.cast::<IPersistFile>()?
            .Save(&HSTRING::from(path), true)
    }
}

fn control(
    parent: HWND,
    class: PCWSTR,
    text: &str,
    style: WINDOW_STYLE,
    rect: RECT,
    id: u16,
) -> HWND {
    // SAFETY: a child control of a live window; the id travels in the menu argument as Win32
    // defines for child windows.
    unsafe {
        CreateWindowExW(
            WINDOW_EX_STYLE(0),
            class,
            &HSTRING::from(text),
            WS_CHILD | WS_VISIBLE | WS_TABSTOP | style,
            rect.left,
            rect.top,
            rect.right - rect.left,
            rect.bottom - rect.top,
            Some(parent),
            Some(HMENU(id as usize as *mut _)),
            None,
            None,
        )
    }
    .unwrap_or_default()
}

fn rect(left: i32, top: i32, width: i32, height: i32) -> RECT {
    RECT {
        left,
        top,
        right: left + width,
        bottom: top + height,
    }
}

/// The application manifest (`RT_MANIFEST` #1) embedded in the program at `path`, as the
/// Windows loader reads it.
fn manifest_of(path: &str) -> windows::core::Result<String> {
    // SAFETY: the module is loaded as data for these reads alone; the resource's bytes are read
    // within the size the loader gives.
    unsafe {
        let module = LoadLibraryExW(
            &HSTRING::from(path),
            None,
            LOAD_LIBRARY_AS_DATAFILE | LOAD_LIBRARY_AS_IMAGE_RESOURCE,
        )?;
        let resource = FindResourceW(Some(module), PCWSTR(1 as _), RT_MANIFEST);
        if resource.is_invalid() {
            return Err(windows::core::Error::from_thread());
        }
        let size = SizeofResource(Some(module), resource) as usize;
        let bytes = LockResource(LoadResource(Some(module), resource)?) as *const u8;
        if bytes.is_null() {
            return Err(windows::core::Error::from_thread());
        }
        Ok(String::from_utf8_lossy(std::slice::from_raw_parts(bytes, size)).into_owned())
    }
}

pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--manifest-of") && args.len() == 2 {
        return match manifest_of(&args[1]) {
            Ok(manifest) => {
                println!("{manifest}");
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("reading the manifest of {} failed: {err}", args[1]);
                ExitCode::FAILURE
            }
        };
    }
    if args.first().map(String::as_str) == Some("--shortcut") && args.len() >= 2 {
        return match write_shortcut(&args[1], &args[2..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("writing the shortcut {} failed: {err}", args[1]);
                ExitCode::FAILURE
            }
        };
    }
    let Some(options) = parse(&args) else {
        eprintln!(
            "usage: deskhand-fixture --log FILE [--title TITLE] [--at X,Y] [--frame-host] [--uia] | \
             --core-window HWND --log FILE | --shortcut LNK ARGS… | --manifest-of PROGRAM"
        );
        return ExitCode::from(2);
    };
    match File::options().create(true).append(true).open(&options.log) {
        Ok(file) => *LOG.lock().unwrap_or_else(|p| p.into_inner()) = Some(file),
        Err(err) => {
            eprintln!("opening the log {} failed: {err}", options.log);
            return ExitCode::FAILURE;
        }
    }
    if let Some(frame) = options.core_window {
        return core_window(frame);
    }
    let class_name = if options.frame_host {
        w!("ApplicationFrameWindow")
    } else {
        w!("DeskhandFixture")
    };
    // SAFETY: the usual Win32 start of a GUI app: class, window, controls, message loop, all on
    // this thread; strings outlive the calls that take them.
    unsafe {
        let instance = GetModuleHandleW(None).unwrap_or_default();
        let class = WNDCLASSW {
            lpfnWndProc: Some(window_proc),
            hInstance: instance.into(),
            hCursor: LoadCursorW(None, IDC_ARROW).unwrap_or_default(),
            hbrBackground: GetSysColorBrush(COLOR_WINDOW),
            lpszClassName: class_name,
            ..Default::default()
        };
        RegisterClassW(&class);
        let renderer = WNDCLASSW {
            lpfnWndProc: Some(renderer_proc),
            hInstance: instance.into(),
            lpszClassName: w!("Chrome_RenderWidgetHostHWND"),
            ..Default::default()
        };
        RegisterClassW(&renderer);
        let file = CreatePopupMenu().unwrap_or_default();
        let _ = AppendMenuW(file, MF_STRING, MENU_NEW as usize, w!("&New"));
        let _ = AppendMenuW(file, MF_STRING, MENU_DIALOG as usize, w!("&Open dialog..."));
        let _ = AppendMenuW(file, MF_STRING, MENU_EXIT as usize, w!("E&xit"));
        let bar = CreateMenu().unwrap_or_default();
        let _ = AppendMenuW(bar, MF_POPUP, file.0 as usize, w!("&File"));
        let Ok(main) = CreateWindowExW(
            WINDOW_EX_STYLE(0),
            class_name,
            &HSTRING::from(options.title.as_str()),
            WS_OVERLAPPEDWINDOW | WS_VISIBLE,
            options.at.0,
            options.at.1,
            500,
            400,
            None,
            Some(bar),
            Some(instance.into()),
            None,
        ) else {
            log("failed to create the window");
            return ExitCode::FAILURE;
        };
        control(
            main,
            w!("BUTTON"),
            "Press me",
            WINDOW_STYLE(BS_PUSHBUTTON as u32),
            rect(20, 20, 120, 30),
            BUTTON_PRESS,
        );
        control(
            main,
            w!("BUTTON"),
            "Dialog",
            WINDOW_STYLE(BS_PUSHBUTTON as u32),
            rect(160, 20, 120, 30),
            BUTTON_DIALOG,
        );
        control(
            main,
            w!("BUTTON"),
            "Remember",
            WINDOW_STYLE(BS_AUTOCHECKBOX as u32),
            rect(300, 20, 150, 30),
            CHECK_REMEMBER,
        );
        control(
            main,
            w!("EDIT"),
            "",
            WS_BORDER | WINDOW_STYLE(ES_AUTOHSCROLL as u32),
            rect(20, 70, 300, 30),
            EDIT,
        );
        // Hidden: it only answers WM_GETOBJECT, as Chromium's renderer is asked.
        let _ = CreateWindowExW(
            WINDOW_EX_STYLE(0),
            w!("Chrome_RenderWidgetHostHWND"),
            w!(""),
            WS_CHILD,
            0,
            0,
            10,
            10,
            Some(main),
            None,
            Some(instance.into()),
            None,
        );
        let list = control(
            main,
            w!("LISTBOX"),
            "",
            WS_BORDER | WINDOW_STYLE(LBS_NOTIFY as u32),
            rect(20, 120, 200, 100),
            LIST,
        );
        for item in ["Alpha", "Beta", "Gamma"] {
            let item = HSTRING::from(item);
            SendMessageW(
                list,
                LB_ADDSTRING,
                None,
                Some(LPARAM(item.as_ptr() as isize)),
            );
        }
        if options.uia {
            // Providers are COM objects: the thread that serves them is in an apartment.
            let _ = CoInitializeEx(None, COINIT_APARTMENTTHREADED);
            control(
                main,
                w!("BUTTON"),
                "Add row",
                WINDOW_STYLE(BS_PUSHBUTTON as u32),
                rect(20, 230, 120, 30),
                BUTTON_ADD_ROW,
            );
            SERVES_UIA.store(true, Ordering::Relaxed);
        }
        let accelerators = CreateAcceleratorTableW(&[
            ACCEL {
                fVirt: FCONTROL | FVIRTKEY,
                key: b'S' as u16,
                cmd: ACCEL_SAVE,
            },
            ACCEL {
                fVirt: FCONTROL | FSHIFT | FVIRTKEY,
                key: b'S' as u16,
                cmd: ACCEL_SAVE_AS,
            },
        ])
        .unwrap_or_default();
        if options.frame_host {
            let started = std::env::current_exe().and_then(|program| {
                std::process::Command::new(program)
                    .args(["--core-window", &(main.0 as isize).to_string()])
                    .args(["--log", &options.log])
                    .spawn()
            });
            if let Err(err) = started {
                log(&format!("failed to start the core window's process: {err}"));
            }
        }
        log(&format!(
            "ready hwnd={} pid={}",
            main.0 as usize,
            std::process::id()
        ));
        let mut message = MSG::default();
        while GetMessageW(&mut message, None, 0, 0).as_bool() {
            // Keys as the thread receives them, before any control sees them: the scan code and
            // extended flag are bits 16–24 of lParam.
            if matches!(
                message.message,
                WM_KEYDOWN | WM_KEYUP | WM_SYSKEYDOWN | WM_SYSKEYUP
            ) {
                log(&format!(
                    "key {} vk=0x{:02X} scan=0x{:02X} extended={}",
                    if matches!(message.message, WM_KEYDOWN | WM_SYSKEYDOWN) {
                        "down"
                    } else {
                        "up"
                    },
                    message.wParam.0,
                    (message.lParam.0 >> 16) & 0xFF,
                    (message.lParam.0 >> 24) & 1
                ));
            }
            if message.message == WM_CHAR {
                log(&format!("char U+{:04X}", message.wParam.0));
            }
            if TranslateAcceleratorW(main, accelerators, &message) == 0 {
                let _ = TranslateMessage(&message);
                DispatchMessageW(&message);
            }
        }
    }
    ExitCode::SUCCESS
}
