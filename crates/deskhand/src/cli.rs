//! The CLI face: `deskhand <action> [ARG]`, printing exactly what the MCP tool returns,
//! with refs and the current surface kept per display between calls.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use serde_json::json;

use deskhand_core::{Config, Error, NullBackend, Outcome, Reply, Session, execute, parse_call};
use deskhand_mcp::DesktopServer;

use crate::args::{ActionCall, McpArgs};
use crate::safety;

/// One action from the command line.
pub fn action(call: ActionCall) -> anyhow::Result<u8> {
    let ActionCall { arguments, options } = call;
    let recorder = crate::recording::recorder(options.record.clone())?;
    // Loaded before anything else, once: no call can change them.
    let (policy, audit) = safety::load(&options.safety)?;
    let config = Config {
        policy,
        audit,
        memory: safety::open_memory(&options.safety)?,
        ocr: crate::platform::text_reader(),
        ..Config::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime failed")?;
    // A well-formed call with no desktop to act on answers why, and records nothing.
    let (call, recorder) = match (parse_call(arguments.clone()), crate::own_desktop::missing()) {
        (Ok(_), Some(missing)) => (Err(missing), None),
        (call, _) => (call, recorder),
    };
    let reply = match (call, recorder) {
        (Ok(call), None) => runtime.block_on(async {
            let backend = crate::platform::connect()?;
            let store = SessionStore::open()?;
            let mut session = store.load();
            let reply = execute(&backend, &mut session, &config, call).await;
            store.save(&session)?;
            Ok::<_, Error>(reply)
        }),
        (call, Some(recorder)) => runtime.block_on(async {
            let backend = Arc::new(crate::platform::connect()?);
            let store = SessionStore::open()?;
            let mut session = store.load();
            let actuates = call.as_ref().is_ok_and(|c| c.actuates());
            let begun = recorder
                .begin(&backend, &mut session, &arguments, actuates)
                .await;
            let mut reply = match call {
                Ok(call) => execute(backend.as_ref(), &mut session, &config, call).await,
                Err(err) => Err(err),
            };
            recorder
                .finish(&backend, begun, &mut session, &mut reply)
                .await;
            store.save(&session)?;
            recorder.flush().await;
            Ok::<_, Error>(reply)
        }),
        (Err(err), None) => Ok(Err(err)),
    };
    let reply = reply.unwrap_or_else(Err);
    print_reply(&reply, options.json, options.out.as_deref())
}

fn print_reply(
    reply: &Result<Reply, Error>,
    json_out: bool,
    out: Option<&Path>,
) -> anyhow::Result<u8> {
    let mut stdout = std::io::stdout().lock();
    match reply {
        Ok(reply) => {
            let image = match &reply.image {
                Some(png) => Some(write_image(png, out)?),
                None => None,
            };
            if json_out {
                let doc = json!({
                    "ok": !reply.is_error(), "outcome": reply.outcome, "text": reply.text,
                    "data": reply.data, "image": image,
                });
                writeln!(stdout, "{doc}")?;
            } else {
                write!(stdout, "{}", reply.text)?;
                if let Some(path) = &image {
                    writeln!(stdout, "image: {}", path.display())?;
                }
            }
            Ok(match reply.outcome {
                Outcome::Unconfirmed => 3,
                Outcome::Failed => 1,
                Outcome::Observed | Outcome::Done => 0,
            })
        }
        Err(err) => {
            if json_out {
                let doc = json!({"ok": false, "error": err.kind, "message": err.message});
                writeln!(stdout, "{doc}")?;
            } else {
                write!(stdout, "{}", err.reply_text())?;
            }
            Ok(1)
        }
    }
}

fn write_image(png: &[u8], out: Option<&Path>) -> anyhow::Result<PathBuf> {
    let path = match out {
        Some(path) => path.to_path_buf(),
        None => {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or_default();
            std::env::temp_dir().join(format!("deskhand-{}-{stamp}.png", std::process::id()))
        }
    };
    fs::write(&path, png)
        .with_context(|| format!("writing the image to {} failed", path.display()))?;
    Ok(path)
}

/// The CLI's session for this display: refs, ids and the current surface, under a file lock so
/// two shells never interleave their updates.
struct SessionStore {
    path: PathBuf,
    _lock: File,
}

impl SessionStore {
    fn open() -> Result<Self, Error> {
        let display = std::env::var("DISPLAY").unwrap_or_default();
        // The cookie file tells two X servers that reused one display number apart.
        let server = std::env::var("XAUTHORITY").unwrap_or_default();
        let dir = state_dir();
        let fail = |err: std::io::Error| {
            Error::platform(format!(
                "the CLI session file in {} cannot be used ({err}); check the directory's permissions",
                dir.display()
            ))
        };
        fs::create_dir_all(&dir).map_err(fail)?;
        let name = format!(
            "session-{}-{:016x}",
            display.replace(['/', ':', '.'], "_"),
            fnv1a(server.as_bytes())
        );
        let lock = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{name}.lock")))
            .map_err(fail)?;
        // Blocks only until the other CLI call ends.
        lock.lock().map_err(fail)?;
        Ok(Self {
            path: dir.join(format!("{name}.json")),
            _lock: lock,
        })
    }

    /// A missing or unreadable session starts afresh: old refs then fail as unknown, never wrongly.
    fn load(&self) -> Session {
        fs::read(&self.path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    fn save(&self, session: &Session) -> Result<(), Error> {
        let bytes = serde_json::to_vec(session).expect("a session always serializes");
        let temp = self.path.with_extension("json.tmp");
        fs::write(&temp, bytes)
            .and_then(|()| fs::rename(&temp, &self.path))
            .map_err(|err| {
                Error::platform(format!(
                    "saving the CLI session to {} failed ({err}); the action itself ran",
                    self.path.display()
                ))
            })
    }
}

/// Windows keeps a user's per-machine state under `%LOCALAPPDATA%`.
#[cfg(windows)]
fn state_dir() -> PathBuf {
    match std::env::var_os("LOCALAPPDATA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("deskhand"),
        _ => std::env::temp_dir().join("deskhand"),
    }
}

#[cfg(not(windows))]
fn state_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("deskhand"),
        _ => std::env::temp_dir().join(format!("deskhand-{}", unsafe_free_uid())),
    }
}

#[cfg(target_os = "macos")]
fn unsafe_free_uid() -> u32 {
    deskhand_macos::paths::user_id()
}

#[cfg(all(unix, not(target_os = "macos")))]
fn unsafe_free_uid() -> u32 {
    fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap_or(0)
}

/// Elsewhere the temporary folder is the user's own already.
#[cfg(not(any(unix, windows)))]
fn unsafe_free_uid() -> u32 {
    0
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325, |hash, b| {
        (hash ^ *b as u64).wrapping_mul(0x100000001b3)
    })
}

