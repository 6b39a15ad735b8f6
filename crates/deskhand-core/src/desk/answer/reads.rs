//! The reads' typed results: listings, an observation, pixels, a wait's end, a batch's steps.

use serde::Serialize;
use serde_json::json;

use crate::model::{InstalledApp, Rect};
use crate::render::{FENCE, MAX_NAME_CHARS, Rendered, cut, escape, one_line, plural, thousands};

use crate::desk::reply::{Outcome, Reply};

use super::words::{ElementSaid, SurfaceSaid};

/// What a read found, as typed fields: like [`Did`], its text and its JSON come from them.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Listed {
    Apps {
        apps: Vec<AppRow>,
    },
    Windows {
        windows: Vec<WindowRow>,
        /// Why no window's position is known (GNOME without deskhand's extension).
        #[serde(skip_serializing_if = "Option::is_none")]
        positions_unknown: Option<String>,
        /// Listed only where there are two or more.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        monitors: Vec<MonitorRow>,
    },
    Installed {
        installed: Vec<InstalledApp>,
        /// Kinds of apps that could not be listed, one sentence each.
        not_listed: Vec<String>,
    },
    Clipboard {
        text: Option<String>,
        types: Vec<String>,
    },
    Read(Page),
}

/// A page of one element's text; its JSON names the action, as the actions' results do.
#[derive(Serialize)]
#[serde(tag = "action", rename = "read")]
pub(crate) struct Page {
    pub(crate) text: String,
    pub(crate) offset: usize,
    pub(crate) end: usize,
    pub(crate) total: usize,
    /// The element as the header names it.
    #[serde(skip)]
    pub(crate) element: ElementSaid,
    /// Its text is its pixels read by OCR.
    #[serde(skip)]
    pub(crate) by_ocr: bool,
    /// Read by OCR, no text was found in its pixels, a region of this width and height.
    #[serde(skip)]
    pub(crate) nothing_in: Option<(u32, u32)>,
}

#[derive(Serialize)]
pub(crate) struct AppRow {
    /// `a3`.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) pid: u32,
    pub(crate) windows: usize,
    pub(crate) focused: bool,
}

#[derive(Serialize)]
pub(crate) struct WindowRow {
    /// `w3`.
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) app: String,
    pub(crate) app_id: Option<String>,
    /// `None` where positions are unknown; the size is then given alone.
    pub(crate) bounds: Option<Rect>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) size: Option<[u32; 2]>,
    pub(crate) focused: bool,
    pub(crate) minimized: bool,
    /// `m2`: the monitor most of it is on, where there are two or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) monitor: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct MonitorRow {
    /// `m2`.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) bounds: Rect,
    pub(crate) scale: f64,
    pub(crate) primary: bool,
}

