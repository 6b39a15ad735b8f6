//! A person beside the agent on a real headless GNOME Shell: a second client (a deskhand CLI
//! process with a remote-desktop session of its own, as a hand on the mouse would be) uses the
//! desktop during an MCP session, and the fixture app's own log says what arrived.

mod common;
mod marks;
mod person_kit;

use std::time::Duration;

use common::{Desktop, wait_until};
use marks::{MARKER, Shot, extent, like};
use person_kit::{
    canvas_point, click_after_the_person_left, clicks, drag_cut_off_by_the_person,
    held_button_is_released_when_the_person_moves, logged_events, noted_handovers,
    own_input_is_never_a_persons, refused_while_the_person_has_it, session,
};
use serde_json::{Value, json};

/// A second client moves the pointer, as a person's hand would: another process, with a
/// remote-desktop session and virtual pointer of its own.
fn hand_moves_the_pointer(desk: &Desktop, x: u32, y: u32) {
    let moved = desk
        .act("hover", json!({"target": "screen", "x": x, "y": y}))
        .ok();
    assert!(moved.starts_with("done: moved the pointer"), "{moved}");
}

/// A second remote-desktop session, made by a small script of its own, that presses a key each
/// time it is asked: a hand on the keyboard that is quick to react.
const KEYBOARD_HAND: &str = r#"
import sys, time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
def call(path, iface, method, args=None, reply=None):
    return bus.call_sync('org.gnome.Mutter.RemoteDesktop', path, 'org.gnome.Mutter.' + iface,
        method, args, reply, Gio.DBusCallFlags.NONE, 3000, None)
session = call('/org/gnome/Mutter/RemoteDesktop', 'RemoteDesktop', 'CreateSession',
    reply=GLib.VariantType('(o)')).unpack()[0]
call(session, 'RemoteDesktop.Session', 'Start')
def tap():
    for down in (True, False):
        call(session, 'RemoteDesktop.Session', 'NotifyKeyboardKeysym',
            GLib.Variant('(ub)', (0xffe2, down)))
# A new session's devices join the seat a moment after it starts, and its first key is lost.
time.sleep(0.3)
tap()
time.sleep(0.3)
print('ready', flush=True)
for line in sys.stdin:
    tap()
    print('pressed', flush=True)
"#;

/// A script of the tests' own on the desktop's session bus, which says `ready` once started and
/// answers each line it is given with one line.
struct Script {
    child: std::process::Child,
    said: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Script {
    fn start(desk: &Desktop, source: &str, what: &str) -> Script {
        use std::io::BufRead as _;
        let mut child = desk
            .command("/usr/bin/python3")
            .args(["-c", source])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("starting {what}: {err}"));
        let mut said = std::io::BufReader::new(child.stdout.take().expect("piped")).lines();
        let ready = said.next().and_then(Result::ok);
        assert_eq!(ready.as_deref(), Some("ready"), "{what} did not start");
        Script { child, said }
    }

    /// Gives the script `line`; its answer.
    fn ask(&mut self, line: &str) -> Option<String> {
        use std::io::Write as _;
        let stdin = self.child.stdin.as_mut().expect("piped");
        writeln!(stdin, "{line}").expect("writing to the script");
        self.said.next().and_then(Result::ok)
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The keyboard hand, started and ready.
struct KeyboardHand(Script);

impl KeyboardHand {
    fn start(desk: &Desktop) -> KeyboardHand {
        KeyboardHand(Script::start(desk, KEYBOARD_HAND, "the keyboard hand"))
    }

    fn press(&mut self) {
        let pressed = self.0.ask("key");
        assert_eq!(
            pressed.as_deref(),
            Some("pressed"),
            "the keyboard hand did not press"
        );
    }
}

/// A screenshot tool of GNOME's own: a script that takes the name GNOME's screenshot tool has on
/// the session bus (GNOME Shell takes screenshots over D-Bus only for it and the portals) and
/// asks the shell for a picture of the screen each time it is given a file.
const OUTSIDE_EYE: &str = r#"
import sys
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
def call(dest, path, iface, method, args, reply):
    return bus.call_sync(dest, path, iface, method, args, reply, Gio.DBusCallFlags.NONE, 5000, None)
owned = call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
    'RequestName', GLib.Variant('(su)', ('org.gnome.Screenshot', 4)),
    GLib.VariantType('(u)')).unpack()[0]
print('ready' if owned == 1 else 'the name is taken', flush=True)
for line in sys.stdin:
    done, _ = call('org.gnome.Shell', '/org/gnome/Shell/Screenshot', 'org.gnome.Shell.Screenshot',
        'Screenshot', GLib.Variant('(bbs)', (False, False, line.strip())),
        GLib.VariantType('(bs)')).unpack()
    print('shot' if done else 'failed', flush=True)
"#;

struct OutsideEye {
    script: Script,
    file: std::path::PathBuf,
}

impl OutsideEye {
    fn start(desk: &Desktop) -> OutsideEye {
        OutsideEye {
            script: Script::start(desk, OUTSIDE_EYE, "GNOME's screenshot tool"),
            file: desk.scratch("outside-eye.png"),
        }
    }

