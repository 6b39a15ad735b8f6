//! Memory on a real app: what one server learned walking mousepad's menus and dialogs, a second
//! server recalls after a restart, and the recalled route, pasted into one batch, leads a fresh
//! mousepad to the remembered window.

mod common;

use std::time::Duration;

use common::{App, Desktop, desktop, wait_until};
use serde_json::{Value, json};

const START: Duration = Duration::from_secs(30);

fn mousepad(desk: &Desktop, name: &str) -> (App, String) {
    let file = desk.scratch(name);
    let _ = std::fs::remove_file(&file);
    let app = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    (app, format!("{name} - Mousepad"))
}

/// The `w` id of the window whose title contains `part`.
fn window_with(mcp: &common::Mcp, part: &str) -> String {
    wait_until(START, || {
        let listed = mcp.call(json!({"action": "windows"}));
        listed.data["windows"].as_array()?.iter().find_map(|w| {
            w["title"]
                .as_str()?
                .contains(part)
                .then(|| w["id"].as_str().expect("id").to_owned())
        })
    })
    .unwrap_or_else(|| panic!("no window title contains {part:?}"))
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base()
        .expect("the o200k_base vocabulary")
        .encode_with_special_tokens(text)
        .len()
}

#[test]
fn a_route_learned_by_one_server_is_recalled_by_the_next_and_followed_in_one_batch() {
    let (_turn, desk) = desktop();
    let store = desk.scratch(&format!("memory-route-{}.sqlite", std::process::id()));
    let store_env = store.to_str().expect("utf-8 path").to_owned();
    let env = [("DESKHAND_MEMORY", store_env.as_str())];

    // Learning: an agent walks into the preferences dialog and back, nothing more.
    let (first_app, title) = mousepad(desk, "memory-one.txt");
    let learner = desk.mcp_with(&env);
    let main = window_with(&learner, &title);
    let seen = wait_until(START, || {
        let reply = learner.call(json!({"action": "observe", "target": main}));
        reply.text.contains("menu \"Edit\"").then_some(reply)
    })
    .expect("mousepad's menu bar");
    assert!(!seen.text.contains("note: memory"), "{}", seen.text);
    let selected = learner.call(json!({"action": "select", "path": ["Edit", "Preferences..."]}));
    assert!(!selected.is_error, "{}", selected.text);
    let opened = learner.call(json!({"action": "wait", "until": {"window": "Preferences"}}));
    assert!(!opened.is_error, "{}", opened.text);
    let prefs = opened.data["window"]
        .as_str()
        .expect("the window")
        .to_owned();
    let observed = learner.call(json!({"action": "observe"}));
    assert!(
        observed
            .text
            .starts_with(&format!("observe {prefs} \"Mousepad Preferences\"")),
        "the waited-for window became current: {}",
        observed.text
    );
    learner.call(json!({"action": "close", "target": prefs}));
    learner.call(json!({"action": "observe", "target": main}));
    learner.close();
    drop(first_app);

    // A restart: another server, another mousepad, the same store.
    let (_second_app, title) = mousepad(desk, "memory-two.txt");
    let agent = desk.mcp_with(&env);
    let main = window_with(&agent, &title);

    let apps = agent.call(json!({"action": "recall"}));
    assert!(
        apps.text.contains("\"mousepad\" · 2 windows"),
        "{}",
        apps.text
    );
    assert!(apps.text.contains("coverage: "), "{}", apps.text);

    let window =
        agent.call(json!({"action": "recall", "app": "mousepad", "window": "Preferences"}));
    assert!(
        window.text.contains("\"Use system monospace font\""),
        "{}",
        window.text
    );
    assert!(
        window.text.contains("select [\"Edit\",\"Preferences...\"]"),
        "{}",
        window.text
    );
    let unknown = agent.call(json!({"action": "recall", "query": "No such control anywhere"}));
    assert!(unknown.text.contains("never seen"), "{}", unknown.text);

    let found = agent.call(json!({"action": "recall", "query": "Use system monospace font"}));
    let hit = found.data["hits"]
        .as_array()
        .and_then(|hits| hits.first())
        .unwrap_or_else(|| panic!("no hit: {}", found.text))
        .clone();
    assert_eq!(hit["window"]["title"], "Mousepad Preferences", "{hit}");
    let steps = hit["route"]["steps"].clone();
    assert!(steps.as_array().is_some_and(|s| !s.is_empty()), "{hit}");

    // Following it: the fresh window is current, the route is pasted as it came.
    wait_until(START, || {
        let reply = agent.call(json!({"action": "observe", "target": main}));
        reply.text.contains("menu \"Edit\"").then_some(())
    })
    .expect("the fresh mousepad's menu bar");
    let followed = agent.call(json!({"action": "batch", "steps": steps}));
    assert!(!followed.is_error, "{}", followed.text);
    assert_eq!(
        followed.data["failed_index"],
        Value::Null,
        "{}",
        followed.text
    );
    let landed = agent.call(json!({"action": "observe"}));
    assert!(
        landed.text.starts_with("observe w") && landed.text.contains("\"Mousepad Preferences\""),
        "{}",
        landed.text
    );
    assert!(
        landed.text.contains("check \"Use system monospace font\""),
        "{}",
        landed.text
    );

    // What the figures in the closing note come from: recall of a known window against an
    // observation of the same window.
    let recall_tokens = tokens(&window.text);
    let observe_tokens = tokens(&landed.text);
    eprintln!(
        "recall of the known window: {recall_tokens} tokens; observe of it: {observe_tokens} tokens ({:.2}x)",
        recall_tokens as f64 / observe_tokens as f64
    );
    assert!(
        recall_tokens < observe_tokens,
        "{}\n{}",
        window.text,
        landed.text
    );

    let forgot = agent.call(json!({"action": "forget", "app": "mousepad"}));
    assert!(
        forgot.text.starts_with("done: memory forgot"),
        "{}",
        forgot.text
    );
    let after = agent.call(json!({"action": "recall", "query": "Use system monospace font"}));
    assert!(after.text.contains("never seen"), "{}", after.text);
    agent.close();
    let _ = std::fs::remove_file(&store);
}

