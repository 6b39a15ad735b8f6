//! Installed applications, from their desktop entries (freedesktop Desktop Entry
//! Specification), and starting one detached from deskhand.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use deskhand_core::model::InstalledApp;
use deskhand_core::render::escape;

/// Subdirectories of an applications directory deeper than this are not searched: a symlink
/// loop must not make a listing endless.
const MAX_DEPTH: usize = 8;

/// Why an application could not be found or started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    #[error(
        "no installed application has the id, name or program \"{}\"; call `apps` with {{\"installed\": true}} for the ids and names `launch` takes",
        escape(.0)
    )]
    NotFound(String),
    #[error(
        "\"{}\" is the name of {} installed applications ({}); launch one of them by its id",
        escape(.query),
        .candidates.len(),
        .candidates.join(", ")
    )]
    Ambiguous {
        query: String,
        /// Each as `id "Name"`.
        candidates: Vec<String>,
    },
    #[error(
        "starting {id} (`{command}`) failed: {source}; check that the program is installed, or launch another app from `apps` with {{\"installed\": true}}"
    )]
    Spawn {
        id: String,
        command: String,
        #[source]
        source: std::io::Error,
    },
}

/// One application a desktop entry says can be started.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The desktop-file id: the file's path below its applications directory, `/` as `-`,
    /// without `.desktop`.
    pub id: String,
    pub name: String,
    /// `Exec` split into arguments; field codes are expanded at launch.
    exec: Vec<String>,
    icon: Option<String>,
    working_dir: Option<PathBuf>,
    file: PathBuf,
    /// The program its command runs, found as the desktop's launchers find it (see
    /// [`launcher_path`]); `None`: found nowhere, left to the process's own `PATH`.
    program_path: Option<PathBuf>,
    /// Whether menus list it: an entry marked `NoDisplay` is installed and starts when named
    /// exactly, but `apps` does not list it.
    in_menus: bool,
}

impl Entry {
    pub fn installed_app(&self) -> InstalledApp {
        InstalledApp {
            id: self.id.clone(),
            name: self.name.clone(),
            command: self.command(),
        }
    }

    /// The command line with no files or URLs to open, its field codes expanded as the
    /// specification says.
    /// The file name of the program its command runs.
    fn program(&self) -> Option<&str> {
        Path::new(self.exec.first()?).file_name()?.to_str()
    }

    fn argv(&self) -> Vec<String> {
        self.exec.iter().flat_map(|arg| self.expand(arg)).collect()
    }

    fn expand(&self, arg: &str) -> Vec<String> {
        if arg == "%i" {
            return match &self.icon {
                Some(icon) => vec!["--icon".into(), icon.clone()],
                None => Vec::new(),
            };
        }
        let mut out = String::new();
        let mut chars = arg.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => out.push('%'),
                Some('c') => out.push_str(&self.name),
                Some('k') => out.push_str(&self.file.to_string_lossy()),
                // Files and URLs (%f %F %u %U), the deprecated codes and unknown ones: no file
                // is ever opened, so they stand for nothing.
                _ => {}
            }
        }
        // An argument made only of such codes is no argument at all; a quoted "" stays one.
        if out.is_empty() && !arg.is_empty() {
            Vec::new()
        } else {
            vec![out]
        }
    }

    /// The command line for people to read.
    fn command(&self) -> String {
        let shown: Vec<String> = self
            .argv()
            .iter()
            .map(|arg| {
                let plain = !arg.is_empty()
                    && !arg
                        .chars()
                        .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\'));
                if plain {
                    arg.clone()
                } else {
                    format!("{arg:?}")
                }
            })
            .collect();
        shown.join(" ")
    }
}

/// Where a desktop session's launchers find programs besides the `PATH` deskhand was given:
/// root's `PATH` has no game folders, where Debian puts games that menus list.
const LAUNCHER_DIRS: [&str; 8] = [
    "/usr/local/sbin",
    "/usr/local/bin",
    "/usr/sbin",
    "/usr/bin",
    "/sbin",
    "/bin",
    "/usr/local/games",
    "/usr/games",
];