    fn shot(&mut self) -> Shot {
        let _ = std::fs::remove_file(&self.file);
        let done = self.script.ask(&self.file.display().to_string());
        assert_eq!(done.as_deref(), Some("shot"), "GNOME took no screenshot");
        Shot::decode(&std::fs::read(&self.file).expect("the screenshot's file"))
    }
}

#[test]
fn on_gnome_another_clients_pointer_pauses_the_agent_until_the_person_is_idle() {
    let (_turn, desk) = common::gnome();
    let fixture = desk.fixture("GNOME Person Fixture", 1);
    let audit = desk.scratch("person-gnome-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("GNOME Person Fixture", Duration::from_secs(20));
    let press =
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}});

    // deskhand's own input is never taken for a person's: a pointer click, a move and a key,
    // each after a calm, and a click right after another.
    let own = [
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}, "button": "right"}),
        json!({"action": "hover", "target": "screen", "x": 600, "y": 700}),
        json!({"action": "press", "keys": "shift"}),
        press.clone(),
        press.clone(),
    ];
    own_input_is_never_a_persons(&mcp, &own);
    wait_until(Duration::from_secs(5), || {
        (clicks(&fixture) == 2).then_some(())
    })
    .expect("the fixture saw deskhand's clicks");
    std::thread::sleep(Duration::from_millis(300));
    assert!(mcp.logged().is_empty(), "{:?}", mcp.logged());

    hand_moves_the_pointer(desk, 700, 800);
    std::thread::sleep(Duration::from_millis(200));
    refused_while_the_person_has_it(&mcp, &fixture, &press);
    click_after_the_person_left(&mcp, &fixture, &press);

    // The agent heard of the takeover and the resume, unasked; the audit log has both.
    let (logged, events) = logged_events(&mcp, 2);
    assert_eq!(events, ["takeover", "resume"]);
    assert_eq!(logged[0]["logger"], "deskhand.person");
    assert_eq!(noted_handovers(&audit), ["takeover", "resume"]);
    mcp.close();
}

