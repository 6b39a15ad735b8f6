//! A person beside the agent on a real headless X desktop and on sway: another client (xdotool,
//! or on sway a second virtual pointer, as a hand on the mouse or keyboard would) uses the
//! desktop during an MCP session, and the fixture app's own log says what arrived.

mod common;
mod person_kit;

use std::time::Duration;

use common::{Desktop, Listener, desktop, wait_until};
use person_kit::{
    TOOK_OVER, audit_actions, canvas_point, click_after_the_person_left, clicks,
    drag_cut_off_by_the_person, held_button_is_released_when_the_person_moves, logged_events,
    noted_handovers, own_input_is_never_a_persons, refused_while_the_person_has_it, session,
};
use serde_json::{Value, json};

fn xdotool(desk: &Desktop, args: &[&str]) {
    let status = desk
        .command("xdotool")
        .args(args)
        .status()
        .expect("running xdotool");
    assert!(status.success(), "xdotool {args:?} failed");
}

#[test]
fn a_persons_pointer_or_key_pauses_the_agent_until_they_are_idle() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Person Fixture", 1);
    desk.activate("Person Fixture");
    let audit = desk.scratch("person-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Person Fixture", Duration::from_secs(10));
    let press =
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}});

    // deskhand's own input is never taken for a person's.
    for n in 1..=2 {
        let done = mcp.call(press.clone());
        assert!(done.text.starts_with("done: clicked"), "{}", done.text);
        wait_until(Duration::from_secs(5), || {
            (clicks(&fixture) == n).then_some(())
        })
        .expect("the fixture saw deskhand's click");
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(mcp.logged().is_empty(), "{:?}", mcp.logged());

    for hand in [&["mousemove", "300", "320"][..], &["key", "Shift_R"][..]] {
        xdotool(desk, hand);
        std::thread::sleep(Duration::from_millis(200));
        refused_while_the_person_has_it(&mcp, &fixture, &press);
        click_after_the_person_left(&mcp, &fixture, &press);
    }

    // The agent heard of both takeovers and both resumes, unasked, with their times.
    let (logged, events) = logged_events(&mcp, 4);
    assert_eq!(events, ["takeover", "resume", "takeover", "resume"]);
    assert_eq!(logged[0]["level"], "warning");
    assert_eq!(logged[0]["logger"], "deskhand.person");
    assert!(
        logged[0]["data"]["message"]
            .as_str()
            .unwrap()
            .starts_with("a person took over the desktop at "),
        "{logged:?}"
    );
    let audited = audit_actions(&audit);
    let handovers: Vec<(&str, &str)> = audited
        .iter()
        .filter(|e| e["result"] == "noted")
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["ts"].as_str().expect("a time"),
            )
        })
        .collect();
    assert_eq!(
        handovers.iter().map(|(a, _)| *a).collect::<Vec<_>>(),
        ["takeover", "resume", "takeover", "resume"],
        "{audited:?}"
    );
    assert!(
        handovers.windows(2).all(|p| p[0].1 <= p[1].1),
        "{handovers:?}"
    );
    let refusals = audited.iter().filter(|e| e["kind"] == "stopped").count();
    assert_eq!(refusals, 2, "{audited:?}");
    mcp.close();
}

