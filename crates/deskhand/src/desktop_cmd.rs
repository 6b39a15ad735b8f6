//! `deskhand desktop ...`: bring a private headless desktop up and down from a shell.

use std::path::PathBuf;

use anyhow::Context as _;
use deskhand_linux::desktop::{self, StartOptions};

const USAGE: &str = "usage: deskhand desktop start [--size WxH] [--owner-pid PID] [--json]\n       deskhand desktop stop [--state FILE]";
const WATCH_USAGE: &str = "usage: deskhand desktop watch --owner-pid PID --state FILE";

/// Runs a `desktop` subcommand and returns the process exit code.
pub fn run(args: &[String]) -> anyhow::Result<u8> {
    let (command, rest) = match args.split_first() {
        Some((command, _)) if matches!(command.as_str(), "-h" | "--help" | "help") => {
            println!("{USAGE}");
            return Ok(0);
        }
        Some((command, rest)) => (command.as_str(), rest),
        None => return Ok(usage_error("a subcommand is required", USAGE)),
    };
    let parsed = match parse_flags(rest) {
        Ok(parsed) => parsed,
        Err(message) => return Ok(usage_error(&message, USAGE)),
    };
    match command {
        "start" => start(&parsed),
        "stop" => stop(&parsed),
        "watch" => watch(&parsed),
        // Not a user command: `desktop start` runs the binary this way to keep a listener.
        "listen" => listen(),
        other => Ok(usage_error(&format!("unknown subcommand `{other}`"), USAGE)),
    }
}

fn listen() -> anyhow::Result<u8> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime failed")?;
    runtime
        .block_on(desktop::hold_accessibility_listener())
        .context("listening for accessibility changes failed")?;
    Ok(0)
}

fn usage_error(message: &str, usage: &str) -> u8 {
    eprintln!("error: {message}\n{usage}");
    2
}

/// Flags as given; which ones a subcommand accepts is checked by the subcommand.
#[derive(Debug, Default, PartialEq, Eq)]
struct Flags {
    size: Option<String>,
    owner_pid: Option<String>,
    state: Option<String>,
    json: bool,
}

fn parse_flags(args: &[String]) -> Result<Flags, String> {
    let mut flags = Flags::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (arg.as_str(), None),
        };
        let slot = match name {
            "--json" if inline.is_none() => {
                flags.json = true;
                continue;
            }
            "--size" => &mut flags.size,
            "--owner-pid" => &mut flags.owner_pid,
            "--state" => &mut flags.state,
            _ => return Err(format!("unexpected argument `{arg}`")),
        };
        let value = match inline {
            Some(value) => value,
            None => args
                .next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value"))?,
        };
        *slot = Some(value);
    }
    Ok(flags)
}

fn parse_size(size: &str) -> Option<(u32, u32)> {
    let (width, height) = size.split_once('x')?;
    let width: u32 = width.parse().ok()?;
    let height: u32 = height.parse().ok()?;
    (width > 0 && height > 0).then_some((width, height))
}

fn parse_pid(pid: &str) -> Option<u32> {
    pid.parse().ok().filter(|pid| *pid > 0)
}

fn start(flags: &Flags) -> anyhow::Result<u8> {
    if flags.state.is_some() {
        return Ok(usage_error("`start` does not take --state", USAGE));
    }
    let mut opts = StartOptions {
        accessibility_listener: true,
        ..StartOptions::default()
    };
    if let Some(size) = &flags.size {
        let Some((width, height)) = parse_size(size) else {
            return Ok(usage_error(
                &format!("--size must look like 1280x800, not `{size}`"),
                USAGE,
            ));
        };
        opts.width = width;
        opts.height = height;
    }
    if let Some(pid) = &flags.owner_pid {
        let Some(pid) = parse_pid(pid) else {
            return Ok(usage_error(
                &format!("--owner-pid must be a process id, not `{pid}`"),
                USAGE,
            ));
        };
        opts.owner_pid = Some(pid);
    }
    let desktop = desktop::start(&opts)?;
    if flags.json {
        let json = serde_json::json!({
            "display": desktop.display,
            "env": desktop
                .env
                .iter()
                .map(|(key, value)| (key.clone(), serde_json::Value::from(value.as_str())))
                .collect::<serde_json::Map<_, _>>(),
            "unset": desktop.unset,
            "state_file": desktop.state_file,
        });
        println!("{json}");
    } else {
        print!("{}", desktop.export_lines());
    }
    Ok(0)
}

fn stop(flags: &Flags) -> anyhow::Result<u8> {
    if flags.size.is_some() || flags.owner_pid.is_some() || flags.json {
        return Ok(usage_error("`stop` only takes --state FILE", USAGE));
    }
    let state_file = match &flags.state {
        Some(state) => PathBuf::from(state),
        None => std::env::var_os("DESKHAND_DESKTOP").map(PathBuf::from).context(
            "no desktop to stop: DESKHAND_DESKTOP is not set; pass --state FILE with the DESKHAND_DESKTOP value that `deskhand desktop start` printed, or run `eval \"$(deskhand desktop start)\"` in this shell first",
        )?,
    };
    desktop::stop(&state_file)?;
    Ok(0)
}

fn watch(flags: &Flags) -> anyhow::Result<u8> {
    let (Some(pid), Some(state), None, false) = (
        flags.owner_pid.as_deref().and_then(parse_pid),
        &flags.state,
        &flags.size,
        flags.json,
    ) else {
        return Ok(usage_error(
            "`watch` needs --owner-pid PID and --state FILE",
            WATCH_USAGE,
        ));
    };
    desktop::watch(pid, &PathBuf::from(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn flags_take_separate_or_inline_values() {
        let flags = parse_flags(&strings(&["--size", "800x600", "--owner-pid=12", "--json"]));
        assert_eq!(
            flags,
            Ok(Flags {
                size: Some("800x600".to_owned()),
                owner_pid: Some("12".to_owned()),
                state: None,
                json: true,
            })
        );
    }

    #[test]
    fn flags_reject_unknown_and_valueless() {
        assert!(parse_flags(&strings(&["--bogus"])).is_err());
        assert!(parse_flags(&strings(&["--state"])).is_err());
        assert!(parse_flags(&strings(&["--json=yes"])).is_err());
    }

    #[test]
    fn size_needs_two_positive_numbers() {
        assert_eq!(parse_size("1280x800"), Some((1280, 800)));
        assert_eq!(parse_size("0x800"), None);
        assert_eq!(parse_size("1280"), None);
        assert_eq!(parse_size("axb"), None);
    }

    #[test]
    fn usage_errors_exit_with_2() {
        assert_eq!(run(&[]).unwrap(), 2);
        assert_eq!(run(&strings(&["frobnicate"])).unwrap(), 2);
        assert_eq!(run(&strings(&["start", "--size", "big"])).unwrap(), 2);
        assert_eq!(run(&strings(&["watch", "--owner-pid", "1"])).unwrap(), 2);
    }
}