/// `deskhand mcp`: serves one agent over stdio until it hangs up.
pub fn mcp(args: McpArgs) -> anyhow::Result<u8> {
    if args.serve.http.is_some() {
        return crate::serve::http(args);
    }
    let McpArgs {
        headless,
        wayland,
        record,
        safety,
        takeover,
        serve: _,
    } = args;
    // Before a headless desktop replaces XDG_CONFIG_HOME with its own, and once for the whole
    // server: no tool call can change the policy.
    let (policy, audit) = safety::load(&safety)?;
    let memory = safety::open_memory(&safety)?;
    let recorder = crate::recording::recorder(record)?;
    let started = prepare_display(headless, wayland)?;
    let private = started.is_some() || std::env::var_os("DESKHAND_DESKTOP").is_some();
    let overlay = crate::person::overlay(&takeover, &|name| std::env::var_os(name), private)?;
    let takeover = crate::person::takeover(&takeover, &|name| std::env::var_os(name), private)?;
    // Before the runtime: the doctor runs one of its own.
    let setup = setup_check(&safety);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime failed")?;
    let served = runtime.block_on(async {
        let config = Config {
            policy,
            audit,
            memory,
            ocr: crate::platform::text_reader(),
            // Set by an HTTP server that runs this process as one session's private desktop.
            session: std::env::var(deskhand_mcp::http::SESSION_VAR).ok(),
            ..Config::default()
        };
        let backend = match crate::own_desktop::missing() {
            Some(missing) => Err(missing),
            None => crate::platform::connect_serving()
                .map_err(|err| crate::own_desktop::unreachable(&err)),
        };
        let served = match backend {
            Ok(backend) => {
                if let Some(idle) = takeover
                    && let Err(why) = crate::platform::watch_for_person(&backend, idle)
                {
                    eprintln!("deskhand: {why}");
                }
                if overlay && let Err(why) = crate::platform::show_overlay(&backend) {
                    eprintln!("deskhand: {why}");
                }
                let mut server =
                    DesktopServer::new(Arc::new(backend), config).with_setup_check(setup);
                if let Some(recorder) = recorder {
                    server = server.with_recorder(recorder);
                }
                deskhand_mcp::serve_stdio(server).await
            }
            // Still served: the client shows why and the fix, not a closed connection.
            Err(why) => {
                eprintln!("deskhand: {}", why.message);
                let server = DesktopServer::new(Arc::new(NullBackend), config)
                    .with_setup_check(setup)
                    .without_desktop(why);
                deskhand_mcp::serve_stdio(server).await
            }
        };
        served.context("the MCP connection failed")
    });
    // Now, not a moment later by the watcher: whoever waits for this process to exit then
    // knows its desktop is gone.
    stop_display(started);
    served?;
    Ok(0)
}