#[test]
fn a_type_cut_off_by_a_persons_key_says_how_much_went_in() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture("Typing Person Fixture", 1);
    desk.activate("Typing Person Fixture");
    let audit = desk.scratch("person-type-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Typing Person Fixture", Duration::from_secs(10));
    // Every other character is off the keyboard map, so it goes through a remapped spare
    // keycode and typing all 500 takes far longer than the person's reaction below: the key
    // lands while typing is under way even on a loaded machine. The Tab at its end keeps the
    // text on keys, which a person can cut off: long text of characters alone goes into a
    // field in one request.
    let mut text = "aжbзcиdй".chars().cycle().take(499).collect::<String>();
    text.push('\t');
    assert_eq!(text.chars().count(), 500);

    // The person presses a key that types nothing and changes no other key's meaning (a held
    // Shift would turn the keys deskhand sends meanwhile into their shifted symbols) as soon as
    // the first character arrives.
    let log = fixture.log.clone();
    let display_env = desk.command("xdotool");
    let hand = std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let typed_some = loop {
            let seen = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|e| e["event"] == "text" && e["text"].as_str().is_some_and(|t| !t.is_empty()));
            if seen || started.elapsed() > Duration::from_secs(20) {
                break seen;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut command = display_env;
        command.args(["key", "Pause"]);
        (typed_some, command.status())
    });
    let reply = mcp.call(json!({
        "action": "type",
        "target": w,
        "find": {"name": "Name", "role": "text"},
        "text": text,
    }));
    let (typed_some, pressed) = hand.join().expect("the person's thread");
    assert!(typed_some, "the fixture never showed a typed character");
    assert!(pressed.is_ok_and(|s| s.success()), "xdotool key");

    let sent: usize = reply
        .text
        .strip_prefix("applied but unconfirmed: only ")
        .and_then(|rest| rest.split_once(" of 500 characters were sent before the input failed (a person started using the desktop with their own mouse or keyboard, so deskhand stopped at once"))
        .and_then(|(count, _)| count.parse().ok())
        .unwrap_or_else(|| panic!("no count of characters sent in {}", reply.text));
    assert!((1..500).contains(&sent), "{sent}: {}", reply.text);
    assert!(
        reply.text.contains("the rest was not sent"),
        "{}",
        reply.text
    );
    let received = fixture
        .settled_events(0)
        .iter()
        .rev()
        .find(|e| e["event"] == "text" && e["widget"] == "name")
        .and_then(|e| e["text"].as_str().map(str::to_owned))
        .expect("the entry's text in the fixture's log");
    assert_eq!(
        received.chars().count(),
        sent,
        "the app received {received:?}"
    );
    assert_eq!(
        received.to_lowercase(),
        text.chars().take(sent).collect::<String>()
    );
    mcp.close();
}

#[test]
fn a_button_held_by_down_is_released_when_the_person_takes_over() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture_with("Held Person Fixture", 1, &["--kit"]);
    desk.activate("Held Person Fixture");
    let audit = desk.scratch("person-held-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Held Person Fixture", Duration::from_secs(10));
    // The person moves the mouse.
    held_button_is_released_when_the_person_moves(
        &mcp,
        &fixture,
        &w,
        &["shift"],
        Duration::from_millis(300),
        || xdotool(desk, &["mousemove_relative", "--", "15", "5"]),
    );
    mcp.close();
}

#[test]
fn a_drag_cut_off_by_a_person_releases_its_button_where_it_got_to() {
    let (_turn, desk) = desktop();
    let fixture = desk.fixture_with("Drag Person Fixture", 1, &["--kit"]);
    desk.activate("Drag Person Fixture");
    let audit = desk.scratch("person-drag-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Drag Person Fixture", Duration::from_secs(10));
    let (x, y) = canvas_point(&mcp, &w);

    let key = desk.command("xdotool");
    let hand = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(900));
        let mut key = key;
        key.args(["key", "Shift_R"]).status()
    });
    let reply = mcp.call(json!({
        "action": "drag", "target": w,
        "from": [x - 40.0, y], "to": [x + 40.0, y], "duration_ms": 3000,
    }));
    assert!(
        hand.join()
            .expect("the person's thread")
            .is_ok_and(|s| s.success()),
        "xdotool key"
    );
    let released = drag_cut_off_by_the_person(&reply, &fixture, Duration::from_millis(2500));
    let (from, to) = (
        released["from"][0].as_i64().unwrap(),
        released["to"][0].as_i64().unwrap(),
    );
    assert!(to > from, "{released}");
    mcp.close();
}

/// The person's events a client heard as log messages, each checked to be the person's.
fn events(listener: &Listener) -> Vec<String> {
    listener
        .logged()
        .iter()
        .map(|m| {
            assert_eq!(m["logger"], "deskhand.person", "{m}");
            m["data"]["event"].as_str().expect("an event").to_owned()
        })
        .collect()
}

/// `deskhand mcp --http` on the shared desktop, ended when dropped.
struct HttpServer(std::process::Child);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn every_http_session_on_the_shared_desktop_hears_of_a_takeover_and_the_resume() {
    use rmcp::ServiceExt as _;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use std::io::BufRead as _;

