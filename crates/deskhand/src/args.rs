//! The command line, parsed by clap: `deskhand mcp`, `deskhand desktop …`, and one sub-command per
//! action whose help lists the fields that action takes, from the tool's own schema, so the CLI's
//! help and the MCP contract cannot drift apart.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Map, Value};

use deskhand_core::action::{ActionName, RefId};

use crate::safety::SafetyFlags;

const AFTER_HELP: &str = "\
Examples:
  deskhand doctor                     will deskhand work here? and the fix for what will not
  eval \"$(deskhand desktop start)\"   a private headless desktop for this shell
  deskhand windows                    w1 \"Calculator\" · app a1 \"gnome-calculator\" · …
  deskhand observe w1                 its tree, with refs: the same as deskhand observe '{\"target\":\"w1\"}'
  deskhand click e21                  refs and the current surface persist between calls
  deskhand type 'hello'               into the focused element
  deskhand press ctrl+s
  deskhand click '{\"ref\":\"e21\",\"count\":2}'
                                      any action's arguments as one JSON object
  deskhand screenshot --out shot.png  images go to a file whose path is printed

An action takes its arguments as one JSON object, or a short form for its main field (a ref, a
target, the text, the keys); `deskhand <action> --help` lists its fields. Options go before or
after the action.

Exit status: 0 done, 1 the call failed (nothing happened), 2 usage error, 3 applied but unconfirmed.
Safety: the pointer in the top-left corner of the primary monitor stops every action until it leaves.
  Policy: --policy FILE, else $DESKHAND_POLICY, else $XDG_CONFIG_HOME/deskhand/policy.toml.
  Audit log: --audit FILE|off, else $DESKHAND_AUDIT, else $XDG_STATE_HOME/deskhand/audit.jsonl.
Memory of windows seen (names, never values): --memory FILE|off, else $DESKHAND_MEMORY, else
  $XDG_DATA_HOME/deskhand/memory.sqlite.";

/// deskhand: eyes and hands on a real desktop, for AI agents.
#[derive(Debug, Parser)]
#[command(name = "deskhand", version, after_help = AFTER_HELP)]
struct Cli {
    #[command(flatten)]
    options: CallOptions,
    // `None` for an action too: actions are sub-commands stamped from `ActionName::ALL`.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the `desktop` MCP tool over stdio, or over HTTP to many clients with --http.
    Mcp(Box<McpArgs>),
    /// A private headless desktop for a shell: eval "$(deskhand desktop start)".
    #[command(after_help = "\
Examples:
  eval \"$(deskhand desktop start)\"   start one and point this shell at it
  deskhand desktop start --json      the same, as JSON, for programs
  deskhand desktop stop              stops exactly what start started")]
    Desktop {
        #[command(subcommand)]
        command: DesktopCommand,
    },
    /// Check whether deskhand will work on this desktop, and say how to fix what will not.
    #[command(after_help = "\
Exit status: 0 when every check is ok, 1 when any warns or fails. It only reads: nothing is
created, changed or started.

Examples:
  deskhand doctor                    one line a check, each problem with its fix
  deskhand doctor --json             the same as one JSON object
  deskhand doctor --dump-tree Notepad > notepad.json
                                     what Windows' or macOS's reader returns for a window, for
                                     a bug report (nothing typed or secret in it)")]
    Doctor {
        /// Print the findings as one JSON object.
        #[arg(long)]
        json: bool,
        /// Instead of the checks, print what the platform's accessibility reader returns for
        /// one window (its handle from `windows`, or words of its title) as the reader tests
        /// replay it, with nothing typed or secret in it: attach it to a bug report. Windows
        /// and macOS.
        #[arg(long, value_name = "WINDOW")]
        dump_tree: Option<String>,
        #[command(flatten)]
        safety: SafetyFlags,
    },
    /// Run a recording's steps again on this desktop, finding each element by what it was.
    #[command(after_help = "\
Exit status: 0 when every step ran as recorded, 1 when it stopped (the step, what it looked for
and what it found are printed; nothing after that step ran).

Examples:
  deskhand replay run1               do it again
  deskhand replay run1 --dry-run     find every window and element, act on nothing
  deskhand replay run1 --as-batch    print it as one `batch` call an agent can send
  deskhand replay run1 --record run2 record the rerun, to report it")]
    Replay(ReplayArgs),
    /// Write a recording as one self-contained HTML page: steps, screenshots, replies.
    #[command(after_help = "\
Examples:
  deskhand report run1               writes run1/report.html
  deskhand report run1 -o run1.html")]
    Report {
        /// The folder `--record` wrote.
        dir: PathBuf,
        /// Where to write the page (default: DIR/report.html).
        #[arg(short, long, value_name = "FILE.html")]
        output: Option<PathBuf>,
    },
    /// Print a shell's completion script for deskhand.
    #[command(after_help = "\
Examples:
  deskhand completions bash > ~/.local/share/bash-completion/completions/deskhand
  deskhand completions zsh > ~/.zfunc/_deskhand")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Not a user command: prints the man page, which packaging installs.
    #[command(hide = true)]
    Man,
    /// The GNOME Shell extension deskhand needs on GNOME's Wayland session.
    #[command(
        name = "gnome-extension",
        after_help = "\
Examples:
  deskhand gnome-extension install   write it for this GNOME Shell and turn it on at next log-in"
    )]
    GnomeExtension {
        #[command(subcommand)]
        command: GnomeExtensionCommand,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum GnomeExtensionCommand {
    /// Write the extension into ~/.local/share/gnome-shell/extensions and turn it on.
    Install {
        /// The GNOME Shell major version to write it for (default: what `gnome-shell
        /// --version` says).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        shell_version: Option<u32>,
    },
}

/// `--json`, `--out`, and what every call is loaded with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct CallOptions {
    /// Print the structured reply as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Write an image reply here (default: a new file in the temporary directory).
    #[arg(long, value_name = "FILE.png")]
    pub out: Option<PathBuf>,
    /// Record each call as a step into this folder (default: $DESKHAND_RECORD); see `deskhand replay`.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub safety: SafetyFlags,
}