#[test]
fn on_gnome_a_button_held_by_down_is_released_when_the_person_takes_over() {
    let (_turn, desk) = common::gnome();
    let fixture = desk.fixture_with("GNOME Held Fixture", 1, &["--kit"]);
    let audit = desk.scratch("person-gnome-held-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("GNOME Held Fixture", Duration::from_secs(20));
    // The person moves the mouse.
    held_button_is_released_when_the_person_moves(
        &mcp,
        &fixture,
        &w,
        &[],
        Duration::from_millis(400),
        || hand_moves_the_pointer(desk, 20, 700),
    );
    mcp.close();
}

#[test]
fn on_gnome_a_type_cut_off_by_a_persons_key_says_how_much_went_in() {
    let (_turn, desk) = common::gnome();
    let fixture = desk.fixture("GNOME Typing Fixture", 1);
    let mut hand = KeyboardHand::start(desk);
    let audit = desk.scratch("person-gnome-type-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("GNOME Typing Fixture", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(1200));
    // The Tab at its end keeps the text on keys, which a person can cut off: long text of
    // characters alone goes into a field in one request.
    let mut text = "abcdéfghij".chars().cycle().take(499).collect::<String>();
    text.push('\t');

    // The person presses a key as soon as the first characters arrive.
    let log = fixture.log.clone();
    let watching = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        loop {
            let seen = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|e| e["event"] == "text" && e["text"].as_str().is_some_and(|t| !t.is_empty()));
            if seen || started.elapsed() > Duration::from_secs(20) {
                if seen {
                    hand.press();
                }
                return seen;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    let reply = mcp.call(json!({
        "action": "type",
        "target": w,
        "find": {"name": "Name", "role": "text"},
        "text": text,
    }));
    let typed_some = watching.join().expect("the person's thread");
    assert!(typed_some, "the fixture never showed a typed character");
    let sent: usize = reply
        .text
        .strip_prefix("applied but unconfirmed: only ")
        .and_then(|rest| rest.split_once(" of 500 characters were sent before the input failed (a person started using the desktop with their own mouse or keyboard, so deskhand stopped at once"))
        .and_then(|(count, _)| count.parse().ok())
        .unwrap_or_else(|| panic!("no count of characters sent in {}", reply.text));
    assert!((1..500).contains(&sent), "{sent}: {}", reply.text);
    let received = fixture
        .settled_events(0)
        .iter()
        .rev()
        .find(|e| e["event"] == "text" && e["widget"] == "name")
        .and_then(|e| e["text"].as_str().map(str::to_owned))
        .expect("the entry's text in the fixture's log");
    assert_eq!(received, text.chars().take(sent).collect::<String>());
    mcp.close();
}

#[test]
fn on_gnome_the_extension_shows_where_the_agent_acts_but_never_in_its_own_captures() {
    let (_turn, desk) = common::gnome();
    let fixture = desk.fixture("GNOME Overlay Fixture", 1);
    let mut eye = OutsideEye::start(desk);
    let before = eye.shot();
    assert!(
        before.markers_from(0).is_empty(),
        "pink before any agent acted"
    );
    let mcp = desk.mcp_with(&[("DESKHAND_OVERLAY", "on")]);
    let w = mcp.window_id("GNOME Overlay Fixture", Duration::from_secs(20));
    let press =
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}});

    // After a click by `find`, GNOME's own screenshot shows a frame around the button, and
    // deskhand's own zoom of it, taken while the frame is up, has none of it.
    let mut checked = None;
    for _ in 0..5 {
        let done = mcp.call(press.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        let marks = eye.shot().markers_from(0);
        if marks.is_empty() {
            continue;
        }
        let (left, top, right, bottom) = extent(&marks);
        assert!(
            right - left > 20 && bottom - top > 10,
            "a frame around the button: {left},{top} to {right},{bottom}"
        );
        let (width, height) = (before.width, before.height);
        let region = [
            left.saturating_sub(10) * 1000 / width,
            top.saturating_sub(10) * 1000 / height,
            (right + 10).min(width - 1) * 1000 / width + 1,
            (bottom + 10).min(height - 1) * 1000 / height + 1,
        ];
        let zoom = mcp.call(json!({"action": "zoom", "target": "screen", "region": region}));
        assert!(!zoom.is_error, "{}", zoom.text);
        if eye.shot().markers_from(0).is_empty() {
            continue;
        }
        let zoomed = Shot::decode(zoom.image.as_deref().expect("the zoom's image"));
        let marked = zoomed.rgb.iter().filter(|p| like(**p, MARKER)).count();
        assert_eq!(marked, 0, "deskhand's zoom shows its own overlay");
        checked = Some((
            (left + right) / 2 * 1000 / width,
            (top + bottom) / 2 * 1000 / height,
            region,
        ));
        break;
    }
    let (x, y, region) = checked.expect("the frame was never up around deskhand's zoom");

    // Nor does it show another deskhand's overlay: a second agent's marks stay out of the
    // first one's zoom.
    let other = desk.mcp_with(&[("DESKHAND_OVERLAY", "on")]);
    let other_w = other.window_id("GNOME Overlay Fixture", Duration::from_secs(20));
    let other_press = json!({"action": "click", "target": other_w, "find": {"name": "Press me", "role": "button"}});
    let mut apart = false;
    for _ in 0..5 {
        let done = other.call(other_press.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        let zoom = mcp.call(json!({"action": "zoom", "target": "screen", "region": region}));
        assert!(!zoom.is_error, "{}", zoom.text);
        if eye.shot().markers_from(0).is_empty() {
            continue;
        }
        let zoomed = Shot::decode(zoom.image.as_deref().expect("the zoom's image"));
        let marked = zoomed.rgb.iter().filter(|p| like(**p, MARKER)).count();
        assert_eq!(
            marked, 0,
            "deskhand's zoom shows another deskhand's overlay"
        );
        apart = true;
        break;
    }
    assert!(
        apart,
        "the second agent's frame was never up around the first one's zoom"
    );
    other.close();

    // A pointer click lands on the ring the click before it left: the app beneath gets both.
    let at_center = json!({"action": "click", "target": "screen", "x": x, "y": y});
    let clicked = clicks(&fixture);
    let mut through = false;
    for round in 1..=5 {
        for _ in 0..2 {
            let done = mcp.call(at_center.clone());
            assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        }
        wait_until(Duration::from_secs(5), || {
            (clicks(&fixture) == clicked + 2 * round).then_some(())
        })
        .expect("both clicks reached the app beneath the ring");
        let shot = eye.shot();
        let dot = (x * shot.width / 1000, y * shot.height / 1000);
        if shot
            .markers_from(0)
            .iter()
            .any(|&(mx, my)| mx.abs_diff(dot.0) <= 3 && my.abs_diff(dot.1) <= 3)
        {
            through = true;
            break;
        }
    }
    assert!(
        through,
        "the ring's dot was never seen after a click through it"
    );

    // The line that an agent is acting shows while it is connected, and goes with it.
    let connected = eye.shot();
    mcp.close();
    let gone = wait_until(Duration::from_secs(5), || {
        let after = eye.shot();
        after.markers_from(0).is_empty().then_some(after)
    })
    .expect("the marks went once the agent left");
    let top_rows = |shot: &Shot| -> Vec<[u8; 3]> {
        (0..80)
            .flat_map(|y| (shot.width / 2 - 150..shot.width / 2 + 150).map(move |x| (x, y)))
            .map(|(x, y)| shot.at(x, y))
            .collect()
    };
    let changed = top_rows(&connected)
        .iter()
        .zip(top_rows(&gone))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(p, q)| p.abs_diff(*q) > 40))
        .count();
    assert!(
        changed > 200,
        "the indicator line was not seen: {changed} pixels changed"
    );
}

