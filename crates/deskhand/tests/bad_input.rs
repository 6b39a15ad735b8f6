//! Every malformed call, from one table, through both faces: a real MCP client talking to
//! `deskhand mcp`, and the CLI. Each fails with its stable kind, says why and what to call next,
//! and changes nothing: the fixture app's own log (the oracle) sees no input at all.

mod common;

use common::{Desktop, Fixture, desktop, ref_of};
use serde_json::{Value, json};

/// How the CLI answers a row.
#[derive(Debug, Clone, Copy, PartialEq)]
enum OnCli {
    /// The CLI fails the same way as MCP: exit 1, `failed (kind): …`.
    Same,
    /// The action is named on the command line, so the CLI refuses it as a usage error: exit 2.
    Usage,
    /// The call cannot be written on the command line (no action at all).
    Skip,
}

struct Row {
    what: &'static str,
    args: Value,
    kind: &'static str,
    /// Fragments the message must contain: the reason, and the next step.
    says: &'static [&'static str],
    cli: OnCli,
}

fn row(what: &'static str, args: Value, kind: &'static str, says: &'static [&'static str]) -> Row {
    Row {
        what,
        args,
        kind,
        says,
        cli: OnCli::Same,
    }
}

/// What the rows refer to, from the session of the face that runs them.
struct Ctx {
    /// The fixture's first window, observed last: its refs are live.
    w1: String,
    /// The fixture's second window, closed.
    w2: String,
    press: String,
    name: String,
    canvas: String,
    area: String,
    /// "Press me" of the closed window: the latest observation before it closed.
    press2: String,
}

/// Calls about the window that was closed, made while its observation is still the latest.
fn closed_window_table(c: &Ctx) -> Vec<Row> {
    let gone: &'static [&'static str] = &["closed", "`windows`"];
    vec![
        row(
            "observe a closed window",
            json!({"action": "observe", "target": c.w2}),
            "surface-gone",
            gone,
        ),
        row(
            "screenshot a closed window",
            json!({"action": "screenshot", "target": c.w2}),
            "surface-gone",
            gone,
        ),
        row(
            "zoom into a closed window",
            json!({"action": "zoom", "target": c.w2, "region": [0, 0, 100, 100]}),
            "surface-gone",
            gone,
        ),
        row(
            "click a point of a closed window",
            json!({"action": "click", "target": c.w2, "x": 500, "y": 500}),
            "surface-gone",
            gone,
        ),
        row(
            "scroll a point of a closed window",
            json!({"action": "scroll", "target": c.w2, "x": 500, "y": 500, "direction": "down"}),
            "surface-gone",
            gone,
        ),
        row(
            "click a ref of a closed window",
            json!({"action": "click", "ref": c.press2}),
            "surface-gone",
            &["gone", "`windows`"],
        ),
        row(
            "type into a ref of a closed window",
            json!({"action": "type", "ref": c.press2, "text": "x"}),
            "surface-gone",
            &["gone", "`windows`"],
        ),
        row(
            "drag from a ref of a closed window",
            json!({"action": "drag", "from": c.press2, "to": [10, 10]}),
            "surface-gone",
            &["gone", "`windows`"],
        ),
    ]
}