/// The `PATH` an app is found on and started with: deskhand's own, then the folders of
/// `LAUNCHER_DIRS` it lacks.
pub fn launcher_path() -> OsString {
    let own = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&own).collect();
    for dir in LAUNCHER_DIRS {
        if !dirs.iter().any(|known| known == Path::new(dir)) {
            dirs.push(PathBuf::from(dir));
        }
    }
    std::env::join_paths(dirs).unwrap_or(own)
}

/// Where desktop entries are looked up, the most important directory first, and the `PATH`
/// a `TryExec` or `Exec` program is looked up in.
pub struct AppDirs {
    dirs: Vec<PathBuf>,
    path: OsString,
}

impl AppDirs {
    /// `$XDG_DATA_HOME/applications`, then each `$XDG_DATA_DIRS/applications`, with the
    /// specification's defaults; relative paths are invalid there and ignored.
    pub fn from_env() -> Self {
        let absolute = |value: OsString| {
            let path = PathBuf::from(value);
            path.is_absolute().then_some(path)
        };
        let data_home = std::env::var_os("XDG_DATA_HOME")
            .and_then(absolute)
            .or_else(|| {
                std::env::var_os("HOME")
                    .and_then(absolute)
                    .map(|home| home.join(".local/share"))
            });
        let data_dirs = std::env::var_os("XDG_DATA_DIRS")
            .filter(|dirs| !dirs.is_empty())
            .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
        let dirs = data_home
            .into_iter()
            .chain(std::env::split_paths(&data_dirs).filter(|dir| dir.is_absolute()))
            .map(|dir| dir.join("applications"))
            .collect();
        Self {
            dirs,
            path: launcher_path(),
        }
    }

    /// Every application that can be started, sorted by name. For one id the file in the
    /// earliest directory decides, even when it hides the application: that is how a user
    /// removes a system entry.
    pub fn entries(&self) -> Vec<Entry> {
        let mut entries = self.every_entry();
        entries.retain(|e| e.in_menus);
        entries
    }

    /// Every application that can be started, those kept off the menus too.
    fn every_entry(&self) -> Vec<Entry> {
        let mut seen = HashSet::new();
        let mut entries = Vec::new();
        for dir in &self.dirs {
            let mut files = Vec::new();
            desktop_files(dir, "", 0, &mut files);
            for (id, file) in files {
                if seen.insert(id.clone()) {
                    entries.extend(self.entry(id, file));
                }
            }
        }
        entries.sort_by_cached_key(|e| (e.name.to_lowercase(), e.id.clone()));
        entries
    }

    /// The application with this desktop-file id, else the one with this name in any case, else
    /// the one whose command runs this program (`gnome-calculator`, the name `apps` shows for
    /// the running app whose entry is `org.gnome.Calculator`). An entry the menus leave out
    /// (`NoDisplay`: gtk3-widget-factory's) is found too, after those they list.
    pub fn find(&self, query: &str) -> Result<Entry, LaunchError> {
        let entries = self.every_entry();
        let id = query.strip_suffix(".desktop").unwrap_or(query);
        if let Some(entry) = entries.iter().find(|e| e.id == id) {
            return Ok(entry.clone());
        }
        let wanted = query.to_lowercase();
        let matches = |by: &dyn Fn(&Entry) -> bool| {
            let found: Vec<&Entry> = entries.iter().filter(|e| by(e)).collect();
            let in_menus: Vec<&Entry> = found.iter().copied().filter(|e| e.in_menus).collect();
            if in_menus.is_empty() { found } else { in_menus }
        };
        let mut named = matches(&|e| e.name.to_lowercase() == wanted);
        if named.is_empty() {
            named = matches(&|e| e.program().is_some_and(|program| program == query));
        }
        match named.as_slice() {
            [] => Err(LaunchError::NotFound(query.into())),
            [one] => Ok((*one).clone()),
            many => Err(LaunchError::Ambiguous {
                query: query.into(),
                candidates: many
                    .iter()
                    .map(|e| format!("{} \"{}\"", e.id, escape(&e.name)))
                    .collect(),
            }),
        }
    }

