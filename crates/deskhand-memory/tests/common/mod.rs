//! A small remembered desktop: Mousepad walked through its preferences, shared by the tests.
#![allow(dead_code)] // each test binary uses its own part of this module

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use deskhand_core::memory::{
    Control, Effect, Memory, Recall, Recalled, Sighting, Step, Transition, fingerprint,
};
use deskhand_core::model::Role;

/// 2026-11-30 04:00 UTC.
pub const BASE: u64 = 1_796_011_200;

pub fn at(minutes: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(BASE + minutes * 60)
}

pub fn control(role: Role, name: &str) -> Control {
    Control {
        role,
        name: name.to_owned(),
    }
}

pub fn window(app: &str, title: &str, controls: &[(Role, &str)]) -> Sighting {
    let mut controls: Vec<Control> = controls
        .iter()
        .map(|(role, name)| control(*role, name))
        .collect();
    controls.sort();
    controls.dedup();
    Sighting {
        app: app.to_owned(),
        title: title.to_owned(),
        fingerprint: fingerprint(app, Role::Window, &controls),
        controls,
    }
}

pub fn main_window() -> Sighting {
    window(
        "mousepad",
        "Untitled 1 - Mousepad",
        &[
            (Role::Text, "Document"),
            (Role::Button, "New"),
            (Role::Button, "Open"),
            (Role::Button, "Save"),
            (Role::Button, "Find"),
        ],
    )
}

pub fn preferences() -> Sighting {
    window(
        "mousepad",
        "Mousepad Preferences",
        &[
            (Role::Tab, "View"),
            (Role::Tab, "Editor"),
            (Role::Tab, "Window"),
            (Role::Check, "Show line numbers"),
            (Role::Button, "Font"),
            (Role::Button, "Close"),
            (Role::Button, "Help"),
        ],
    )
}

pub fn font_chooser() -> Sighting {
    window(
        "mousepad",
        "Choose Font",
        &[
            (Role::Text, "Search font name"),
            (Role::Button, "Select"),
            (Role::Button, "Cancel"),
        ],
    )
}

pub fn about() -> Sighting {
    window(
        "mousepad",
        "About Mousepad",
        &[(Role::Button, "Credits"), (Role::Button, "Close")],
    )
}

pub fn calculator() -> Sighting {
    window(
        "gnome-calculator",
        "Calculator",
        &[(Role::Button, "7"), (Role::Button, "Undo")],
    )
}

pub fn select(path: &[&str]) -> Step {
    Step::Select(path.iter().map(|item| item.to_string()).collect())
}

pub fn click(role: Role, name: &str) -> Step {
    Step::Click(control(role, name))
}

pub fn learn(memory: &dyn Memory, from: &Sighting, step: Step, effect: Effect, minute: u64) {
    memory
        .learned(
            &Transition {
                from: from.clone(),
                step,
                effect,
            },
            at(minute),
        )
        .unwrap();
}

/// The walk: the editor, Edit → Preferences…, the Editor tab, the font button, back to the
/// editor; an About window seen once with no recorded way in; a calculator.
pub fn walk(memory: &dyn Memory) {
    memory.saw(&main_window(), at(0)).unwrap();
    memory.saw(&about(), at(1)).unwrap();
    memory.saw(&calculator(), at(2)).unwrap();
    memory.saw(&main_window(), at(3)).unwrap();
    learn(
        memory,
        &main_window(),
        select(&["Edit", "Preferences…"]),
        Effect::Window(preferences()),
        4,
    );
    memory.saw(&preferences(), at(4)).unwrap();
    learn(
        memory,
        &preferences(),
        click(Role::Tab, "Editor"),
        Effect::Controls(vec![
            control(Role::Check, "Auto indent"),
            control(Role::Spin, "Tab width"),
        ]),
        5,
    );
    learn(
        memory,
        &preferences(),
        click(Role::Button, "Font"),
        Effect::Window(font_chooser()),
        6,
    );
    memory.saw(&font_chooser(), at(6)).unwrap();
    learn(
        memory,
        &font_chooser(),
        click(Role::Button, "Cancel"),
        Effect::Window(preferences()),
        7,
    );
    learn(
        memory,
        &preferences(),
        click(Role::Button, "Close"),
        Effect::Window(main_window()),
        8,
    );
    memory.saw(&main_window(), at(8)).unwrap();
}

pub fn recall(
    memory: &dyn Memory,
    app: Option<&str>,
    window: Option<&str>,
    query: Option<&str>,
) -> Recalled {
    memory
        .recall(
            &Recall {
                app: app.map(str::to_owned),
                window: window.map(str::to_owned),
                query: query.map(str::to_owned),
            },
            at(20),
        )
        .unwrap()
}

/// A fresh folder under the system's temporary one, removed when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "deskhand-memory-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