    let (_turn, desk) = desktop();
    let audit = desk.scratch("person-http-audit.jsonl");
    let _ = std::fs::remove_file(&audit);
    let mut command = desk.command(common::BIN);
    command
        .args(["mcp", "--http", "127.0.0.1:0"])
        .env("DESKHAND_TAKEOVER", "on")
        .env("DESKHAND_TAKEOVER_IDLE", "2")
        .env("DESKHAND_AUDIT", &audit)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("starting deskhand mcp --http");
    let stderr = child.stderr.take().expect("piped stderr");
    let _server = HttpServer(child);
    let (found, url) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(url) = line.strip_prefix("deskhand: serving MCP on ") {
                let _ = found.send(url.to_owned());
            }
        }
    });
    let url = url
        .recv_timeout(Duration::from_secs(60))
        .expect("the server said where it serves");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let _inside = runtime.enter();
    let listeners = [Listener::default(), Listener::default()];
    let clients: Vec<_> = listeners
        .iter()
        .map(|listener| {
            runtime
                .block_on(
                    listener
                        .clone()
                        .serve(StreamableHttpClientTransport::from_config(
                            StreamableHttpClientTransportConfig::with_uri(url.clone()),
                        )),
                )
                .expect("an MCP session over HTTP")
        })
        .collect();
    for client in &clients {
        let info = client.peer_info().expect("the server's info");
        assert!(
            info.capabilities.logging.is_some(),
            "the server declares the logging capability: {info:?}"
        );
    }
    std::thread::sleep(Duration::from_millis(500));

    xdotool(desk, &["mousemove", "310", "330"]);
    for (n, listener) in listeners.iter().enumerate() {
        wait_until(Duration::from_secs(5), || {
            (events(listener) == ["takeover"]).then_some(())
        })
        .unwrap_or_else(|| panic!("session {n} heard {:?}", events(listener)));
    }
    // Its calls are paused too.
    let refused = runtime
        .block_on(
            clients[0].call_tool(
                rmcp::model::CallToolRequestParams::new("desktop").with_arguments(
                    json!({"action": "click", "target": "screen", "x": 990, "y": 990})
                        .as_object()
                        .expect("an object")
                        .clone(),
                ),
            ),
        )
        .expect("tools/call");
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        refused
            .structured_content
            .as_ref()
            .map(|c| c["error"].clone()),
        Some(json!("stopped"))
    );
    for (n, listener) in listeners.iter().enumerate() {
        wait_until(Duration::from_secs(5), || {
            (events(listener) == ["takeover", "resume"]).then_some(())
        })
        .unwrap_or_else(|| panic!("session {n} heard {:?}", events(listener)));
    }
    let logged = listeners[0].logged();
    assert_eq!(logged[0]["level"], "warning", "{logged:?}");
    assert_eq!(logged[1]["level"], "notice", "{logged:?}");

    // Recorded once, not once per session.
    assert_eq!(noted_handovers(&audit), ["takeover", "resume"]);
    for client in clients {
        let _ = runtime.block_on(client.cancel());
    }
}

#[test]
fn on_sway_another_virtual_pointer_pauses_the_agent_until_the_seat_is_quiet() {
    let (_turn, desk) = common::sway();
    let fixture = desk.fixture("Sway Person Fixture", 1);
    let audit = desk.scratch("person-sway-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Sway Person Fixture", Duration::from_secs(10));
    let press =
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}});

    // deskhand's own input, each after a calm, is never taken for a person's: the pointer
    // (a right-click and a move) and the keyboard.
    let own = [
        json!({"action": "click", "target": w, "find": {"name": "Press me", "role": "button"}, "button": "right"}),
        json!({"action": "hover", "target": "screen", "x": 600, "y": 700}),
        json!({"action": "press", "keys": "shift"}),
    ];
    own_input_is_never_a_persons(&mcp, &own);
    std::thread::sleep(Duration::from_millis(300));
    let done = mcp.call(press.clone());
    assert!(done.text.starts_with("done: clicked"), "{}", done.text);
    wait_until(Duration::from_secs(5), || {
        (clicks(&fixture) == 1).then_some(())
    })
    .expect("the fixture saw deskhand's click");
    assert!(mcp.logged().is_empty(), "{:?}", mcp.logged());

    another_pointer_moves(desk);
    std::thread::sleep(Duration::from_millis(200));
    refused_while_the_person_has_it(&mcp, &fixture, &press);

    click_after_the_person_left(&mcp, &fixture, &press);
    let (_, events) = logged_events(&mcp, 2);
    assert_eq!(events, ["takeover", "resume"]);
    mcp.close();
}