impl Listed {
    fn text(&self) -> String {
        match self {
            Listed::Apps { apps } => {
                let mut text = format!("apps · {}\n", plural(apps.len(), "app", "apps"));
                for app in apps {
                    text.push_str(&format!(
                        "{} \"{}\" pid {} · {}{}\n",
                        app.id,
                        escape(&app.name),
                        app.pid,
                        plural(app.windows, "window", "windows"),
                        if app.focused { " · focused" } else { "" }
                    ));
                }
                text
            }
            Listed::Windows {
                windows,
                positions_unknown,
                monitors,
            } => {
                let mut text = format!(
                    "windows · {} · {}\n",
                    plural(windows.len(), "window", "windows"),
                    match positions_unknown {
                        Some(why) => format!("focused first · {why}"),
                        None => "top first".to_owned(),
                    }
                );
                if !monitors.is_empty() {
                    let listed: Vec<String> = monitors
                        .iter()
                        .map(|m| {
                            let b = m.bounds;
                            format!(
                                "{} \"{}\" {}x{} at {},{}{}{}",
                                m.id,
                                escape(&m.name),
                                b.width,
                                b.height,
                                b.x,
                                b.y,
                                if m.scale == 1.0 {
                                    String::new()
                                } else {
                                    format!(" scale {}", m.scale)
                                },
                                if m.primary { " primary" } else { "" }
                            )
                        })
                        .collect();
                    text.push_str(&format!("monitors · {}\n", listed.join(" · ")));
                }
                for window in windows {
                    let app = window
                        .app_id
                        .as_ref()
                        .map(|id| format!("{id} "))
                        .unwrap_or_default();
                    let place = match (window.bounds, window.size) {
                        (Some(b), _) => format!("{},{} {}x{}", b.x, b.y, b.width, b.height),
                        (None, Some([width, height])) => {
                            format!("size {width}x{height}, position unknown")
                        }
                        (None, None) => "position unknown".to_owned(),
                    };
                    let place = match &window.monitor {
                        Some(monitor) => format!("{place} on {monitor}"),
                        None => place,
                    };
                    text.push_str(&format!(
                        "{} \"{}\" · app {app}\"{}\" · {place}{}{}\n",
                        window.id,
                        escape(&cut(&window.title, MAX_NAME_CHARS).0),
                        escape(&window.app),
                        if window.focused { " · focused" } else { "" },
                        if window.minimized {
                            " · minimized"
                        } else {
                            ""
                        },
                    ));
                }
                text
            }
            Listed::Installed {
                installed,
                not_listed,
            } => {
                let not_listed: String = not_listed
                    .iter()
                    .map(|gap| format!(" · not listed: {}", escape(gap)))
                    .collect();
                let mut text = format!(
                    "installed · {} · launch one with {{\"action\": \"launch\", \"app\": id}}{not_listed}\n{FENCE}\n",
                    plural(installed.len(), "app", "apps")
                );
                for app in installed {
                    text.push_str(&format!("{} \"{}\"\n", escape(&app.id), escape(&app.name)));
                }
                text
            }
            Listed::Clipboard { text, types } => {
                let types_listed = if types.is_empty() {
                    "no types".to_string()
                } else {
                    types.join(", ")
                };
                match text {
                    Some(text) => format!(
                        "clipboard · {} · types: {types_listed}\n{FENCE}\n\"{}\"\n",
                        plural(text.chars().count(), "character", "characters"),
                        escape(text)
                    ),
                    None if types.is_empty() => "clipboard · empty\n".to_string(),
                    None => format!("clipboard · no text · types: {types_listed}\n"),
                }
            }
            Listed::Read(Page {
                text,
                offset,
                end,
                total,
                element,
                by_ocr,
                nothing_in,
            }) => {
                let more = if end < total {
                    format!(" · more: read with `offset` {end}")
                } else {
                    String::new()
                };
                let mut body = format!(
                    "read {element}{} · characters {}–{} of {}{more}\n{FENCE}\n",
                    match (by_ocr, nothing_in) {
                        (true, Some((width, height))) => format!(
                            " (its pixels, read by OCR: no text found in its {width}x{height} px region)"
                        ),
                        (true, None) => " (its pixels, read by OCR)".to_owned(),
                        (false, _) => String::new(),
                    },
                    thousands(*offset),
                    thousands(*end),
                    thousands(*total)
                );
                for line in text.split('\n') {
                    body.push_str(&format!("\"{}\"\n", escape(line)));
                }
                body
            }
        }
    }
}

impl From<Listed> for Reply {
    fn from(listed: Listed) -> Reply {
        Reply {
            text: listed.text(),
            outcome: Outcome::Observed,
            image: None,
            data: serde_json::to_value(&listed).unwrap_or_default(),
        }
    }
}

/// An observation: the tree as rendered, and what the header says of how it was read.
pub(crate) struct Observed {
    /// `w3` or `screen`.
    pub(crate) surface: String,
    /// The surface as the header names it: `w3 "Title"`.
    pub(crate) described: SurfaceSaid,
    pub(crate) bounds: Rect,
    /// Whether the surface is one window, not the screen.
    pub(crate) of_window: bool,
    /// The window had no accessibility tree and its tree is the text read from its pixels.
    pub(crate) from_pixels: bool,
    /// Why that window has no tree when its app could have one, with the fix.
    pub(crate) missing_bridge: Option<String>,
    /// No element at all was found.
    pub(crate) none_found: bool,
    /// `ocr: true`: how many texts read from pixels were added where the tree shows none.
    pub(crate) added: Option<usize>,
    /// Why a tree was read only in part, per window.
    pub(crate) partial: Vec<String>,
    /// Windows of a screen surface whose tree could not be read, with why.
    pub(crate) unreadable: Vec<String>,
    pub(crate) positions_unknown: Option<String>,
    /// What deskhand remembers of this window and says once.
    pub(crate) learned: Option<String>,
    pub(crate) rendered: Rendered,
}