#[test]
fn on_gnome_the_doctor_says_how_a_persons_input_is_told() {
    let (_turn, desk) = common::gnome();
    let run = desk.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {} / {}", run.stdout, run.stderr));
    let takeover = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "takeover")
        .unwrap_or_else(|| panic!("no takeover check in {report:#}"));
    assert_eq!(takeover["status"], "ok", "{takeover}");
    let detail = takeover["detail"].as_str().expect("a detail");
    assert!(
        detail.starts_with(
            "GNOME's idle monitor (org.gnome.Mutter.IdleMonitor) tells when the seat last had input"
        ),
        "{detail}"
    );
}

#[test]
fn on_gnome_a_drag_cut_off_by_a_person_releases_its_button_where_it_got_to() {
    let (_turn, desk) = common::gnome();
    let fixture = desk.fixture_with("GNOME Drag Fixture", 1, &["--kit"]);
    let mut hand = KeyboardHand::start(desk);
    let audit = desk.scratch("person-gnome-drag-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("GNOME Drag Fixture", Duration::from_secs(20));
    let (x, y) = canvas_point(&mcp, &w);
    // deskhand's pointer joins the seat before the drag, which then starts at once.
    let hovered = mcp.call(json!({"action": "hover", "target": w, "x": x - 40.0, "y": y}));
    assert!(hovered.text.starts_with("done: "), "{}", hovered.text);
    std::thread::sleep(Duration::from_millis(1200));

    // The drag goes through one point on its way, half-way through its 4 s; the person
    // presses a key well after deskhand's move there, while the drag waits for its end.
    let pressing = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(2800));
        hand.press();
    });
    let reply = mcp.call(json!({
        "action": "drag", "target": w,
        "from": [x - 40.0, y], "via": [[x - 20.0, y]], "to": [x + 40.0, y],
        "duration_ms": 4000,
    }));
    pressing.join().expect("the person's thread");
    let released = drag_cut_off_by_the_person(&reply, &fixture, Duration::from_millis(3600));
    let (from, to) = (
        released["from"][0].as_i64().unwrap(),
        released["to"][0].as_i64().unwrap(),
    );
    assert!(to > from, "{released}");
    mcp.close();
}