#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct McpArgs {
    /// Without DISPLAY, start a private headless desktop and stop it on exit.
    #[arg(long)]
    pub headless: bool,
    /// With --headless, the desktop is this Wayland compositor instead of X11.
    #[arg(long, value_name = "COMPOSITOR", requires = "headless")]
    pub wayland: Option<WaylandCompositor>,
    /// Record each call as a step into this folder, for `deskhand replay` and `deskhand report`;
    /// with --http, each session into a folder of its own under it.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub safety: SafetyFlags,
    #[command(flatten)]
    pub takeover: crate::person::TakeoverFlags,
    #[command(flatten)]
    pub serve: crate::serve::HttpFlags,
}

#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ReplayArgs {
    /// The folder `--record` wrote.
    pub dir: PathBuf,
    /// Find every step's window and elements without acting on them.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the recording as one `batch` call instead of running it.
    #[arg(long, conflicts_with = "dry_run")]
    pub as_batch: bool,
    /// Seconds to wait for each window, element and recorded value.
    #[arg(long, value_name = "S", default_value_t = 10)]
    pub wait: u64,
    /// Record the replay's own run into this folder, as an agent's calls are recorded.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["dry_run", "as_batch"])]
    pub record: Option<PathBuf>,
    /// A replay acts on this desktop as the agent did: under the same policy, kill switch and
    /// audit log as any call.
    #[command(flatten)]
    pub safety: SafetyFlags,
}

/// The Wayland compositors a headless desktop can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WaylandCompositor {
    /// sway (wlroots), run as an unprivileged user
    Sway,
    /// GNOME Shell (mutter), with deskhand's shell extension turned on
    Gnome,
}

#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum DesktopCommand {
    /// Start a private headless desktop and print the environment that reaches it.
    Start {
        /// The screen's size.
        #[arg(long, value_name = "WxH", value_parser = parse_size)]
        size: Option<(u32, u32)>,
        /// Stop the desktop when this process ends.
        #[arg(long, value_name = "PID", value_parser = clap::value_parser!(u32).range(1..))]
        owner_pid: Option<u32>,
        /// Print the environment as JSON instead of shell lines.
        #[arg(long)]
        json: bool,
        /// A Wayland desktop on this compositor instead of X11 (Xvfb and openbox).
        #[arg(long, value_name = "COMPOSITOR")]
        wayland: Option<WaylandCompositor>,
        /// Monitors side by side, each of `--size`, the first primary (at most 4).
        #[arg(long, value_name = "N", default_value_t = 1,
              value_parser = clap::value_parser!(u32).range(1..=4))]
        monitors: u32,
    },
    /// Stop what `deskhand desktop start` started.
    Stop {
        /// The state file start printed as DESKHAND_DESKTOP (default: $DESKHAND_DESKTOP).
        #[arg(long, value_name = "FILE")]
        state: Option<PathBuf>,
    },
    /// Not a user command: `desktop start` runs the binary this way to stop the desktop with
    /// its owner.
    #[command(hide = true)]
    Watch {
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        owner_pid: u32,
        #[arg(long)]
        state: PathBuf,
    },
    /// Not a user command: `desktop start` runs the binary this way to keep a listener.
    #[command(hide = true)]
    Listen,
}

