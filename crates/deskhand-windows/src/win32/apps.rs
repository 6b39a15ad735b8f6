//! Processes and installed apps: a process's program name and parent, ending a process, the
//! Start menu's shortcuts and the Apps folder's packaged apps, and starting either.

use std::path::{Path, PathBuf};

use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::InstalledApp;
use windows::Win32::Foundation::{CloseHandle, HANDLE};
use windows::Win32::System::Com::{
    CLSCTX_INPROC_SERVER, CLSCTX_LOCAL_SERVER, COINIT_MULTITHREADED, CoCreateInstance,
    CoInitializeEx, CoTaskMemFree, IPersistFile, STGM_READ,
};
use windows::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
};
use windows::Win32::System::Threading::{
    GetProcessId, OpenProcess, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_TERMINATE, QueryFullProcessImageNameW, TerminateProcess,
};
use windows::Win32::UI::Shell::{
    AO_NONE, ApplicationActivationManager, BHID_EnumItems, FOLDERID_AppsFolder,
    IApplicationActivationManager, IEnumShellItems, IShellItem, IShellLinkW, KF_FLAG_DEFAULT,
    SEE_MASK_FLAG_NO_UI, SEE_MASK_NOCLOSEPROCESS, SHELLEXECUTEINFOW, SHGetKnownFolderItem, SIGDN,
    SIGDN_NORMALDISPLAY, SIGDN_PARENTRELATIVEPARSING, ShellExecuteExW, ShellLink,
};
use windows::Win32::UI::WindowsAndMessaging::SW_SHOWNORMAL;
use windows::core::{Interface, PCWSTR};

use super::{shell, wide};
use crate::packaged;

/// Closes a kernel handle (a process, a token, a snapshot) when dropped.
pub struct Handle(pub HANDLE);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from the call that opened it and is closed once.
        let _ = unsafe { CloseHandle(self.0) };
    }
}

/// The program's file name without `.exe`, as a user names the app ("notepad").
pub fn process_name(pid: u32) -> Option<String> {
    // SAFETY: the handle is closed by `Handle`; the name is written into the buffer, whose
    // length goes in and the written length comes out.
    unsafe {
        let process = Handle(OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid).ok()?);
        let mut buffer = [0u16; 1024];
        let mut length = buffer.len() as u32;
        QueryFullProcessImageNameW(
            process.0,
            PROCESS_NAME_WIN32,
            windows::core::PWSTR(buffer.as_mut_ptr()),
            &mut length,
        )
        .ok()?;
        let path = PathBuf::from(String::from_utf16_lossy(&buffer[..length as usize]));
        Some(path.file_stem()?.to_string_lossy().into_owned())
    }
}

pub fn kill(pid: u32) -> Result<()> {
    // SAFETY: the handle is closed by `Handle`.
    unsafe {
        let process = Handle(OpenProcess(PROCESS_TERMINATE, false, pid).map_err(|err| {
            Error::new(
                ErrorKind::SurfaceGone,
                format!(
                    "process {pid} cannot be opened to end it ({}); it may have ended already: \
                     call apps to see what runs",
                    err.message()
                ),
            )
        })?);
        TerminateProcess(process.0, 1).map_err(|err| {
            super::failed(
                &format!("Ending process {pid}"),
                &err,
                "it may belong to another user or be protected",
            )
        })
    }
}

/// Each process's parent, from one snapshot of the process table.
fn parents() -> Vec<(u32, u32)> {
    let mut found = Vec::new();
    // SAFETY: the snapshot handle is closed by `Handle`; entries are written into `entry`,
    // whose size field is set as the API requires.
    unsafe {
        let Ok(snapshot) = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) else {
            return found;
        };
        let snapshot = Handle(snapshot);
        let mut entry = PROCESSENTRY32W {
            dwSize: size_of::<PROCESSENTRY32W>() as u32,
            ..Default::default()
        };
        let mut more = Process32FirstW(snapshot.0, &mut entry).is_ok();
        while more {
            found.push((entry.th32ProcessID, entry.th32ParentProcessID));
            more = Process32NextW(snapshot.0, &mut entry).is_ok();
        }
    }
    found
}