    /// The entry in `file`, when it is an application a person could start (from a menu,
    /// unless it is marked `NoDisplay`).
    fn entry(&self, id: String, file: PathBuf) -> Option<Entry> {
        let text = std::fs::read_to_string(&file).ok()?;
        let keys = desktop_entry_keys(&text);
        let string = |key: &str| keys.get(key).map(|value| unescape(value));
        let flag = |key: &str| keys.get(key).is_some_and(|value| value.trim() == "true");
        if keys.get("Type").copied() != Some("Application")
            || flag("Hidden")
            // A terminal program opens no window of its own, and nothing reads its input here.
            || flag("Terminal")
        {
            return None;
        }
        if string("TryExec").is_some_and(|program| !on_path(&program, &self.path)) {
            return None;
        }
        // Without Exec (D-Bus activation only) there is no command to run.
        let exec = split_exec(&string("Exec")?)?;
        let program_path = exec
            .first()
            .and_then(|program| find_program(program, &self.path));
        let entry = Entry {
            id,
            name: string("Name")?,
            exec,
            program_path,
            icon: string("Icon").filter(|icon| !icon.is_empty()),
            working_dir: string("Path")
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from),
            file,
            in_menus: !flag("NoDisplay"),
        };
        (!entry.argv().is_empty()).then_some(entry)
    }
}

/// Desktop files below `dir`, with their ids, in a stable order.
fn desktop_files(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, PathBuf)>) {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = listing.flatten().map(|item| item.path()).collect();
    paths.sort();
    for path in paths {
        // An id is text: a name that is not UTF-8 cannot be asked for.
        let Some(name) = path.file_name().and_then(OsStr::to_str) else {
            continue;
        };
        if path.is_dir() {
            if depth < MAX_DEPTH {
                desktop_files(&path, &format!("{prefix}{name}-"), depth + 1, out);
            }
        } else if let Some(stem) = name.strip_suffix(".desktop") {
            out.push((format!("{prefix}{stem}"), path.clone()));
        }
    }
}

/// The raw keys of the `[Desktop Entry]` group. Localized keys (`Name[de]`) keep their suffix,
/// so `Name` is always the unlocalized one.
fn desktop_entry_keys(text: &str) -> HashMap<&str, &str> {
    let mut keys = HashMap::new();
    let mut in_entry = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(group) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            in_entry = group == "Desktop Entry";
        } else if in_entry && let Some((key, value)) = line.split_once('=') {
            // A repeated key is invalid; the first one is kept.
            keys.entry(key.trim_end()).or_insert(value.trim_start());
        }
    }
    keys
}

/// A string value's escapes: `\s`, `\n`, `\t`, `\r`, `\\`.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') => out.push(' '),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                // Not an escape of the string type: left for the Exec quoting rules.
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Splits an unescaped `Exec` value into arguments. Blanks separate them; inside double quotes
/// a backslash escapes `"`, `` ` ``, `$` and `\`. Single quotes and a backslash outside quotes
/// are not in the specification but are read as GLib reads them, since files in the wild use
/// them and GLib is what launches them on most desktops. `None` when a quote is not closed.
fn split_exec(exec: &str) -> Option<Vec<String>> {
    let mut args = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = exec.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => args.extend(current.take()),
            '"' => {
                let arg = current.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            escaped @ ('"' | '`' | '$' | '\\') => arg.push(escaped),
                            other => {
                                arg.push('\\');
                                arg.push(other);
                            }
                        },
                        other => arg.push(other),
                    }
                }
            }
            '\'' => {
                let arg = current.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => arg.push(other),
                    }
                }
            }
            '\\' => {
                let arg = current.get_or_insert_with(String::new);
                arg.extend(chars.next());
            }
            other => current.get_or_insert_with(String::new).push(other),
        }
    }
    args.extend(current);
    Some(args)
}

/// Whether `program` is an executable file: as given when absolute, else in a `PATH` directory.
fn on_path(program: &str, path: &OsStr) -> bool {
    find_program(program, path).is_some()
}