/// The doctor for the MCP server: run once now, quickly, for the instructions' line, and in
/// full at every read of its resource.
pub(crate) fn setup_check(safety: &crate::safety::SafetyFlags) -> deskhand_mcp::SetupCheck {
    let flags = safety.clone();
    deskhand_mcp::SetupCheck {
        desktop: crate::own_desktop::summary(),
        problems: crate::doctor::run(safety, crate::doctor::Depth::Quick).summary_line(),
        // On a thread of its own, outside the server's runtime, as at start.
        diagnose: Arc::new(move || {
            let flags = flags.clone();
            std::thread::spawn(move || {
                crate::doctor::run(&flags, crate::doctor::Depth::Full).text()
            })
            .join()
            .unwrap_or_else(|_| {
                "deskhand doctor: the doctor itself failed; run `deskhand doctor` in a shell\n"
                    .to_owned()
            })
        }),
    }
}

/// Makes sure there is a desktop to drive: `DISPLAY`'s, or with `headless` and none, a private
/// headless one started now, its environment taken over for the whole process; its state file
/// when it started one.
#[cfg(target_os = "linux")]
pub(crate) fn prepare_display(
    headless: bool,
    wayland: Option<crate::args::WaylandCompositor>,
) -> anyhow::Result<Option<PathBuf>> {
    use deskhand_linux::desktop;
    let unset = |name: &str| std::env::var(name).map(|d| d.is_empty()).unwrap_or(true);
    let no_display = unset("DISPLAY") && unset("WAYLAND_DISPLAY");
    // A Wayland desktop is asked for by name, so it starts whatever display is set.
    if headless && (no_display || wayland.is_some()) {
        let started = desktop::start(&desktop::StartOptions {
            owner_pid: Some(std::process::id()),
            accessibility_listener: true,
            wayland: wayland.map(crate::desktop_cmd::compositor),
            ..desktop::StartOptions::default()
        })
        .context("starting the headless desktop for `deskhand mcp --headless` failed")?;
        for name in &started.unset {
            // SAFETY: still single-threaded: the async runtime starts after this returns.
            unsafe { std::env::remove_var(name) };
        }
        for (key, value) in &started.env {
            // SAFETY: as above, no other thread exists yet.
            unsafe { std::env::set_var(key, value) };
        }
        eprintln!(
            "deskhand: started a headless desktop on {}",
            started.display
        );
        return Ok(Some(started.state_file));
    }
    // Without a desktop the server still serves, answering every call with why.
    Ok(None)
}

/// Stops the desktop [`prepare_display`] started, if it did.
#[cfg(target_os = "linux")]
pub(crate) fn stop_display(started: Option<PathBuf>) {
    if let Some(state) = started
        && let Err(err) = deskhand_linux::desktop::stop(&state)
    {
        eprintln!("deskhand: stopping the headless desktop failed: {err}");
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn stop_display(_started: Option<PathBuf>) {}

/// Only Linux has a headless desktop of deskhand's; elsewhere the desktop is the user's own.
#[cfg(not(target_os = "linux"))]
pub(crate) fn prepare_display(
    headless: bool,
    _wayland: Option<crate::args::WaylandCompositor>,
) -> anyhow::Result<Option<PathBuf>> {
    if headless {
        anyhow::bail!(
            "`--headless` starts a private X11 desktop, which only Linux has; leave it out"
        );
    }
    Ok(None)
}