/// Everything else, with the first window's refs live.
fn table(c: &Ctx) -> Vec<Row> {
    let range: &'static [&'static str] = &["outside 0–1000", "0–1000 of the surface"];
    let long = |n: usize| "a".repeat(n);
    vec![
        // Unknown actions.
        Row {
            cli: OnCli::Usage,
            ..row(
                "an unknown action",
                json!({"action": "fly"}),
                "bad-argument",
                &["`fly`", "expected one of `apps`, `windows`, `observe`"],
            )
        },
        Row {
            cli: OnCli::Usage,
            ..row(
                "an action in the wrong case",
                json!({"action": "Observe"}),
                "bad-argument",
                &["Observe", "observe"],
            )
        },
        Row {
            cli: OnCli::Skip,
            ..row(
                "no action",
                json!({"target": c.w1}),
                "bad-argument",
                &["`action` is missing", "observe"],
            )
        },
        // Wrong types.
        Row {
            cli: OnCli::Usage,
            ..row(
                "an action that is a number",
                json!({"action": 5}),
                "bad-argument",
                &["`action`: invalid type", "input schema"],
            )
        },
        row(
            "a ref that is a number",
            json!({"action": "click", "ref": 4}),
            "bad-argument",
            &["`ref`", "input schema"],
        ),
        row(
            "a point given as text",
            json!({"action": "click", "target": c.w1, "x": "500", "y": 500}),
            "bad-argument",
            &["`x`", "input schema"],
        ),
        row(
            "a limit given as text",
            json!({"action": "observe", "limit": "10"}),
            "bad-argument",
            &["`limit`", "input schema"],
        ),
        row(
            "hidden given as text",
            json!({"action": "observe", "hidden": "yes"}),
            "bad-argument",
            &["`hidden`", "input schema"],
        ),
        row(
            "text given as a list",
            json!({"action": "type", "text": ["a"]}),
            "bad-argument",
            &["`text`", "input schema"],
        ),
        row(
            "keys given as null",
            json!({"action": "press", "keys": null}),
            "bad-argument",
            &["needs `keys`", "ctrl+s"],
        ),
        row(
            "modifiers given as text",
            json!({"action": "click", "ref": c.press, "modifiers": "ctrl"}),
            "bad-argument",
            &["`modifiers`", "input schema"],
        ),
        row(
            "a region of three numbers",
            json!({"action": "zoom", "target": c.w1, "region": [1, 2, 3]}),
            "bad-argument",
            &["`region`", "input schema"],
        ),
        row(
            "a drag end that is an object",
            json!({"action": "drag", "from": {"x": 1}, "to": [5, 5]}),
            "bad-argument",
            &["`from`", "input schema"],
        ),
        row(
            "a fractional amount",
            json!({"action": "scroll", "direction": "down", "amount": 2.5}),
            "bad-argument",
            &["`amount`", "input schema"],
        ),
        row(
            "a negative amount",
            json!({"action": "scroll", "direction": "down", "amount": -1}),
            "bad-argument",
            &["`amount`", "input schema"],
        ),
        row(
            "a count that is a boolean",
            json!({"action": "click", "ref": c.press, "count": true}),
            "bad-argument",
            &["`count`", "input schema"],
        ),
        // Unknown keys, and keys the action does not take.
        row(
            "an unknown key",
            json!({"action": "observe", "bogus": 1}),
            "bad-argument",
            &["bogus", "input schema"],
        ),
        row(
            "a key in the wrong case",
            json!({"action": "click", "ref": c.press, "Ref": c.press}),
            "bad-argument",
            &["Ref", "input schema"],
        ),
        row(
            "a key the action does not take",
            json!({"action": "press", "keys": "a", "text": "x"}),
            "bad-argument",
            &["does not take `text`", "it takes keys"],
        ),
        row(
            "a target for apps",
            json!({"action": "apps", "target": c.w1}),
            "bad-argument",
            &["does not take `target`", "it takes installed"],
        ),
        row(
            "a target for scroll without a place",
            json!({"action": "scroll", "direction": "down", "target": c.w1}),
            "bad-argument",
            &["`target` only together with `ref`", "where the pointer is"],
        ),
        row(
            "both a ref and a point",
            json!({"action": "click", "ref": c.press, "x": 500, "y": 500}),
            "bad-argument",
            &["one of `ref`, `find` or `x`/`y`", "not several"],
        ),
        row(
            "half a point",
            json!({"action": "click", "target": c.w1, "x": 500}),
            "bad-argument",
            &["needs both `x` and `y`", "0–1000"],
        ),
        // Out-of-range points and regions.
        row(
            "x past the right edge",
            json!({"action": "click", "target": c.w1, "x": 1001, "y": 500}),
            "bad-argument",
            range,
        ),
        row(
            "x left of the left edge",
            json!({"action": "click", "target": c.w1, "x": -0.5, "y": 500}),
            "bad-argument",
            range,
        ),
        row(
            "a huge y",
            json!({"action": "click", "target": c.w1, "x": 500, "y": 1e300}),
            "bad-argument",
            range,
        ),
        row(
            "a scroll point out of range",
            json!({"action": "scroll", "target": c.w1, "x": 500, "y": 1000.5, "direction": "down"}),
            "bad-argument",
            range,
        ),
        row(
            "a drag to a point out of range",
            json!({"action": "drag", "from": c.canvas, "to": [1001, 500]}),
            "bad-argument",
            &["`to[0]`", "0–1000 of the surface"],
        ),
        row(
            "a drag from a point out of range",
            json!({"action": "drag", "from": [-1, 0], "to": c.canvas}),
            "bad-argument",
            &["`from[0]`", "0–1000 of the surface"],
        ),
        row(
            "a region past the edge",
            json!({"action": "zoom", "target": c.w1, "region": [0, 0, 1001, 10]}),
            "bad-argument",
            &["region[2]", "0–1000 of the surface"],
        ),
        row(
            "an empty region",
            json!({"action": "zoom", "target": c.w1, "region": [500, 500, 100, 100]}),
            "bad-argument",
            &["is empty", "x1 > x0"],
        ),
        // Other numbers out of range, and names that do not exist.
        row(
            "four clicks",
            json!({"action": "click", "ref": c.press, "count": 4}),
            "bad-argument",
            &["`count` is 4", "give 1, 2"],
        ),
        row(
            "no clicks",
            json!({"action": "click", "ref": c.press, "count": 0}),
            "bad-argument",
            &["`count` is 0", "give 1, 2"],
        ),
        row(
            "a scroll of nothing",
            json!({"action": "scroll", "ref": c.area, "direction": "down", "amount": 0}),
            "bad-argument",
            &["`amount` is 0", "1–50"],
        ),
        row(
            "too long a scroll",
            json!({"action": "scroll", "ref": c.area, "direction": "down", "amount": 51}),
            "bad-argument",
            &["`amount` is 51", "1–50"],
        ),
        row(
            "a scroll direction that does not exist",
            json!({"action": "scroll", "ref": c.area, "direction": "sideways"}),
            "bad-argument",
            &["sideways", "input schema"],
        ),
        row(
            "a button that does not exist",
            json!({"action": "click", "ref": c.press, "button": "sideways"}),
            "bad-argument",
            &["sideways", "input schema"],
        ),
        row(
            "a modifier that does not exist",
            json!({"action": "click", "ref": c.press, "modifiers": ["hyper"]}),
            "bad-argument",
            &["hyper", "input schema"],
        ),
        row(
            "a limit of zero",
            json!({"action": "observe", "limit": 0}),
            "bad-argument",
            &["`limit` is 0", "1–5000"],
        ),
        row(
            "too high a limit",
            json!({"action": "observe", "limit": 5001}),
            "bad-argument",
            &["`limit` is 5001", "query"],
        ),
        row(
            "too deep a max_depth",
            json!({"action": "observe", "max_depth": 101}),
            "bad-argument",
            &["`max_depth` is 101", "0–100"],
        ),
        row(
            "an empty query",
            json!({"action": "observe", "query": "  "}),
            "bad-argument",
            &["`query` is empty", "leave it out"],
        ),
        row(
            "too long a query",
            json!({"action": "observe", "query": long(201)}),
            "bad-argument",
            &["201 characters", "shorter"],
        ),
        // Text.
        row(
            "empty text",
            json!({"action": "type", "text": ""}),
            "bad-argument",
            &["non-empty `text`", "`press`"],
        ),
        row(
            "empty text into a field",
            json!({"action": "type", "ref": c.name, "text": ""}),
            "bad-argument",
            &["non-empty `text`", "`press`"],
        ),
        row(
            "text of 10,001 characters",
            json!({"action": "type", "ref": c.name, "text": long(10_001)}),
            "bad-argument",
            &["10001 characters", "in parts"],
        ),
        row(
            "text of 100,000 characters",
            json!({"action": "type", "ref": c.name, "text": long(100_000)}),
            "bad-argument",
            &["100000 characters", "in parts"],
        ),
        row(
            "text with a control character",
            json!({"action": "type", "ref": c.name, "text": "ab\u{7}c"}),
            "bad-argument",
            &["U+0007", "`press`"],
        ),
        // Refs that are not refs, never issued, or expired.
        row(
            "ref e0",
            json!({"action": "click", "ref": "e0"}),
            "bad-argument",
            &["not an element ref", "latest observe"],
        ),
        row(
            "a ref in capitals",
            json!({"action": "click", "ref": "E1"}),
            "bad-argument",
            &["not an element ref", "latest observe"],
        ),
        row(
            "a ref with a leading zero",
            json!({"action": "click", "ref": "e01"}),
            "bad-argument",
            &["not an element ref", "latest observe"],
        ),
        row(
            "an empty ref",
            json!({"action": "click", "ref": ""}),
            "bad-argument",
            &["not an element ref", "latest observe"],
        ),
        row(
            "a name instead of a ref",
            json!({"action": "click", "ref": "Press me"}),
            "bad-argument",
            &["not an element ref", "latest observe"],
        ),
        row(
            "a drag from a name",
            json!({"action": "drag", "from": "Canvas", "to": [5, 5]}),
            "bad-argument",
            &["not an element ref", "latest observe"],
        ),
        row(
            "a ref never issued",
            json!({"action": "click", "ref": "e99999999"}),
            "ref-unknown",
            &["never issued", "call `observe`"],
        ),
        row(
            "typing into a ref never issued",
            json!({"action": "type", "ref": "e99999999", "text": "x"}),
            "ref-unknown",
            &["never issued", "call `observe`"],
        ),
        row(
            "an expired ref",
            json!({"action": "click", "ref": c.press2}),
            "ref-expired",
            &["expired", "call `observe` again"],
        ),
        row(
            "typing into an expired ref",
            json!({"action": "type", "ref": c.press2, "text": "x"}),
            "ref-expired",
            &["expired", "call `observe` again"],
        ),
        row(
            "scrolling at an expired ref",
            json!({"action": "scroll", "ref": c.press2, "direction": "down"}),
            "ref-expired",
            &["expired", "call `observe` again"],
        ),
        row(
            "a drag to an expired ref",
            json!({"action": "drag", "from": c.canvas, "to": c.press2}),
            "ref-expired",
            &["expired", "call `observe` again"],
        ),
        row(
            "a ref with a target it was not observed on",
            json!({"action": "click", "ref": c.press, "target": "screen"}),
            "ref-wrong-surface",
            &["not on screen", "leave out `target`"],
        ),
        // Targets that are not targets, or not of this session.
        row(
            "target w0",
            json!({"action": "observe", "target": "w0"}),
            "bad-argument",
            &["not a surface", "`windows`"],
        ),
        row(
            "a target in words",
            json!({"action": "screenshot", "target": "window 1"}),
            "bad-argument",
            &["not a surface", "`windows`"],
        ),
        row(
            "a window id never issued",
            json!({"action": "observe", "target": "w99999"}),
            "bad-argument",
            &["not a window id of this session", "call `windows`"],
        ),
        row(
            "an app id never issued",
            json!({"action": "click", "target": "a99999", "x": 5, "y": 5}),
            "bad-argument",
            &["not an app id of this session", "call `apps`"],
        ),
        // Keys that do not exist; a valid first chord must not be pressed either.
        row(
            "an unknown key name",
            json!({"action": "press", "keys": "ctrl+nosuchkey"}),
            "bad-argument",
            &["unknown key \"nosuchkey\"", "Return"],
        ),
        row(
            "a good chord before an unknown key",
            json!({"action": "press", "keys": "a Return nosuchkey"}),
            "bad-argument",
            &["unknown key \"nosuchkey\"", "Return"],
        ),
        row(
            "F99",
            json!({"action": "press", "keys": "F99"}),
            "bad-argument",
            &["unknown key \"F99\"", "F1-F24"],
        ),
        row(
            "a key as a modifier",
            json!({"action": "press", "keys": "a+b"}),
            "bad-argument",
            &["not a modifier", "spaces"],
        ),
        row(
            "a chord with an empty part",
            json!({"action": "press", "keys": "ctrl+"}),
            "bad-argument",
            &["empty part", "plus"],
        ),
        row(
            "keys of blanks",
            json!({"action": "press", "keys": "   "}),
            "bad-argument",
            &["needs `keys`", "ctrl+s"],
        ),
        // The actions beyond single clicks.
        row(
            "a find with nothing to find",
            json!({"action": "click", "target": c.w1, "find": {"name": "  "}}),
            "bad-argument",
            &["`find` needs a non-empty `name`", "\"role\": \"button\""],
        ),
        row(
            "a find with an unknown role",
            json!({"action": "click", "target": c.w1, "find": {"role": "buton"}}),
            "bad-argument",
            &["\"buton\" is not a role", "as observe prints it"],
        ),
        row(
            "a find that matches nothing",
            json!({"action": "click", "target": c.w1, "find": {"name": "No such button", "role": "button"}}),
            "not-found",
            &["no shown element on", "`observe`"],
        ),
        row(
            "a find that matches two",
            json!({"action": "click", "target": c.w1, "find": {"role": "button"}}),
            "ambiguous",
            &["shown elements on", "a fuller name or a role"],
        ),
        row(
            "a wait without a condition",
            json!({"action": "wait", "target": c.w1}),
            "bad-argument",
            &["needs `until`", "new_window"],
        ),
        row(
            "a wait with two kinds in one condition",
            json!({"action": "wait", "target": c.w1, "until": {"name": "x", "title": "y"}}),
            "bad-argument",
            &["exactly one kind of condition", "list several conditions"],
        ),
        row(
            "a wait on a value without the element it is of",
            json!({"action": "wait", "target": c.w1, "until": {"value_has": "x"}}),
            "bad-argument",
            &[
                "`value_has`",
                "need the element they are about: `name`, `role` or `ref`",
            ],
        ),
        row(
            "a wait longer than allowed",
            json!({"action": "wait", "target": c.w1, "until": {"name": "x"}, "timeout_ms": 60000}),
            "bad-argument",
            &["`timeout_ms` is 60000", "wait again"],
        ),
        row(
            "a wait on a closed window",
            json!({"action": "wait", "target": c.w2, "until": {"name": "Press me"}}),
            "surface-gone",
            &["is gone", "`windows`"],
        ),
        row(
            "a batch with a bad step",
            json!({"action": "batch", "steps": [{"action": "click", "target": c.w1, "ref": c.press}, {"action": "click", "x": 5}]}),
            "bad-argument",
            &["step 1 is not valid, so no step ran", "both `x` and `y`"],
        ),
        row(
            "a batch inside a batch",
            json!({"action": "batch", "steps": [{"action": "batch", "steps": [{"action": "apps"}]}]}),
            "bad-argument",
            &["a batch cannot contain a batch", "list its steps"],
        ),
        row(
            "an empty batch",
            json!({"action": "batch", "steps": []}),
            "bad-argument",
            &["has 0 steps", "1–50"],
        ),
        row(
            "set_value without a value",
            json!({"action": "set_value", "target": c.w1, "ref": c.name}),
            "bad-argument",
            &["needs `value`", "a number for a slider"],
        ),
        row(
            "set_value at a point",
            json!({"action": "set_value", "target": c.w1, "x": 5, "y": 5, "value": "x"}),
            "bad-argument",
            &["does not take `x`", "ref, find, value"],
        ),
        row(
            "a menu path with an empty segment",
            json!({"action": "select", "target": c.w1, "path": ["File", ""]}),
            "bad-argument",
            &["`path[1]` is empty", "as observe shows it"],
        ),
        row(
            "focus without a window",
            json!({"action": "focus"}),
            "bad-argument",
            &["needs `target`", "from `windows`"],
        ),
        row(
            "a window of size zero",
            json!({"action": "window", "target": c.w1, "size": [0, 100]}),
            "bad-argument",
            &["`size` is [0, 100]", "1–16384"],
        ),
        row(
            "close a closed window",
            json!({"action": "close", "target": c.w2}),
            "surface-gone",
            &["is gone", "`windows`"],
        ),
        row(
            "launch without an app",
            json!({"action": "launch"}),
            "bad-argument",
            &["needs `app`", "installed"],
        ),
        row(
            "launch of an app that is not installed",
            json!({"action": "launch", "app": "no-such-app-anywhere"}),
            "not-found",
            &["no-such-app-anywhere", "installed"],
        ),
        row(
            "forget without saying what",
            json!({"action": "forget"}),
            "bad-argument",
            &["needs either `app`", "`all: true`"],
        ),
    ]
}