impl From<Observed> for Reply {
    fn from(observed: Observed) -> Reply {
        let Observed {
            surface,
            described,
            bounds,
            of_window,
            from_pixels,
            missing_bridge,
            none_found,
            added,
            partial,
            unreadable,
            positions_unknown,
            learned,
            rendered,
        } = observed;
        let mut header = format!(
            "observe {described} · {}x{} px · {}",
            bounds.width,
            bounds.height,
            rendered.summary(&surface)
        );
        if let Some(why) = &positions_unknown {
            header.push_str(&format!(" · no points: {why}"));
        }
        if from_pixels {
            header.push_str(" · no accessibility tree: text read from pixels");
            if none_found {
                header.push_str(", none found (take a `screenshot` to see what it shows)");
            }
            if let Some(why) = &missing_bridge {
                header.push_str(&format!(
                    " · why: {}; `deskhand doctor` has the details",
                    one_line(why)
                ));
            }
        }
        if let Some(added) = added {
            header.push_str(&format!(
                " · {} read from pixels where the tree shows none",
                plural(added, "text", "texts")
            ));
        }
        if !partial.is_empty() {
            header.push_str(&format!(" · partial: {}", partial.join("; ")));
        }
        if !unreadable.is_empty() {
            header.push_str(&format!(" · unreadable: {}", unreadable.join("; ")));
        }
        // App text is fenced: the line after the header says quoted text is data.
        let mut text = format!("{header}\n{FENCE}\n{}", rendered.body);
        if let Some(learned) = learned {
            text.push_str(&learned);
            text.push('\n');
        }
        let mut data = json!({
            "surface": surface,
            "bounds": bounds,
            "nodes": rendered.nodes,
            "names_cut": rendered.names_cut,
            "values_cut": rendered.values_cut,
            "hidden": rendered.hidden,
            "partial": partial,
            "elements": rendered.elements,
        });
        if from_pixels {
            data["from_pixels"] = json!(true);
        }
        if let Some(why) = positions_unknown {
            if of_window {
                data["bounds"] = serde_json::Value::Null;
            }
            data["positions_unknown"] = json!(why);
        }
        // Only what a call asked for, or a cut, adds fields: the common reply stays as short.
        if rendered.total > rendered.elements.len() {
            data["elements_total"] = json!(rendered.total);
            data["limit"] = json!(rendered.limit);
        }
        if let Some((query, matches)) = &rendered.query {
            data["query"] = json!(query);
            data["matches"] = json!(matches);
        }
        if rendered.below_depth > 0 {
            data["below_depth"] = json!(rendered.below_depth);
        }
        if let Some(since) = rendered.since {
            data["since"] = match since {
                Some(changes) => {
                    json!({"previous": true, "added": changes.added, "removed": changes.removed, "changed": changes.changed})
                }
                None => json!({"previous": false}),
            };
        }
        Reply {
            text,
            outcome: Outcome::Observed,
            image: None,
            data,
        }
    }
}

/// A wait's end: its conditions held, or the time ran out with the evidence of the last look.
#[derive(Serialize)]
pub(crate) struct Waited {
    pub(crate) held: bool,
    pub(crate) elapsed_ms: u64,
    /// On a timeout: the conditions that did not hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) not_met: Option<Vec<String>>,
    /// Per condition, what was seen at the last look.
    pub(crate) evidence: Vec<String>,
    #[serde(flatten)]
    pub(crate) found: Option<FoundWindow>,
    /// What was waited on: `w3`, `screen`.
    #[serde(skip)]
    pub(crate) label: String,
    #[serde(skip)]
    pub(crate) looks: u32,
}

