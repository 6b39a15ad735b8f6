//! The recorder, replay and report on the core's fake desktop: what a step keeps, that a
//! replay finds an element by its ancestors and not its old handle, that it stops with nothing
//! done when the element is gone, the disk cap, and the folders it refuses.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use deskhand_core::fake::{FakeDesktop, Received};
use deskhand_core::model::{ElementHandle, Node, Rect, Role, States, Tree, WindowInfo};
use deskhand_core::{Config, Error, Reply, Session, execute, parse_call};
use deskhand_record::replay::{Options, ReplayError, as_batch, replay};
use deskhand_record::{RecordError, Recorder, Recording};
use serde_json::{Value, json};

fn node(handle: &str, role: Role, name: &str, bounds: Rect, children: Vec<Node>) -> Node {
    Node {
        handle: ElementHandle(handle.into()),
        role,
        name: name.into(),
        value: None,
        states: States {
            enabled: true,
            visible: true,
            ..States::default()
        },
        bounds: Some(bounds),
        actions: if role == Role::Button {
            vec!["click".into()]
        } else {
            vec![]
        },
        children,
    }
}

/// An editor with two buttons named Save, one in its toolbar and one in its form (beside a PIN
/// field); `prefix` changes every element's handle, as a new run of the app would, and `form_save`
/// names the form's button.
fn desktop(prefix: &str, form_save: &str) -> FakeDesktop {
    let bounds = Rect::new(100, 50, 800, 600);
    let h = |n: u32| format!("{prefix}/{n}");
    let root = node(
        &h(0),
        Role::Window,
        "Editor",
        bounds,
        vec![
            node(
                &h(1),
                Role::Group,
                "Toolbar",
                Rect::new(100, 50, 800, 40),
                vec![node(
                    &h(2),
                    Role::Button,
                    "Save",
                    Rect::new(110, 55, 80, 30),
                    vec![],
                )],
            ),
            node(
                &h(3),
                Role::Group,
                "Form",
                Rect::new(100, 100, 800, 500),
                vec![
                    node(
                        &h(4),
                        Role::Password,
                        "PIN",
                        Rect::new(110, 110, 200, 30),
                        vec![],
                    ),
                    node(
                        &h(5),
                        Role::Button,
                        form_save,
                        Rect::new(110, 150, 80, 30),
                        vec![],
                    ),
                ],
            ),
        ],
    );
    let window = WindowInfo {
        handle: 0x40_0001,
        title: "Editor".into(),
        pid: Some(4242),
        app_name: "editor".into(),
        bounds,
        focused: true,
        minimized: false,
        maximized: false,
    };
    FakeDesktop::new(
        Rect::new(0, 0, 1920, 1080),
        vec![(
            window,
            Tree {
                root,
                partial: None,
            },
        )],
    )
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("deskhand-record-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// One call as `deskhand mcp --record` makes it: begin, execute, finish.
async fn recorded(
    recorder: &Recorder,
    backend: &Arc<FakeDesktop>,
    session: &mut Session,
    args: Value,
) -> Result<Reply, Error> {
    let call = parse_call(args.clone());
    let actuates = call.as_ref().is_ok_and(|c| c.actuates());
    let begun = recorder.begin(backend, session, &args, actuates).await;
    let mut reply = match call {
        Ok(call) => execute(backend.as_ref(), session, &Config::default(), call).await,
        Err(err) => Err(err),
    };
    recorder.finish(backend, begun, session, &mut reply).await;
    reply
}

/// `windows`, then `observe` of the fake's window, through `call`: the tree's text.
async fn windows_then_observe(call: &mut impl AsyncFnMut(Value) -> Result<Reply, Error>) -> String {
    call(json!({"action": "windows"})).await.unwrap();
    call(json!({"action": "observe", "target": "w1"}))
        .await
        .unwrap()
        .text
}

/// What a model takes at least between two calls: every screenshot is in hand by then.
const AGENT_PAUSE: Duration = Duration::from_millis(300);

/// The ref of the line of `text` holding `wanted` (the first one after `after`).
fn ref_of(text: &str, after: &str, wanted: &str) -> String {
    text.lines()
        .skip_while(|l| !l.contains(after))
        .find(|l| l.contains(wanted))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no {wanted} in {text}"))
        .to_owned()
}

/// Records: observe, click the form's Save, type a PIN.
async fn record_task(dir: &Path) -> Arc<FakeDesktop> {
    let backend = Arc::new(desktop(":1.5", "Save"));
    let recorder = Recorder::open(dir, 10 * 1024 * 1024).unwrap();
    let mut session = Session::default();
    recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "windows"}),
    )
    .await
    .unwrap();
    let tree = recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "observe", "target": "w1"}),
    )
    .await
    .unwrap()
    .text;
    let save = ref_of(&tree, "group \"Form\"", "button \"Save\"");
    let pin = ref_of(&tree, "group \"Form\"", "password \"PIN\"");
    tokio::time::sleep(AGENT_PAUSE).await;
    recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "click", "ref": save}),
    )
    .await
    .unwrap();
    tokio::time::sleep(AGENT_PAUSE).await;
    recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "type", "ref": pin, "text": "hunter2!"}),
    )
    .await
    .unwrap();
    recorder.flush().await;
    backend
}

