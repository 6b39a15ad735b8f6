//! The compatibility matrix: one realistic task per real app, across toolkits, done only through
//! deskhand actions (the CLI, as an agent's calls) and checked by the app's own result: a file
//! it wrote, what it printed, its window title as the X server has it, or what libatspi (not
//! deskhand) reads of it. All apps start at once on the shared desktop; the tasks take turns at
//! the one keyboard and pointer.
//!
//! The README's compatibility table is this test's output: a run writes the table it observed
//! to `target/compatibility.md` and fails when the README's table differs from it in anything
//! but the counts of calls and reply tokens each task took, which vary with how fast the apps
//! come up (`DESKHAND_UPDATE_README=1` writes it into the README instead).

mod common;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use common::{App, Desktop, Run, desktop, observe_until, ref_where, wait_until, window_where};
use serde_json::{Value, json};

/// Apps that build their trees slowly (browsers, LibreOffice) on a loaded two-core machine.
const START: Duration = Duration::from_secs(90);
const SETTLE: Duration = Duration::from_secs(20);

/// What a row proved, column by column.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// The task did it through deskhand and the app's own result confirmed it.
    Yes,
    /// The app gives deskhand nothing to do it with; the task proved the way around it.
    Pixels,
    /// The task does not exercise it.
    Untried,
}