/// The executable file `program` names: itself when absolute, else the first in a `PATH`
/// directory.
fn find_program(program: &str, path: &OsStr) -> Option<PathBuf> {
    let executable = |file: &Path| {
        std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let program = Path::new(program);
    if program.is_absolute() {
        return executable(program).then(|| program.to_owned());
    }
    if program.components().count() != 1 {
        return None;
    }
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|file| executable(file))
}

/// Set beside `OMP_THREAD_LIMIT` when deskhand set that limit itself, not the user.
pub const OWN_THREAD_LIMIT: &str = "DESKHAND_OWN_OMP_THREAD_LIMIT";

/// A started application: its process id, and how it ended once it has.
#[derive(Debug, Clone)]
pub struct Launched {
    pub pid: u32,
    pub ended: Arc<OnceLock<Ended>>,
}

/// How a started process ended.
#[derive(Debug, Clone)]
pub struct Ended {
    pub status: ExitStatus,
    /// The last line it wrote to its standard error, cut to [`LAST_LINE_CHARS`].
    pub last_line: Option<String>,
}

impl Ended {
    /// Whether it ended as a failure: a status other than 0, or a signal.
    pub fn failed(&self) -> bool {
        !self.status.success()
    }

    /// How it ended, as a reply says it: `exited with status 1; the last line it wrote to
    /// stderr: "…"`.
    pub fn describe(&self) -> String {
        let how = match (self.status.code(), self.status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was ended by signal {signal}"),
            (None, None) => "ended".to_string(),
        };
        match &self.last_line {
            Some(line) => format!(
                "{how}; the last line it wrote to stderr: \"{}\"",
                escape(line)
            ),
            None => format!("{how}, writing nothing to stderr"),
        }
    }
}

/// How much of the last line an app wrote to stderr a reply quotes.
pub const LAST_LINE_CHARS: usize = 300;
/// How much of the end of an app's stderr is read for its last line.
const STDERR_TAIL_BYTES: u64 = 8 * 1024;

/// A file for the app's standard error, already unlinked: the app writes to it while deskhand
/// keeps a handle to read its last line should the app end early, and the space is freed when
/// both are done with it. A pipe would not do: once deskhand (a CLI call) exits, an app writing
/// to a pipe nobody reads is killed by SIGPIPE.
fn stderr_file() -> std::io::Result<std::fs::File> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let path = std::env::temp_dir().join(format!(
        "deskhand-launch-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(file)
}

/// The last non-empty line of what the app wrote to `file`, cut to [`LAST_LINE_CHARS`].
fn last_line(file: &mut std::fs::File) -> Option<String> {
    let length = file.seek(SeekFrom::End(0)).ok()?;
    file.seek(SeekFrom::Start(length.saturating_sub(STDERR_TAIL_BYTES)))
        .ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let tail = String::from_utf8_lossy(&tail);
    Some(deskhand_core::render::cut(&last_message(&tail)?, LAST_LINE_CHARS).0)
}

/// A line at least this long that ends mid-sentence was wrapped there.
const WRAPPED_CHARS: usize = 50;

/// The last message in `text`: its last non-empty line, with the lines before it that the
/// message was wrapped from (a line that goes on in lower case after a long one that does not
/// end a sentence), so a quote is never the tail of a sentence.
fn last_message(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let last = lines.iter().rposition(|l| !l.is_empty())?;
    let mut first = last;
    while first > 0 {
        let (before, line) = (lines[first - 1], lines[first]);
        let continues = line
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || matches!(c, '(' | '"' | '\''));
        let ended =
            before.chars().count() < WRAPPED_CHARS || before.ends_with(['.', '!', '?', ':']);
        if !continues || ended {
            break;
        }
        first -= 1;
    }
    Some(lines[first..=last].join(" "))
}