/// The windows a held wait's conditions found.
#[derive(Serialize)]
pub(crate) struct FoundWindow {
    pub(crate) new_window: Option<String>,
    /// The window a window condition found, which the wait makes current.
    pub(crate) window: Option<String>,
}

impl From<Waited> for Reply {
    fn from(waited: Waited) -> Reply {
        let seconds = waited.elapsed_ms as f64 / 1000.0;
        let (label, looks, evidence) = (&waited.label, waited.looks, waited.evidence.join("\n"));
        let (text, outcome) = match &waited.not_met {
            None => (
                format!(
                    "wait {label} · held after {seconds:.1} s ({looks} {})\n{FENCE}\n{evidence}\n",
                    if looks == 1 { "look" } else { "looks" },
                ),
                Outcome::Observed,
            ),
            Some(unmet) => (
                format!(
                    "timeout: waited {seconds:.1} s on {label} ({looks} looks); not met: {}; what was there at the last look follows; wait again, or observe to see why\n{FENCE}\n{evidence}\n",
                    unmet.join("; "),
                ),
                Outcome::Failed,
            ),
        };
        Reply {
            text,
            outcome,
            image: None,
            data: serde_json::to_value(&waited).unwrap_or_default(),
        }
    }
}

/// A batch's steps as they ran, up to the first that failed.
pub(crate) struct Batched {
    pub(crate) steps: Vec<Step>,
    /// How many steps the batch had.
    pub(crate) total: usize,
    /// Whether a step that ran was an action, so a stop may have left changes behind.
    pub(crate) changed_something: bool,
    /// The outcome of the last step that ran.
    pub(crate) last_outcome: Outcome,
}

pub(crate) struct Step {
    pub(crate) index: usize,
    pub(crate) action: &'static str,
    pub(crate) result: crate::error::Result<Reply>,
}

impl From<Batched> for Reply {
    fn from(batched: Batched) -> Reply {
        let total = batched.total;
        let mut text = String::new();
        let mut listed = Vec::with_capacity(batched.steps.len());
        let mut failed_index = None;
        let mut image = None;
        for Step {
            index,
            action,
            result,
        } in batched.steps
        {
            match result {
                Ok(reply) => {
                    let failed = reply.outcome == Outcome::Failed;
                    if failed {
                        failed_index = Some(index);
                    }
                    text.push_str(&format!("[{index}] {}", indent(&reply.text)));
                    listed.push(json!({
                        "index": index, "action": action, "ok": !failed,
                        "outcome": reply.outcome, "text": reply.text, "data": reply.data,
                    }));
                    if reply.image.is_some() {
                        image = reply.image;
                    }
                }
                Err(err) => {
                    failed_index = Some(index);
                    text.push_str(&format!("[{index}] {}", err.reply_text()));
                    if err.kind == crate::error::ErrorKind::Cancelled {
                        text.push_str("the client cancelled the batch\n");
                    }
                    listed.push(json!({
                        "index": index, "action": action, "ok": false,
                        "error": err.kind, "message": err.message,
                    }));
                }
            }
        }
        let completed = failed_index.unwrap_or(total);
        let header = match failed_index {
            None => format!("batch · {completed} of {total} steps completed\n"),
            Some(index) => format!(
                "batch · {completed} of {total} steps completed · stopped at step {index}{}\n",
                if batched.changed_something {
                    "; the steps before it took effect: check before running them again"
                } else {
                    "; nothing was changed"
                }
            ),
        };
        let outcome = match failed_index {
            Some(_) if batched.changed_something => Outcome::Unconfirmed,
            Some(_) => Outcome::Failed,
            None if batched.changed_something => Outcome::Done,
            None => batched.last_outcome,
        };
        Reply {
            text: format!("{header}{text}"),
            outcome,
            image,
            data: json!({
                "steps": listed, "completed": completed, "failed_index": failed_index,
            }),
        }
    }
}

/// A step's reply under its `[i]` marker, its later lines indented.
fn indent(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                line.to_owned()
            } else {
                format!("    {line}")
            }
        })
        .collect();
    lines.join("\n") + "\n"
}