impl Mark {
    fn cell(self) -> &'static str {
        match self {
            Mark::Yes => "yes",
            Mark::Pixels => "pixels",
            Mark::Untried => "–",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Column {
    Read,
    Text,
    Act,
    Menus,
    Values,
}

/// The marks a task earns as its checks pass; a failed check leaves the rest unearned.
#[derive(Default)]
struct Marks(Mutex<BTreeMap<Column, Mark>>);

impl Marks {
    fn earn(&self, column: Column, mark: Mark) {
        self.0.lock().unwrap().insert(column, mark);
    }
    fn get(&self, column: Column) -> Mark {
        self.0
            .lock()
            .unwrap()
            .get(&column)
            .copied()
            .unwrap_or(Mark::Untried)
    }
}

struct Row {
    app: &'static str,
    toolkit: &'static str,
    limits: &'static str,
    task: fn(&Desktop, &Started, &Marks),
}

/// Everything the rows need that was started up front.
struct Started {
    dir: PathBuf,
    apps: Mutex<Vec<App>>,
    office: Mutex<App>,
    zenity_out: PathBuf,
}

fn start_office(desk: &Desktop, dir: &Path) -> App {
    // LibreOffice's Tip of the Day opens over the document at a start of its choosing (not the
    // first of a new profile, in 7.4): the profile turns it off, so no row types into it and
    // none waits for a dialog that may never come.
    let user = dir.join("lo-profile/user");
    std::fs::create_dir_all(&user).unwrap();
    let settings = user.join("registrymodifications.xcu");
    if !settings.exists() {
        std::fs::write(
            settings,
            r#"<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"#,
        )
        .unwrap();
    }
    desk.spawn(
        "soffice",
        &[
            &format!(
                "-env:UserInstallation=file://{}",
                dir.join("lo-profile").display()
            ),
            "--norestore",
            "--nologo",
            "--calc",
        ],
    )
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name)
        .canonicalize()
        .expect("fixture exists")
}

fn ok(run: Run) -> String {
    assert_eq!(
        run.code, 0,
        "deskhand failed:\n{}{}",
        run.stdout, run.stderr
    );
    run.stdout
}

/// `deskhand <action> <args>`, which must succeed.
fn act(desk: &Desktop, action: &str, args: Value) -> String {
    ok(desk.act(action, args))
}

fn wait_for_file(path: &Path, what: &str, wanted: impl Fn(&str) -> bool) -> String {
    wait_until(SETTLE, || {
        std::fs::read(path)
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .filter(|text| wanted(text))
    })
    .unwrap_or_else(|| {
        panic!(
            "{what}: {} never had what was expected; it has {:?}",
            path.display(),
            std::fs::read_to_string(path).ok()
        )
    })
}

/// What libatspi itself reads of an element: an oracle that shares no code with deskhand.
fn probe(desk: &Desktop, app: &str, role: &str, name: &str) -> Value {
    let output = desk
        .command("/usr/bin/python3")
        .arg(fixture("atspi_probe.py"))
        .args([app, role, name])
        .stderr(Stdio::null())
        .output()
        .expect("running atspi_probe.py");
    serde_json::from_slice(&output.stdout).unwrap_or(Value::Null)
}

/// What libatspi reads of every element of a role, showing or not (GTK 4.8 marks only its
/// windows showing).
fn probe_all(desk: &Desktop, app: &str, role: &str) -> Vec<Value> {
    let output = desk
        .command("/usr/bin/python3")
        .arg(fixture("atspi_probe.py"))
        .args([app, role, "", "--all"])
        .stderr(Stdio::null())
        .output()
        .expect("running atspi_probe.py");
    serde_json::from_slice::<Vec<Value>>(&output.stdout).unwrap_or_default()
}

/// Whether the X server has a window titled `title` (`wmctrl`, not deskhand).
fn x_has_title(desk: &Desktop, title: &str) -> bool {
    let output = desk
        .command("wmctrl")
        .arg("-l")
        .output()
        .expect("running wmctrl");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .any(|line| line.ends_with(&format!(" {title}")))
}

/// A `.ods` or `.odt` file's content.xml, read with Python's zipfile.
fn odf_content(desk: &Desktop, file: &Path) -> String {
    let output = desk
        .command("/usr/bin/python3")
        .args([
            "-c",
            "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read('content.xml').decode())",
        ])
        .arg(file)
        .output()
        .expect("reading the document");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn gtk3_editor(desk: &Desktop, started: &Started, marks: &Marks) {
    let file = started.dir.join("mousepad-note.txt");
    let (w, _) = window_where(desk, START, "mousepad", |t| t.contains("mousepad-note.txt"));
    let text = observe_until(desk, &w, SETTLE, "the editor", |t| t.contains(" text"));
    let editor = ref_where(&text, "the editor", |l| l.contains(" text"));
    // Its error bar, never raised, and its start page, not shown, are not listed.
    assert!(
        !text.contains("You do not have permission") && !text.contains("Start or Open"),
        "{text}"
    );
    marks.earn(Column::Read, Mark::Yes);
    let set = act(
        desk,
        "set_value",
        json!({"target": w, "ref": editor, "value": "Hello"}),
    );
    assert!(set.starts_with("done:"), "{set}");
    marks.earn(Column::Values, Mark::Yes);
    // `press` goes to the focused app, and set_value focused nothing: whichever app mapped
    // last (Firefox, scrolled to its page's end) would take the keys.
    act(desk, "focus", json!({"target": w}));
    act(desk, "press", json!({"keys": "ctrl+End"}));
    act(
        desk,
        "type",
        json!({"target": w, "ref": editor, "text": " world"}),
    );
    act(
        desk,
        "select",
        json!({"target": w, "path": ["File", "Save"]}),
    );
    wait_for_file(&file, "mousepad's saved note", |t| t == "Hello world");
    marks.earn(Column::Act, Mark::Yes);
    marks.earn(Column::Menus, Mark::Yes);
    let seen = act(desk, "observe", json!({"target": w, "query": "world"}));
    assert!(seen.contains("value=\"Hello world\""), "{seen}");
    marks.earn(Column::Text, Mark::Yes);
    // "Copy" is disabled in the closed menu until there is a selection; the app enables it
    // when the menu opens, and select judges it then.
    copy_all_through_edit_menu(desk, &w, "the copied text", |t| t == "Hello world");
}

/// Edit > Select All, then Edit > Copy, checked by what the clipboard holds (`xclip`, not
/// deskhand).
fn copy_all_through_edit_menu(desk: &Desktop, w: &str, what: &str, wanted: impl Fn(&str) -> bool) {
    act(
        desk,
        "select",
        json!({"target": w, "path": ["Edit", "Select All"]}),
    );
    act(
        desk,
        "select",
        json!({"target": w, "path": ["Edit", "Copy"]}),
    );
    let copied = wait_until(SETTLE, || {
        let output = desk
            .command("xclip")
            .args(["-o", "-selection", "clipboard"])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        wanted(&text).then_some(text)
    });
    assert!(copied.is_some(), "the clipboard never held {what}");
}

fn gtk3_files(desk: &Desktop, started: &Started, marks: &Marks) {
    let folder = started.dir.join("thunar-home");
    let (w, _) = window_where(desk, START, "Thunar", |t| t.starts_with("thunar-home"));
    observe_until(desk, &w, SETTLE, "Thunar's menus", |t| {
        t.contains("menu \"File\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    act(
        desk,
        "select",
        json!({"target": w, "path": ["File", "Create Folder…"]}),
    );
    marks.earn(Column::Menus, Mark::Yes);
    let dialog = opened_window(desk, "the new-folder dialog", |t| t.contains("New Folder"));
    let text = observe_until(desk, &dialog, SETTLE, "the name field", |t| {
        t.contains(" text")
    });
    let field = ref_where(&text, "the name field", |l| l.contains(" text"));
    act(
        desk,
        "type",
        json!({"target": dialog, "ref": field, "text": "Reports 2026", "replace": true}),
    );
    marks.earn(Column::Values, Mark::Yes);
    act(desk, "press", json!({"keys": "Return"}));
    assert!(
        wait_until(SETTLE, || folder
            .join("Reports 2026")
            .is_dir()
            .then_some(()))
        .is_some(),
        "Thunar never created {}",
        folder.join("Reports 2026").display()
    );
    marks.earn(Column::Act, Mark::Yes);
    let listed = observe_until(desk, &w, SETTLE, "the new folder", |t| {
        t.contains("Reports 2026")
    });
    assert!(listed.contains("Reports 2026"), "{listed}");
    marks.earn(Column::Text, Mark::Yes);
}

fn gtk3_widgets(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "gtk3-widget-factory", |t| {
        t == "gtk3-widget-factory"
    });
    let text = observe_query_until(desk, &w, "spin", "the spin button", |t| {
        t.contains(" spin ")
    });
    let spin = ref_where(&text, "the spin button", |l| l.contains(" spin "));
    marks.earn(Column::Read, Mark::Yes);
    let set = act(
        desk,
        "set_value",
        json!({"target": w, "ref": spin, "value": 73}),
    );
    assert!(set.starts_with("done:"), "{set}");
    let read = probe(desk, "gtk3-widget-factory", "spin button", "");
    assert_eq!(read["value"].as_f64(), Some(73.0), "libatspi reads {read}");
    marks.earn(Column::Values, Mark::Yes);
    let toggles = observe_query_until(desk, &w, "togglebutton", "the toggle buttons", |t| {
        t.contains(" toggle \"togglebutton\"")
    });
    let toggle = ref_where(&toggles, "the toggle button", |l| {
        l.contains(" toggle \"togglebutton\"") && !l.contains(" disabled")
    });
    let checked = || {
        probe(desk, "gtk3-widget-factory", "toggle button", "togglebutton")["states"]
            .to_string()
            .contains("\"checked\"")
    };
    let before = checked();
    act(desk, "click", json!({"target": w, "ref": toggle}));
    assert!(
        wait_until(SETTLE, || (checked() != before).then_some(())).is_some(),
        "libatspi never saw the toggle button change from checked={before}"
    );
    marks.earn(Column::Act, Mark::Yes);
}

fn gtk4_calculator(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "gnome-calculator", |t| t == "Calculator");
    observe_until(desk, &w, SETTLE, "the keypad", |t| {
        t.contains("button \"=\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    for key in ["2", "+", "3", "×", "4", "="] {
        act(
            desk,
            "click",
            json!({"target": w, "find": {"name": key, "role": "button"}}),
        );
    }
    // The header repeats the query: only an element line showing the result counts.
    let result = wait_until(SETTLE, || {
        let seen = desk
            .act("observe", json!({"target": w, "query": "14"}))
            .stdout;
        seen.lines()
            .skip(2)
            .any(|line| line.contains("value=14"))
            .then_some(seen)
    })
    .expect("the display shows 14");
    assert!(result.contains("text value=14"), "{result}");
    marks.earn(Column::Text, Mark::Yes);
    let texts = probe_all(desk, "gnome-calculator", "text");
    assert!(
        texts
            .iter()
            .any(|t| t["text"].as_str().is_some_and(|t| t.trim() == "14")),
        "libatspi reads no text holding 14: {texts:?}"
    );
    marks.earn(Column::Act, Mark::Yes);
}

/// kcalc's buttons animate each press for 100 ms and count a second press of the same button
/// within it as the same click: a batch that presses "1" again three steps later must still
/// give each press its own click.
fn kde_calculator(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "kcalc", |t| t == "KCalc");
    let keypad = observe_until(desk, &w, SETTLE, "the keypad", |t| {
        t.contains("button \"=\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    let key = |name: &str| ref_where(&keypad, name, |l| l.contains(&format!("button \"{name}\"")));
    let steps: Vec<Value> = ["1", "2", "×", "1", "2", "="]
        .iter()
        .map(|name| json!({"action": "click", "ref": key(name)}))
        .collect();
    let batch = act(desk, "batch", json!({"steps": steps}));
    assert!(
        batch.starts_with("batch · 6 of 6 steps completed"),
        "{batch}"
    );
    let shown = wait_until(SETTLE, || {
        probe(desk, "kcalc", "frame", "144")
            .get("name")
            .is_some_and(|name| name == "144")
            .then_some(())
    });
    assert!(
        shown.is_some(),
        "libatspi reads no display holding 144: {batch}"
    );
    marks.earn(Column::Act, Mark::Yes);
}

/// GTK 2 has no accessibility of its own: the headless desktop loads its modules, and GIMP's
/// new-image dialog is filled through its tree.
fn gtk2_image_editor(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "GIMP", |t| {
        t == "GNU Image Manipulation Program"
    });
    observe_until(desk, &w, SETTLE, "its menus", |t| {
        t.contains("menu \"File\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    let selected = act(
        desk,
        "select",
        json!({"target": w, "path": ["File", "New…"]}),
    );
    assert!(selected.starts_with("done:"), "{selected}");
    marks.earn(Column::Menus, Mark::Yes);
    let dialog = opened_window(desk, "GIMP's new image dialog", |t| {
        t == "Create a New Image"
    });
    let form = observe_until(desk, &dialog, SETTLE, "the size fields", |t| {
        t.contains("label \"Width:\"") && t.matches(" spin ").count() >= 2
    });
    // The two unnamed spin buttons are the width's and the height's, in that order.
    let spins: Vec<String> = common::element_lines(&form)
        .filter(|l| l.contains(" spin "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    for (spin, value) in spins.iter().zip(["640", "480"]) {
        let set = act(desk, "set_value", json!({"ref": spin, "value": value}));
        assert!(
            set.starts_with("done:") && set.contains("(read back)"),
            "{set}"
        );
    }
    marks.earn(Column::Values, Mark::Yes);
    act(
        desk,
        "click",
        json!({"target": dialog, "find": {"name": "OK", "role": "button"}}),
    );
    let titled = wait_until(SETTLE, || {
        let output = desk.command("wmctrl").arg("-l").output().ok()?;
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .any(|l| l.contains("640x480") && l.ends_with("GIMP"))
            .then_some(())
    });
    assert!(titled.is_some(), "no GIMP window titled with 640x480");
    marks.earn(Column::Act, Mark::Yes);
}

/// GNOME Help draws its pages with WebKitGTK, whose web process embeds each page in the
/// window's tree through a socket: a link is followed by ref, and the topic's first paragraph
/// read.
fn webkit_help(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "yelp", |t| t == "Help");
    let index = observe_until(desk, &w, SETTLE, "the help index", |t| {
        t.contains("link \"Calculator Help\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    let calculator = ref_where(&index, "Calculator Help", |l| {
        l.contains("link \"Calculator Help\"")
    });
    act(desk, "click", json!({"ref": calculator}));
    observe_until(desk, &w, SETTLE, "the calculator's help", |t| {
        t.contains("link \"Basic Equations\"")
    });
    act(
        desk,
        "click",
        json!({"target": w, "find": {"name": "Basic Equations", "role": "link"}}),
    );
    let first = "Equations are entered in standard mathematical form.";
    let topic = observe_until(desk, &w, SETTLE, "the topic's first paragraph", |t| {
        t.contains(first)
    });
    assert!(topic.contains("document \"Basic Equations\""), "{topic}");
    let paragraphs = probe_all(desk, "yelp", "paragraph");
    assert!(
        paragraphs
            .iter()
            .any(|p| p["text"].as_str().is_some_and(|t| t.starts_with(first))),
        "libatspi reads no paragraph starting {first:?}: {paragraphs:?}"
    );
    marks.earn(Column::Text, Mark::Yes);
    marks.earn(Column::Act, Mark::Yes);
}

/// gnome-system-monitor's process list is a GTK3 table too long to read whole, whose name
/// cells hold an icon's cell and a name's: the list is searched for kcalc (the matrix runs it)
/// and its row read, the process id as /proc has it and its memory.
fn big_gtk3_table(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "gnome-system-monitor", |t| {
        t == "System Monitor"
    });
    let list = observe_until(desk, &w, SETTLE, "the process list", |t| {
        t.contains("header \"Memory\"") && t.contains(" cell \"")
    });
    assert!(list.contains("header \"Process Name\""), "{list}");
    marks.earn(Column::Read, Mark::Yes);
    act(desk, "focus", json!({"target": w}));
    act(desk, "press", json!({"keys": "ctrl+f"}));
    let typed = act(
        desk,
        "type",
        json!({"target": w, "find": {"name": "Search", "role": "text"}, "text": "kcalc"}),
    );
    assert!(typed.contains("(read back)"), "{typed}");
    marks.earn(Column::Act, Mark::Yes);
    let found = observe_until(desk, &w, SETTLE, "kcalc's row", |t| {
        t.contains("cell \"kcalc\"")
    });
    let cells: Vec<&str> = common::element_lines(&found)
        .skip_while(|l| !l.contains("cell \"kcalc\""))
        .filter(|l| l.contains(" cell \""))
        .collect();
    // Process Name, User, % CPU, ID, Memory.
    let value = |at: usize| {
        cells
            .get(at)
            .and_then(|l| l.split('"').nth(1))
            .unwrap_or_else(|| panic!("kcalc's row has no cell {at}: {found}"))
            .to_owned()
    };
    let pid = desk
        .command("pgrep")
        .args(["-x", "kcalc"])
        .output()
        .expect("running pgrep");
    let pid = String::from_utf8_lossy(&pid.stdout).trim().to_owned();
    assert_eq!(value(3), pid, "{found}");
    // "16.4 MB", with a no-break space.
    let memory = value(4);
    let words: Vec<&str> = memory.split_whitespace().collect();
    assert!(
        matches!(words.as_slice(), [amount, "kB" | "MB" | "GB"] if amount.parse::<f64>().is_ok()),
        "{memory}"
    );
    marks.earn(Column::Text, Mark::Yes);
}

fn gtk4_editor(desk: &Desktop, started: &Started, marks: &Marks) {
    let file = started.dir.join("editor-draft.txt");
    let (w, _) = window_where(desk, START, "gnome-text-editor", |t| {
        t.ends_with("Text Editor")
    });
    let text = observe_until(desk, &w, SETTLE, "the editor", |t| t.contains(" text"));
    let editor = ref_where(&text, "the editor", |l| l.contains(" text"));
    marks.earn(Column::Read, Mark::Yes);
    act(
        desk,
        "type",
        json!({"target": w, "ref": editor, "text": "Draft from a popover"}),
    );
    act(
        desk,
        "select",
        json!({"target": w, "path": ["Menu", "Save As…"]}),
    );
    marks.earn(Column::Menus, Mark::Yes);
    let dialog = opened_window(desk, "the save dialog", |t| t == "Save As");
    save_in_file_chooser(desk, &dialog, &file);
    marks.earn(Column::Values, Mark::Yes);
    wait_for_file(&file, "gnome-text-editor's saved draft", |t| {
        t.trim_end() == "Draft from a popover"
    });
    marks.earn(Column::Act, Mark::Yes);
    let seen = act(desk, "observe", json!({"target": w, "query": "popover"}));
    assert!(seen.contains("value=\"Draft from a popover"), "{seen}");
    marks.earn(Column::Text, Mark::Yes);
}

fn qt_editor(desk: &Desktop, started: &Started, marks: &Marks) {
    let file = started.dir.join("featherpad-fruit.txt");
    let (w, _) = window_where(desk, START, "FeatherPad", |t| {
        t.contains("featherpad-fruit.txt")
    });
    let text = observe_until(desk, &w, SETTLE, "the text", |t| t.contains("apple pear"));
    assert!(text.contains("value=\"apple pear apple"), "{text}");
    marks.earn(Column::Read, Mark::Yes);
    marks.earn(Column::Text, Mark::Yes);
    act(
        desk,
        "select",
        json!({"target": w, "path": ["Search", "Replace"]}),
    );
    marks.earn(Column::Menus, Mark::Yes);
    let text = observe_until(desk, &w, SETTLE, "the replace fields", |t| {
        t.contains("text \"To be replaced\"")
    });
    let find = ref_where(&text, "the find field", |l| {
        l.contains("\"To be replaced\"")
    });
    let with = ref_where(&text, "the replace field", |l| {
        l.contains("\"Replacing text\"")
    });
    act(
        desk,
        "set_value",
        json!({"target": w, "ref": find, "value": "apple"}),
    );
    act(
        desk,
        "type",
        json!({"target": w, "ref": with, "text": "plum"}),
    );
    marks.earn(Column::Values, Mark::Yes);
    act(
        desk,
        "click",
        json!({"target": w, "find": {"name": "Replace all", "role": "button"}}),
    );
    act(
        desk,
        "select",
        json!({"target": w, "path": ["File", "Save"]}),
    );
    wait_for_file(&file, "FeatherPad's saved file", |t| {
        t.trim_end() == "plum pear plum"
    });
    marks.earn(Column::Act, Mark::Yes);
}

/// Qt 6's settings tool: two drop-downs, a radio button and Apply, checked by the settings
/// file it writes.
fn qt6_settings(desk: &Desktop, started: &Started, marks: &Marks) {
    let conf = started.dir.join("qt6ct-config/qt6ct/qt6ct.conf");
    let (w, _) = window_where(desk, START, "qt6ct", |t| t == "Qt6 Configuration Tool");
    let text = observe_until(desk, &w, SETTLE, "the appearance tab", |t| {
        t.contains("radio \"Custom\"") && t.contains("button \"Apply\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    // Qt names a drop-down without a label by its choice; its list takes "Toggle" and moves only
    // its own selection, so the choice is clicked where the open list shows it.
    let style = ref_where(&text, "the style drop-down", |l| {
        l.contains("combobox \"Fusion\"")
    });
    let set = act(
        desk,
        "set_value",
        json!({"target": w, "ref": style, "value": "Windows"}),
    );
    assert!(set.starts_with("done:"), "{set}");
    act(
        desk,
        "click",
        json!({"target": w, "find": {"name": "Custom", "role": "radio"}}),
    );
    let text = observe_until(desk, &w, SETTLE, "the enabled color schemes", |t| {
        t.lines()
            .any(|l| l.contains("combobox \"airy\"") && !l.contains("disabled"))
    });
    let scheme = ref_where(&text, "the color scheme drop-down", |l| {
        l.contains("combobox \"airy\"")
    });
    let set = act(
        desk,
        "set_value",
        json!({"target": w, "ref": scheme, "value": "darker"}),
    );
    assert!(set.starts_with("done:"), "{set}");
    marks.earn(Column::Values, Mark::Yes);
    act(
        desk,
        "click",
        json!({"target": w, "find": {"name": "Apply", "role": "button"}}),
    );
    wait_for_file(&conf, "qt6ct's settings", |t| {
        t.contains("style=Windows")
            && t.contains("custom_palette=true")
            && t.contains("color_scheme_path=/usr/share/qt6ct/colors/darker.conf")
    });
    marks.earn(Column::Act, Mark::Yes);
}

/// A VTE terminal: a command typed and run, its latest output read from the end of the
/// terminal's text, and all of it copied through the Edit menu.
fn gtk3_terminal(desk: &Desktop, started: &Started, marks: &Marks) {
    let out = started.dir.join("vte-echo.txt");
    let (w, _) = window_where(desk, START, "xfce4-terminal", |t| t == "matrix terminal");
    let text = observe_until(desk, &w, SETTLE, "the shell's prompt", |t| {
        t.lines()
            .any(|l| l.contains(" terminal ") && (l.contains("#\"") || l.contains("$\"")))
    });
    let terminal = ref_where(&text, "the terminal", |l| l.contains(" terminal "));
    marks.earn(Column::Read, Mark::Yes);
    act(
        desk,
        "type",
        json!({"target": w, "ref": terminal, "text": format!(
            "for i in 1 2 3; do printf 'long line %s %080d\\n' $i 0; done; echo end-6 | tee {}\n",
            out.display()
        )}),
    );
    wait_for_file(&out, "the shell's output", |t| t.trim() == "end-6");
    marks.earn(Column::Act, Mark::Yes);
    // The long lines push the latest output past the first 120 characters: the end shows.
    let seen = observe_until(desk, &w, SETTLE, "the latest output", |t| {
        t.contains("\\nend-6\\n")
    });
    assert!(seen.contains("value=\"…"), "{seen}");
    marks.earn(Column::Text, Mark::Yes);
    copy_all_through_edit_menu(desk, &w, "the terminal's text", |t| {
        t.contains("long line 3")
    });
    marks.earn(Column::Menus, Mark::Yes);
}

/// Fills and submits the order form, then checks the page's own result: the title its script
/// set, as the X server has it.
fn web_order(desk: &Desktop, w: &str, browser: &Browser, marks: &Marks) {
    // Firefox reports nothing as showing in a covered window, as a person sees nothing there.
    act(desk, "focus", json!({"target": w}));
    let text = observe_until(desk, w, START, "the order form", |t| {
        t.contains("Fill in your name") && t.contains("combobox \"Fruit\"")
    });
    assert!(
        text.contains("value=\"Fill in your name, pick a fruit and press Order.\""),
        "the page's paragraph is not listed with its text:\n{text}"
    );
    // The page's 240 clauses run far below the window: those that show are read, the rest
    // only counted.
    assert!(
        text.contains("value=\"Delivery terms, clause 1: fruit ships within 2 days.\"")
            && !text.contains("clause 240:")
            && text
                .contains("(off screen or hidden) were not read: scroll to bring them into view"),
        "the long page's showing paragraphs are not read, or its others are not counted:\n{text}"
    );
    marks.earn(Column::Read, Mark::Yes);
    order_plum(desk, w, &text, browser.title_suffix, marks);
    // The browser's own application menu: a panel in Firefox's window, a popup frame of its own
    // in Chromium's.
    act(
        desk,
        "select",
        json!({"target": w, "path": [browser.menu, "New tab"]}),
    );
    assert!(
        wait_until(SETTLE, || x_has_title(desk, browser.new_tab).then_some(())).is_some(),
        "no window is titled {:?} after New tab",
        browser.new_tab
    );
    act(desk, "press", json!({"keys": "ctrl+w"}));
    marks.earn(Column::Menus, Mark::Yes);
}

/// Fills the order form `text` shows by ref and find, sends it, and checks the page's answer:
/// its title (with the browser's `title_suffix`) and its thanks, waited for in the tree.
fn order_plum(desk: &Desktop, w: &str, text: &str, title_suffix: &str, marks: &Marks) {
    let name = ref_where(text, "the name field", |l| {
        l.contains("value=\"Your name\"")
    });
    act(
        desk,
        "type",
        json!({"target": w, "ref": name, "text": "Alice", "replace": true}),
    );
    let fruit = act(
        desk,
        "set_value",
        json!({"target": w, "find": {"name": "Fruit", "role": "combobox"}, "value": "Plum"}),
    );
    assert!(fruit.starts_with("done:"), "{fruit}");
    marks.earn(Column::Values, Mark::Yes);
    act(
        desk,
        "click",
        json!({"target": w, "find": {"name": "Order", "role": "button"}}),
    );
    let wanted = format!("Ordered Plum for Alice{title_suffix}");
    assert!(
        wait_until(SETTLE, || x_has_title(desk, &wanted).then_some(())).is_some(),
        "the page never set its title to {wanted:?}"
    );
    marks.earn(Column::Act, Mark::Yes);
    let waited = act(
        desk,
        "wait",
        json!({"target": w, "until": {"role": "paragraph", "value_has": "thanks, alice"}}),
    );
    assert!(
        waited.contains("Thanks, Alice: one Plum is on its way."),
        "{waited}"
    );
    marks.earn(Column::Text, Mark::Yes);
}

/// What tells the browsers apart to the order task.
struct Browser {
    /// What the browser adds to a page's title in its window's title.
    title_suffix: &'static str,
    /// The button of its application menu.
    menu: &'static str,
    /// Its window's title with a new, empty tab in front.
    new_tab: &'static str,
}

fn gecko(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "Firefox", |t| t.starts_with("Order Form"));
    let firefox = Browser {
        title_suffix: " — Mozilla Firefox",
        menu: "Firefox",
        new_tab: "Mozilla Firefox",
    };
    web_order(desk, &w, &firefox, marks);
}

fn chromium(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "Chromium", |t| t == "Order Form - Chromium");
    let chromium = Browser {
        title_suffix: " - Chromium",
        menu: "Chromium",
        new_tab: "New Tab - Chromium",
    };
    web_order(desk, &w, &chromium, marks);
}

/// GNOME Web draws pages with WebKitGTK: the order form is filled by ref and find, sent, and
/// its answer waited for in the tree.
fn epiphany(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "GNOME Web", |t| t == "Order Form");
    let text = observe_until(desk, &w, START, "the order form", |t| {
        t.contains("combobox \"Fruit\"") && t.contains("Fill in your name")
    });
    marks.earn(Column::Read, Mark::Yes);
    order_plum(desk, &w, &text, "", marks);
    // The sign-up form: an email field typed into by ref, a checkbox clicked by ref (WebKit's
    // hit test finds nothing anywhere: the click goes to its center), sent.
    let (form, _) = window_where(desk, START, "GNOME Web's form", |t| t == "Deskhand Form");
    let text = observe_until(desk, &form, START, "the sign-up form", |t| {
        t.contains("check \"Newsletter\"")
    });
    let email = ref_where(&text, "the email field", |l| l.contains("text \"Email\""));
    let typed = act(
        desk,
        "type",
        json!({"ref": email, "text": "alice@example.org"}),
    );
    assert!(typed.contains("(read back)"), "{typed}");
    let news = ref_where(&text, "the newsletter box", |l| {
        l.contains("check \"Newsletter\"")
    });
    act(desk, "click", json!({"ref": news}));
    act(
        desk,
        "click",
        json!({"target": form, "find": {"name": "Send", "role": "button"}}),
    );
    observe_until(desk, &form, SETTLE, "the checked box", |t| {
        t.contains("check \"Newsletter\" focused checked")
            || t.contains("check \"Newsletter\" checked")
    });
    let waited = act(
        desk,
        "wait",
        json!({"target": form, "until": {"role": "statusbar", "value_has": "submitted alice"}}),
    );
    assert!(waited.contains("Submitted alice@example.org"), "{waited}");
    let sent = wait_until(SETTLE, || {
        probe_all(desk, "epiphany", "status bar")
            .into_iter()
            .find(|s| s["text"] == "Submitted alice@example.org")
    });
    assert!(
        sent.is_some(),
        "libatspi reads no status saying the form was sent"
    );
}

/// Answers a GTK file chooser's save dialog: the whole path typed over its focused name field,
/// then Return.
fn save_in_file_chooser(desk: &Desktop, dialog: &str, file: &Path) {
    let text = observe_query_until(desk, dialog, "text", "the name field", |t| {
        t.contains(" text")
    });
    let name = ref_where(&text, "the name field", |l| {
        l.contains(" text") && l.contains("focused")
    });
    act(
        desk,
        "type",
        json!({"target": dialog, "ref": name, "text": file.to_str().unwrap(), "replace": true}),
    );
    act(desk, "press", json!({"keys": "Return"}));
}

/// Saves the focused LibreOffice document through its own Save As dialog (GTK's file chooser).
fn libreoffice_save_as(desk: &Desktop, w: &str, file: &Path) {
    act(
        desk,
        "select",
        json!({"target": w, "path": ["File", "Save As…"]}),
    );
    let dialog = opened_window(desk, "LibreOffice's Save As", |t| {
        t == "Save" || t == "Save As"
    });
    save_in_file_chooser(desk, &dialog, file);
    // LibreOffice asks whether to keep an older format only for foreign ones; ODF goes straight.
    assert!(
        wait_until(SETTLE, || file.is_file().then_some(())).is_some(),
        "LibreOffice never wrote {}",
        file.display()
    );
}

/// The window the latest action opened (a dialog), waited for as an agent does: a `wait` for a
/// new window answers with its id, where `windows` would list every window of the desktop.
fn opened_window(desk: &Desktop, what: &str, wanted: impl Fn(&str) -> bool) -> String {
    let waited = desk.act(
        "wait",
        json!({"until": {"new_window": true}, "timeout_ms": SETTLE.as_millis()}),
    );
    let opened = waited.stdout.lines().find_map(|line| {
        let (id, title) = line
            .trim_start()
            .strip_prefix("new window ")?
            .split_once(' ')?;
        Some((id.to_owned(), title.trim_matches('"').to_owned()))
    });
    match opened {
        Some((id, title)) if wanted(&title) => id,
        _ => panic!("{what} did not open: {}{}", waited.stdout, waited.stderr),
    }
}

/// The `w` id of a window whose title contains `part`, waited for as an agent waits: `wait`
/// answers once the window shows, where polling `windows` would list every window each time.
fn wait_for_window(desk: &Desktop, part: &str, limit: Duration) -> Option<String> {
    let timeout_ms = limit.as_millis().min(30_000);
    wait_until(limit, || {
        let waited = desk.act(
            "wait",
            json!({"target": "screen", "until": {"window": part}, "timeout_ms": timeout_ms}),
        );
        if waited.code != 0 {
            return None;
        }
        waited.stdout.lines().find_map(|line| {
            line.trim_start()
                .strip_prefix("window ")
                .and_then(|rest| rest.split(' ').next())
                .map(str::to_owned)
        })
    })
}

fn calc(desk: &Desktop, started: &Started, marks: &Marks) {
    // LibreOffice 7.4 can die of an X error (BadWindow on a window another client just
    // destroyed) when it starts beside a dozen other apps; it is started again, as a person
    // would.
    for _ in 0..2 {
        let mut office = started.office.lock().unwrap();
        if office.child.try_wait().unwrap().is_some() {
            eprintln!("LibreOffice exited at its start: {}", office.report());
            *office = start_office(desk, &started.dir);
        }
        drop(office);
        let calc_shows = wait_for_window(desk, "LibreOffice Calc", START / 2);
        if calc_shows.is_some() {
            break;
        }
    }
    let (w, _) = window_where(desk, START, "LibreOffice Calc", |t| {
        t.ends_with("LibreOffice Calc")
    });
    let text = common::observe_with_until(
        desk,
        json!({"target": w, "query": "Sheet1"}),
        START,
        "the sheet",
        |t| t.contains("table \"Sheet Sheet1\""),
    );
    marks.earn(Column::Read, Mark::Yes);
    let sheet = ref_where(&text, "the sheet", |l| l.contains("table \"Sheet Sheet1\""));
    act(
        desk,
        "type",
        json!({"target": w, "ref": sheet, "text": "5\n7\n30\n=SUM(A1:A3)\n"}),
    );
    observe_query_until(desk, &w, "A4", "the sum", |t| {
        t.contains("cell \"A4\" value=42")
    });
    marks.earn(Column::Act, Mark::Yes);
    let first = act(desk, "observe", json!({"target": w, "query": "A1"}));
    assert!(first.contains("cell \"A1\" value=5"), "{first}");
    // Any cell is reached through the Name Box, as a person does on a big sheet: it shows the
    // cell the typing ended in.
    let text = observe_query_until(desk, &w, "A5", "the Name Box", |t| {
        t.contains(" text value=\"A5\"")
    });
    let name_box = ref_where(&text, "the Name Box", |l| l.contains(" text value=\"A5\""));
    act(
        desk,
        "type",
        json!({"target": w, "ref": name_box, "text": "A4\n", "replace": true}),
    );
    observe_with_formula(desk, &w);
    marks.earn(Column::Text, Mark::Yes);
    let file = started.dir.join("sum.ods");
    libreoffice_save_as(desk, &w, &file);
    marks.earn(Column::Menus, Mark::Yes);
    let content = odf_content(desk, &file);
    assert!(
        content.contains("of:=SUM([.A1:.A3])") && content.contains("office:value=\"42\""),
        "the saved sheet lacks the sum: {content}"
    );
}

/// The formula bar shows the focused cell's formula, and the Name Box its address.
fn observe_with_formula(desk: &Desktop, w: &str) {
    observe_query_until(desk, w, "=SUM(A1:A3)", "the formula", |t| {
        t.contains("value=\"=SUM(A1:A3)\"")
    });
    let text = act(desk, "observe", json!({"target": w, "query": "A4"}));
    assert!(text.contains("text value=\"A4\""), "the Name Box:\n{text}");
}

fn writer(desk: &Desktop, started: &Started, marks: &Marks) {
    // The Calc row has LibreOffice running: a second start hands it a new text document.
    let profile = format!(
        "-env:UserInstallation=file://{}",
        started.dir.join("lo-profile").display()
    );
    let handoff = desk.spawn(
        "soffice",
        &[&profile, "--norestore", "--nologo", "--writer"],
    );
    started.apps.lock().unwrap().push(handoff);
    let (w, _) = window_where(desk, START, "LibreOffice Writer", |t| {
        t.ends_with("LibreOffice Writer")
    });
    common::observe_with_until(
        desk,
        json!({"target": w, "query": "document"}),
        START,
        "the document",
        |t| t.contains("document \""),
    );
    marks.earn(Column::Read, Mark::Yes);
    let long = "Beta paragraph that runs on and on, well past the one hundred and twenty characters a value shows, so that it is cut, ending here.";
    act(
        desk,
        "type",
        json!({"target": w, "text": format!("Alpha paragraph\n{long}\n")}),
    );
    marks.earn(Column::Act, Mark::Yes);
    let seen = observe_with_until(desk, &w, "ending here", "the long paragraph");
    assert!(seen.contains("ending here"), "{seen}");
    let paragraph = ref_where(&seen, "the long paragraph", |l| l.contains(" paragraph "));
    let read = act(desk, "read", json!({"target": w, "ref": paragraph}));
    assert!(read.contains(&format!("\"{long}\"")), "{read}");
    marks.earn(Column::Text, Mark::Yes);
    let file = started.dir.join("letter.odt");
    libreoffice_save_as(desk, &w, &file);
    marks.earn(Column::Menus, Mark::Yes);
    let content = odf_content(desk, &file);
    assert!(
        content.contains("Alpha paragraph") && content.contains("ending here."),
        "the saved letter lacks the text: {content}"
    );
}

fn impress(desk: &Desktop, started: &Started, marks: &Marks) {
    // LibreOffice runs since the Calc row: a second start hands it a new presentation, with
    // its template chooser in front.
    let profile = format!(
        "-env:UserInstallation=file://{}",
        started.dir.join("lo-profile").display()
    );
    let handoff = desk.spawn(
        "soffice",
        &[&profile, "--norestore", "--nologo", "--impress"],
    );
    started.apps.lock().unwrap().push(handoff);
    let (w, _) = window_where(desk, START, "LibreOffice Impress", |t| {
        t.ends_with("LibreOffice Impress")
    });
    if let Some(chooser) = wait_for_window(desk, "Select a Template", Duration::from_secs(5)) {
        act(
            desk,
            "click",
            json!({"target": chooser, "find": {"name": "Close", "role": "button"}}),
        );
    }
    let slide = common::observe_with_until(
        desk,
        json!({"target": w, "query": "PresentationTitle"}),
        START,
        "the title's placeholder",
        |t| t.contains("\"PresentationTitle"),
    );
    marks.earn(Column::Read, Mark::Yes);
    let title = ref_where(&slide, "the title", |l| l.contains("\"PresentationTitle"));
    act(desk, "click", json!({"ref": title}));
    act(
        desk,
        "type",
        json!({"target": w, "text": "Quarterly Review"}),
    );
    act(desk, "press", json!({"keys": "Escape"}));
    marks.earn(Column::Act, Mark::Yes);
    let seen = observe_with_until(desk, &w, "Quarterly", "the typed title");
    assert!(seen.contains("value=\"Quarterly Review\""), "{seen}");
    marks.earn(Column::Text, Mark::Yes);
    let file = started.dir.join("review.odp");
    libreoffice_save_as(desk, &w, &file);
    marks.earn(Column::Menus, Mark::Yes);
    let content = odf_content(desk, &file);
    assert!(
        content.contains("Quarterly Review"),
        "the saved presentation lacks its title: {content}"
    );
}

/// Observes only what `query` matches (and its ancestors) until `ready` holds: a task reads
/// what it looks for, not the whole window at every look.
fn observe_query_until(
    desk: &Desktop,
    w: &str,
    query: &str,
    what: &str,
    ready: impl Fn(&str) -> bool,
) -> String {
    common::observe_with_until(
        desk,
        json!({"target": w, "query": query}),
        SETTLE,
        what,
        ready,
    )
}

fn observe_with_until(desk: &Desktop, w: &str, query: &str, what: &str) -> String {
    common::observe_with_until(
        desk,
        json!({"target": w, "query": query}),
        SETTLE,
        what,
        |t| common::element_lines(t).any(|l| l.contains(query)),
    )
}

fn file_chooser(desk: &Desktop, started: &Started, marks: &Marks) {
    let wanted = started.dir.join("pick-me.txt");
    let (w, _) = window_where(desk, START, "zenity", |t| t == "Pick a file");
    observe_query_until(desk, &w, "OK", "the chooser", |t| {
        t.contains("button \"OK\"")
    });
    marks.earn(Column::Read, Mark::Yes);
    // Typing a path opens the chooser's location field, as it does for a person.
    act(
        desk,
        "type",
        json!({"target": w, "text": wanted.to_str().unwrap()}),
    );
    let text = observe_query_until(desk, &w, "pick-me.txt", "the typed path", |t| {
        t.contains("pick-me.txt")
    });
    assert!(text.contains("pick-me.txt"), "{text}");
    marks.earn(Column::Text, Mark::Yes);
    act(
        desk,
        "click",
        json!({"target": w, "find": {"name": "OK", "role": "button"}}),
    );
    let printed = wait_for_file(&started.zenity_out, "zenity's answer", |t| !t.is_empty());
    assert_eq!(printed.trim_end(), wanted.to_str().unwrap());
    marks.earn(Column::Act, Mark::Yes);
}

fn tk(desk: &Desktop, started: &Started, marks: &Marks) {
    let clicked = started.dir.join("tk-clicked.txt");
    let (w, _) = window_where(desk, START, "wish", |t| t == "Tk Order");
    // Tk gives no accessibility tree: the window is there, its insides are pixels (read as
    // text where an engine is built in).
    let seen = desk.act("observe", json!({"target": w}));
    assert!(
        seen.stdout.contains("0 elements")
            || seen
                .stdout
                .contains("no accessibility tree: text read from pixels")
            || seen.code != 0,
        "{}{}",
        seen.stdout,
        seen.stderr
    );
    let shot = act(desk, "screenshot", json!({"target": w}));
    assert!(shot.contains("Tk Order"), "{shot}");
    marks.earn(Column::Read, Mark::Pixels);
    // A click at a point lands on whatever shows there: the window comes to the front first.
    act(desk, "focus", json!({"target": w}));
    act(desk, "click", json!({"target": w, "x": 500, "y": 500}));
    wait_for_file(&clicked, "the Tk button's command", |t| {
        t.trim() == "ordered"
    });
    marks.earn(Column::Act, Mark::Pixels);
}

fn xterm(desk: &Desktop, started: &Started, marks: &Marks) {
    let out = started.dir.join("xterm-echo.txt");
    let (w, _) = window_where(desk, START, "xterm", |t| t == "matrix xterm");
    let shot = act(
        desk,
        "zoom",
        json!({"target": w, "region": [0, 0, 500, 500]}),
    );
    assert!(shot.contains("matrix xterm"), "{shot}");
    marks.earn(Column::Read, Mark::Pixels);
    act(desk, "focus", json!({"target": w}));
    act(desk, "click", json!({"target": w, "x": 500, "y": 500}));
    act(
        desk,
        "type",
        json!({"target": w, "text": format!("echo typed-by-deskhand > {}\n", out.display())}),
    );
    wait_for_file(&out, "the shell's output", |t| {
        t.trim() == "typed-by-deskhand"
    });
    marks.earn(Column::Act, Mark::Yes);
}

fn gtk4_widgets(desk: &Desktop, _started: &Started, marks: &Marks) {
    let (w, _) = window_where(desk, START, "gtk4-widget-factory", |t| {
        t == "GTK Widget Factory"
    });
    let text = observe_query_until(desk, &w, "spin", "a spin button", |t| t.contains(" spin "));
    marks.earn(Column::Read, Mark::Yes);
    let spin = ref_where(&text, "the spin button", |l| l.contains(" spin "));
    let holds_31 = || {
        probe_all(desk, "gtk4-widget-factory", "spin button")
            .iter()
            .any(|spin| spin["value"].as_f64() == Some(31.0))
    };
    assert!(!holds_31(), "a spin button already holds 31");
    let set = act(
        desk,
        "set_value",
        json!({"target": w, "ref": spin, "value": 31}),
    );
    assert!(set.starts_with("done:"), "{set}");
    assert!(holds_31(), "libatspi reads no spin button holding 31");
    marks.earn(Column::Values, Mark::Yes);
}

const ROWS: [Row; 22] = [
    Row {
        app: "mousepad",
        toolkit: "GTK3",
        limits: "",
        task: gtk3_editor,
    },
    Row {
        app: "Thunar",
        toolkit: "GTK3",
        limits: "menu items that open a modal dialog are clicked with the pointer",
        task: gtk3_files,
    },
    Row {
        app: "gtk3-widget-factory",
        toolkit: "GTK3",
        limits: "",
        task: gtk3_widgets,
    },
    Row {
        app: "gnome-system-monitor",
        toolkit: "GTK3",
        limits: "a table too long to read whole: its visible rows are read, and its search finds the rest",
        task: big_gtk3_table,
    },
    Row {
        app: "GIMP 2.10",
        toolkit: "GTK2",
        limits: "a tree only with GTK 2's accessibility modules loaded (`GTK2_MODULES=gail:atk-bridge`)",
        task: gtk2_image_editor,
    },
    Row {
        app: "gnome-calculator",
        toolkit: "GTK4 / libadwaita",
        limits: "",
        task: gtk4_calculator,
    },
    Row {
        app: "gnome-text-editor",
        toolkit: "GTK4 / libadwaita",
        limits: "",
        task: gtk4_editor,
    },
    Row {
        app: "gtk4-widget-factory",
        toolkit: "GTK4",
        limits: "",
        task: gtk4_widgets,
    },
    Row {
        app: "FeatherPad",
        toolkit: "Qt 5",
        limits: "a menu stays open after its item ran: select closes it with Escape",
        task: qt_editor,
    },
    Row {
        app: "kcalc",
        toolkit: "Qt 5 / KDE Frameworks",
        limits: "a button pressed again within 400 ms is pressed once that time is up",
        task: kde_calculator,
    },
    Row {
        app: "qt6ct",
        toolkit: "Qt 6",
        limits: "a drop-down's list ignores accessibility choices: set_value clicks the item in the open list",
        task: qt6_settings,
    },
    Row {
        app: "xfce4-terminal",
        toolkit: "GTK3 + VTE",
        limits: "a long value shows its end: `read` pages through the rest",
        task: gtk3_terminal,
    },
    Row {
        app: "Firefox ESR",
        toolkit: "Gecko",
        limits: "fields and drop-downs ignore accessibility edits: set_value types",
        task: gecko,
    },
    Row {
        app: "Chromium",
        toolkit: "Chromium",
        limits: "fields have no accessibility edits: set_value types",
        task: chromium,
    },
    Row {
        app: "GNOME Help (yelp)",
        toolkit: "WebKitGTK",
        limits: "",
        task: webkit_help,
    },
    Row {
        app: "GNOME Web (epiphany)",
        toolkit: "WebKitGTK",
        limits: "a drop-down ignores accessibility choices: set_value types",
        task: epiphany,
    },
    Row {
        app: "LibreOffice Calc",
        toolkit: "LibreOffice (VCL)",
        limits: "only visible cells are read; empty ones are counted, not listed",
        task: calc,
    },
    Row {
        app: "LibreOffice Writer",
        toolkit: "LibreOffice (VCL)",
        limits: "only visible paragraphs are read",
        task: writer,
    },
    Row {
        app: "LibreOffice Impress",
        toolkit: "LibreOffice (VCL)",
        limits: "",
        task: impress,
    },
    Row {
        app: "zenity file chooser",
        toolkit: "GTK3",
        limits: "",
        task: file_chooser,
    },
    Row {
        app: "wish",
        toolkit: "Tk",
        limits: "no accessibility tree: screenshot and click by point",
        task: tk,
    },
    Row {
        app: "xterm",
        toolkit: "Xt (no toolkit tree)",
        limits: "no accessibility tree: zoom to read, click by point, type",
        task: xterm,
    },
];

/// Starts every app of the matrix at once, each on its own files in `dir`.
fn start_all(desk: &Desktop, dir: &Path) -> Started {
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    std::fs::write(dir.join("mousepad-note.txt"), "").unwrap();
    std::fs::write(dir.join("featherpad-fruit.txt"), "apple pear apple\n").unwrap();
    std::fs::write(dir.join("pick-me.txt"), "pick me\n").unwrap();
    std::fs::create_dir_all(dir.join("thunar-home")).unwrap();
    std::fs::create_dir_all(dir.join("firefox-profile")).unwrap();
    std::fs::create_dir_all(dir.join("chromium-profile")).unwrap();
    let tk_script = dir.join("order.tcl");
    std::fs::write(
        &tk_script,
        format!(
            "wm title . \"Tk Order\"\nwm geometry . 300x200+40+40\n\
             button .order -text Order -command {{set f [open {{{}}} w]; puts $f ordered; close $f}}\n\
             pack .order -fill both -expand 1\n",
            path("tk-clicked.txt")
        ),
    )
    .unwrap();
    let page = format!("file://{}", fixture("order.html").display());
    let mut apps = vec![
        desk.spawn("mousepad", &[&path("mousepad-note.txt")]),
        desk.spawn("thunar", &[&path("thunar-home")]),
        desk.spawn("gtk3-widget-factory", &[]),
        desk.spawn("gnome-calculator", &[]),
        desk.spawn("gnome-text-editor", &["--standalone"]),
        desk.spawn("gtk4-widget-factory", &[]),
        desk.spawn("featherpad", &[&path("featherpad-fruit.txt")]),
        desk.spawn("kcalc", &[]),
        desk.spawn("gimp", &["--no-splash"]),
        desk.spawn("yelp", &[]),
        desk.spawn("gnome-system-monitor", &[]),
        desk.spawn("epiphany-browser", &["--private-instance", &page]),
        desk.spawn(
            "epiphany-browser",
            &[
                "--private-instance",
                &format!("file://{}", fixture("form.html").display()),
            ],
        ),
        desk.spawn(
            "firefox-esr",
            &[
                "--new-instance",
                "--profile",
                &path("firefox-profile"),
                &page,
            ],
        ),
        common::chromium(desk, &dir.join("chromium-profile"), &[], &page),
        desk.spawn("wish", &[tk_script.to_str().unwrap()]),
        // Its settings land in a folder of the test's own.
        desk.spawn_with_env("qt6ct", &[], &[("XDG_CONFIG_HOME", &path("qt6ct-config"))]),
        desk.spawn(
            "xfce4-terminal",
            &[
                "--disable-server",
                "--title",
                "matrix terminal",
                "--working-directory",
                &path(""),
                "--geometry",
                "80x24+600+300",
            ],
        ),
        desk.spawn(
            "xterm",
            &["-T", "matrix xterm", "-geometry", "80x24+600+40"],
        ),
    ];
    let zenity_out = dir.join("zenity-answer.txt");
    let zenity = desk
        .command("zenity")
        .args([
            "--file-selection",
            "--title",
            "Pick a file",
            "--filename",
            &format!("{}/", dir.display()),
        ])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&zenity_out).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting zenity");
    apps.push(App::from_child(zenity, dir.join("zenity.stderr")));
    Started {
        dir: dir.to_owned(),
        apps: Mutex::new(apps),
        office: Mutex::new(start_office(desk, dir)),
        zenity_out,
    }
}

/// What a row's task cost an agent: the deskhand calls it made and the o200k tokens of their
/// replies.
#[derive(Clone, Copy, Default)]
struct Cost {
    calls: usize,
    tokens: usize,
}

impl Cost {
    fn of(replies: &[String], tokenizer: &tiktoken_rs::CoreBPE) -> Cost {
        Cost {
            calls: replies.len(),
            tokens: replies
                .iter()
                .map(|reply| tokenizer.encode_ordinary(reply).len())
                .sum(),
        }
    }
}

/// The two columns of counts, which differ from run to run with how long the apps take.
const COUNT_COLUMNS: usize = 2;

/// One row's outcome: the row, how its task ended, the marks it earned, what it cost.
type Outcome<'r> = (&'r Row, Result<(), String>, [Mark; 5], Cost);

fn table(results: &[Outcome<'_>]) -> String {
    let mut out = String::from(
        "| app | toolkit | read | text | act | menus | values | known limits | calls | reply tokens |\n\
         |---|---|---|---|---|---|---|---|---:|---:|\n",
    );
    let mut total = Cost::default();
    for (row, result, marks, cost) in results {
        let cells: Vec<&str> = marks.iter().map(|m| m.cell()).collect();
        let limits = match result {
            Ok(()) => row.limits.to_string(),
            Err(_) => "the task failed: see the test output".to_string(),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            row.app,
            row.toolkit,
            cells.join(" | "),
            limits,
            cost.calls,
            cost.tokens
        ));
        total.calls += cost.calls;
        total.tokens += cost.tokens;
    }
    out.push_str(&format!(
        "| all {} tasks | | | | | | | | {} | {} |\n",
        results.len(),
        total.calls,
        total.tokens
    ));
    out
}

/// A table without its counts: what must match between the README and a run.
fn without_counts(table: &str) -> String {
    table
        .lines()
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            let keep = cells.len().saturating_sub(COUNT_COLUMNS + 1);
            cells[..keep].join("|")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const START_MARK: &str =
    "<!-- compatibility matrix: generated by crates/deskhand/tests/matrix.rs -->";
const END_MARK: &str = "<!-- end of compatibility matrix -->";

#[test]
fn every_app_of_the_matrix_does_its_task() {
    let (_turn, desk) = desktop();
    let dir = desk.scratch("matrix");
    std::fs::create_dir_all(&dir).unwrap();
    let began = std::time::Instant::now();
    let started = start_all(desk, &dir);
    // Each app takes the focus when its window maps: the tasks begin once the windows stop
    // arriving, so no task loses its focus to an app still starting.
    let mut last = String::new();
    let mut steady_since = std::time::Instant::now();
    wait_until(START, || {
        let listed = desk.act("windows", json!({})).stdout;
        let titles: Vec<&str> = listed.lines().skip(1).collect();
        let now = titles.join("\n");
        if now != last {
            last = now;
            steady_since = std::time::Instant::now();
        }
        (titles.len() >= 20 && steady_since.elapsed() >= Duration::from_secs(3)).then_some(())
    });
    // Where the binary's time goes, for whoever keeps the suite quick (`--nocapture`).
    eprintln!("matrix: the apps started in {:.1?}", began.elapsed());
    // `DESKHAND_MATRIX_ROWS=calc,writer` runs only the rows whose app contains one of the
    // words, to work on them; the README is then left alone.
    let only: Option<Vec<String>> = std::env::var("DESKHAND_MATRIX_ROWS")
        .ok()
        .map(|rows| rows.split(',').map(|r| r.trim().to_lowercase()).collect());
    let tokenizer = tiktoken_rs::o200k_base().expect("the o200k tokenizer");
    let mut results = Vec::new();
    for row in &ROWS {
        if only
            .as_ref()
            .is_some_and(|only| !only.iter().any(|o| row.app.to_lowercase().contains(o)))
        {
            continue;
        }
        let marks = Marks::default();
        let row_began = std::time::Instant::now();
        desk.take_replies();
        let outcome = catch_unwind(AssertUnwindSafe(|| (row.task)(desk, &started, &marks)))
            .map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            });
        let cost = Cost::of(&desk.take_replies(), &tokenizer);
        eprintln!(
            "matrix: {} took {:.1?}, {} calls, {} reply tokens",
            row.app,
            row_began.elapsed(),
            cost.calls,
            cost.tokens
        );
        if let Err(why) = &outcome {
            eprintln!("matrix row {} failed: {why}", row.app);
        }
        let earned = [
            Column::Read,
            Column::Text,
            Column::Act,
            Column::Menus,
            Column::Values,
        ]
        .map(|c| marks.get(c));
        results.push((row, outcome, earned, cost));
    }
    let generated = table(&results);
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/compatibility.md");
    std::fs::write(&target, &generated).unwrap();
    drop(started.apps.lock().unwrap().drain(..));

    let failed: Vec<String> = results
        .iter()
        .filter_map(|(row, outcome, ..)| {
            outcome
                .as_ref()
                .err()
                .map(|why| format!("{}: {why}", row.app))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "matrix rows failed:\n{}",
        failed.join("\n\n")
    );
    if only.is_some() {
        return;
    }

    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let (before, rest) = readme
        .split_once(START_MARK)
        .expect("README has the matrix markers");
    let (shown, after) = rest
        .split_once(END_MARK)
        .expect("README has the matrix end marker");
    let updated = format!("{before}{START_MARK}\n{generated}{END_MARK}{after}");
    // The counts vary with how fast the apps come up; the rest must be what this run saw.
    if std::env::var_os("DESKHAND_UPDATE_README").is_some() {
        std::fs::write(&readme_path, updated).unwrap();
    } else if without_counts(shown.trim()) != without_counts(generated.trim()) {
        panic!(
            "the README's compatibility table differs from what this run observed ({}); rerun with DESKHAND_UPDATE_README=1 to write it",
            target.display()
        );
    }
}