/// A second client's virtual pointer moving (a deskhand CLI process of its own), as a hand's.
fn another_pointer_moves(desk: &Desktop) {
    let moved = desk
        .act("hover", json!({"target": "screen", "x": 700, "y": 800}))
        .ok();
    assert!(moved.starts_with("done: moved the pointer"), "{moved}");
}

#[test]
fn on_sway_a_button_held_by_down_is_released_when_another_pointer_moves() {
    let (_turn, desk) = common::sway();
    let fixture = desk.fixture_with("Sway Held Person Fixture", 1, &["--kit"]);
    let audit = desk.scratch("person-sway-held-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Sway Held Person Fixture", Duration::from_secs(10));
    // The person moves their mouse.
    held_button_is_released_when_the_person_moves(
        &mcp,
        &fixture,
        &w,
        &["shift"],
        Duration::from_millis(300),
        || another_pointer_moves(desk),
    );
    mcp.close();
}

#[test]
fn on_sway_a_drag_cut_off_by_another_pointer_stops_at_once_and_releases_its_button() {
    let (_turn, desk) = common::sway();
    let fixture = desk.fixture_with("Sway Drag Person Fixture", 1, &["--kit"]);
    let audit = desk.scratch("person-sway-drag-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Sway Drag Person Fixture", Duration::from_secs(10));
    let (x, y) = canvas_point(&mcp, &w);

    let reply = std::thread::scope(|scope| {
        let hand = scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(900));
            another_pointer_moves(desk);
        });
        let reply = mcp.call(json!({
            "action": "drag", "target": w,
            "from": [x - 40.0, y], "to": [x + 40.0, y], "duration_ms": 3000,
        }));
        hand.join().expect("the person's thread");
        reply
    });
    drag_cut_off_by_the_person(&reply, &fixture, Duration::from_millis(2500));
    mcp.close();
}

/// `count` points on a line from `(x, y)` rightwards, `step` apart, as `via` takes them.
fn points_right_of((x, y): (f64, f64), count: usize, step: f64) -> Vec<[f64; 2]> {
    (1..=count).map(|n| [x + step * n as f64, y]).collect()
}

#[test]
fn on_sway_a_persons_input_that_goes_on_past_the_agents_own_pauses_the_agent() {
    let (_turn, desk) = common::sway();
    let _fixture = desk.fixture_with("Sway Busy Person Fixture", 1, &["--kit"]);
    let audit = desk.scratch("person-sway-busy-audit.jsonl");
    let mcp = session(desk, &audit, "1");
    let w = mcp.window_id("Sway Busy Person Fixture", Duration::from_secs(10));
    let (x, y) = canvas_point(&mcp, &w);
    let press = json!({"action": "press", "keys": "shift"});

    // The agent's own input first, so that its drag below sends its first move at once.
    let hovered = mcp.call(json!({"action": "hover", "target": w, "x": x, "y": y}));
    assert!(hovered.text.starts_with("done: "), "{}", hovered.text);
    std::thread::sleep(Duration::from_millis(400));

    // The agent's drag and the person's hand overlap: the seat is never quiet from the agent's
    // first move to the person's last, so no pause tells the person's input from the agent's.
    // Each moves every 50 ms; the person begins 0.7 s into the agent's 2 s drag and goes on
    // 1.5 s past it.
    let reply = std::thread::scope(|scope| {
        let hand = scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(700));
            let moved = desk
                .act(
                    "drag",
                    json!({
                        "target": "screen", "from": [100, 950], "to": [900, 950],
                        "via": points_right_of((100.0, 950.0), 48, 16.0),
                        "duration_ms": 2500, "button": "middle",
                    }),
                )
                .ok();
            assert!(moved.starts_with("done: dragged"), "{moved}");
        });
        let reply = mcp.call(json!({
            "action": "drag", "target": w,
            "from": [x - 40.0, y], "to": [x + 40.0, y],
            "via": points_right_of((x - 40.0, y), 39, 2.0), "duration_ms": 2000,
        }));
        std::thread::sleep(Duration::from_millis(600));
        let refused = mcp.call(press.clone());
        hand.join().expect("the person's thread");
        (reply, refused)
    });
    let (dragged, refused) = reply;
    assert!(
        dragged.text.starts_with("done: dragged"),
        "{}",
        dragged.text
    );
    assert_eq!(refused.kind(), Some("stopped"), "{}", refused.text);
    assert!(refused.text.starts_with(TOOK_OVER), "{}", refused.text);
    mcp.close();
}