/// A screenshot or a zoom: the picture, and what it shows.
#[derive(Serialize)]
pub(crate) struct Captured {
    pub(crate) surface: String,
    /// `screenshot` or `zoom`.
    pub(crate) kind: &'static str,
    /// The screen pixels it shows.
    pub(crate) pixels: Rect,
    /// The picture's size, after a screenshot is scaled down to the largest edge allowed.
    pub(crate) width: u32,
    pub(crate) height: u32,
    #[serde(skip)]
    pub(crate) described: SurfaceSaid,
    #[serde(skip)]
    pub(crate) region: Option<[f64; 4]>,
    /// The size on the screen, before any scaling.
    #[serde(skip)]
    pub(crate) native: [u32; 2],
    #[serde(skip)]
    pub(crate) png: Vec<u8>,
}

impl From<Captured> for Reply {
    fn from(captured: Captured) -> Reply {
        let [native_w, native_h] = captured.native;
        let scaled = if [captured.width, captured.height] != captured.native {
            format!(" · scaled to {}x{}", captured.width, captured.height)
        } else {
            String::new()
        };
        let region = captured
            .region
            .map(|[x0, y0, x1, y1]| format!(" region [{x0}, {y0}, {x1}, {y1}]"))
            .unwrap_or_default();
        Reply {
            text: format!(
                "{} {}{region} · {native_w}x{native_h} px{scaled}\n",
                captured.kind, captured.described
            ),
            outcome: Outcome::Observed,
            data: serde_json::to_value(&captured).unwrap_or_default(),
            image: Some(captured.png),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_without_a_known_position_gives_its_size_alone_in_both_forms() {
        let row = |bounds, size| WindowRow {
            id: "w1".into(),
            title: "Calculator".into(),
            app: "gnome-calculator".into(),
            app_id: Some("a1".into()),
            bounds,
            size,
            focused: true,
            minimized: false,
            monitor: None,
        };
        let b = Rect {
            x: 5,
            y: 6,
            width: 300,
            height: 400,
        };
        let placed = Reply::from(Listed::Windows {
            windows: vec![row(Some(b), None)],
            positions_unknown: None,
            monitors: Vec::new(),
        });
        assert!(
            placed.text.contains("· 5,6 300x400 · focused"),
            "{}",
            placed.text
        );
        assert_eq!(placed.data["windows"][0]["bounds"]["width"], 300);
        assert!(placed.data["windows"][0].get("size").is_none());
        assert!(placed.data.get("positions_unknown").is_none());
        let unplaced = Reply::from(Listed::Windows {
            windows: vec![row(None, Some([300, 400]))],
            positions_unknown: Some("the extension is not loaded".into()),
            monitors: Vec::new(),
        });
        assert!(
            unplaced
                .text
                .starts_with("windows · 1 window · focused first · the extension is not loaded\n"),
            "{}",
            unplaced.text
        );
        assert!(unplaced.text.contains("size 300x400, position unknown"));
        assert!(unplaced.data["windows"][0]["bounds"].is_null());
        assert_eq!(
            unplaced.data["windows"][0]["size"],
            serde_json::json!([300, 400])
        );
        assert_eq!(
            unplaced.data["positions_unknown"],
            "the extension is not loaded"
        );
    }

    #[test]
    fn a_page_of_text_names_its_action_and_keeps_its_label_out_of_the_data() {
        let reply = Reply::from(Listed::Read(Page {
            text: "one\ntwo".into(),
            offset: 0,
            end: 7,
            total: 12,
            element: ElementSaid {
                id: crate::action::RefId(4),
                role: crate::model::Role::Text,
                name: "Notes".into(),
            },
            by_ocr: false,
            nothing_in: None,
        }));
        assert_eq!(
            reply.data,
            json!({"action": "read", "text": "one\ntwo", "offset": 0, "end": 7, "total": 12})
        );
        assert!(
            reply.text.starts_with(
                "read e4 text \"Notes\" · characters 0–7 of 12 · more: read with `offset` 7\n"
            ),
            "{}",
            reply.text
        );
        assert!(reply.text.ends_with("\"one\"\n\"two\"\n"), "{}", reply.text);
    }
}