/// One face's answer: the failure kind (`usage` for a CLI usage error) and its text.
struct Answer {
    kind: Option<String>,
    text: String,
}

trait Face {
    fn name(&self) -> &'static str;
    fn call(&self, args: &Value) -> Answer;
    fn ok(&self, args: Value) -> String {
        let answer = self.call(&args);
        assert!(
            answer.kind.is_none(),
            "{}: {args} failed: {}",
            self.name(),
            answer.text
        );
        answer.text
    }
}

struct Mcp(common::Mcp);

impl Face for Mcp {
    fn name(&self) -> &'static str {
        "MCP"
    }

    fn call(&self, args: &Value) -> Answer {
        let reply = self.0.call(args.clone());
        if reply.is_error {
            // The structured kind and the text agree.
            let kind = reply.kind().expect("a failure has a kind").to_owned();
            assert!(
                reply.text.starts_with(&format!("failed ({kind}): ")),
                "{}",
                reply.text
            );
            Answer {
                kind: Some(kind),
                text: reply.text,
            }
        } else {
            Answer {
                kind: None,
                text: reply.text,
            }
        }
    }
}

struct Cli<'d>(&'d Desktop);

impl Face for Cli<'_> {
    fn name(&self) -> &'static str {
        "CLI"
    }

    fn call(&self, args: &Value) -> Answer {
        let mut rest = args.as_object().expect("an object").clone();
        let action = match rest.remove("action") {
            Some(Value::String(action)) => action,
            Some(other) => other.to_string(),
            None => panic!("the CLI needs an action"),
        };
        let run = self.0.run(&[&action, &Value::Object(rest).to_string()]);
        match run.code {
            0 | 3 => Answer {
                kind: None,
                text: run.stdout,
            },
            1 => {
                let kind = run
                    .stdout
                    .strip_prefix("failed (")
                    .and_then(|rest| rest.split_once("): "))
                    .map(|(kind, _)| kind.to_owned())
                    .unwrap_or_else(|| panic!("exit 1 without a failure: {}", run.stdout));
                Answer {
                    kind: Some(kind),
                    text: run.stdout,
                }
            }
            2 => Answer {
                kind: Some("usage".into()),
                text: run.stderr,
            },
            code => panic!("exit {code}: {}{}", run.stdout, run.stderr),
        }
    }
}