/// Whether `pid` is `ancestor` or one of its descendants. Windows reuses process ids and keeps
/// a dead parent's id in its children, so the walk stops at a loop or after 64 steps.
pub fn descends_from(pid: u32, ancestor: u32) -> bool {
    let table = parents();
    let mut current = pid;
    for _ in 0..64 {
        if current == ancestor {
            return true;
        }
        match table.iter().find(|(child, _)| *child == current) {
            Some(&(_, parent)) if parent != current && parent != 0 => current = parent,
            _ => return false,
        }
    }
    false
}

/// Makes this thread a member of the multithreaded COM apartment; a thread already in one (or
/// in a single-threaded one, which serves in-process objects as well) keeps it.
pub fn enter_com() {
    // SAFETY: paired with nothing on purpose: the blocking pool's threads stay in the apartment
    // for their life.
    let _ = unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) };
}

/// The Start menu's program folders: the user's own and the machine's.
fn start_menu_roots() -> Vec<PathBuf> {
    ["APPDATA", "ProgramData"]
        .into_iter()
        .filter_map(std::env::var_os)
        .map(|base| PathBuf::from(base).join(r"Microsoft\Windows\Start Menu\Programs"))
        .collect()
}

fn shortcuts_under(dir: &Path, depth: u32, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth < 4 {
            shortcuts_under(&path, depth + 1, found);
        } else if path
            .extension()
            .is_some_and(|ext| ext.eq_ignore_ascii_case("lnk"))
        {
            found.push(path);
        }
    }
}