fn parse_size(size: &str) -> Result<(u32, u32), String> {
    size.split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .filter(|(w, h)| *w > 0 && *h > 0)
        .ok_or_else(|| "give a width and a height in pixels, like 1280x800".to_owned())
}

/// What one action's sub-command takes: clap fills it, the shorthand rules then read it.
#[derive(Debug, Args)]
struct ActionArgs {
    /// Replaced per action by what its short form means.
    #[arg(value_name = "ARG")]
    given: Vec<String>,
    #[command(flatten)]
    options: CallOptions,
}

/// One action from the command line, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionCall {
    /// The tool's arguments, `action` included.
    pub arguments: Value,
    pub options: CallOptions,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Invocation {
    /// No command: the help, and exit 0.
    Help(String),
    Mcp(Box<McpArgs>),
    #[cfg_attr(
        not(target_os = "linux"),
        expect(dead_code, reason = "elsewhere `desktop` is refused whatever it asks")
    )]
    Desktop(DesktopCommand),
    #[cfg_attr(
        not(target_os = "linux"),
        expect(
            dead_code,
            reason = "elsewhere `gnome-extension` is refused whatever it asks"
        )
    )]
    GnomeExtension(GnomeExtensionCommand),
    Doctor {
        json: bool,
        safety: SafetyFlags,
        dump_tree: Option<String>,
    },
    Completions(clap_complete::Shell),
    Man,
    Action(ActionCall),
    Replay(ReplayArgs),
    Report {
        dir: PathBuf,
        output: Option<PathBuf>,
    },
}

/// The field a lone argument that is not JSON fills: what the action is mostly called with.
/// `None` where nothing stands out (a drag needs two ends, a wait a condition), and there the
/// JSON form is the only one.
fn main_field(action: ActionName) -> Option<&'static str> {
    use ActionName::*;
    match action {
        Observe | Screenshot | Focus | Close | Kill => Some("target"),
        Read | Click | Hover | Down | Up => Some("ref"),
        Type | Clipboard => Some("text"),
        Press => Some("keys"),
        Scroll => Some("direction"),
        Launch | Recall | Forget => Some("app"),
        Apps | Windows | Drag | Zoom | Wait | Batch | SetValue | Select | Window => None,
    }
}