/// Starts the application in a session of its own, with no input and deskhand's environment, so
/// it outlives deskhand and no signal meant for deskhand's terminal reaches it; its standard
/// error goes to an unlinked file read only if it ends early. Returns without waiting for it.
pub fn spawn(entry: &Entry) -> Result<Launched, LaunchError> {
    let failed = |source| LaunchError::Spawn {
        id: entry.id.clone(),
        command: entry.command(),
        source,
    };
    let argv = entry.argv();
    let Some((program, args)) = argv.split_first() else {
        return Err(failed(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "its Exec line is empty",
        )));
    };
    let mut stderr = stderr_file().map_err(failed)?;
    let mut command = match &entry.program_path {
        Some(found) => {
            let mut command = Command::new(found);
            command.arg0(program);
            command
        }
        None => Command::new(program),
    };
    command
        .env("PATH", launcher_path())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr.try_clone().map_err(failed)?);
    if let Some(dir) = &entry.working_dir {
        command.current_dir(dir);
    }
    // The thread limit deskhand set for its own OCR is not the app's to inherit.
    if std::env::var_os(OWN_THREAD_LIMIT).is_some() {
        command
            .env_remove("OMP_THREAD_LIMIT")
            .env_remove(OWN_THREAD_LIMIT);
    }
    // A Wayland desktop run as another user (the headless sway of a root deskhand) takes only
    // its own user's apps: run the app as that user.
    if let Some((uid, gid)) = crate::wayland::session_owner() {
        command.uid(uid).gid(gid);
    }
    // SAFETY: between fork and exec the closure only calls setsid, which is async-signal-safe,
    // allocates nothing and touches no memory shared with the parent.
    unsafe {
        command.pre_exec(|| match libc::setsid() {
            -1 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        });
    }
    let mut child = command.spawn().map_err(failed)?;
    // The child holds its own copy; deskhand's writing end would only keep the file open.
    drop(command);
    let pid = child.id();
    let ended = Arc::new(OnceLock::new());
    let noted = Arc::clone(&ended);
    // Waited for when it exits, so a launcher script that ends at once leaves no zombie behind.
    // Without a thread for it the app still runs; it only stays a zombie after it exits, until
    // deskhand does.
    let _ = std::thread::Builder::new()
        .name(format!("reap-{pid}"))
        .spawn(move || {
            if let Ok(status) = child.wait() {
                let _ = noted.set(Ended {
                    status,
                    last_line: last_line(&mut stderr),
                });
            }
        });
    Ok(Launched { pid, ended })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own for one test, removed at the end.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("deskhand-launch-{}-{test}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }

        fn write(&self, relative: &str, text: &str) -> PathBuf {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn app(name: &str, exec: &str) -> String {
        format!("[Desktop Entry]\nType=Application\nName={name}\nExec={exec}\n")
    }

    fn dirs(tmp: &TempDir, names: &[&str]) -> AppDirs {
        AppDirs {
            dirs: names.iter().map(|n| tmp.0.join(n)).collect(),
            path: tmp.0.join("bin").into_os_string(),
        }
    }

    fn ids(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn ids_come_from_paths_below_the_applications_directory() {
        let tmp = TempDir::new("ids");
        tmp.write("home/org.example.Editor.desktop", &app("Editor", "editor"));
        tmp.write("home/kde/konsole.desktop", &app("Konsole", "konsole"));
        tmp.write("home/kde/deeper/x.desktop", &app("X", "x"));
        tmp.write("home/notes.txt", "not a desktop file");
        let entries = dirs(&tmp, &["home"]).entries();
        assert_eq!(
            ids(&entries),
            ["org.example.Editor", "kde-konsole", "kde-deeper-x"]
        );
    }

    #[test]
    fn the_earliest_directory_decides_for_an_id_even_to_hide_it() {
        let tmp = TempDir::new("precedence");
        tmp.write("user/editor.desktop", &app("My Editor", "editor --mine"));
        tmp.write("system/editor.desktop", &app("Editor", "editor"));
        tmp.write(
            "user/calc.desktop",
            &format!("{}Hidden=true\n", app("Calc", "calc")),
        );
        tmp.write("system/calc.desktop", &app("Calc", "calc"));
        tmp.write("system/other.desktop", &app("Other", "other"));
        let entries = dirs(&tmp, &["user", "system"]).entries();
        assert_eq!(ids(&entries), ["editor", "other"]);
        assert_eq!(entries[0].name, "My Editor");
        assert_eq!(entries[0].installed_app().command, "editor --mine");
    }

    #[test]
    fn entries_nobody_could_start_from_a_menu_are_skipped() {
        let tmp = TempDir::new("skips");
        tmp.write("bin/present", "#!/bin/sh\n");
        std::fs::set_permissions(
            tmp.0.join("bin/present"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        tmp.write("bin/not-executable", "");
        let absolute = tmp.0.join("bin/present");
        let with = |extra: &str| format!("{}{extra}\n", app("A", "a"));
        tmp.write("apps/shown.desktop", &with("NoDisplay=false"));
        tmp.write(
            "apps/link.desktop",
            &app("A", "a").replace("Application", "Link"),
        );
        tmp.write("apps/no-display.desktop", &with("NoDisplay=true"));
        tmp.write("apps/hidden.desktop", &with("Hidden=true"));
        tmp.write("apps/terminal.desktop", &with("Terminal=true"));
        tmp.write("apps/try-on-path.desktop", &with("TryExec=present"));
        tmp.write(
            "apps/try-absolute.desktop",
            &with(&format!("TryExec={}", absolute.display())),
        );
        tmp.write("apps/try-missing.desktop", &with("TryExec=absent"));
        tmp.write("apps/try-not-exec.desktop", &with("TryExec=not-executable"));
        tmp.write(
            "apps/no-exec.desktop",
            "[Desktop Entry]\nType=Application\nName=A\nDBusActivatable=true\n",
        );
        tmp.write("apps/only-codes.desktop", &app("A", "%U"));
        tmp.write("apps/open-quote.desktop", &app("A", "\"a"));
        tmp.write(
            "apps/no-name.desktop",
            "[Desktop Entry]\nType=Application\nExec=a\n",
        );
        let entries = dirs(&tmp, &["apps"]).entries();
        assert_eq!(ids(&entries), ["shown", "try-absolute", "try-on-path"]);
    }

    #[test]
    fn an_entry_kept_off_the_menus_starts_when_named_exactly() {
        let tmp = TempDir::new("no-display");
        tmp.write("apps/shown.desktop", &app("Shown", "a"));
        tmp.write(
            "apps/org.example.Factory.desktop",
            &format!("{}NoDisplay=true\n", app("Widget Factory", "factory")),
        );
        tmp.write(
            "apps/twin.desktop",
            &format!("{}NoDisplay=true\n", app("Twin", "a")),
        );
        let apps = dirs(&tmp, &["apps"]);
        assert_eq!(ids(&apps.entries()), ["shown"], "menus leave it out");
        for query in ["org.example.Factory", "widget factory", "factory"] {
            assert_eq!(
                apps.find(query).unwrap().id,
                "org.example.Factory",
                "{query}"
            );
        }
        assert_eq!(
            apps.find("a").unwrap().id,
            "shown",
            "a menu's entry comes first"
        );
    }

    #[test]
    fn the_unlocalized_name_of_the_desktop_entry_group_is_read() {
        let tmp = TempDir::new("group");
        tmp.write(
            "apps/calc.desktop",
            "# comment\n[Desktop Entry]\nName[de]=Rechner\nName = Calculator\nType=Application\n\
             Exec=calc\n\n[Desktop Action new]\nName=New Window\nExec=calc --new\n",
        );
        let entries = dirs(&tmp, &["apps"]).entries();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].name, "Calculator");
        assert_eq!(entries[0].argv(), ["calc"]);
    }

    #[test]
    fn entries_are_sorted_by_name_in_any_case() {
        let tmp = TempDir::new("sort");
        tmp.write("apps/a.desktop", &app("zebra", "z"));
        tmp.write("apps/b.desktop", &app("Apple", "a"));
        tmp.write("apps/c.desktop", &app("mango", "m"));
        let entries = dirs(&tmp, &["apps"]).entries();
        assert_eq!(ids(&entries), ["b", "c", "a"]);
    }

    #[test]
    fn exec_follows_the_quoting_and_field_code_rules() {
        let tmp = TempDir::new("exec");
        // In the file, `\\` is the string escape of one backslash, which then escapes a quote.
        let file = tmp.write(
            "apps/tool.desktop",
            "[Desktop Entry]\nType=Application\nName=My Tool\nIcon=tool\n\
             Exec=\"/opt/my tool/run\" --name=%c %U \"say \\\\\"hi\\\\\"\" 100%% %f --from %k %i ''\n",
        );
        let entry = dirs(&tmp, &["apps"]).find("tool").unwrap();
        assert_eq!(
            entry.argv(),
            [
                "/opt/my tool/run",
                "--name=My Tool",
                "say \"hi\"",
                "100%",
                "--from",
                file.to_str().unwrap(),
                "--icon",
                "tool",
                "",
            ]
        );
        assert!(
            entry
                .installed_app()
                .command
                .starts_with("\"/opt/my tool/run\" \"--name=My Tool\" \"say \\\"hi\\\"\" 100%")
        );
    }

    #[test]
    fn exec_escapes_outside_quotes_and_string_escapes() {
        assert_eq!(
            split_exec(&unescape(r"a\sb c\\ d 'e f' \$HOME")).unwrap(),
            ["a", "b", "c d", "e f", "$HOME"]
        );
        assert_eq!(split_exec("a \"b"), None);
    }

    #[test]
    fn apps_are_found_by_id_then_by_name() {
        let tmp = TempDir::new("find");
        tmp.write("apps/org.example.Editor.desktop", &app("Editor", "editor"));
        tmp.write("apps/editor.desktop", &app("Notes", "notes"));
        tmp.write("apps/one.desktop", &app("Viewer", "viewer --one"));
        tmp.write("apps/two.desktop", &app("viewer", "viewer --two"));
        let dirs = dirs(&tmp, &["apps"]);
        assert_eq!(dirs.find("org.example.Editor").unwrap().name, "Editor");
        assert_eq!(
            dirs.find("org.example.Editor.desktop").unwrap().name,
            "Editor"
        );
        // An id beats a name.
        assert_eq!(dirs.find("editor").unwrap().name, "Notes");
        assert_eq!(dirs.find("NOTES").unwrap().id, "editor");
        let ambiguous = dirs.find("VIEWER").unwrap_err();
        assert!(
            matches!(&ambiguous, LaunchError::Ambiguous { candidates, .. } if candidates.len() == 2),
            "{ambiguous:?}"
        );
        let ambiguous = ambiguous.to_string();
        assert!(
            ambiguous.contains("one \"Viewer\", two \"viewer\""),
            "{ambiguous}"
        );
        let missing = dirs.find("nothing\n").unwrap_err();
        assert!(
            matches!(&missing, LaunchError::NotFound(query) if query == "nothing\n"),
            "{missing:?}"
        );
        let missing = missing.to_string();
        assert!(missing.contains("\"nothing\\n\""), "{missing}");
        assert!(
            missing.contains("`apps` with {\"installed\": true}"),
            "{missing}"
        );
    }

    #[test]
    fn a_launched_app_runs_in_its_own_session_and_is_reaped() {
        let tmp = TempDir::new("spawn");
        tmp.write("apps/sleeper.desktop", &app("Sleeper", "sleep 30"));
        tmp.write("apps/quick.desktop", &app("Quick", "true"));
        tmp.write(
            "apps/missing.desktop",
            &app("Missing", "deskhand-no-such-program"),
        );
        let dirs = dirs(&tmp, &["apps"]);

        let pid = spawn(&dirs.find("sleeper").unwrap()).unwrap().pid;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        // Fields after the command's closing parenthesis: state, ppid, pgrp, session.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        assert_eq!(fields[3], pid.to_string(), "session of {stat}");
        // SAFETY: kill only sends a signal to the process this test started.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };

        let pid = spawn(&dirs.find("quick").unwrap()).unwrap().pid;
        let gone = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            !Path::new(&format!("/proc/{pid}")).exists()
        });
        assert!(
            gone,
            "process {pid} stayed behind (a zombie) after it exited"
        );

        let failed = spawn(&dirs.find("missing").unwrap()).unwrap_err();
        assert!(
            matches!(&failed, LaunchError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
            "{failed:?}"
        );
        let failed = failed.to_string();
        assert!(
            failed.starts_with("starting missing (`deskhand-no-such-program`) failed"),
            "{failed}"
        );
    }

    #[test]
    fn an_app_that_ends_at_once_says_how_and_its_last_line_on_stderr() {
        let tmp = TempDir::new("ended");
        tmp.write(
            "apps/refuser.desktop",
            &app(
                "Refuser",
                "sh -c \"echo starting >&2; echo 'not to be run as root' >&2; echo >&2; exit 3\"",
            ),
        );
        tmp.write("apps/quiet.desktop", &app("Quiet", "true"));
        let dirs = dirs(&tmp, &["apps"]);

        let ended = |id: &str| {
            let launched = spawn(&dirs.find(id).unwrap()).unwrap();
            wait_for_end(&launched)
        };
        let refused = ended("refuser");
        assert!(refused.failed());
        assert_eq!(
            refused.describe(),
            "exited with status 3; the last line it wrote to stderr: \"not to be run as root\""
        );
        let quiet = ended("quiet");
        assert!(!quiet.failed());
        assert_eq!(
            quiet.describe(),
            "exited with status 0, writing nothing to stderr"
        );
    }

    #[test]
    fn the_last_message_on_stderr_is_whole_though_wrapped() {
        assert_eq!(
            last_message(
                "starting\nThis program refuses to run as the root user of this machine; ask\nan administrator of the machine to allow it (or run it as any\nuser: it cannot be run by non-trusted users first).\n\n"
            )
            .as_deref(),
            Some(
                "This program refuses to run as the root user of this machine; ask an administrator of the machine to allow it (or run it as any user: it cannot be run by non-trusted users first)."
            )
        );
        assert_eq!(
            last_message("Loading.\nError: no display\n").as_deref(),
            Some("Error: no display")
        );
        assert_eq!(last_message("\n\n"), None);
    }

    #[test]
    fn a_program_is_found_where_the_desktops_launchers_look_and_started_from_there() {
        let tmp = TempDir::new("launcher-path");
        let tool = tmp.write("bin/only-here", "#!/bin/sh\nexit 7\n");
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        tmp.write("apps/only.desktop", &app("Only Here", "only-here --flag"));
        // Not on this process's PATH, only on the entries' search path.
        assert!(find_program("only-here", &std::env::var_os("PATH").unwrap()).is_none());
        let dirs = dirs(&tmp, &["apps"]);
        let entry = dirs.find("only").unwrap();
        assert_eq!(entry.program_path.as_deref(), Some(tool.as_path()));
        let ended = wait_for_end(&spawn(&entry).unwrap());
        assert_eq!(ended.status.code(), Some(7), "{}", ended.describe());

        let path = launcher_path();
        let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
        assert!(dirs.contains(&PathBuf::from("/usr/games")), "{path:?}");
    }

    #[test]
    fn an_app_is_found_by_the_program_its_command_runs_when_no_id_or_name_is_it() {
        let tmp = TempDir::new("program");
        tmp.write(
            "apps/org.gnome.Calculator.desktop",
            &app("Calculator", "/usr/bin/gnome-calculator --mode=basic"),
        );
        tmp.write("apps/viewer-a.desktop", &app("Viewer A", "viewer %f"));
        tmp.write("apps/viewer-b.desktop", &app("Viewer B", "viewer --b %f"));
        let dirs = dirs(&tmp, &["apps"]);
        assert_eq!(
            dirs.find("gnome-calculator").unwrap().id,
            "org.gnome.Calculator"
        );
        assert!(matches!(
            dirs.find("viewer"),
            Err(LaunchError::Ambiguous { candidates, .. }) if candidates.len() == 2
        ));
        assert!(matches!(
            dirs.find("calculator-not"),
            Err(LaunchError::NotFound(_))
        ));
    }

    #[test]
    fn the_stderr_file_has_no_name_left_in_the_temp_directory() {
        use std::os::unix::fs::MetadataExt;
        let file = stderr_file().unwrap();
        assert_eq!(file.metadata().unwrap().nlink(), 0);
    }

    fn wait_for_end(launched: &Launched) -> Ended {
        for _ in 0..250 {
            if let Some(ended) = launched.ended.get() {
                return ended.clone();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("process {} did not end within 5 s", launched.pid);
    }
}