#[tokio::test]
async fn a_step_keeps_the_element_by_role_name_and_ancestors_and_never_the_password() {
    let dir = folder("identity");
    record_task(&dir).await;
    let recording = Recording::open(&dir).unwrap();
    let click = recording
        .steps
        .iter()
        .find(|s| s.action == "click")
        .unwrap();
    let acted = &click.elements[0];
    assert_eq!(
        (acted.role.as_str(), acted.name.as_str()),
        ("button", "Save")
    );
    let path: Vec<(&str, &str)> = acted
        .ancestors
        .iter()
        .map(|a| (a.role.as_str(), a.name.as_str()))
        .collect();
    assert_eq!(path, [("window", "Editor"), ("group", "Form")]);
    assert_eq!(acted.window.as_ref().unwrap().title, "Editor");
    assert_eq!(acted.bounds, Some(Rect::new(110, 150, 80, 30)));
    assert!(click.before.is_some() && click.after.is_some());
    for shot in [&click.before, &click.after] {
        assert!(recording.shot_path(shot.as_ref().unwrap()).exists());
    }
    let typed = recording.steps.iter().find(|s| s.action == "type").unwrap();
    assert_eq!(typed.redacted[0].characters, 8);
    assert!(typed.args["text"].is_null());
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        if entry.path().is_file() {
            let text = std::fs::read(entry.path()).unwrap();
            assert!(
                !text.windows(8).any(|w| w == b"hunter2!"),
                "{:?}",
                entry.path()
            );
        }
    }
    let page = deskhand_record::report::html(&recording, &|t: &str| t.len() / 4);
    assert_eq!(
        page.matches("<section class=\"step").count(),
        recording.steps.len()
    );
    assert!(page.contains("class=\"box\""));
    assert!(!page.contains("hunter2!"));
}