/// One line of help, and what to run: the arguments after `deskhand <action>` as a shell reads
/// them (each a valid call; a test parses them all).
fn guide(action: ActionName) -> (&'static str, &'static [&'static str]) {
    use ActionName::*;
    match action {
        Apps => (
            "Running GUI applications, with a ids; installed ones with {\"installed\": true}",
            &["", r#"'{"installed":true}'"#],
        ),
        Windows => ("Windows, top first, with w ids", &[""]),
        Observe => (
            "A surface's accessibility tree, with element refs; makes it current",
            &["w3", r#"'{"target":"w3","query":"save"}'"#],
        ),
        Read => (
            "An element's whole text, in pages",
            &["e12", r#"'{"ref":"e12","offset":2000}'"#],
        ),
        Click => (
            "Click an element or a point",
            &[
                "e21",
                r#"'{"ref":"e21","count":2}'"#,
                r#"'{"x":500,"y":500}'"#,
            ],
        ),
        Type => (
            "Type text into the focused element, or into a ref's",
            &[
                "'hello'",
                "e4 'hello'",
                r#"'{"ref":"e4","text":"{braces}","replace":true}'"#,
            ],
        ),
        Press => (
            "Press key chords, sent to the focused application",
            &["ctrl+s", "ctrl+a Delete", r#"'{"keys":"Return"}'"#],
        ),
        Scroll => (
            "Turn the wheel at a place, or where the pointer is",
            &["down", r#"'{"ref":"e7","direction":"up","amount":5}'"#],
        ),
        Drag => (
            "Press, move through points, release",
            &[r#"'{"from":"e2","to":[500,900]}'"#],
        ),
        Screenshot => (
            "A PNG of the surface, written to a file",
            &["w3", "screen --out shot.png"],
        ),
        Zoom => (
            "A PNG of a region at native resolution",
            &[r#"'{"region":[0,0,500,500]}'"#],
        ),
        Hover => ("Move the pointer there, nothing pressed", &["e21"]),
        Down => (
            "Press a button, to build a gesture with up",
            &["e5", r#"'{"x":100,"y":100}'"#],
        ),
        Up => ("Release a button pressed with down", &["e6", ""]),
        Wait => (
            "Read until conditions hold, changing nothing",
            &[r#"'{"until":{"name":"Save","role":"button"},"timeout_ms":5000}'"#],
        ),
        Batch => (
            "Several calls in one, all checked before any runs",
            &[r#"'{"steps":[{"action":"click","ref":"e1"},{"action":"press","keys":"Return"}]}'"#],
        ),
        SetValue => (
            "Set a field's text or a slider's number through accessibility",
            &[r#"'{"ref":"e9","value":"Alice"}'"#],
        ),
        Select => (
            "Pick a menu item by its path",
            &[r#"'{"path":["File","Save As…"]}'"#],
        ),
        Launch => (
            "Start an installed application and wait for its window",
            &["mousepad", r#"'{"app":"mousepad","focus":false}'"#],
        ),
        Focus => ("Raise a window and give it the keyboard", &["w3"]),
        Close => ("Ask a window to close, as its close button would", &["w3"]),
        Kill => ("End an application's process", &["a2"]),
        Window => (
            "Maximize, minimize, move or resize a window",
            &[r#"'{"target":"w3","state":"maximized"}'"#],
        ),
        Clipboard => (
            "Read the clipboard, or own it with a text",
            &["", "'copied text'"],
        ),
        Recall => (
            "What memory knows of apps, windows and the routes between them",
            &["", "mousepad", r#"'{"query":"monospace"}'"#],
        ),
        Forget => (
            "Remove what memory holds about an app, or everything",
            &["mousepad", r#"'{"all":true}'"#],
        ),
    }
}

/// The parameters' descriptions, from the tool's schema as an agent receives it.
fn descriptions() -> Map<String, Value> {
    let tool = deskhand_mcp::tool();
    match tool.input_schema.get("properties") {
        Some(Value::Object(properties)) => properties.clone(),
        _ => Map::new(),
    }
}

fn description(properties: &Map<String, Value>, field: &str) -> String {
    properties
        .get(field)
        .and_then(|p| p.get("description"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn action_command(action: ActionName, properties: &Map<String, Value>) -> clap::Command {
    let name = action.as_str();
    let (about, examples) = guide(action);
    let fields = action.fields();
    let width = fields.iter().map(|f| f.len()).max().unwrap_or(0);
    let mut after = String::new();
    if fields.is_empty() {
        after.push_str("It takes no arguments.\n");
    } else {
        after.push_str(&format!(
            "Fields of the JSON form, deskhand {name} '{{\"field\": …}}':\n"
        ));
        for field in fields {
            after.push_str(&format!(
                "  {field:width$}  {}\n",
                description(properties, field)
            ));
        }
    }
    after.push_str("\nExamples:\n");
    for example in examples {
        after.push_str(format!("  deskhand {name} {example}").trim_end());
        after.push('\n');
    }
    let arg_help = match main_field(action) {
        Some(field) => format!(
            "Short for {{\"{field}\": ARG}}, or the arguments as one JSON object. `{field}`: {}",
            description(properties, field)
        ),
        None if fields.is_empty() => "None: it takes no arguments.".to_owned(),
        None => "The arguments as one JSON object; it has no short form.".to_owned(),
    };
    ActionArgs::augment_args(clap::Command::new(name))
        .about(about)
        .after_help(after.trim_end().to_owned())
        .mut_arg("given", |arg| arg.help(arg_help))
}

/// The whole command line as clap knows it: the man page and completions are made from it.
pub fn command() -> clap::Command {
    let properties = descriptions();
    Cli::command().subcommands(
        ActionName::ALL
            .iter()
            .map(|action| action_command(*action, &properties)),
    )
}

/// Parses the command line, program name first. A usage error comes back as a clap error, so
/// every one prints the same way: the sentence, the usage line, and where help is.
pub fn parse(argv: impl IntoIterator<Item = OsString>) -> Result<Invocation, clap::Error> {
    let mut cmd = command();
    let matches = match cmd.try_get_matches_from_mut(argv) {
        Ok(matches) => matches,
        Err(err) if err.kind() == ErrorKind::InvalidSubcommand => {
            return Err(unknown_action(&mut cmd, &err));
        }
        Err(err) => return Err(err),
    };
    let cli = Cli::from_arg_matches(&matches)?;
    let top = cli.options;
    match (cli.command, matches.subcommand()) {
        (Some(Command::Mcp(mut mcp)), _) => {
            if top.json || top.out.is_some() {
                return Err(cmd.error(
                    ErrorKind::ArgumentConflict,
                    "--json and --out go with an action, not with `deskhand mcp`; leave them out",
                ));
            }
            mcp.safety = merge_safety(&mut cmd, top.safety, mcp.safety)?;
            mcp.record = either(&mut cmd, "record", top.record, mcp.record)?;
            Ok(Invocation::Mcp(mcp))
        }
        (Some(Command::Desktop { command }), _) => {
            if top != CallOptions::default() {
                return Err(cmd.error(
                    ErrorKind::ArgumentConflict,
                    "options before `desktop` mean nothing to it; give them after its sub-command, e.g. `deskhand desktop start --json`",
                ));
            }
            Ok(Invocation::Desktop(command))
        }
        (
            Some(Command::Doctor {
                json,
                safety,
                dump_tree,
            }),
            _,
        ) => {
            if top.out.is_some() {
                return Err(cmd.error(
                    ErrorKind::ArgumentConflict,
                    "--out goes with an action that returns an image, not with `deskhand doctor`; leave it out",
                ));
            }
            let safety = merge_safety(&mut cmd, top.safety, safety)?;
            Ok(Invocation::Doctor {
                json: json || top.json,
                safety,
                dump_tree,
            })
        }
        (Some(Command::Replay(mut replay)), _) => {
            if top.json || top.out.is_some() {
                return Err(cmd.error(
                    ErrorKind::ArgumentConflict,
                    "--json and --out go with an action, not with `deskhand replay`; leave them out",
                ));
            }
            replay.safety = merge_safety(&mut cmd, top.safety, replay.safety)?;
            replay.record = either(&mut cmd, "record", top.record, replay.record)?;
            Ok(Invocation::Replay(replay))
        }
        (Some(Command::Report { dir, output }), _) => {
            if top != CallOptions::default() {
                return Err(cmd.error(
                    ErrorKind::ArgumentConflict,
                    "options before `report` mean nothing to it; give `-o FILE` after it, e.g. `deskhand report run1 -o run1.html`",
                ));
            }
            Ok(Invocation::Report { dir, output })
        }
        (Some(Command::Completions { shell }), _) => Ok(Invocation::Completions(shell)),
        (Some(Command::Man), _) => Ok(Invocation::Man),
        (Some(Command::GnomeExtension { command }), _) => {
            if top != CallOptions::default() {
                return Err(cmd.error(
                    ErrorKind::ArgumentConflict,
                    "options before `gnome-extension` mean nothing to it; leave them out",
                ));
            }
            Ok(Invocation::GnomeExtension(command))
        }
        (None, Some((name, sub))) => {
            let action = ActionName::ALL
                .into_iter()
                .find(|action| action.as_str() == name)
                .expect("every other sub-command is an action");
            let given = ActionArgs::from_arg_matches(sub)?;
            let options = merge(&mut cmd, top, given.options)?;
            let arguments = arguments(action, &given.given)
                .map_err(|message| action_error(&mut cmd, action, &message))?;
            Ok(Invocation::Action(ActionCall { arguments, options }))
        }
        (None, None) => Ok(Invocation::Help(cmd.render_help().to_string())),
    }
}

/// The tool's arguments from what followed the action on the command line.
fn arguments(action: ActionName, given: &[String]) -> Result<Value, String> {
    let name = action.as_str();
    let mut object = match given {
        [] => Map::new(),
        [text] if text.trim_start().starts_with('{') => json_object(action, text)?,
        // A ref alone is more likely a forgotten text than the text to type.
        [reference] if action == ActionName::Type && RefId::parse(reference).is_ok() => {
            return Err(format!(
                "`type {reference}` names an element but no text; give both, deskhand type {reference} 'text', or to type the characters {reference:?} use deskhand type '{{\"text\": \"{reference}\"}}'"
            ));
        }
        [text] => match main_field(action) {
            Some(field) => Map::from_iter([(field.to_owned(), Value::String(text.clone()))]),
            None if action.fields().is_empty() => {
                return Err(format!(
                    "`{name}` takes no arguments, so {text:?} means nothing to it; run `deskhand {name}` alone"
                ));
            }
            None => {
                let (_, examples) = guide(action);
                return Err(format!(
                    "`{name}` has no short form, so {text:?} cannot stand alone; give its arguments as one JSON object, e.g. deskhand {name} {}, and run `deskhand {name} --help` for its fields",
                    examples[0]
                ));
            }
        },
        // Typing into an element is as common as typing into the focus.
        [reference, text] if action == ActionName::Type && RefId::parse(reference).is_ok() => {
            Map::from_iter([
                ("ref".to_owned(), Value::String(reference.clone())),
                ("text".to_owned(), Value::String(text.clone())),
            ])
        }
        // Chords are separated by spaces in the contract too, so nothing is lost.
        chords if action == ActionName::Press => {
            Map::from_iter([("keys".to_owned(), Value::String(chords.join(" ")))])
        }
        many => {
            return Err(format!(
                "`{name}` takes one argument, not {}: quote it as one (deskhand {name} 'two words'), or give one JSON object; run `deskhand {name} --help` for its fields",
                many.len()
            ));
        }
    };
    if let Some(named) = object.get("action")
        && named != &Value::String(name.to_owned())
    {
        return Err(format!(
            "the JSON names action {named} but the command line names `{name}`; leave `action` out of the JSON"
        ));
    }
    object.insert("action".into(), Value::String(name.to_owned()));
    Ok(Value::Object(object))
}

fn json_object(action: ActionName, text: &str) -> Result<Map<String, Value>, String> {
    let name = action.as_str();
    let fix = match main_field(action) {
        Some("text") => format!(
            "fix the JSON; text that starts with {{ goes in the JSON form, deskhand {name} '{{\"text\": \"{{…\"}}'"
        ),
        _ => format!("fix the JSON, or run `deskhand {name} --help` for its forms"),
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!(
            "the arguments {text:?} are not a JSON object; {fix}"
        )),
        Err(err) => Err(format!(
            "the arguments {text:?} are not valid JSON ({err}); {fix}"
        )),
    }
}

/// An option given both before and after the action is a mistake, not a choice of one.
fn either<T>(
    cmd: &mut clap::Command,
    flag: &str,
    top: Option<T>,
    sub: Option<T>,
) -> Result<Option<T>, clap::Error> {
    match (top, sub) {
        (Some(_), Some(_)) => Err(cmd.error(
            ErrorKind::ArgumentConflict,
            format!("--{flag} is given both before and after the command; give it once"),
        )),
        (top, sub) => Ok(sub.or(top)),
    }
}

fn merge_safety(
    cmd: &mut clap::Command,
    top: SafetyFlags,
    sub: SafetyFlags,
) -> Result<SafetyFlags, clap::Error> {
    Ok(SafetyFlags {
        policy: either(cmd, "policy", top.policy, sub.policy)?,
        audit: either(cmd, "audit", top.audit, sub.audit)?,
        memory: either(cmd, "memory", top.memory, sub.memory)?,
        session: either(cmd, "session", top.session, sub.session)?,
    })
}

fn merge(
    cmd: &mut clap::Command,
    top: CallOptions,
    sub: CallOptions,
) -> Result<CallOptions, clap::Error> {
    Ok(CallOptions {
        json: top.json || sub.json,
        out: either(cmd, "out", top.out, sub.out)?,
        record: either(cmd, "record", top.record, sub.record)?,
        safety: merge_safety(cmd, top.safety, sub.safety)?,
    })
}

/// A usage error of one action, shown with that action's usage line.
fn action_error(cmd: &mut clap::Command, action: ActionName, message: &str) -> clap::Error {
    cmd.build();
    match cmd.find_subcommand_mut(action.as_str()) {
        Some(sub) => sub.error(ErrorKind::ValueValidation, message),
        None => cmd.error(ErrorKind::ValueValidation, message),
    }
}

/// clap's own words say "subcommand"; here they name the actions, which is what was meant.
fn unknown_action(cmd: &mut clap::Command, err: &clap::Error) -> clap::Error {
    let given = match err.get(ContextKind::InvalidSubcommand) {
        Some(ContextValue::String(given)) => given.clone(),
        _ => String::new(),
    };
    let suggestion = match err.get(ContextKind::SuggestedSubcommand) {
        Some(ContextValue::String(near)) => format!("; did you mean `{near}`?"),
        Some(ContextValue::Strings(near)) if !near.is_empty() => {
            format!("; did you mean `{}`?", near[0])
        }
        _ => String::new(),
    };
    cmd.error(
        ErrorKind::InvalidSubcommand,
        format!(
            "unknown action {given:?}{suggestion}\nactions are {}; the other commands are mcp and desktop; run `deskhand --help` for how to call them",
            ActionName::ALL.map(ActionName::as_str).join(", ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_args(args: &[&str]) -> Result<Invocation, clap::Error> {
        parse(
            std::iter::once("deskhand")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    fn call(args: &[&str]) -> ActionCall {
        match parse_args(args) {
            Ok(Invocation::Action(call)) => call,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn usage(args: &[&str]) -> String {
        match parse_args(args) {
            Err(err) => {
                assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
                err.to_string()
            }
            Ok(other) => panic!("{args:?} parsed: {other:?}"),
        }
    }

    #[test]
    fn a_lone_argument_fills_the_actions_main_field() {
        for (args, arguments) in [
            (
                &["click", "e21"][..],
                json!({"action": "click", "ref": "e21"}),
            ),
            (
                &["observe", "w3"],
                json!({"action": "observe", "target": "w3"}),
            ),
            (&["focus", "a2"], json!({"action": "focus", "target": "a2"})),
            (
                &["press", "ctrl+s"],
                json!({"action": "press", "keys": "ctrl+s"}),
            ),
            (
                &["press", "ctrl+a", "Delete"],
                json!({"action": "press", "keys": "ctrl+a Delete"}),
            ),
            (
                &["type", "hi there"],
                json!({"action": "type", "text": "hi there"}),
            ),
            (
                &["scroll", "down"],
                json!({"action": "scroll", "direction": "down"}),
            ),
            (
                &["launch", "mousepad"],
                json!({"action": "launch", "app": "mousepad"}),
            ),
            (&["windows"], json!({"action": "windows"})),
            (
                &["observe", r#" {"target":"w2","limit":5}"#],
                json!({"action": "observe", "target": "w2", "limit": 5}),
            ),
        ] {
            assert_eq!(call(args).arguments, arguments, "{args:?}");
        }
    }

    #[test]
    fn options_go_before_or_after_the_action() {
        let after = call(&[
            "screenshot",
            "w1",
            "--json",
            "--out",
            "a.png",
            "--audit",
            "off",
        ]);
        let before = call(&[
            "--json",
            "--out",
            "a.png",
            "screenshot",
            "--audit=off",
            "w1",
        ]);
        assert_eq!(after, before);
        assert!(after.options.json);
        assert_eq!(after.options.out, Some(PathBuf::from("a.png")));
        assert_eq!(after.options.safety.audit.as_deref(), Some("off"));
        let twice = usage(&["--out", "a.png", "zoom", "--out", "b.png"]);
        assert!(
            twice.contains("--out is given both before and after"),
            "{twice}"
        );
    }

    #[test]
    fn mcp_and_desktop_take_their_own_options() {
        match parse_args(&["--policy", "p.toml", "mcp", "--headless", "--memory", "off"]) {
            Ok(Invocation::Mcp(mcp)) => {
                assert!(mcp.headless);
                assert_eq!(mcp.safety.policy, Some(PathBuf::from("p.toml")));
                assert_eq!(mcp.safety.memory.as_deref(), Some("off"));
            }
            other => panic!("{other:?}"),
        }
        assert!(usage(&["--json", "mcp"]).contains("not with `deskhand mcp`"));
        match parse_args(&[
            "desktop",
            "start",
            "--size=800x600",
            "--owner-pid",
            "12",
            "--json",
        ]) {
            Ok(Invocation::Desktop(DesktopCommand::Start {
                size,
                owner_pid,
                json,
                wayland,
                monitors,
            })) => assert_eq!(
                (size, owner_pid, json, wayland, monitors),
                (Some((800, 600)), Some(12), true, None, 1)
            ),
            other => panic!("{other:?}"),
        }
        assert!(usage(&["desktop", "start", "--size", "big"]).contains("like 1280x800"));
        assert!(usage(&["desktop", "start", "--monitors", "5"]).contains("1..=4"));
        assert!(usage(&["desktop", "start", "--state", "f"]).contains("--state"));
        assert!(usage(&["desktop", "stop", "--json"]).contains("--json"));
        assert!(usage(&["desktop", "watch", "--owner-pid", "1"]).contains("--state"));
        assert!(usage(&["desktop"]).contains("deskhand desktop"));
        assert!(usage(&["desktop", "frobnicate"]).contains("frobnicate"));
    }

    #[test]
    fn usage_errors_say_what_was_wrong_and_what_to_run() {
        let unknown = usage(&["fly"]);
        assert!(
            unknown.contains("unknown action \"fly\"")
                && unknown.contains("actions are apps, windows, observe")
                && unknown.contains("deskhand --help"),
            "{unknown}"
        );
        assert!(usage(&["Observe"]).contains("did you mean `observe`?"));
        let drag = usage(&["drag", "e2"]);
        assert!(
            drag.contains("`drag` has no short form, so \"e2\" cannot stand alone")
                && drag.contains(r#"deskhand drag '{"from":"e2","to":[500,900]}'"#)
                && drag.contains("deskhand drag --help"),
            "{drag}"
        );
        assert!(usage(&["windows", "w1"]).contains("`windows` takes no arguments"));
        let words = usage(&["type", "two", "words"]);
        assert!(words.contains("takes one argument, not 2"), "{words}");
        assert_eq!(
            arguments(ActionName::Type, &["e8".into(), "two words".into()]).unwrap(),
            json!({"action": "type", "ref": "e8", "text": "two words"}),
            "a ref and a text type into that element"
        );
        let forgotten = usage(&["type", "e8"]);
        assert!(
            forgotten.contains("`type e8` names an element but no text")
                && forgotten.contains(r#"deskhand type '{"text": "e8"}'"#),
            "{forgotten}"
        );
        let json = usage(&["type", "{not json"]);
        assert!(
            json.contains("not valid JSON") && json.contains(r#"'{"text": "{…"}'"#),
            "{json}"
        );
        let named = usage(&["click", r#"{"action":"hover","ref":"e1"}"#]);
        assert!(named.contains("names action \"hover\""), "{named}");
        assert!(usage(&["click", "--bogus"]).contains("--bogus"));
    }

    /// Words as a shell splits them, for the examples' single quotes.
    fn shell_words(line: &str) -> Vec<String> {
        let (mut words, mut word, mut quoted) = (Vec::new(), None::<String>, false);
        for c in line.chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    word.get_or_insert_default();
                }
                c if c.is_whitespace() && !quoted => words.extend(word.take()),
                c => word.get_or_insert_default().push(c),
            }
        }
        words.extend(word);
        words
    }

    #[test]
    fn every_example_is_a_valid_call_and_every_main_field_is_taken() {
        for action in ActionName::ALL {
            if let Some(field) = main_field(action) {
                assert!(action.fields().contains(&field), "{action:?} {field}");
            }
            for example in guide(action).1 {
                let words = shell_words(example);
                let mut args = vec![action.as_str().to_owned()];
                args.extend(words);
                let argv: Vec<&str> = args.iter().map(String::as_str).collect();
                let call = call(&argv);
                deskhand_core::parse_call(call.arguments.clone())
                    .unwrap_or_else(|err| panic!("{argv:?}: {}", err.message));
            }
        }
    }

    #[test]
    fn an_actions_help_lists_its_fields_from_the_schema() {
        let mut cmd = command();
        let help = cmd
            .find_subcommand_mut("click")
            .expect("click")
            .render_help()
            .to_string();
        for field in ActionName::Click.fields() {
            assert!(help.contains(&format!("\n  {field} ")), "{field}:\n{help}");
        }
        assert!(help.contains("\n  ref        An element ref."), "{help}");
        assert!(help.contains("Short for {\"ref\": ARG}"), "{help}");
        assert!(help.contains("deskhand click e21"), "{help}");
    }
}
