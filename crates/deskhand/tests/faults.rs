//! Hung and dying applications, a dead accessibility bus, a dead X server: every call returns
//! within its deadline with a clear error or a tree marked partial, the next call to a healthy
//! app works, and a long-lived server leaks no threads or memory over 200 stalled calls.
//!
//! A call to a stopped app can cost one AT-SPI call timeout (1.5 s): the tests made mostly of
//! such waits (every action on a stopped app, 200 stalled observes) run on desktops of their
//! own, in parallel with the rest.

mod common;

use std::time::{Duration, Instant};

use common::{Desktop, Fixture, Mcp, McpReply, desktop, wait_until};
use serde_json::{Value, json};

/// The AT-SPI call timeout.
const CALL_TIMEOUT: Duration = Duration::from_millis(1500);
/// The walk deadline plus one call timeout: no observe may take longer, hung app or not.
const OBSERVE_BOUND: Duration = Duration::from_millis(6500);

fn signal(pid: u32, signal: libc::c_int) {
    // SAFETY: kill has no memory-safety preconditions; the pid is a child this test started.
    let done = unsafe { libc::kill(pid as libc::pid_t, signal) };
    assert_eq!(done, 0, "kill({pid}, {signal}) failed");
}

/// Resumes a stopped app when dropped, so a failed assertion never leaves it stopped.
struct Stopped(u32);

impl Stopped {
    fn new(pid: u32) -> Self {
        signal(pid, libc::SIGSTOP);
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        signal(self.0, libc::SIGCONT);
    }
}

fn observe(mcp: &Mcp, w: &str) -> McpReply {
    mcp.call(json!({"action": "observe", "target": w}))
}

/// A healthy observe: succeeds, complete, quickly.
fn healthy(mcp: &Mcp, w: &str) -> McpReply {
    let reply = observe(mcp, w);
    assert!(!reply.is_error, "the healthy app failed: {}", reply.text);
    assert!(
        !reply
            .text
            .lines()
            .next()
            .unwrap_or_default()
            .contains("partial"),
        "{}",
        reply.text
    );
    reply
}

/// How one observe of a stalled app ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ended {
    Complete,
    Partial,
    /// The app was gone from the accessibility bus before its window was: the text on its
    /// pixels, said to be that.
    FromPixels,
    Failed(&'static str),
}

