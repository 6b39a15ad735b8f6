//! The actions of issue 4 against real applications nobody here wrote: `batch` of `find` clicks
//! ending in a `wait` (gnome-calculator, GTK4), `select` of a real menu path (mousepad, GTK3),
//! `launch`/`kill` of installed apps, `set_value` in GTK4 and GTK3 widgets, and `type` with a
//! `target` into xterm, which has no accessibility tree. Each outcome is read back from the app
//! (a fresh observation, the window list, or a file the app wrote), never taken from the reply.
//! Every app started here is killed when its guard drops.

mod common;

use common::{
    Desktop, desktop, element_lines, first_of_role, has_state, line_of, observe_until,
    observe_with_until, ref_where, wait_until, window_where,
};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How long a GTK app may take to show its window and tree.
const GTK_START: Duration = Duration::from_secs(20);
/// How long a change an action caused may take to show in the tree.
const SETTLE: Duration = Duration::from_secs(10);

/// `deskhand <action> '<json>' --json`: the exit code and the parsed document.
fn act_coded(desk: &Desktop, action: &str, args: Value) -> (i32, Value) {
    let run = desk.run(&[action, &args.to_string(), "--json"]);
    let doc = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {} / {}", run.stdout, run.stderr));
    (run.code, doc)
}

/// The value of `reference` in a fresh observation of `target` (`None`: none, or empty), or
/// `Err` when the observation failed (a busy app under load: the caller asks again).
fn value_of(desk: &Desktop, target: &str, reference: &str) -> Result<Option<String>, String> {
    let doc = desk.act_json("observe", json!({"target": target}));
    let Some(elements) = doc["data"]["elements"].as_array() else {
        return Err(doc.to_string());
    };
    let element = elements
        .iter()
        .find(|e| e["ref"] == reference)
        .ok_or_else(|| format!("{reference} is not in {doc}"))?;
    Ok(element["value"]
        .as_str()
        .filter(|v| !v.is_empty())
        .map(str::to_owned))
}

/// Waits until the value of `reference` on `target` reads `wanted` in a fresh observation.
fn wait_for_value(desk: &Desktop, target: &str, reference: &str, wanted: Option<&str>) {
    let mut last = Ok(None);
    let found = wait_until(SETTLE, || {
        last = value_of(desk, target, reference);
        (last.as_ref().ok() == Some(&wanted.map(str::to_owned))).then_some(())
    });
    assert!(
        found.is_some(),
        "{reference} on {target} never read {wanted:?}; last: {last:?}\nwindows:\n{}",
        desk.run(&["windows"]).stdout
    );
}

/// The listed windows, from `windows --json`.
fn windows(desk: &Desktop) -> Vec<Value> {
    desk.act_json("windows", json!({}))["data"]["windows"]
        .as_array()
        .expect("windows")
        .clone()
}

/// The `w` ids of the listed windows.
fn window_ids(desk: &Desktop) -> BTreeSet<String> {
    windows(desk)
        .iter()
        .map(|w| w["id"].as_str().expect("id").to_owned())
        .collect()
}

/// The listing of window `id`, if it is listed.
fn listed(desk: &Desktop, id: &str) -> Option<Value> {
    windows(desk).into_iter().find(|w| w["id"] == id)
}

/// Focuses `w` through the `focus` action and checks that `windows` says so.
fn focus(desk: &Desktop, w: &str) {
    let reply = desk.act("focus", json!({"target": w})).ok();
    assert!(
        reply.starts_with(&format!("done: {w} ")) && reply.contains("has the keyboard focus"),
        "{reply}"
    );
    let focused = wait_until(Duration::from_secs(5), || {
        listed(desk, w)
            .is_some_and(|l| l["focused"] == true)
            .then_some(())
    });
    assert!(
        focused.is_some(),
        "{w} is not the focused window after `focus`:\n{}",
        desk.run(&["windows"]).stdout
    );
}

/// A process `launch` started: not a child of the test, so it is killed by pid when this drops
/// (a test that failed before its own `kill` leaves nothing behind on the shared desktop), and
/// only while that pid is still the program launched, never a process that reused the pid.
struct Launched {
    pid: u32,
    program: &'static str,
}

