//! `deskhand mcp --http ADDR`: the tool served over Streamable HTTP to many clients, on this
//! desktop or on a private desktop per session.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use deskhand_core::Config;
use deskhand_mcp::http::{Desktops, HttpOptions, WorkerCommand};

use crate::args::McpArgs;
use crate::platform::PlatformBackend;

/// The flags of `deskhand mcp` that serve HTTP. The token is never one of them: a command line
/// is visible to every user of the machine.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct HttpFlags {
    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of stdio, e.g. 127.0.0.1:8765 (port 0
    /// picks a free one; the address is printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// The bearer token every client must send, read from this file (else $DESKHAND_TOKEN).
    /// Required to bind an address other than loopback.
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<PathBuf>,
    /// A Host name clients reach this server by, besides loopback ones (repeat for more).
    #[arg(long, value_name = "HOST", requires = "http")]
    pub allow_host: Vec<String>,
    /// A browser origin allowed to call, besides loopback ones, e.g. `https://app.example:443`.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// Give each session a private headless desktop, started on its first call and stopped
    /// when the session ends or idles out.
    #[arg(long, requires = "http")]
    pub desktop_per_session: bool,
    /// With --desktop-per-session: private desktops at once; a session past it is told so.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub max_desktops: usize,
    /// Tool calls running at once over all sessions; past it a call answers `busy`.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_calls: usize,
    /// End a session after this many seconds without a request.
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub idle_timeout: u64,
    /// Refuse request bodies larger than this many bytes (413).
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub max_body: usize,
    /// With --desktop-per-session: this host's name in its desktops' handles
    /// (`desk-NAME-…`), lowercase letters, digits and hyphens, for a load balancer to route by.
    #[arg(long, value_name = "NAME", requires = "desktop_per_session", value_parser = parse_host_id)]
    pub host_id: Option<String>,
}

fn parse_host_id(name: &str) -> Result<String, String> {
    let fits = (1..=63).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if fits {
        Ok(name.to_owned())
    } else {
        Err("give 1 to 63 lowercase letters, digits or hyphens, like h1 or deskhand-0".to_owned())
    }
}

pub fn http(args: McpArgs) -> anyhow::Result<u8> {
    let McpArgs {
        headless,
        wayland,
        record,
        safety,
        takeover,
        serve: flags,
    } = args;
    let addr = flags.http.expect("only called with --http");
    let record = crate::recording::sessions_root(record)?;
    init_logging();
    let token = token(flags.token_file.as_deref())?;
    if flags.max_calls == 0 || flags.max_desktops == 0 {
        bail!("--max-calls and --max-desktops must be at least 1");
    }
    let options = HttpOptions {
        token,
        allowed_hosts: flags.allow_host.clone(),
        allowed_origins: flags.allow_origin.clone(),
        max_body_bytes: flags.max_body,
        idle_timeout: Duration::from_secs(flags.idle_timeout.max(1)),
        max_calls: flags.max_calls,
        record,
        host_id: flags.host_id.clone(),
    };
    // Before anything starts: a refused bind leaves nothing behind.
    deskhand_mcp::http::check_bind(addr, &options)?;
    let (policy, audit) = crate::safety::load(&safety)?;
    let memory = crate::safety::open_memory(&safety)?;
    let started = if flags.desktop_per_session {
        None
    } else {
        crate::cli::prepare_display(headless, wayland)?
    };
    let setup = (!flags.desktop_per_session).then(|| crate::cli::setup_check(&safety));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime failed")?;
    let served = runtime.block_on(async {
        let desktops = if flags.desktop_per_session {
            Desktops::PerSession {
                command: worker_command(wayland, &safety)?,
                max: flags.max_desktops,
            }
        } else {
            let backend =
                crate::platform::connect_serving().map_err(|err| anyhow::anyhow!(err.message))?;
            let private = started.is_some() || std::env::var_os("DESKHAND_DESKTOP").is_some();
            if let Some(idle) =
                crate::person::takeover(&takeover, &|name| std::env::var_os(name), private)?
                && let Err(why) = crate::platform::watch_for_person(&backend, idle)
            {
                eprintln!("deskhand: {why}");
            }
            if crate::person::overlay(&takeover, &|name| std::env::var_os(name), private)?
                && let Err(why) = crate::platform::show_overlay(&backend)
            {
                eprintln!("deskhand: {why}");
            }
            Desktops::<PlatformBackend>::Shared(Arc::new(backend))
        };
        let config = Config {
            policy,
            audit,
            memory,
            ocr: crate::platform::text_reader(),
            ..Config::default()
        };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("listening on {addr} failed"))?;
        let bound = listener.local_addr()?;
        // Tests and scripts read this line to find a port picked with :0.
        eprintln!("deskhand: serving MCP on http://{bound}/mcp");
        deskhand_mcp::http::serve_http(listener, options, config, desktops, setup, stop_signal())
            .await
            .context("the HTTP server failed")
    });
    crate::cli::stop_display(started);
    served?;
    Ok(0)
}