/// Checks an observe that may have hit a stalled or dying app: within the bound, and either a
/// failure of an expected kind, a tree marked partial, text marked as read from the pixels, or
/// exactly the complete tree.
fn classify(reply: &McpReply, complete: &Value, kinds: &[&'static str]) -> Ended {
    assert!(
        reply.took <= OBSERVE_BOUND,
        "took {:?}: {}",
        reply.took,
        reply.text
    );
    if let Some(kind) = reply.kind() {
        let kind = kinds
            .iter()
            .find(|k| **k == kind)
            .unwrap_or_else(|| panic!("an unexpected failure: {}", reply.text));
        assert!(
            ["try again", "call `", "use `"]
                .iter()
                .any(|next| reply.text.contains(next)),
            "no next step: {}",
            reply.text
        );
        return Ended::Failed(kind);
    }
    let header = reply.text.lines().next().unwrap_or_default();
    if header.contains(" · partial: ") {
        assert!(
            !reply.data["partial"].as_array().unwrap().is_empty(),
            "{}",
            reply.data
        );
        return Ended::Partial;
    }
    if reply.data["from_pixels"] == true {
        assert!(
            header.contains("no accessibility tree: text read from pixels"),
            "{}",
            reply.text
        );
        return Ended::FromPixels;
    }
    // Not marked partial: then nothing may be missing.
    assert_eq!(
        &reply.data["elements"], complete,
        "an unmarked tree differs from the complete one:\n{}",
        reply.text
    );
    Ended::Complete
}

/// Waits until the app answers again after it was resumed.
fn answers_again(mcp: &Mcp, w: &str) {
    let back = wait_until(Duration::from_secs(20), || {
        let reply = observe(mcp, w);
        (!reply.is_error && !reply.text.lines().next()?.contains("partial")).then_some(())
    });
    assert!(back.is_some(), "the resumed app never answered again");
}

#[test]
fn a_stopped_app_times_out_and_the_next_call_to_a_healthy_app_works() {
    let (_turn, desk) = desktop();
    let hung = desk.fixture("Hung Fixture", 1);
    let _healthy = desk.fixture("Healthy Fixture", 1);
    let mcp = desk.mcp();
    let hung_w = mcp.window_id("Hung Fixture", Duration::from_secs(20));
    let healthy_w = mcp.window_id("Healthy Fixture", Duration::from_secs(20));
    let before = observe(&mcp, &hung_w);
    assert!(!before.is_error, "{}", before.text);
    let press = common::ref_of(&before.text, &["button \"Press me\""]);
    let events_before = hung.events().len();

    let stopped = Stopped::new(hung.app.pid());
    // A click on the stopped app times out before anything is sent to it.
    let click = mcp.call(json!({"action": "click", "ref": press}));
    assert_eq!(click.kind(), Some("timeout"), "{}", click.text);
    assert!(click.took <= OBSERVE_BOUND, "took {:?}", click.took);
    let mut took = Vec::new();
    for _ in 0..3 {
        let reply = observe(&mcp, &hung_w);
        took.push(reply.took);
        assert_eq!(reply.kind(), Some("timeout"), "{}", reply.text);
        // The click already paid the one timeout: now the server knows the app is silent and
        // says so at once, without waiting on it again.
        assert!(
            reply
                .text
                .contains("has not answered since a request to it timed out"),
            "{}",
            reply.text
        );
        assert!(reply.took < CALL_TIMEOUT / 2, "took {:?}", reply.took);
        // The next call to a healthy app works, and quickly.
        let next = healthy(&mcp, &healthy_w);
        assert!(next.took < Duration::from_secs(3), "took {:?}", next.took);
    }
    // Reads that need no accessibility still work: windows (X) and the stopped app's pixels.
    let windows = mcp.call(json!({"action": "windows"}));
    assert!(
        windows.text.contains("\"Hung Fixture\""),
        "{}",
        windows.text
    );
    assert!(
        windows.took < Duration::from_secs(3),
        "took {:?}",
        windows.took
    );
    let shot = mcp.call(json!({"action": "screenshot", "target": hung_w}));
    assert!(!shot.is_error, "{}", shot.text);
    assert!(shot.image.is_some());
    drop(stopped);

    answers_again(&mcp, &hung_w);
    // The timed-out click never reached the app, even after it resumed.
    assert_eq!(
        hung.settled_events(events_before),
        Vec::<Value>::new(),
        "a call that failed reached the app later"
    );
    println!(
        "stopped app: click failed with `timeout` after {:?}, observe after {took:?}",
        click.took
    );
}

#[test]
fn an_app_stopped_mid_walk_gives_a_partial_tree_never_a_silently_short_one() {
    let (_turn, desk) = desktop();
    let app = desk.fixture("Stall Fixture", 1);
    let _other = desk.fixture("Stall Other", 1);
    let mcp = desk.mcp();
    let w = mcp.window_id("Stall Fixture", Duration::from_secs(20));
    let other = mcp.window_id("Stall Other", Duration::from_secs(20));
    let complete = healthy(&mcp, &w);
    let walk = (0..3).map(|_| healthy(&mcp, &w).took).min().unwrap();
    let complete = complete.data["elements"].clone();

    // Stop the app at points spread over one observe: before it, during the walk, after it.
    let mut outcomes = Vec::new();
    let steps = 12;
    for step in 0..steps {
        let delay = walk * step / (steps - 2);
        let pid = app.app.pid();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(delay);
            Stopped::new(pid)
        });
        let reply = observe(&mcp, &w);
        let stopped = stopper.join().expect("the stopper");
        let ended = classify(&reply, &complete, &["timeout"]);
        outcomes.push((delay, ended, reply.took));
        // While it is stopped, a healthy app answers.
        healthy(&mcp, &other);
        drop(stopped);
        answers_again(&mcp, &w);
    }
    println!("an unstopped observe took {walk:?}; stopped at (delay, outcome, took): {outcomes:?}");
    assert!(
        outcomes
            .iter()
            .any(|(_, ended, _)| *ended != Ended::Complete),
        "no stop landed before the observe ended: {outcomes:?}"
    );
}