impl Drop for Launched {
    fn drop(&mut self) {
        let comm = std::fs::read_to_string(format!("/proc/{}/comm", self.pid)).unwrap_or_default();
        // The kernel keeps at most 15 bytes of the name.
        if comm.trim_end() != &self.program[..self.program.len().min(15)] {
            return;
        }
        if let Ok(pid) = i32::try_from(self.pid) {
            // SAFETY: kill(2) on a pid this test launched; no memory is involved.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// A `click` step on the calculator's button `name`, found by name and role at run time.
fn press_button(w: &str, name: &str) -> Value {
    json!({"action": "click", "target": w, "find": {"name": name, "role": "button"}})
}

/// Clears the calculator's display with Escape and waits until it reads empty.
fn clear_calculator(desk: &Desktop, w: &str, display: &str) {
    focus(desk, w);
    desk.act("press", json!({"keys": "Escape"})).ok();
    wait_for_value(desk, w, display, None);
}

#[test]
fn calculator_batch_clicks_by_find_and_waits_for_the_result_then_stops_at_a_missing_button() {
    let (_turn, desk) = desktop();
    let _calculator = desk.spawn("gnome-calculator", &[]);
    let (w, _) = window_where(desk, GTK_START, "gnome-calculator", |t| t == "Calculator");
    let text = observe_until(desk, &w, GTK_START, "the keypad", |t| {
        t.contains("button \"7\"") && t.contains("button \"=\"") && t.contains("button \"×\"")
    });
    // The display is the first text element: the editable expression line.
    let display = first_of_role(&text, "text");
    clear_calculator(desk, &w, &display);

    let steps = vec![
        press_button(&w, "1"),
        press_button(&w, "2"),
        press_button(&w, "×"),
        press_button(&w, "7"),
        press_button(&w, "="),
        json!({"action": "wait", "target": w, "until": {"role": "text", "value": "84"},
               "timeout_ms": 15000}),
    ];
    let started = Instant::now();
    let (code, doc) = act_coded(desk, "batch", json!({"steps": steps}));
    let took = started.elapsed();
    let data = &doc["data"];
    eprintln!(
        "the six-step batch took {} ms, its wait {} ms",
        took.as_millis(),
        data["steps"][5]["data"]["elapsed_ms"]
    );
    assert_eq!(code, 0, "{doc}");
    assert_eq!(data["completed"], 6, "{doc}");
    assert!(data["failed_index"].is_null(), "{doc}");
    let text = doc["text"].as_str().expect("text");
    assert!(
        text.starts_with("batch · 6 of 6 steps completed\n"),
        "{text}"
    );
    let listed_steps = data["steps"].as_array().expect("steps");
    assert_eq!(listed_steps.len(), 6, "{doc}");
    for (step, label) in listed_steps.iter().zip(["1", "2", "×", "7", "="]) {
        assert_eq!(step["ok"], true, "{step}");
        let said = step["text"].as_str().expect("step text");
        assert!(
            said.starts_with("done: clicked e") && said.contains(&format!("button \"{label}\"")),
            "{said}"
        );
    }
    let wait = &listed_steps[5];
    assert_eq!(wait["action"], "wait", "{wait}");
    assert_eq!(wait["data"]["held"], true, "{wait}");
    let evidence = wait["data"]["evidence"][0].as_str().expect("evidence");
    assert!(
        evidence.starts_with(&format!("{display} text value=84")),
        "the wait's evidence is not the display reading 84: {evidence}"
    );
    // The app computed it: a fresh observation reads the product on the display.
    let text = desk.act("observe", json!({"target": w})).ok();
    assert!(line_of(&text, &display).contains("text value=84"), "{text}");

    // A batch whose second step names a button that is not there stops there: the first step
    // took effect (exit 3, applied but unconfirmed), the third never ran.
    clear_calculator(desk, &w, &display);
    let steps = vec![
        press_button(&w, "1"),
        press_button(&w, "No such key"),
        press_button(&w, "2"),
    ];
    let (code, doc) = act_coded(desk, "batch", json!({"steps": steps}));
    let data = &doc["data"];
    assert_eq!(code, 3, "{doc}");
    assert_eq!(doc["outcome"], "unconfirmed", "{doc}");
    assert_eq!(
        doc["ok"], false,
        "a stopped batch is an error, as MCP's isError says: {doc}"
    );
    assert_eq!(data["failed_index"], 1, "{doc}");
    assert_eq!(data["completed"], 1, "{doc}");
    let listed_steps = data["steps"].as_array().expect("steps");
    assert_eq!(listed_steps.len(), 2, "step 2 ran or was listed: {doc}");
    assert_eq!(listed_steps[0]["ok"], true, "{doc}");
    assert_eq!(listed_steps[1]["ok"], false, "{doc}");
    assert_eq!(listed_steps[1]["error"], "not-found", "{doc}");
    let text = doc["text"].as_str().expect("text");
    assert!(
        text.starts_with(
            "batch · 1 of 3 steps completed · stopped at step 1; the steps before it took effect"
        ),
        "{text}"
    );
    assert!(
        text.contains("[1] failed (not-found): no shown element on"),
        "{text}"
    );
    assert!(!text.contains("[2]"), "{text}");
    // Read back: the display shows the first step's "1" and stays so; had step 2 run, it would
    // read "12". The app updates its display a moment after the click, hence the wait.
    wait_for_value(desk, &w, &display, Some("1"));
    let (code, settled) = act_coded(
        desk,
        "wait",
        json!({"target": w, "until": {"stable_ms": 1500}, "timeout_ms": 15000}),
    );
    assert_eq!(code, 0, "the calculator never settled: {settled}");
    assert_eq!(value_of(desk, &w, &display), Ok(Some("1".to_owned())));
}

#[test]
fn mousepad_menu_paths_open_real_windows_which_close_and_a_wrong_path_opens_nothing() {
    let (_turn, desk) = desktop();
    let file = desk.scratch("mousepad-select.txt");
    let _ = std::fs::remove_file(&file);
    let _mousepad = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    let (w, _) = window_where(desk, GTK_START, "mousepad's editor", |t| {
        t.contains("mousepad-select.txt") && t.ends_with("Mousepad")
    });
    observe_until(desk, &w, GTK_START, "the menu bar", |t| {
        t.contains("menu \"Help\"") && t.contains("menu \"Edit\"")
    });
    // The menus' items are in the tree, hidden until their menu opens: learn their labels.
    let menus = observe_with_until(
        desk,
        json!({"target": w, "hidden": true}),
        SETTLE,
        "the Help and Edit menu items",
        |t| t.contains("menuitem \"About") && t.contains("menuitem \"Preferences"),
    );
    let help = ref_where(&menus, "the Help menu", |l| l.contains("menu \"Help\""));
    let about = ref_where(&menus, "About", |l| l.contains("menuitem \"About"));
    let help_depth = line_of(&menus, &help).len() - line_of(&menus, &help).trim_start().len();
    let about_depth = line_of(&menus, &about).len() - line_of(&menus, &about).trim_start().len();
    assert!(
        about_depth > help_depth && has_state(line_of(&menus, &about), "hidden"),
        "About is not a hidden item under Help:\n{menus}"
    );

    // Help > About opens the About dialog; the wait in the same batch sees the new window.
    for (path, title) in [
        (json!(["Help", "About"]), "About Mousepad"),
        // Mousepad writes "Preferences..." with three dots: "…" names it as well.
        (json!(["Edit", "Preferences…"]), "Mousepad Preferences"),
    ] {
        let before = window_ids(desk);
        let (code, doc) = act_coded(
            desk,
            "batch",
            json!({"steps": [
                {"action": "select", "target": w, "path": path},
                {"action": "wait", "target": w, "until": {"new_window": true}, "timeout_ms": 20000},
            ]}),
        );
        assert_eq!(code, 0, "{doc}");
        let steps = doc["data"]["steps"].as_array().expect("steps");
        let selected = steps[0]["text"].as_str().expect("text");
        assert!(
            selected.starts_with("done: selected \"") && selected.contains("through accessibility"),
            "{selected}"
        );
        let opened = steps[1]["data"]["new_window"]
            .as_str()
            .unwrap_or_else(|| panic!("the wait names no new window: {doc}"))
            .to_owned();
        assert!(
            !before.contains(&opened),
            "{opened} was there before: {doc}"
        );
        let evidence = steps[1]["data"]["evidence"][0].as_str().expect("evidence");
        assert_eq!(evidence, format!("new window {opened} \"{title}\""));
        let window = listed(desk, &opened).unwrap_or_else(|| panic!("{opened} is not listed"));
        assert_eq!(window["title"], title, "{window}");
        assert_eq!(
            window["app_id"],
            listed(desk, &w).expect("the editor")["app_id"],
            "the {title} window is not mousepad's: {window}"
        );

        let reply = desk.act("close", json!({"target": opened})).ok();
        assert_eq!(reply, format!("done: closed {opened}\n"));
        let (code, gone) = act_coded(
            desk,
            "wait",
            json!({"target": opened, "until": {"gone": true}, "timeout_ms": 10000}),
        );
        assert_eq!(code, 0, "{gone}");
        assert_eq!(gone["data"]["held"], true, "{gone}");
        assert!(listed(desk, &opened).is_none(), "{opened} is still listed");
        assert!(listed(desk, &w).is_some(), "the editor closed too");
    }

    // A path with a segment that is not there fails, names what is there, and opens nothing.
    let before = window_ids(desk);
    let run = desk.act(
        "select",
        json!({"target": w, "path": ["Help", "No Such Item"]}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.starts_with(
            "failed (not-found): \"Help\" has no item \"No Such Item\"; the items there: "
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\"About") && run.stdout.contains("\"Contents"),
        "the candidates are not listed: {}",
        run.stdout
    );
    assert!(
        run.stdout.contains("nothing was selected"),
        "{}",
        run.stdout
    );
    let (code, settled) = act_coded(
        desk,
        "wait",
        json!({"target": w, "until": {"stable_ms": 1000}, "timeout_ms": 15000}),
    );
    assert_eq!(code, 0, "{settled}");
    assert_eq!(window_ids(desk), before, "a failed select opened a window");
}

#[test]
fn installed_apps_launch_with_and_without_focus_and_kill_removes_their_windows() {
    let (_turn, desk) = desktop();
    let (code, doc) = act_coded(desk, "apps", json!({"installed": true}));
    assert_eq!(code, 0, "{doc}");
    let installed = doc["data"]["installed"].as_array().expect("installed");
    for (id, name) in [
        ("org.gnome.Calculator", "Calculator"),
        ("org.xfce.mousepad", "Mousepad"),
    ] {
        assert!(
            installed.iter().any(|a| a["id"] == id && a["name"] == name),
            "{id} is not listed as installed: {doc}"
        );
    }
    assert!(
        doc["text"]
            .as_str()
            .expect("text")
            .contains("org.gnome.Calculator \"Calculator\"\n"),
        "{doc}"
    );

    // Something to have the focus before each launch.
    let file = desk.scratch("launch-focus.txt");
    let _mousepad = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    let (editor, _) = window_where(desk, GTK_START, "mousepad's editor", |t| {
        t.contains("launch-focus.txt")
    });
    focus(desk, &editor);

    let mut launched = Vec::new();
    let mut opened = Vec::new();
    for keep_focus in [false, true] {
        let before = window_ids(desk);
        let mut args = json!({"app": "org.gnome.Calculator"});
        if keep_focus {
            args["focus"] = json!(false);
        }
        let started = Instant::now();
        let (code, doc) = act_coded(desk, "launch", args);
        eprintln!(
            "launch (focus {}) answered after {} ms: {}",
            !keep_focus,
            started.elapsed().as_millis(),
            doc["text"]
        );
        assert_eq!(code, 0, "{doc}");
        let data = &doc["data"];
        let pid = data["pid"].as_u64().expect("pid") as u32;
        launched.push(Launched {
            pid,
            program: "gnome-calculator",
        });
        let w = data["window"].as_str().expect("window").to_owned();
        let a = data["app"].as_str().expect("app").to_owned();
        assert!(!before.contains(&w), "{w} was there before the launch");
        let text = doc["text"].as_str().expect("text");
        assert!(
            text.starts_with(&format!(
                "done: launched org.gnome.Calculator as {a} with window {w} \"Calculator\" after "
            )),
            "{text}"
        );
        let window = listed(desk, &w).unwrap_or_else(|| panic!("{w} is not listed"));
        assert_eq!(window["title"], "Calculator", "{window}");
        assert_eq!(window["app_id"], a.as_str(), "{window}");
        let apps = desk.act_json("apps", json!({}));
        assert!(
            apps["data"]["apps"]
                .as_array()
                .expect("apps")
                .iter()
                .any(|app| app["id"] == a.as_str() && app["name"] == "gnome-calculator"),
            "{a} is not a running gnome-calculator: {apps}"
        );
        if keep_focus {
            // The focus stays where it was, also once the window manager has dealt with the
            // new window (it focuses new windows a moment after they map): watched for 2 s.
            let watched = Instant::now();
            while watched.elapsed() < Duration::from_secs(2) {
                let focused: Vec<String> = windows(desk)
                    .iter()
                    .filter(|l| l["focused"] == true)
                    .map(|l| l["id"].as_str().expect("id").to_owned())
                    .collect();
                assert_eq!(
                    focused,
                    std::slice::from_ref(&editor),
                    "{} ms after `launch` with focus false answered {text:?}, the focused window is not the editor {editor}",
                    watched.elapsed().as_millis()
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        } else {
            assert_eq!(window["focused"], true, "the launched window has no focus");
            focus(desk, &editor);
        }
        opened.push((w, a));
    }

    for (w, a) in &opened {
        let reply = desk.act("kill", json!({"target": a})).ok();
        assert!(
            reply.starts_with(&format!("done: killed {a} (process ")),
            "{reply}"
        );
        let (code, gone) = act_coded(
            desk,
            "wait",
            json!({"target": w, "until": {"gone": true}, "timeout_ms": 10000}),
        );
        assert_eq!(code, 0, "{gone}");
        assert!(listed(desk, w).is_none(), "{w} is still listed after kill");
    }
    let apps = desk.act_json("apps", json!({}));
    for (_, a) in &opened {
        assert!(
            !apps["data"]["apps"]
                .as_array()
                .expect("apps")
                .iter()
                .any(|app| app["id"] == a.as_str()),
            "{a} still runs: {apps}"
        );
    }
    assert!(listed(desk, &editor).is_some(), "the editor was killed too");
}

#[test]
fn set_value_reads_back_in_a_gtk4_entry_and_gtk3_slider_and_spin_button() {
    let (_turn, desk) = desktop();

    // GTK4: an entry of the widget factory, set through EditableText.
    let _factory4 = desk.spawn("gtk4-widget-factory", &[]);
    let (w4, _) = window_where(desk, GTK_START, "gtk4-widget-factory", |t| {
        t == "GTK Widget Factory"
    });
    let text = observe_until(desk, &w4, GTK_START, "its entries", |t| {
        element_lines(t).any(|l| l.contains("text value=\"entry\"") && !has_state(l, "disabled"))
    });
    let entry = ref_where(&text, "an enabled entry", |l| {
        l.contains("text value=\"entry\"") && !has_state(l, "disabled")
    });
    let wanted = "set by deskhand → ✓";
    let run = desk.act(
        "set_value",
        json!({"target": w4, "ref": entry, "value": wanted}),
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        format!("done: set {entry} text to \"{wanted}\" (read back)\n")
    );
    let text = desk.act("observe", json!({"target": w4})).ok();
    assert!(
        line_of(&text, &entry).contains(&format!("text value=\"{wanted}\"")),
        "{text}"
    );
    drop(_factory4);

    // GTK3: a scale and a spin button, set through Value.
    let _factory3 = desk.spawn("gtk3-widget-factory", &[]);
    let (w3, _) = window_where(desk, GTK_START, "gtk3-widget-factory", |t| {
        t == "gtk3-widget-factory"
    });
    let text = observe_until(desk, &w3, GTK_START, "its sliders", |t| {
        t.contains("slider value=50") && t.contains("spin value=50")
    });
    let enabled = |role: &'static str| {
        move |l: &str| {
            l.trim_start().split(' ').nth(1) == Some(role)
                && l.contains("value=50")
                && !has_state(l, "disabled")
        }
    };
    let slider = ref_where(&text, "an enabled slider", enabled("slider"));
    let spin = ref_where(&text, "an enabled spin button", enabled("spin"));
    let disabled_slider = ref_where(&text, "a disabled slider", |l| {
        l.contains("slider value=") && has_state(l, "disabled")
    });

    let reply = desk
        .act(
            "set_value",
            json!({"target": w3, "ref": slider, "value": 73}),
        )
        .ok();
    assert_eq!(
        reply,
        format!("done: set {slider} slider to \"73\" (read back)\n")
    );
    let reply = desk
        .act("set_value", json!({"target": w3, "ref": spin, "value": 42}))
        .ok();
    assert_eq!(
        reply,
        format!("done: set {spin} spin to \"42\" (read back)\n")
    );
    let text = desk.act("observe", json!({"target": w3})).ok();
    assert!(
        line_of(&text, &slider).contains("slider value=73"),
        "{text}"
    );
    assert!(line_of(&text, &spin).contains("spin value=42"), "{text}");

    // Out of range and disabled: refused, and nothing changed. A ref keeps its number while
    // its element is in the latest observation.
    let run = desk.act(
        "set_value",
        json!({"target": w3, "ref": slider, "value": 1000}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .starts_with("failed (bad-argument): 1000 is outside"),
        "{}",
        run.stdout
    );
    let run = desk.act(
        "set_value",
        json!({"target": w3, "ref": disabled_slider, "value": 10}),
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.starts_with("failed (disabled): "),
        "{}",
        run.stdout
    );
    let text = desk.act("observe", json!({"target": w3})).ok();
    assert!(
        line_of(&text, &slider).contains("slider value=73"),
        "{text}"
    );
}

#[test]
fn type_with_a_target_focuses_an_xterm_without_accessibility_and_the_text_lands() {
    let (_turn, desk) = desktop();
    let typed = desk.scratch("xterm-typed.txt");
    let _ = std::fs::remove_file(&typed);
    let title = "deskhand xterm target";
    let script = format!("cat > '{}'", typed.to_str().expect("utf-8 path"));
    let _xterm = desk.spawn("xterm", &["-T", title, "-e", "sh", "-c", &script]);
    let (xterm, _) = window_where(desk, GTK_START, "xterm", |t| t == title);
    let run = desk.act("observe", json!({"target": xterm}));
    // Without a tree it is read from its pixels, where an engine is built in.
    assert!(
        run.stdout.starts_with("failed (no-accessibility)")
            || run
                .stdout
                .contains("no accessibility tree: text read from pixels"),
        "xterm was expected to have no tree: {}",
        run.stdout
    );

    // Another window takes the focus, as it would when an agent turns to the terminal.
    let file = desk.scratch("xterm-other.txt");
    let _ = std::fs::remove_file(&file);
    let _mousepad = desk.spawn("mousepad", &[file.to_str().expect("utf-8 path")]);
    let (editor, _) = window_where(desk, GTK_START, "mousepad's editor", |t| {
        t.contains("xterm-other.txt")
    });
    let text = observe_until(desk, &editor, GTK_START, "the editor", |t| {
        element_lines(t).any(|l| l.trim_start().split(' ').nth(1) == Some("text"))
    });
    let editor_text = first_of_role(&text, "text");
    focus(desk, &editor);
    // The typing must wait for the file to exist: `cat` creates it when the shell starts.
    assert!(
        wait_until(GTK_START, || typed.exists().then_some(())).is_some(),
        "xterm's shell never started"
    );

    let reply = desk
        .act("type", json!({"target": xterm, "text": "echo hi\n"}))
        .ok();
    assert_eq!(
        reply,
        format!("done: typed 8 characters into the focused element of {xterm}\n")
    );
    let mut content = String::new();
    let landed = wait_until(SETTLE, || {
        content = std::fs::read_to_string(&typed).unwrap_or_default();
        (content == "echo hi\n").then_some(())
    });
    assert!(
        landed.is_some(),
        "the terminal got {content:?}; the editor holds {:?}",
        value_of(desk, &editor, &editor_text)
    );
    assert_eq!(listed(desk, &xterm).expect("xterm")["focused"], true);
    // Nothing went to the window that had the focus before.
    assert_eq!(value_of(desk, &editor, &editor_text), Ok(None));
}

/// Issue 41: `observe` at once after `launch`, in one MCP session as an agent calls them, met an
/// app whose window showed before it joined the accessibility bus, and said it had no tree (read
/// from pixels, none found). It waits for the app within the call, or says the app is not on the
/// bus yet; never that it has no tree.
#[test]
fn an_observe_at_once_after_a_launch_never_says_the_app_has_no_tree() {
    let (_turn, desk) = desktop();
    let mcp = desk.mcp();
    for round in 1..=5 {
        let launched = mcp.call(json!({
            "action": "launch", "app": "org.gnome.Calculator", "focus": false
        }));
        assert!(!launched.is_error, "{}", launched.text);
        let w = launched.data["window"].as_str().expect("window").to_owned();
        let a = launched.data["app"].as_str().expect("app").to_owned();
        let seen = mcp.call(json!({"action": "observe", "target": w}));
        assert!(
            !seen.text.contains("no accessibility tree"),
            "round {round}: {}",
            seen.text
        );
        if seen.is_error {
            assert!(
                seen.kind() == Some("timeout")
                    && seen.text.contains("is not on the accessibility bus yet"),
                "round {round}: {}",
                seen.text
            );
        } else {
            assert!(
                seen.text.contains("button \"="),
                "round {round}: {}",
                seen.text
            );
        }
        let killed = mcp.call(json!({"action": "kill", "target": a}));
        assert!(killed.text.starts_with("done: killed"), "{}", killed.text);
        let gone = mcp.call(json!({
            "action": "wait", "target": w, "until": {"gone": true}, "timeout_ms": 10000
        }));
        assert!(!gone.is_error, "{}", gone.text);
    }
    mcp.close();
}

/// GTK 4.8 marks `Showing` on its toplevel only, and the widgets of a stack's other pages
/// `Visible`; a page it no longer shows keeps its last size and place. The widget factory lists
/// its second page (its list of rows) only while that page shows: not before its tab is
/// clicked, and not once the first page's tab is clicked again; nor the first page's widgets
/// while the second shows.
#[test]
fn a_gtk4_stack_lists_only_the_page_that_shows() {
    let (_turn, desk) = desktop();
    let _factory = desk.spawn("gtk4-widget-factory", &[]);
    let (w, _) = window_where(desk, GTK_START, "gtk4-widget-factory", |t| {
        t == "GTK Widget Factory"
    });
    let first_page = |t: &str| t.contains("text value=\"comboboxentry\"");
    let second_page = |t: &str| t.contains("label \"Row 1\"");
    let first = observe_until(desk, &w, GTK_START, "its first page", first_page);
    assert!(!second_page(&first), "{first}");
    let tab =
        |seen: &str, name: &str| ref_where(seen, name, |l| l.contains(&format!("tab \"{name}\"")));
    let clicked = desk
        .act("click", json!({"target": w, "ref": tab(&first, "Page _2")}))
        .ok();
    assert!(clicked.starts_with("done"), "{clicked}");
    let second = observe_until(desk, &w, SETTLE, "its second page", second_page);
    assert!(!first_page(&second), "{second}");
    let clicked = desk
        .act(
            "click",
            json!({"target": w, "ref": tab(&second, "Page _1")}),
        )
        .ok();
    assert!(clicked.starts_with("done"), "{clicked}");
    let again = observe_until(desk, &w, SETTLE, "its first page again", |t| {
        first_page(t) && !second_page(t)
    });
    assert!(
        again.contains("tab \"Page _1\" pressed selected"),
        "{again}"
    );
}