/// The token from the file named, else from `DESKHAND_TOKEN`; surrounding white space is not
/// part of it.
fn token(file: Option<&std::path::Path>) -> anyhow::Result<Option<String>> {
    #[cfg(unix)]
    if let Some(path) = file {
        warn_if_others_read(path);
    }
    let (token, source) = match file {
        Some(path) => (
            std::fs::read_to_string(path)
                .with_context(|| format!("reading the token file {} failed", path.display()))?,
            format!("the token file {}", path.display()),
        ),
        None => match std::env::var("DESKHAND_TOKEN") {
            Ok(token) => (token, "DESKHAND_TOKEN".to_owned()),
            Err(_) => return Ok(None),
        },
    };
    let token = token.trim().to_owned();
    if token.len() < 16 || token.chars().any(char::is_whitespace) {
        bail!(
            "{source} holds no usable token: it needs at least 16 characters and no spaces; `head -c 24 /dev/urandom | base64` makes one"
        );
    }
    Ok(Some(token))
}

/// A token others can read lets them in: said, as ssh says of a key file, but not refused (a
/// container's secret mount may be 0644 with no other user to read it).
#[cfg(unix)]
fn warn_if_others_read(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(metadata) = std::fs::metadata(path) else {
        return;
    };
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        tracing::warn!(
            "the token file {} can be read by other users (mode {mode:o}), who could use the token; run chmod 600 {}",
            path.display(),
            path.display()
        );
    }
}

/// Each private desktop is this binary as `deskhand mcp --headless`, with the server's own
/// safety flags, so the policy, audit log and memory are the same in every session.
#[cfg(target_os = "linux")]
fn worker_command(
    wayland: Option<crate::args::WaylandCompositor>,
    safety: &crate::safety::SafetyFlags,
) -> anyhow::Result<WorkerCommand> {
    let exe = std::env::current_exe().context("finding the deskhand binary failed")?;
    let mut args: Vec<std::ffi::OsString> = vec!["mcp".into(), "--headless".into()];
    if let Some(wayland) = wayland {
        args.push("--wayland".into());
        args.push(
            match wayland {
                crate::args::WaylandCompositor::Sway => "sway",
                crate::args::WaylandCompositor::Gnome => "gnome",
            }
            .into(),
        );
    }
    for (flag, value) in [
        (
            "--policy",
            safety.policy.as_ref().map(|p| p.as_os_str().to_owned()),
        ),
        ("--audit", safety.audit.as_ref().map(Into::into)),
        ("--memory", safety.memory.as_ref().map(Into::into)),
    ] {
        if let Some(value) = value {
            args.push(flag.into());
            args.push(value);
        }
    }
    Ok(Arc::new(move || {
        let mut command = tokio::process::Command::new(&exe);
        command.args(&args);
        // The child starts a desktop only where none is named, and needs no token.
        for name in [
            "DISPLAY",
            "WAYLAND_DISPLAY",
            "DESKHAND_TOKEN",
            "DESKHAND_RECORD",
        ] {
            command.env_remove(name);
        }
        command
    }))
}

#[cfg(not(target_os = "linux"))]
fn worker_command(
    _wayland: Option<crate::args::WaylandCompositor>,
    _safety: &crate::safety::SafetyFlags,
) -> anyhow::Result<WorkerCommand> {
    bail!(
        "--desktop-per-session starts private headless desktops, which only Linux has; leave it out"
    )
}

/// SIGTERM (an orchestrator's stop) or Ctrl-C.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Structured lines on stderr, `DESKHAND_LOG` (error, warn, info, debug, trace) deep; one JSON
/// object a line with `DESKHAND_LOG_FORMAT=json`, for a log collector.
fn init_logging() {
    let level = std::env::var("DESKHAND_LOG")
        .ok()
        .and_then(|level| level.parse().ok())
        .unwrap_or(tracing::Level::INFO);
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(level);
    if std::env::var("DESKHAND_LOG_FORMAT").is_ok_and(|format| format == "json") {
        logs.json().init();
    } else {
        logs.init();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_is_trimmed_and_a_short_or_missing_one_refused() {
        let dir = std::env::temp_dir().join(format!("deskhand-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let good = dir.join("good");
        std::fs::write(&good, "  0123456789abcdefXYZ\n").expect("written");
        assert_eq!(
            token(Some(&good)).expect("a token").as_deref(),
            Some("0123456789abcdefXYZ")
        );
        let short = dir.join("short");
        std::fs::write(&short, "tiny\n").expect("written");
        let refused = token(Some(&short)).expect_err("too short").to_string();
        assert!(refused.contains("at least 16 characters"), "{refused}");
        let missing = token(Some(&dir.join("missing"))).expect_err("no file");
        assert!(
            missing.to_string().contains("reading the token file"),
            "{missing}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_host_id_is_a_name_a_balancer_can_route_by() {
        assert_eq!(parse_host_id("h1").as_deref(), Ok("h1"));
        assert_eq!(parse_host_id("deskhand-0").as_deref(), Ok("deskhand-0"));
        for bad in ["", "H1", "h_1", "a.b", &"x".repeat(64)] {
            assert!(parse_host_id(bad).is_err(), "{bad:?}");
        }
    }
}