/// Text typed with no place into the focused PIN field is a secret (the real desktop's tests
/// show that text typed into another field is kept; this fake says every element has the
/// focus); a `set_value` by name alone is one because of the role of what it set; a `type` that
/// failed before typing keeps no text.
#[tokio::test]
async fn text_is_secret_by_where_it_went_when_typed() {
    let dir = folder("secret");
    let backend = Arc::new(desktop(":1.4", "Save"));
    let recorder = Recorder::open(&dir, deskhand_record::DEFAULT_CAP_BYTES).unwrap();
    let mut session = Session::default();
    let mut call = async |args: Value| recorded(&recorder, &backend, &mut session, args).await;
    let tree = windows_then_observe(&mut call).await;
    let pin = ref_of(&tree, "group \"Form\"", "password \"PIN\"");
    call(json!({"action": "click", "ref": pin})).await.unwrap();
    call(json!({"action": "type", "text": "after-a-click-1"}))
        .await
        .unwrap();
    call(json!({"action": "set_value", "find": {"name": "PIN"}, "target": "w1", "value": "by-name-2"}))
        .await
        .unwrap();
    call(json!({"action": "type", "find": {"name": "No such field"}, "target": "w1", "text": "unsent-3"}))
        .await
        .unwrap_err();
    recorder.flush().await;
    let recording = Recording::open(&dir).unwrap();
    let typed: Vec<(&Value, Vec<String>)> = recording
        .steps
        .iter()
        .filter(|s| s.action == "type" || s.action == "set_value")
        .map(|s| {
            (
                &s.args,
                s.redacted.iter().map(|r| r.field.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(typed.len(), 3);
    assert_eq!(typed[0].1, ["text"]);
    assert_eq!(typed[1].1, ["value"]);
    assert_eq!(typed[2].1, ["text"]);
    assert!(typed.iter().all(|(args, _)| args["text"].is_null()));
    let steps = std::fs::read_to_string(dir.join("steps.jsonl")).unwrap();
    for secret in ["after-a-click-1", "by-name-2", "unsent-3"] {
        assert!(!steps.contains(secret), "{secret} is kept: {steps}");
    }
}

/// A `wait` on a ref keeps what the ref named: a replay on a new run of the app waits on the
/// element found again (the old ref was never issued there), and `--as-batch` names it by role
/// and name. What a batch cannot do (a step that failed, a window named by id) is left out and
/// said, and what is printed passes deskhand's own check.
#[tokio::test]
async fn a_wait_on_a_ref_replays_and_batches_and_a_batch_leaves_out_what_it_cannot_do() {
    let dir = folder("wait-ref");
    let backend = Arc::new(desktop(":1.6", "Save"));
    let recorder = Recorder::open(&dir, deskhand_record::DEFAULT_CAP_BYTES).unwrap();
    let mut session = Session::default();
    let mut call = async |args: Value| recorded(&recorder, &backend, &mut session, args).await;
    let tree = windows_then_observe(&mut call).await;
    let save = ref_of(&tree, "group \"Form\"", "button \"Save\"");
    call(json!({"action": "wait", "until": {"ref": save}}))
        .await
        .unwrap();
    call(json!({"action": "batch", "steps": [
        {"action": "wait", "until": [{"ref": save, "is": "enabled"}]},
        {"action": "click", "ref": save},
    ]}))
    .await
    .unwrap();
    call(json!({"action": "click", "find": {"name": "Nothing like it"}, "target": "w1"}))
        .await
        .unwrap_err();
    call(json!({"action": "close", "target": "w1"}))
        .await
        .unwrap();
    recorder.flush().await;
    let mut recording = Recording::open(&dir).unwrap();
    let wait = recording.steps.iter().find(|s| s.action == "wait").unwrap();
    assert_eq!(wait.elements[0].field, "until.ref");
    assert_eq!(wait.elements[0].name, "Save");

    let batch = as_batch(&recording).unwrap();
    let steps = batch.call["steps"].as_array().unwrap();
    assert_eq!(
        steps[1],
        json!({"action": "wait", "until": {"role": "button", "name": "Save"}})
    );
    assert_eq!(
        steps[2]["until"],
        json!([{"role": "button", "name": "Save", "is": "enabled"}])
    );
    assert!(
        !batch.call.to_string().contains("\"ref\""),
        "{}",
        batch.call
    );
    assert!(
        !steps.iter().any(|s| s["action"] == "close"),
        "{}",
        batch.call
    );
    assert_eq!(batch.left_out.len(), 2, "{:?}", batch.left_out);
    assert!(batch.left_out[0].contains("(click) is left out: it failed when recorded"));
    assert!(batch.left_out[1].contains("(close) is left out: it acts on window w1"));
    parse_call(batch.call.clone()).unwrap();

    recording.steps.retain(|s| s.action != "close");
    let fresh = Arc::new(desktop(":1.9", "Save"));
    // The app answers nothing for a moment, as Qt does while the dialog it opened comes up.
    fresh
        .busy_trees
        .store(3, std::sync::atomic::Ordering::Relaxed);
    let mut log = Vec::new();
    replay(
        &fresh,
        &Config::default(),
        &recording,
        &Options::default(),
        &mut |l| log.push(l.to_owned()),
    )
    .await
    .unwrap_or_else(|err| panic!("{err}: {log:?}"));
    assert!(log.iter().any(|l| l.contains("(wait)")), "{log:?}");
}

#[tokio::test]
async fn a_replay_finds_the_element_by_its_ancestors_in_a_new_run_of_the_app() {
    let dir = folder("replay");
    record_task(&dir).await;
    let mut recording = Recording::open(&dir).unwrap();
    // The PIN step cannot be replayed (its text is not kept): refused before anything.
    let fresh = Arc::new(desktop(":1.9", "Save"));
    let refused = replay(
        &fresh,
        &Config::default(),
        &recording,
        &Options::default(),
        &mut |_| {},
    )
    .await
    .unwrap_err();
    assert!(matches!(refused, ReplayError::Refused(_)), "{refused}");
    assert!(fresh.received().is_empty());

    recording.steps.retain(|s| s.action != "type");
    let mut log = Vec::new();
    replay(
        &fresh,
        &Config::default(),
        &recording,
        &Options::default(),
        &mut |l| log.push(l.to_owned()),
    )
    .await
    .unwrap();
    assert_eq!(
        fresh.received(),
        [Received::Action(
            ElementHandle(":1.9/5".into()),
            "click".into()
        )],
        "{log:?}"
    );

    let batch = as_batch(&recording).unwrap().call;
    assert_eq!(
        batch["steps"][1],
        json!({"action": "click", "find": {"role": "button", "name": "Save"}, "target": "screen"})
    );
}

#[tokio::test]
async fn a_replay_stops_where_the_element_is_gone_and_does_nothing_after() {
    let dir = folder("stop");
    record_task(&dir).await;
    let mut recording = Recording::open(&dir).unwrap();
    recording.steps.retain(|s| s.action != "type");
    let changed = Arc::new(desktop(":1.9", "Store"));
    let options = Options {
        wait: std::time::Duration::from_millis(300),
        ..Options::default()
    };
    let err = replay(
        &changed,
        &Config::default(),
        &recording,
        &options,
        &mut |_| {},
    )
    .await
    .unwrap_err();
    let click = recording
        .steps
        .iter()
        .find(|s| s.action == "click")
        .unwrap();
    match &err {
        ReplayError::Stopped {
            step,
            looked_for,
            found,
            ..
        } => {
            assert_eq!(*step, click.index);
            assert!(
                looked_for.starts_with("button \"Save\" under group \"Form\""),
                "{looked_for}"
            );
            assert!(found.contains("\"Store\""), "{found}");
        }
        other => panic!("{other}"),
    }
    assert!(changed.received().is_empty(), "{:?}", changed.received());
}

#[tokio::test]
async fn the_cap_stops_recording_with_a_note_and_the_action_still_runs() {
    let dir = folder("cap");
    let backend = Arc::new(desktop(":1.5", "Save"));
    let recorder = Recorder::open(&dir, 200).unwrap();
    let mut session = Session::default();
    // The first step takes more room than the cap leaves: the call after it stops the recording.
    recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "windows"}),
    )
    .await
    .unwrap();
    recorder.flush().await;
    let reply = recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "press", "keys": "ctrl+s"}),
    )
    .await
    .unwrap();
    assert!(reply.text.contains("note: recording to"), "{}", reply.text);
    assert!(reply.text.contains("reached its cap"), "{}", reply.text);
    assert!(reply.data["recording"].is_string());
    assert!(
        backend
            .received()
            .contains(&Received::Keys("ctrl+s".into()))
    );
    let kept = Recording::open(&dir).unwrap().steps.len();
    let again = recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "windows"}),
    )
    .await
    .unwrap();
    assert!(!again.text.contains("note:"), "said once: {}", again.text);
    assert_eq!(Recording::open(&dir).unwrap().steps.len(), kept);
}