/// Runs rows and checks each answer; returns what went wrong, and the texts by row.
fn run_rows(
    face: &dyn Face,
    rows: &[Row],
    fixture: &Fixture,
    moved: &mut Option<String>,
) -> (Vec<String>, Vec<Option<String>>) {
    let mut wrong = Vec::new();
    let mut texts = Vec::new();
    for row in rows {
        let expected = match (face.name(), row.cli) {
            ("CLI", OnCli::Skip) => {
                texts.push(None);
                continue;
            }
            ("CLI", OnCli::Usage) => "usage",
            _ => row.kind,
        };
        let before = fixture.events().len();
        let answer = face.call(&row.args);
        if fixture.events().len() != before && moved.is_none() {
            *moved = Some(format!("{} {}", face.name(), row.what));
        }
        let shown: String = answer.text.chars().take(400).collect();
        // The command line names the action itself; its usage error lists the actions.
        let says = match expected {
            "usage" => &["unknown action", "actions are apps, windows, observe"][..],
            _ => row.says,
        };
        if answer.kind.as_deref() != Some(expected) {
            wrong.push(format!(
                "{} {}: wanted {expected}, got {:?}: {shown}",
                face.name(),
                row.what,
                answer.kind
            ));
        } else if let Some(missing) = says.iter().find(|s| !answer.text.contains(*s)) {
            wrong.push(format!(
                "{} {}: the message does not say {missing:?}: {shown}",
                face.name(),
                row.what
            ));
        } else if expected != "usage" && answer.text.trim_end().lines().count() != 1 {
            wrong.push(format!(
                "{} {}: not one line: {shown}",
                face.name(),
                row.what
            ));
        }
        texts.push(Some(answer.text));
    }
    (wrong, texts)
}

