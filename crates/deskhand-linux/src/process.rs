//! Processes as `/proc` shows them: their state, parent, group and start time, the name an
//! application goes by; ending an application's process, and telling which process started
//! which.

use std::fs;
use std::time::Duration;

use deskhand_core::error::{Error, ErrorKind, Result};

/// How long a process may take to exit on SIGTERM before it gets SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(2);
/// SIGKILL is not instant either: the process must leave the kernel first.
const KILL_GRACE: Duration = Duration::from_secs(1);
const POLL: Duration = Duration::from_millis(20);
/// Deeper than any real process tree; stops a walk that a racing fork/exit sent in circles.
const MAX_ANCESTRY: usize = 256;

/// The fields of `/proc/<pid>/stat` that identify a process, its parent and its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcStat {
    state: char,
    pub(crate) ppid: u32,
    pub(crate) pgrp: i32,
    pub(crate) start_time: u64,
}

impl ProcStat {
    /// pid 1 on these machines reaps late, so a zombie counts as gone.
    pub(crate) fn is_dead(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

fn parse_stat(line: &str) -> Option<ProcStat> {
    // The command name may itself contain spaces and parentheses; it ends at the last ')'.
    let (_, rest) = line.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    // starttime is field 22 of stat(5); pgrp was field 5.
    let start_time = fields.nth(16)?.parse().ok()?;
    Some(ProcStat {
        state,
        ppid,
        pgrp,
        start_time,
    })
}

pub(crate) fn read_stat(pid: u32) -> Option<ProcStat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// How long ago process `pid` started; `None` when it is gone or `/proc` does not say.
pub(crate) fn age(pid: u32) -> Option<Duration> {
    let started = read_stat(pid)?.start_time;
    let uptime: f64 = fs::read_to_string("/proc/uptime")
        .ok()?
        .split_ascii_whitespace()
        .next()?
        .parse()
        .ok()?;
    // SAFETY: sysconf reads a constant of the system and has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks <= 0 {
        return None;
    }
    let started = started as f64 / ticks as f64;
    Some(Duration::from_secs_f64((uptime - started).max(0.0)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Identity {
    Alive,
    Dead,
    /// The pid now belongs to some other process.
    Recycled,
}

pub(crate) fn identity(pid: u32, start_time: u64) -> Identity {
    match read_stat(pid) {
        None => Identity::Dead,
        Some(stat) if stat.start_time != start_time => Identity::Recycled,
        Some(stat) if stat.is_dead() => Identity::Dead,
        Some(_) => Identity::Alive,
    }
}

/// Asks process `pid` to exit (SIGTERM), and forces it (SIGKILL) if it has not after
/// `TERM_GRACE`. Refuses the kernel's and init's pids and deskhand's own.
pub(crate) async fn kill(pid: u32) -> Result<()> {
    let refuse = |why: &str| {
        Error::bad_argument(format!(
            "process {pid} is {why} and is never ended; pass the pid of an application (see `apps`)"
        ))
    };
    if pid == 0 {
        return Err(refuse("not a process"));
    }
    if pid == 1 {
        return Err(refuse("init"));
    }
    if pid == std::process::id() {
        return Err(refuse("deskhand itself"));
    }
    // A negative pid_t would signal a whole process group.
    let Ok(target) = i32::try_from(pid) else {
        return Err(Error::bad_argument(format!(
            "{pid} is not a valid process id; pass the pid of an application (see `apps`)"
        )));
    };
    signal(pid, target, libc::SIGTERM)?;
    if exited_within(pid, TERM_GRACE).await {
        return Ok(());
    }
    signal(pid, target, libc::SIGKILL)?;
    if exited_within(pid, KILL_GRACE).await {
        return Ok(());
    }
    Err(Error::platform(format!(
        "process {pid} ignored SIGTERM for {} s and was still there {} s after SIGKILL; it is \
         probably stuck in the kernel (uninterruptible I/O): check `cat /proc/{pid}/status`, \
         wait, and call `kill` again",
        TERM_GRACE.as_secs(),
        KILL_GRACE.as_secs()
    )))
}

fn signal(pid: u32, target: i32, signal: libc::c_int) -> Result<()> {
    // SAFETY: kill has no memory-safety preconditions; `target` is positive, so it names one
    // process.
    if unsafe { libc::kill(target, signal) } == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        // Gone between two signals counts as ended; gone before the first means a wrong pid.
        Some(libc::ESRCH) if signal == libc::SIGKILL => Ok(()),
        Some(libc::ESRCH) => Err(Error::new(
            ErrorKind::SurfaceGone,
            format!(
                "there is no process {pid} (it may have exited already); call `apps` to see what runs"
            ),
        )),
        Some(libc::EPERM) => Err(Error::platform(format!(
            "deskhand may not signal process {pid} ({err}): it belongs to another user; end it as that user"
        ))),
        _ => Err(Error::platform(format!(
            "signalling process {pid} failed ({err}); try again"
        ))),
    }
}

async fn exited_within(pid: u32, grace: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + grace;
    loop {
        // A zombie has exited: it waits only for its parent to collect its status.
        if read_stat(pid).is_none_or(|stat| stat.is_dead()) {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Whether `pid` is `ancestor` or one of its descendants, by the parent links in `/proc`.
/// Whether any live process is in process group `pgrp`: what a launched app started in its own
/// session (and so its own group) that still runs after it exited.
pub(crate) fn group_alive(pgrp: u32) -> bool {
    let Ok(entries) = fs::read_dir("/proc") else {
        return false;
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(read_stat)
        .any(|stat| i64::from(stat.pgrp) == i64::from(pgrp) && !stat.is_dead())
}

pub(crate) fn descends_from(pid: u32, ancestor: u32) -> bool {
    descends_through(pid, ancestor, |p| read_stat(p).map(|stat| stat.ppid))
}

fn descends_through(pid: u32, ancestor: u32, parent: impl Fn(u32) -> Option<u32>) -> bool {
    let mut current = pid;
    for _ in 0..MAX_ANCESTRY {
        if current == ancestor {
            return true;
        }
        match parent(current) {
            Some(next) if next != 0 && next != current => current = next,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(p: u32) -> Option<u32> {
        // 1 ← 10 ← 20 ← 30, and 40 whose parent is unknown.
        match p {
            1 => Some(0),
            10 => Some(1),
            20 => Some(10),
            30 => Some(20),
            _ => None,
        }
    }

    #[test]
    fn a_process_descends_from_itself_and_every_ancestor() {
        assert!(descends_through(30, 30, tree));
        assert!(descends_through(30, 20, tree));
        assert!(descends_through(30, 10, tree));
        assert!(descends_through(30, 1, tree));
        assert!(!descends_through(20, 30, tree));
        assert!(!descends_through(40, 10, tree));
        assert!(!descends_through(30, 0, tree));
    }

    #[test]
    fn a_parent_loop_ends_the_walk() {
        assert!(!descends_through(5, 9, |p| Some(if p == 5 {
            6
        } else {
            5
        })));
    }

    #[test]
    fn this_test_descends_from_its_parent() {
        let me = std::process::id();
        let parent = read_stat(me).unwrap().ppid;
        assert!(descends_from(me, parent));
        assert!(descends_from(me, 1));
        assert!(!descends_from(parent, me));
    }

    #[tokio::test]
    async fn kill_refuses_init_and_itself() {
        for pid in [0, 1, std::process::id(), u32::MAX] {
            let err = kill(pid).await.unwrap_err();
            assert_eq!(err.kind, ErrorKind::BadArgument, "{pid}: {err}");
        }
    }

    #[tokio::test]
    async fn kill_ends_a_process_that_ignores_sigterm() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "trap '' TERM; while :; do sleep 0.05; done"])
            .spawn()
            .unwrap();
        // Give the shell time to install its trap.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = std::time::Instant::now();
        kill(child.id()).await.unwrap();
        assert!(started.elapsed() >= TERM_GRACE, "{:?}", started.elapsed());
        let status = child.wait().unwrap();
        assert!(!status.success());
        let err = kill(child.id()).await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::SurfaceGone, "{err}");
    }

    #[test]
    fn parse_stat_reads_fields_after_the_command_name() {
        let line = "4242 (Web Content) S 1 4240 4240 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654 1000 10 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(ProcStat {
                state: 'S',
                ppid: 1,
                pgrp: 4240,
                start_time: 987654
            })
        );
    }

    #[test]
    fn parse_stat_handles_parentheses_in_the_command_name() {
        let line = "7 (a) Z (b)) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat.state, 'Z');
        assert!(stat.is_dead());
        assert_eq!(stat.ppid, 1);
        assert_eq!(stat.pgrp, 7);
        assert_eq!(stat.start_time, 55);
    }

    #[test]
    fn parse_stat_rejects_truncated_lines() {
        assert_eq!(parse_stat("12 (x) S 1 12"), None);
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn read_stat_sees_this_process() {
        let stat = read_stat(std::process::id()).unwrap();
        assert!(!stat.is_dead());
        assert_eq!(
            identity(std::process::id(), stat.start_time),
            Identity::Alive
        );
        assert_eq!(
            identity(std::process::id(), stat.start_time + 1),
            Identity::Recycled
        );
    }
}

/// The one name an application goes by everywhere (apps, windows, errors, memory, the policy):
/// its program's file name, lowercased, from the process's own command line. Window classes
/// differ between one program's windows (LibreOffice's main window and its dialogs) and the
/// accessibility bus may not answer, so neither can name an application steadily.
pub(crate) fn program_name(pid: u32) -> Option<String> {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<String> = cmdline
        .split(|byte| *byte == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect();
    name_from_args(&args).or_else(|| {
        std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .ok()
            .map(|comm| comm.trim().to_lowercase())
            .filter(|comm| !comm.is_empty())
    })
}

/// The program a command line runs: an interpreter's script rather than the interpreter, and
/// without the `.bin` suffix of a program behind a launcher script (LibreOffice's soffice.bin).
fn name_from_args(args: &[String]) -> Option<String> {
    const INTERPRETERS: [&str; 9] = [
        "python", "perl", "ruby", "node", "sh", "bash", "java", "wish", "tclsh",
    ];
    let base = |arg: &str| -> String {
        let file = arg.rsplit('/').next().unwrap_or(arg);
        file.strip_suffix(".bin").unwrap_or(file).to_lowercase()
    };
    // Chromium rewrites its command line into one argument with spaces; a program path with a
    // space of its own names a file that exists.
    let first = args.first()?;
    let first = match first.split_once(' ') {
        Some((program, _)) if !std::path::Path::new(first).exists() => program,
        _ => first.as_str(),
    };
    let program = base(first);
    let interpreted = INTERPRETERS.iter().any(|interpreter| {
        program
            .strip_prefix(interpreter)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
    });
    if interpreted && program.starts_with("java") {
        return java_main(&args[1..])
            .map(|main| base(&main))
            .or(Some(program));
    }
    if interpreted && let Some(script) = args[1..].iter().find(|arg| !arg.starts_with('-')) {
        return Some(base(script));
    }
    (!program.is_empty()).then_some(program)
}

/// What a `java` command line runs: the jar of `-jar`, else its main class's own name (of
/// `-m module/pkg.Main` or the first word that is no option), skipping the values of the
/// options that take one (a class path `-cp a.jar:/x/y` is not the program).
fn java_main(args: &[String]) -> Option<String> {
    const TAKE_A_VALUE: [&str; 7] = [
        "-cp",
        "-classpath",
        "--class-path",
        "-p",
        "--module-path",
        "--upgrade-module-path",
        "--add-modules",
    ];
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-jar" => return rest.next().cloned(),
            "-m" | "--module" => {
                let module = rest.next()?;
                let main = module.rsplit('/').next().unwrap_or(module);
                return Some(main.rsplit('.').next().unwrap_or(main).to_owned());
            }
            option if TAKE_A_VALUE.contains(&option) => {
                rest.next();
            }
            option if option.starts_with('-') => {}
            main => return Some(main.rsplit('.').next().unwrap_or(main).to_owned()),
        }
    }
    None
}

#[cfg(test)]
mod program_names {
    use super::name_from_args;

    fn name(args: &[&str]) -> Option<String> {
        name_from_args(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_java_program_is_named_by_its_main_class_or_jar_never_its_class_path() {
        let java = |args: &[&str]| name(&[&["/usr/lib/jvm/java-17/bin/java"], args].concat());
        assert_eq!(
            java(&["-Xmx1g", "-cp", "a.jar:/x/y", "org.example.Main"]).as_deref(),
            Some("main")
        );
        assert_eq!(
            java(&[
                "-classpath",
                "/opt/app/lib/*",
                "org.jabref.JabRefMain",
                "--debug"
            ])
            .as_deref(),
            Some("jabrefmain")
        );
        assert_eq!(
            java(&["-Dx=1", "-jar", "/usr/share/app/Draw.jar"]).as_deref(),
            Some("draw.jar")
        );
        assert_eq!(
            java(&["-p", "/mods", "-m", "org.app/org.app.Editor"]).as_deref(),
            Some("editor")
        );
        assert_eq!(java(&["-version"]).as_deref(), Some("java"));
    }

    #[test]
    fn a_program_is_named_by_its_file_and_a_script_by_its_own() {
        assert_eq!(
            name(&["/usr/lib/libreoffice/program/soffice.bin", "--calc"]).as_deref(),
            Some("soffice")
        );
        assert_eq!(name(&["Thunar", "/tmp"]).as_deref(), Some("thunar"));
        assert_eq!(
            name(&[
                "/usr/bin/python3",
                "-u",
                "/x/fixture_app.py",
                "--title",
                "A"
            ])
            .as_deref(),
            Some("fixture_app.py")
        );
        assert_eq!(name(&["python3.11"]).as_deref(), Some("python3.11"));
        assert_eq!(
            name(&["/usr/lib/chromium/chromium --no-sandbox file:///tmp/page.html"]).as_deref(),
            Some("chromium")
        );
        assert_eq!(name(&["pythonic-app"]).as_deref(), Some("pythonic-app"));
        assert_eq!(name(&[]), None);
    }
}