#[test]
fn folders_that_are_not_recordings_are_refused() {
    let dir = folder("refused");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    assert!(matches!(
        Recorder::open(&dir, 1 << 20),
        Err(RecordError::NotARecording { .. })
    ));
    assert!(matches!(
        Recording::open(&dir),
        Err(RecordError::NotARecording { .. })
    ));
    std::fs::write(dir.join("manifest.json"), r#"{"format": 2}"#).unwrap();
    let err = Recording::open(&dir).unwrap_err();
    assert!(
        matches!(err, RecordError::NewerFormat { found: 2, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("format 2, newer than the 1"),
        "{err}"
    );
    assert!(matches!(
        Recorder::open(&dir, 1 << 20),
        Err(RecordError::NewerFormat { .. })
    ));
}

/// The editor with a dialog open over it: "Confirm", holding a button named Save.
fn editor_with_dialog() -> FakeDesktop {
    let editor = desktop(":1.5", "Save");
    let bounds = Rect::new(300, 200, 300, 150);
    let dialog = WindowInfo {
        handle: 0x40_0002,
        title: "Confirm".into(),
        pid: Some(4242),
        app_name: "editor".into(),
        bounds,
        focused: true,
        minimized: false,
        maximized: false,
    };
    let root = node(
        ":1.5/10",
        Role::Dialog,
        "Confirm",
        bounds,
        vec![node(
            ":1.5/11",
            Role::Button,
            "Save",
            Rect::new(320, 300, 80, 30),
            vec![],
        )],
    );
    let mut windows = editor.windows.into_inner().unwrap();
    windows.push((
        dialog,
        Tree {
            root,
            partial: None,
        },
    ));
    FakeDesktop::new(Rect::new(0, 0, 1920, 1080), windows)
}

#[tokio::test]
async fn a_dialog_step_is_not_replayed_in_the_main_window_when_the_dialog_is_missing() {
    let dir = folder("dialog");
    let backend = Arc::new(editor_with_dialog());
    let recorder = Recorder::open(&dir, 10 * 1024 * 1024).unwrap();
    let mut session = Session::default();
    let listed = recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "windows"}),
    )
    .await
    .unwrap()
    .text;
    let dialog = ref_of(&listed, "windows", "\"Confirm\"");
    let tree = recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "observe", "target": dialog}),
    )
    .await
    .unwrap()
    .text;
    assert!(
        tree.lines()
            .next()
            .is_some_and(|l| l.contains(" \"Confirm\" ")),
        "{tree}"
    );
    let save = ref_of(&tree, "dialog", "button \"Save\"");
    recorded(
        &recorder,
        &backend,
        &mut session,
        json!({"action": "click", "ref": save, "target": dialog}),
    )
    .await
    .unwrap();
    recorder.flush().await;
    let recording = Recording::open(&dir).unwrap();
    // The dialog is not open now; the editor, its app's only window, has a Save button right
    // under its root as the dialog's was, and the recording knows that window as another one.
    let without_dialog = Arc::new(desktop(":1.9", "Store"));
    without_dialog.windows.lock().unwrap()[0]
        .1
        .root
        .children
        .push(node(
            ":1.9/20",
            Role::Button,
            "Save",
            Rect::new(700, 55, 80, 30),
            vec![],
        ));
    let options = Options {
        wait: std::time::Duration::from_millis(300),
        ..Options::default()
    };
    let err = replay(
        &without_dialog,
        &Config::default(),
        &recording,
        &options,
        &mut |_| {},
    )
    .await
    .unwrap_err();
    match &err {
        ReplayError::Stopped { looked_for, .. } => {
            assert!(looked_for.contains("\"Confirm\""), "{looked_for}");
        }
        other => panic!("{other}"),
    }
    assert!(
        without_dialog.received().is_empty(),
        "{:?}",
        without_dialog.received()
    );
}