#[test]
fn an_app_killed_mid_walk_fails_or_is_partial_and_healthy_calls_go_on() {
    let (_turn, desk) = desktop();
    let _healthy = desk.fixture("Survivor Fixture", 1);
    let mcp = desk.mcp();
    let survivor = mcp.window_id("Survivor Fixture", Duration::from_secs(20));
    // `platform`: the bus answered that the app disconnected without replying.
    let kinds = [
        "timeout",
        "surface-gone",
        "no-accessibility",
        "element-gone",
        "platform",
    ];
    let mut outcomes = Vec::new();
    for trial in 0..4u32 {
        let title = format!("Doomed Fixture {trial}");
        let doomed: Fixture = desk.fixture(&title, 1);
        let w = mcp.window_id(&title, Duration::from_secs(20));
        let complete = healthy(&mcp, &w);
        let walk = complete.took;
        let complete = complete.data["elements"].clone();
        let pid = doomed.app.pid();
        let reply = if trial == 0 {
            // Deterministic: the app hangs first, so the call is waiting on it when it dies.
            let stopped = Stopped::new(pid);
            std::mem::forget(stopped);
            let killer = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(400));
                signal(pid, libc::SIGKILL);
            });
            let reply = observe(&mcp, &w);
            killer.join().expect("the killer");
            reply
        } else {
            let delay = walk * (trial - 1) / 2;
            let killer = std::thread::spawn(move || {
                std::thread::sleep(delay);
                signal(pid, libc::SIGKILL);
            });
            let reply = observe(&mcp, &w);
            killer.join().expect("the killer");
            reply
        };
        outcomes.push((classify(&reply, &complete, &kinds), reply.took));
        drop(doomed);
        // The server goes on: the dead window is gone, the healthy app answers.
        healthy(&mcp, &survivor);
        let gone = wait_until(Duration::from_secs(10), || {
            let reply = observe(&mcp, &w);
            (reply.kind() == Some("surface-gone")).then_some(reply)
        });
        assert!(gone.is_some(), "the dead app's window never went away");
    }
    println!("killed mid-observe (outcome, took): {outcomes:?}");
    assert_ne!(
        outcomes[0].0,
        Ended::Complete,
        "a call waiting on an app that died cannot be complete"
    );
}

/// Kills a process group; the desktop's processes each lead their own.
fn kill_group(pid: u32) {
    // SAFETY: as `signal`; a negative pid names the process group this desktop's start made.
    unsafe {
        libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
    }
}

fn process_of(desk: &Desktop, name: &str) -> u32 {
    desk.processes()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name} in the desktop's state"))
        .1
}

