//! The command line's own forms on a real desktop: a short form answers exactly as the JSON form
//! it stands for, and a usage error exits 2 with a sentence that says what to run, having touched
//! nothing (the fixture app's log, the oracle, sees no input; the current surface stays).

mod common;

use common::{desktop, ref_of};
use serde_json::{Value, json};

#[test]
fn a_short_form_answers_as_its_json_form() {
    let (_turn, desk) = desktop();
    const TITLE: &str = "Short Forms";
    let fixture = desk.fixture(TITLE, 1);
    desk.activate(TITLE);
    let w = desk.window_id(TITLE);

    // The same failure, word for word and with the same exit status.
    let short = desk.run(&["observe", "w999"]);
    let long = desk.run(&["observe", r#"{"target":"w999"}"#]);
    assert_eq!(short.code, 1, "{}{}", short.stdout, short.stderr);
    assert!(
        short
            .stdout
            .starts_with("failed (bad-argument): w999 is not a window id"),
        "{}",
        short.stdout
    );
    assert_eq!((short.code, &short.stdout), (long.code, &long.stdout));

    // The same observation: the header and every line with its ref.
    let short = desk.run(&["observe", &w]).ok();
    let long = desk.act("observe", json!({"target": w})).ok();
    assert!(short.starts_with(&format!("observe {w} ")), "{short}");
    assert_eq!(short, long);

    // A key that does not exist fails before any key is pressed, as in the JSON form.
    let before = fixture.events().len();
    let short = desk.run(&["press", "a", "ctrl+nosuchkey"]);
    let long = desk.act("press", json!({"keys": "a ctrl+nosuchkey"}));
    assert_eq!(short.code, 1, "{}{}", short.stdout, short.stderr);
    assert!(
        short
            .stdout
            .starts_with("failed (bad-argument): unknown key \"nosuchkey\""),
        "{}",
        short.stdout
    );
    assert_eq!((short.code, &short.stdout), (long.code, &long.stdout));
    assert_eq!(fixture.settled_events(before), Vec::<Value>::new());

    // And a short form that works does what its JSON form does.
    let press = ref_of(&short_observe(desk, &w), &["button \"Press me\""]);
    let done = desk.run(&["click", &press]).ok();
    assert!(done.starts_with("done: clicked"), "{done}");
    fixture.wait_for("the click", |e| {
        e["event"] == "clicked" && e["widget"] == "press_me"
    });
    let name = ref_of(&short_observe(desk, &w), &["text \"Name\""]);
    desk.run(&["click", &name]).ok();
    let typed = desk.run(&["type", "{not json} but text"]);
    assert_eq!(
        typed.code, 2,
        "a brace starts the JSON form: {}",
        typed.stdout
    );
    let done = desk.run(&["type", "hi there"]).ok();
    assert_eq!(
        done,
        format!("done: typed 8 characters into the focused element of {w} \"{TITLE}\"\n")
    );
    fixture.wait_for("the typed text", |e| {
        e["event"] == "text" && e["widget"] == "name" && e["text"] == "hi there"
    });
}

fn short_observe(desk: &common::Desktop, w: &str) -> String {
    desk.run(&["observe", w]).ok()
}

#[test]
fn usage_errors_say_what_to_run_exit_2_and_touch_nothing() {
    let (_turn, desk) = desktop();
    const TITLE: &str = "Usage Errors";
    let fixture = desk.fixture(TITLE, 1);
    desk.activate(TITLE);
    let w = desk.window_id(TITLE);
    let tree = desk.run(&["observe", &w]).ok();
    let press = ref_of(&tree, &["button \"Press me\""]);
    let before = fixture.events().len();
    let drag = r#"deskhand drag '{"from":"e2","to":[500,900]}'"#;
    let (press, w) = (press.as_str(), w.as_str());
    for (args, says) in [
        (
            vec!["fly"],
            vec![
                "unknown action \"fly\"",
                "actions are apps, windows, observe",
                "`deskhand --help`",
            ],
        ),
        (
            vec!["Click", press],
            vec!["unknown action \"Click\"", "did you mean `click`?"],
        ),
        (
            vec!["drag", press],
            vec!["`drag` has no short form", drag, "`deskhand drag --help`"],
        ),
        (
            vec!["windows", w],
            vec![
                "`windows` takes no arguments",
                "run `deskhand windows` alone",
            ],
        ),
        (
            vec!["click", press, "e1"],
            vec![
                "`click` takes one argument, not 2",
                "`deskhand click --help`",
            ],
        ),
        (
            vec!["type", "{\"text\": oops}"],
            vec!["are not valid JSON", r#"deskhand type '{"text": "{…"}'"#],
        ),
        (
            vec!["click", r#"{"action":"hover","ref":"e1"}"#],
            vec!["names action \"hover\"", "leave `action` out"],
        ),
        (
            vec!["click", press, "--cout", "2"],
            vec!["unexpected argument '--cout'", "--help"],
        ),
        (
            vec!["--out", "a.png", "zoom", "--out", "b.png"],
            vec!["--out is given both"],
        ),
        (vec!["--json", "mcp"], vec!["not with `deskhand mcp`"]),
        (
            vec!["desktop", "start", "--size", "big"],
            vec!["like 1280x800"],
        ),
    ] {
        let run = desk.run(&args);
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        for fragment in &says {
            assert!(
                run.stderr.contains(fragment),
                "{args:?} does not say {fragment:?}:\n{}",
                run.stderr
            );
        }
    }
    assert_eq!(
        fixture.settled_events(before),
        Vec::<Value>::new(),
        "a usage error reached the app"
    );
    let current = desk.act("observe", json!({})).ok();
    assert_eq!(
        current, tree,
        "a usage error changed the current surface or its refs"
    );

    // Help is not an error: exit 0, on stdout, the action's fields from the tool's schema.
    let help = desk.run(&["press", "--help"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(
        help.stdout.contains("Short for {\"keys\": ARG}"),
        "{}",
        help.stdout
    );
    assert!(
        help.stdout.contains("keys  press: chords split by spaces"),
        "{}",
        help.stdout
    );
    let top = desk.run(&[]);
    assert_eq!(top.code, 0);
    assert!(
        top.stdout
            .contains("Exit status: 0 done, 1 the call failed"),
        "{}",
        top.stdout
    );
}