/// The page names its session, says what each reply said first, marks where a click by point
/// landed, and sets an applied-but-unconfirmed step apart from a done one.
#[tokio::test]
async fn the_report_marks_points_and_sets_unconfirmed_steps_apart() {
    let dir = folder("session-report");
    let backend = Arc::new(desktop(":1.7", "Save"));
    let recorder = Recorder::open(&dir, deskhand_record::DEFAULT_CAP_BYTES).unwrap();
    let mut session = Session::default();
    let mut call = async |args: Value| recorded(&recorder, &backend, &mut session, args).await;
    let tree = windows_then_observe(&mut call).await;
    let pin = ref_of(&tree, "group \"Form\"", "password \"PIN\"");
    let clicked = call(json!({"action": "click", "target": "w1", "x": 250, "y": 500}))
        .await
        .unwrap();
    tokio::time::sleep(AGENT_PAUSE).await;
    let set = call(json!({"action": "set_value", "ref": pin, "value": "0000"}))
        .await
        .unwrap();
    assert_eq!(set.outcome, deskhand_core::Outcome::Unconfirmed);
    recorder.flush().await;
    let recording = Recording::open(&dir).unwrap();
    let page = deskhand_record::report::html(&recording, &|t: &str| t.len() / 4);
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(page.contains(&format!("<h1>deskhand recording {name}</h1>")));
    assert_eq!(
        page.matches("class=\"point\"").count(),
        2,
        "a before and an after"
    );
    assert_eq!(
        page.matches("<section class=\"step unconfirmed\"").count(),
        1
    );
    let first = clicked.text.lines().next().unwrap();
    assert!(
        page.contains(&format!("<p class=\"said\">{first}</p>")),
        "{first}"
    );
}