#[test]
fn without_the_accessibility_bus_observe_fails_fast_and_pixels_still_work() {
    let desk = Desktop::start_own();
    let _fixture = desk.fixture("Busless Fixture", 1);
    let mcp = desk.mcp();
    let w = mcp.window_id("Busless Fixture", Duration::from_secs(20));
    healthy(&mcp, &w);
    let cli_w = desk.window_id("Busless Fixture");

    // The launcher's group holds the accessibility bus daemon and the registry.
    kill_group(process_of(&desk, "at-spi-bus-launcher"));
    std::thread::sleep(Duration::from_millis(300));

    let mut took = Vec::new();
    let mut said = String::new();
    for _ in 0..3 {
        let reply = observe(&mcp, &w);
        took.push(reply.took);
        said = reply.text.trim_end().to_owned();
        assert!(
            matches!(reply.kind(), Some("no-accessibility" | "timeout")),
            "{}",
            reply.text
        );
        assert!(reply.took <= OBSERVE_BOUND, "took {:?}", reply.took);
        assert!(reply.text.contains("screenshot"), "{}", reply.text);
    }
    let windows = mcp.call(json!({"action": "windows"}));
    assert!(!windows.is_error, "{}", windows.text);
    assert!(
        windows.text.contains("\"Busless Fixture\""),
        "{}",
        windows.text
    );
    let shot = mcp.call(json!({"action": "screenshot", "target": w}));
    assert!(!shot.is_error, "{}", shot.text);
    let click = mcp.call(json!({"action": "click", "target": w, "x": 500, "y": 990}));
    assert!(!click.is_error, "{}", click.text);

    // A fresh process (the CLI) asks the session bus for the accessibility bus, which starts a
    // new, empty one: the fixture is not on it, so its window has no tree there and is read
    // from its pixels, as any window without a tree is; or, while the new bus comes up, the
    // call fails as the server's did.
    let started = Instant::now();
    let run = desk.act("observe", json!({"target": cli_w}));
    let cli_took = started.elapsed();
    let read_from_pixels =
        run.code == 0
            && run.stdout.lines().next().is_some_and(|header| {
                header.ends_with("no accessibility tree: text read from pixels")
            });
    assert!(
        read_from_pixels
            || (run.code == 1
                && (run.stdout.starts_with("failed (no-accessibility)")
                    || run.stdout.starts_with("failed (timeout)"))),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(cli_took <= OBSERVE_BOUND, "took {cli_took:?}");
    println!(
        "no accessibility bus: MCP observe failed after {took:?} ({said}), the CLI after {cli_took:?} ({})",
        run.stdout.trim_end()
    );
    mcp.close();
    desk.stop();
}

#[test]
fn without_the_x_server_calls_fail_as_no_display_and_the_server_exits_cleanly() {
    let desk = Desktop::start_own();
    let _fixture = desk.fixture("Xless Fixture", 1);
    let mcp = desk.mcp();
    let w = mcp.window_id("Xless Fixture", Duration::from_secs(20));
    healthy(&mcp, &w);

    kill_group(process_of(&desk, "Xvfb"));
    std::thread::sleep(Duration::from_millis(300));

    let mut took = Vec::new();
    for args in [
        json!({"action": "windows"}),
        json!({"action": "observe", "target": w}),
        json!({"action": "screenshot"}),
        json!({"action": "click", "x": 5, "y": 5}),
        json!({"action": "press", "keys": "a"}),
        json!({"action": "apps"}),
    ] {
        let reply = mcp.call(args.clone());
        took.push(reply.took);
        assert_eq!(reply.kind(), Some("no-display"), "{args}: {}", reply.text);
        assert!(
            reply.took < Duration::from_secs(3),
            "{args} took {:?}",
            reply.took
        );
    }
    assert!(mcp.alive(), "the server died with the X server");

    let started = Instant::now();
    let run = desk.act("windows", json!({}));
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("failed (no-display)"),
        "{}",
        run.stdout
    );
    assert!(started.elapsed() < Duration::from_secs(3));

    let pid = mcp.pid;
    let closing = Instant::now();
    mcp.close();
    let exited = wait_until(Duration::from_secs(10), || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        stat.is_none_or(|s| s.contains(") Z ")).then_some(())
    });
    assert!(
        exited.is_some(),
        "the server did not exit after its client left"
    );
    println!(
        "no X server: calls failed with no-display after {took:?}; the server exited {:?} after its client left",
        closing.elapsed()
    );
    desk.stop();
}

#[test]
fn two_hundred_stalled_observes_leak_no_threads_or_memory() {
    let desk = Desktop::start_own();
    let hung = desk.fixture("Leak Hung", 1);
    let _healthy = desk.fixture("Leak Healthy", 1);
    let mcp = desk.mcp();
    let hung_w = mcp.window_id("Leak Hung", Duration::from_secs(20));
    let healthy_w = mcp.window_id("Leak Healthy", Duration::from_secs(20));
    healthy(&mcp, &hung_w);
    healthy(&mcp, &healthy_w);

    let stopped = Stopped::new(hung.app.pid());
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut slowest = Duration::ZERO;
    const CALLS: usize = 200;
    for call in 1..=CALLS {
        let reply = observe(&mcp, &hung_w);
        assert_eq!(reply.kind(), Some("timeout"), "call {call}: {}", reply.text);
        assert!(
            reply.took <= OBSERVE_BOUND,
            "call {call} took {:?}",
            reply.took
        );
        slowest = slowest.max(reply.took);
        if call % 10 == 0 {
            healthy(&mcp, &healthy_w);
        }
        if call == 10 || call % 50 == 0 {
            samples.push((call, mcp.status("Threads"), mcp.status("VmRSS")));
        }
    }
    let elapsed = started.elapsed();
    drop(stopped);
    answers_again(&mcp, &hung_w);
    println!(
        "{CALLS} stalled observes in {elapsed:.1?} (slowest {slowest:?}); (call, threads, RSS kB): {samples:?}"
    );
    let (_, threads_start, rss_start) = samples[0];
    let (_, threads_end, rss_end) = *samples.last().unwrap();
    // Idle blocking-pool threads come and go; a leak would add one per call.
    assert!(
        threads_end <= threads_start + 4,
        "threads grew from {threads_start} to {threads_end}: {samples:?}"
    );
    assert!(
        rss_end <= rss_start + 20 * 1024,
        "RSS grew from {rss_start} kB to {rss_end} kB: {samples:?}"
    );
    mcp.close();
    desk.stop();
}