/// Observes `w` through a face and returns the observation.
fn observe(face: &dyn Face, w: &str) -> String {
    let text = face.ok(json!({"action": "observe", "target": w}));
    assert!(text.starts_with(&format!("observe {w} ")), "{text}");
    text
}

fn window_ids(face: &dyn Face, title: &str) -> (String, String) {
    let listed = face.ok(json!({"action": "windows"}));
    let id = |wanted: &str| {
        listed
            .lines()
            .find(|l| l.contains(&format!(" \"{wanted}\" ")))
            .and_then(|l| l.split(' ').next())
            .unwrap_or_else(|| panic!("{wanted:?} is not listed:\n{listed}"))
            .to_owned()
    };
    (id(title), id(&format!("{title} 2")))
}

#[test]
fn every_malformed_call_fails_with_its_kind_through_mcp_and_the_cli_and_changes_nothing() {
    let (_turn, desk) = desktop();
    const TITLE: &str = "Bad Input";
    let fixture = desk.fixture(TITLE, 2);
    desk.window_id(&format!("{TITLE} 2"));
    let mcp = Mcp(desk.mcp());
    let cli = Cli(desk);
    let faces: [&dyn Face; 2] = [&mcp, &cli];

    // Each face: its own ids, and the second window observed last.
    let mut seen = Vec::new();
    for face in faces {
        let (w1, w2) = window_ids(face, TITLE);
        let second = observe(face, &w2);
        let press2 = ref_of(&second, &["button \"Press me\""]);
        seen.push((w1, w2, press2));
    }
    let status = desk
        .command("wmctrl")
        .args(["-F", "-c", &format!("{TITLE} 2")])
        .status()
        .expect("wmctrl");
    assert!(status.success());
    fixture.wait_for("the second window to close", |e| {
        e["event"] == "closed" && e["window"] == 2
    });
    desk.activate(TITLE);
    // The oracle counts from here: nothing below may reach the app until the control calls.
    let baseline = fixture.events().len();
    let mut moved = None;
    let mut wrong = Vec::new();
    let mut texts: Vec<Vec<Option<String>>> = Vec::new();

    let mut contexts = Vec::new();
    for (face, (w1, w2, press2)) in faces.into_iter().zip(&seen) {
        let ctx = Ctx {
            w1: w1.clone(),
            w2: w2.clone(),
            press: String::new(),
            name: String::new(),
            canvas: String::new(),
            area: String::new(),
            press2: press2.clone(),
        };
        let (errors, _) = run_rows(face, &closed_window_table(&ctx), &fixture, &mut moved);
        wrong.extend(errors);
        contexts.push(ctx);
    }
    for (face, ctx) in faces.into_iter().zip(&mut contexts) {
        let first = observe(face, &ctx.w1);
        ctx.press = ref_of(&first, &["button \"Press me\""]);
        ctx.name = ref_of(&first, &["text \"Name\""]);
        ctx.canvas = ref_of(&first, &["canvas \"Canvas\""]);
        ctx.area = ref_of(&first, &["scrollpane \"Scroll area\""]);
        let rows = table(ctx);
        let (errors, said) = run_rows(face, &rows, &fixture, &mut moved);
        wrong.extend(errors);
        texts.push(said);
        // No failed call moved the current surface.
        let current = face.ok(json!({"action": "observe"}));
        assert!(
            current.starts_with(&format!("observe {} ", ctx.w1)),
            "{}: a failed call changed the current surface:\n{current}",
            face.name()
        );
    }
    let rows = table(&contexts[0]);
    assert!(rows.len() >= 60, "{} rows", rows.len());

    // The same call gets the same words from both faces, wherever the ids agree.
    let same_ids = contexts[0].w1 == contexts[1].w1 && contexts[0].press == contexts[1].press;
    for (i, row) in rows.iter().enumerate() {
        if let (Some(mcp), Some(cli), OnCli::Same, true) =
            (&texts[0][i], &texts[1][i], row.cli, same_ids)
            && mcp != cli
        {
            wrong.push(format!("{}: MCP says {mcp:?}, the CLI {cli:?}", row.what));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers:\n{}",
        wrong.len(),
        wrong.join("\n")
    );

    let events = fixture.settled_events(baseline);
    assert_eq!(
        events,
        Vec::<Value>::new(),
        "refused calls reached the app (first seen after: {moved:?})"
    );

    // The oracle does see input: the same ref clicked properly, once from each face.
    for (face, ctx) in faces.into_iter().zip(&contexts) {
        let done = face.ok(json!({"action": "click", "ref": ctx.press}));
        assert!(done.starts_with("done: clicked"), "{done}");
    }
    let events = fixture.settled_events(baseline);
    let clicks = events
        .iter()
        .filter(|e| e["event"] == "clicked" && e["widget"] == "press_me")
        .count();
    assert_eq!(clicks, 2, "{events:?}");

    // A tool that does not exist is a protocol error, not a tool result.
    let unknown = mcp.0.try_call("desktop2", json!({"action": "apps"}));
    assert!(
        unknown
            .as_ref()
            .is_err_and(|err| err.contains("the only tool is \"desktop\"")),
        "{:?}",
        unknown.map(|r| r.text)
    );
}