/// Calls fired back to back: an action never waits for a screenshot, and none shows what came
/// after the call it stands for. The click's "before" is a capture taken before it began (the
/// observe before it was never looked at, and says so); the press's "before" is the click's
/// "after", its wait for the window to settle cut short by the press, and the page says both.
#[tokio::test]
async fn back_to_back_calls_keep_only_screenshots_taken_before_the_next_action() {
    let dir = folder("back-to-back");
    let backend = Arc::new(desktop(":1.8", "Save"));
    let recorder = Recorder::open(&dir, deskhand_record::DEFAULT_CAP_BYTES).unwrap();
    let mut session = Session::default();
    let mut call = async |args: Value| recorded(&recorder, &backend, &mut session, args).await;
    let tree = windows_then_observe(&mut call).await;
    let save = ref_of(&tree, "group \"Form\"", "button \"Save\"");
    call(json!({"action": "click", "ref": save})).await.unwrap();
    // Long enough for a first look (50 ms in), too short for the unchanged window to count as
    // settled (600 ms in): midway, so that a loaded machine has room both ways.
    tokio::time::sleep(Duration::from_millis(325)).await;
    call(json!({"action": "press", "keys": "ctrl+s"}))
        .await
        .unwrap();
    recorder.flush().await;
    let recording = Recording::open(&dir).unwrap();
    let step = |action: &str| recording.steps.iter().find(|s| s.action == action).unwrap();
    let (observe, click, pressed) = (step("observe"), step("click"), step("press"));
    assert!(observe.after.is_none(), "{observe:#?}");
    assert!(
        observe
            .no_after
            .as_deref()
            .is_some_and(|why| why.starts_with("the next action began")),
        "{observe:#?}"
    );
    let before = click.before.as_ref().expect("a before for the click");
    // The observe's look may not have come yet (a loaded machine): the click's own "before" is
    // then grabbed as it begins, still ahead of the action, so within the step's time.
    assert!(
        before
            .taken_ms
            .is_some_and(|t| t <= click.at_ms + click.ms + 1),
        "{click:#?}"
    );
    let after = click.after.as_ref().expect("the click's last look");
    assert!(after.cut_short, "{click:#?}");
    let before = pressed.before.as_ref().expect("a before for the press");
    assert_eq!(before.file, after.file);
    assert_eq!(before.taken_ms, after.taken_ms);
    assert!(
        before.taken_ms.is_some_and(|t| t <= pressed.at_ms + 1),
        "{pressed:#?}"
    );
    assert!(recording.shot_path(after).exists());
    let page = deskhand_record::report::html(&recording, &|t: &str| t.len() / 4);
    assert!(
        page.contains("after: none; the next action began"),
        "{page}"
    );
    assert!(page.contains("cut short: the next action began before the window settled"));
    assert!(page.contains(&format!(
        "before the call (the screenshot after step {})",
        click.index
    )));
}