/// How an action's reply classed it.
fn class_of(reply: &McpReply) -> String {
    if reply.is_error {
        format!("failed ({})", reply.kind().unwrap_or("?"))
    } else {
        reply.data["outcome"].as_str().unwrap_or("?").to_owned()
    }
}

/// Every action, each sent to a stopped app and the app then resumed: whatever reached the app
/// (its own log says) was never answered `failed`, and each reply came within its bound. Then
/// the same actions on an app killed just before: nothing can reach it, and none says `done`.
#[test]
fn no_action_that_may_have_reached_a_hung_or_dying_app_is_reported_failed() {
    // Its own desktop: most of its half minute is spent waiting out call timeouts on the
    // stopped app, time in which the shared desktop's tests run alongside instead of after it.
    let desk = &Desktop::start_own();
    let fixture = desk.fixture_with("Walk Fixture", 1, &["--kit"]);
    let mcp = desk.mcp();
    let w = mcp.window_id("Walk Fixture", Duration::from_secs(20));
    let tree = observe(&mcp, &w);
    assert!(!tree.is_error, "{}", tree.text);
    let press = common::ref_of(&tree.text, &["button \"Press me\""]);
    let name = common::ref_of(&tree.text, &["text \"Name\""]);
    let actions = [
        json!({"action": "click", "ref": press}),
        json!({"action": "click", "target": w, "find": {"name": "Other", "role": "button"}}),
        json!({"action": "click", "target": w, "x": 500, "y": 500}),
        json!({"action": "type", "ref": name, "text": "abc"}),
        json!({"action": "type", "target": w, "text": "xyz"}),
        json!({"action": "press", "keys": "ctrl+s"}),
        json!({"action": "scroll", "target": w, "x": 500, "y": 500, "direction": "down"}),
        json!({"action": "hover", "target": w, "x": 400, "y": 400}),
        json!({"action": "drag", "target": w, "from": [300, 300], "to": [320, 320]}),
        json!({"action": "set_value", "ref": name, "value": "set"}),
        json!({"action": "select", "target": w, "path": ["File", "Save As…"]}),
        json!({"action": "focus", "target": w}),
        json!({"action": "window", "target": w, "position": [40, 40]}),
    ];
    let mut walked = Vec::new();
    for args in &actions {
        let seen = fixture.events().len();
        let stopped = Stopped::new(fixture.app.pid());
        let reply = mcp.call(args.clone());
        drop(stopped);
        let class = class_of(&reply);
        assert!(
            reply.took <= OBSERVE_BOUND + Duration::from_secs(6),
            "{args} took {:?}: {}",
            reply.took,
            reply.text
        );
        let arrived = fixture.settled_events(seen);
        if class.starts_with("failed") {
            assert_eq!(
                arrived,
                Vec::<Value>::new(),
                "{args} was reported {class} but reached the app: {}",
                reply.text
            );
        }
        answers_again(&mcp, &w);
        walked.push((args["action"].clone(), class, reply.took, arrived.len()));
    }
    println!("stopped app (action, reply, took, events that reached it): {walked:?}");

    let dying = desk.fixture_with("Dying Fixture", 1, &["--kit"]);
    let dying_w = mcp.window_id("Dying Fixture", Duration::from_secs(20));
    let tree = observe(&mcp, &dying_w);
    let press = common::ref_of(&tree.text, &["button \"Press me\""]);
    let name = common::ref_of(&tree.text, &["text \"Name\""]);
    signal(dying.app.pid(), libc::SIGKILL);
    let mut died = Vec::new();
    for args in [
        json!({"action": "click", "ref": press}),
        json!({"action": "type", "ref": name, "text": "abc"}),
        json!({"action": "set_value", "ref": name, "value": "set"}),
        json!({"action": "click", "target": dying_w, "x": 500, "y": 500}),
        json!({"action": "select", "target": dying_w, "path": ["File", "Save As…"]}),
        json!({"action": "focus", "target": dying_w}),
    ] {
        let reply = mcp.call(args.clone());
        let class = class_of(&reply);
        assert_ne!(
            class, "done",
            "{args} on a dead app said done: {}",
            reply.text
        );
        assert!(reply.took <= OBSERVE_BOUND, "{args} took {:?}", reply.took);
        died.push((args["action"].clone(), class));
    }
    println!("killed app (action, reply): {died:?}");
    mcp.close();
    desk.stop();
}