/// A shortcut's id: its path under the Start menu folder without `.lnk`, with `/` between
/// folders ("Accessories/Notepad").
fn shortcut_id(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?.with_extension("");
    Some(
        relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// What a shortcut runs: its target, arguments and working folder. Advertised shortcuts (MSI)
/// and store apps have no file target; those are started through the shortcut itself.
struct Target {
    program: String,
    arguments: String,
    directory: String,
}

/// On the shell's thread (`super::shell`).
fn read_shortcut(path: &Path) -> Option<Target> {
    let from = |buffer: &[u16]| {
        let end = buffer.iter().position(|&c| c == 0).unwrap_or(buffer.len());
        String::from_utf16_lossy(&buffer[..end])
    };
    // SAFETY: COM calls on an in-process ShellLink object this function owns; the strings are
    // written into the local buffers, whose lengths go with them.
    unsafe {
        let link: IShellLinkW = CoCreateInstance(&ShellLink, None, CLSCTX_INPROC_SERVER).ok()?;
        let file: IPersistFile = link.cast().ok()?;
        let name = wide(&path.to_string_lossy());
        file.Load(PCWSTR(name.as_ptr()), STGM_READ).ok()?;
        let mut program = [0u16; 1024];
        link.GetPath(&mut program, std::ptr::null_mut(), 0).ok()?;
        let mut arguments = [0u16; 1024];
        let _ = link.GetArguments(&mut arguments);
        let mut directory = [0u16; 1024];
        let _ = link.GetWorkingDirectory(&mut directory);
        let program = from(&program);
        (!program.is_empty()).then(|| Target {
            program,
            arguments: from(&arguments),
            directory: from(&directory),
        })
    }
}

fn all_shortcuts() -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for root in start_menu_roots() {
        let mut paths = Vec::new();
        shortcuts_under(&root, 0, &mut paths);
        for path in paths {
            // The user's own shortcut of an id shadows the machine's.
            if let Some(id) = shortcut_id(&root, &path)
                && !found
                    .iter()
                    .any(|(known, _)| known.eq_ignore_ascii_case(&id))
            {
                found.push((id, path));
            }
        }
    }
    found
}

fn shortcut_apps() -> Vec<InstalledApp> {
    all_shortcuts()
        .into_iter()
        .map(|(id, path)| {
            let name = path
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_else(|| id.clone());
            let command = match read_shortcut(&path) {
                Some(target) if target.arguments.is_empty() => target.program,
                Some(target) => format!("{} {}", target.program, target.arguments),
                None => path.display().to_string(),
            };
            InstalledApp { id, name, command }
        })
        .collect()
}

/// One of an item's names, freed after copying.
fn item_name(item: &IShellItem, kind: SIGDN) -> Option<String> {
    // SAFETY: the shell allocates the string with the COM allocator; it is copied, then freed.
    unsafe {
        let name = item.GetDisplayName(kind).ok()?;
        let copied = name.to_string().ok();
        CoTaskMemFree(Some(name.0 as *const _));
        copied
    }
}

/// The Apps folder's enumeration; the sentence saying why when it cannot be read (Wine has no
/// Apps folder). On the shell's thread, as what uses it.
fn apps_folder() -> std::result::Result<IEnumShellItems, String> {
    let failure = |err: windows::core::Error| packaged::listing_failure(err.code().0);
    // SAFETY: COM calls on shell objects this function owns.
    unsafe {
        let folder: IShellItem =
            SHGetKnownFolderItem(&FOLDERID_AppsFolder, KF_FLAG_DEFAULT, None).map_err(failure)?;
        folder.BindToHandler(None, &BHID_EnumItems).map_err(failure)
    }
}

/// Why the packaged apps are missing from `installed`, when the Apps folder cannot be read.
pub fn installed_gaps() -> Vec<String> {
    shell::run(|| apps_folder().err().into_iter().collect()).unwrap_or_else(|err| vec![err.message])
}

/// The packaged apps of the Apps folder.
fn packaged_apps() -> std::result::Result<Vec<InstalledApp>, String> {
    let items = apps_folder()?;
    // SAFETY: COM calls on the enumeration this function owns; each item is released when the
    // loop lets it go.
    unsafe {
        let mut found = Vec::new();
        for _ in 0..packaged::MOST_ENTRIES {
            let mut next = [None];
            let mut fetched = 0u32;
            if items.Next(&mut next, Some(&mut fetched)).is_err() || fetched == 0 {
                break;
            }
            let Some(item) = next[0].take() else { break };
            let (Some(display), Some(parsing)) = (
                item_name(&item, SIGDN_NORMALDISPLAY),
                item_name(&item, SIGDN_PARENTRELATIVEPARSING),
            ) else {
                continue;
            };
            found.extend(packaged::packaged_app(&display, &parsing));
        }
        Ok(found)
    }
}

/// The Start menu's shortcuts and the Apps folder's packaged apps. A system without an Apps
/// folder (Wine) lists the shortcuts alone; launching a packaged id there says why.
pub fn installed() -> Result<Vec<InstalledApp>> {
    shell::run(|| packaged::merge(shortcut_apps(), packaged_apps().unwrap_or_default()))
}

/// Starts a packaged app by its AUMID through the shell's activation manager, once the Apps
/// folder confirms it is installed, and answers its process id.
fn launch_packaged(aumid: &str) -> Result<u32> {
    let listed = packaged_apps().map_err(|why| packaged::unlisted(aumid, &why))?;
    let Some(app) = listed
        .into_iter()
        .find(|app| app.id.eq_ignore_ascii_case(aumid))
    else {
        return Err(packaged::not_installed(aumid));
    };
    // SAFETY: COM calls on an object this function owns; the id lives until the call returns.
    unsafe {
        let manager: IApplicationActivationManager =
            CoCreateInstance(&ApplicationActivationManager, None, CLSCTX_LOCAL_SERVER)
                .map_err(|err| packaged::launch_failure(err.code().0, aumid, false))?;
        let id = wide(&app.id);
        manager
            .ActivateApplication(PCWSTR(id.as_ptr()), PCWSTR::null(), AO_NONE)
            .map_err(|err| packaged::launch_failure(err.code().0, aumid, true))
    }
}

/// Starts the shortcut's target, or the packaged app, detached from deskhand and answers its
/// process id.
pub fn launch(id: &str) -> Result<u32> {
    let id = id.to_owned();
    shell::run(move || launch_on_shell(&id))?
}

fn launch_on_shell(id: &str) -> Result<u32> {
    let Some((_, path)) = all_shortcuts()
        .into_iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(id))
    else {
        if packaged::is_packaged_aumid(id) {
            return launch_packaged(id);
        }
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "no Start menu shortcut or packaged app has the id \"{id}\"; call apps with \
                 installed to list the ids"
            ),
        ));
    };
    let (file, parameters, directory) = match read_shortcut(&path) {
        Some(target) => (target.program, target.arguments, target.directory),
        None => (path.display().to_string(), String::new(), String::new()),
    };
    let (file, parameters, directory) = (wide(&file), wide(&parameters), wide(&directory));
    let mut info = SHELLEXECUTEINFOW {
        cbSize: size_of::<SHELLEXECUTEINFOW>() as u32,
        // No error box: one for a stale shortcut would block the single shell thread, and
        // every later apps or launch with it; the error comes back here instead.
        fMask: SEE_MASK_NOCLOSEPROCESS | SEE_MASK_FLAG_NO_UI,
        lpFile: PCWSTR(file.as_ptr()),
        lpParameters: PCWSTR(parameters.as_ptr()),
        lpDirectory: if directory.len() > 1 {
            PCWSTR(directory.as_ptr())
        } else {
            PCWSTR::null()
        },
        nShow: SW_SHOWNORMAL.0,
        ..Default::default()
    };
    // SAFETY: every string `info` points at lives until the call returns; the process handle
    // it gives back is closed by `Handle`.
    unsafe {
        ShellExecuteExW(&mut info).map_err(|err| {
            super::failed(
                &format!("Starting \"{id}\""),
                &err,
                "check that the shortcut's program still exists",
            )
        })?;
        if info.hProcess.is_invalid() {
            return Err(Error::platform(format!(
                "\"{id}\" was handed to an app that was already running, so there is no new \
                 process to report; call windows to find its window"
            ))
            .after_sending());
        }
        let process = Handle(info.hProcess);
        Ok(GetProcessId(process.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shortcuts_id_is_its_path_under_the_start_menu_without_the_extension() {
        let root = Path::new(r"C:\ProgramData\Microsoft\Windows\Start Menu\Programs");
        assert_eq!(
            shortcut_id(root, &root.join(r"Accessories\Notepad.lnk")).as_deref(),
            Some("Accessories/Notepad")
        );
        assert_eq!(
            shortcut_id(root, &root.join("Deskhand Fixture.lnk")).as_deref(),
            Some("Deskhand Fixture")
        );
        assert_eq!(shortcut_id(root, Path::new(r"D:\Other\App.lnk")), None);
    }

    #[test]
    fn a_child_descends_from_the_process_that_started_it_and_not_the_other_way() {
        let own = std::process::id();
        // Waits on its stdin, which stays open until the kill below.
        let mut child = std::process::Command::new("cmd.exe")
            .args(["/c", "pause"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("starting cmd.exe");
        let descends = descends_from(child.id(), own);
        let ascends = descends_from(own, child.id());
        let name = process_name(child.id());
        kill(child.id()).expect("ending the child");
        let _ = child.wait();
        assert!(descends && !ascends && descends_from(own, own));
        assert_eq!(
            name.as_deref().map(str::to_lowercase).as_deref(),
            Some("cmd")
        );
    }
}