#[test]
fn memory_can_be_off_and_then_recall_says_so() {
    let (_turn, desk) = desktop();
    let run = desk.run(&["recall", "{}", "--memory", "off"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .starts_with("failed (unsupported): memory is off"),
        "{}",
        run.stdout
    );
}

/// The token figures of the closing note: `recall` of a window against `observe` of it.
#[test]
fn recalling_a_known_window_costs_a_fraction_of_observing_it() {
    let (_turn, desk) = desktop();
    let store = desk.scratch(&format!("memory-tokens-{}.sqlite", std::process::id()));
    let store_arg = store.to_str().expect("utf-8 path").to_owned();
    let with_store =
        |action: &str, args: Value| desk.run(&[action, &args.to_string(), "--memory", &store_arg]);
    for (program, app, title, ready) in [
        (
            "gnome-calculator",
            "gnome-calculator",
            "Calculator",
            "button \"=\"",
        ),
        (
            "gtk3-widget-factory",
            "gtk3-widget-factory",
            "gtk3-widget-factory",
            "check \"checkbutton\"",
        ),
    ] {
        let _app = desk.spawn(program, &[]);
        let w = desk.window_id(title);
        let observed = wait_until(START, || {
            let run = with_store("observe", json!({"target": w}));
            run.stdout.contains(ready).then_some(run.stdout)
        })
        .unwrap_or_else(|| panic!("{program} never showed {ready}"));
        let recalled = with_store("recall", json!({"app": app, "window": title})).stdout;
        assert!(
            recalled.contains(&format!("{title:?} of {app:?}")),
            "{recalled}"
        );
        let (recall_tokens, observe_tokens) = (tokens(&recalled), tokens(&observed));
        eprintln!(
            "{program}: recall {recall_tokens} tokens, observe {observe_tokens} tokens ({:.2}x)",
            recall_tokens as f64 / observe_tokens as f64
        );
        // Recall names every control as observe does and leaves out the tree around them: since
        // observe itself lost its window title and deep indentation, that is about 0.55x of a
        // calculator's observation and 0.13x of the widget factory's.
        assert!(
            recall_tokens * 3 < observe_tokens * 2,
            "{recalled}\n{observed}"
        );
    }
    let _ = std::fs::remove_file(&store);
}
