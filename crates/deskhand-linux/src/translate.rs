//! Pure translation from AT-SPI's roles and states to the core model; no bus needed to test it.

use atspi::{Role as A, State, StateSet};
use deskhand_core::model::{Role, States};

pub fn role(raw: u32) -> Role {
    let Ok(role) = A::try_from(raw) else {
        return Role::Unknown;
    };
    match role {
        A::Frame | A::Window | A::InternalFrame | A::Application => Role::Window,
        A::Dialog | A::FileChooser | A::ColorChooser | A::FontChooser | A::OptionPane => {
            Role::Dialog
        }
        A::Button | A::PushButtonMenu => Role::Button,
        A::ToggleButton => Role::Toggle,
        A::CheckBox | A::CheckMenuItem => Role::Check,
        A::RadioButton | A::RadioMenuItem => Role::Radio,
        A::Text | A::Entry | A::Editbar | A::DateEditor | A::Autocomplete => Role::Text,
        A::Terminal => Role::Terminal,
        A::PasswordText => Role::Password,
        A::Label | A::Static | A::AcceleratorLabel | A::Caption | A::Comment => Role::Label,
        A::Link => Role::Link,
        A::Image | A::Icon | A::DesktopIcon | A::Animation | A::ImageMap => Role::Image,
        A::MenuBar => Role::Menubar,
        A::Menu | A::PopupMenu => Role::Menu,
        A::MenuItem | A::TearoffMenuItem => Role::Menuitem,
        A::ComboBox => Role::Combobox,
        A::Slider | A::Dial => Role::Slider,
        A::SpinButton => Role::Spin,
        A::ScrollBar => Role::Scrollbar,
        A::List | A::ListBox | A::DescriptionList => Role::List,
        A::ListItem | A::DescriptionTerm | A::DescriptionValue => Role::Listitem,
        A::Tree | A::TreeTable => Role::Tree,
        A::TreeItem => Role::Treeitem,
        A::Table | A::DocumentSpreadsheet => Role::Table,
        A::TableRow => Role::Row,
        A::TableCell => Role::Cell,
        A::ColumnHeader | A::RowHeader | A::TableColumnHeader | A::TableRowHeader | A::Header => {
            Role::Header
        }
        A::PageTabList => Role::Tablist,
        A::PageTab => Role::Tab,
        A::ToolBar => Role::Toolbar,
        A::StatusBar | A::InfoBar | A::Notification => Role::Statusbar,
        A::ProgressBar | A::LevelBar => Role::Progress,
        A::Separator => Role::Separator,
        A::DocumentFrame
        | A::DocumentWeb
        | A::DocumentText
        | A::DocumentEmail
        | A::DocumentPresentation => Role::Document,
        A::Heading => Role::Heading,
        A::Paragraph | A::BlockQuote => Role::Paragraph,
        A::Grouping | A::Section | A::Landmark | A::Article | A::Form => Role::Group,
        A::Alert => Role::Alert,
        A::ToolTip => Role::Tooltip,
        A::Canvas | A::DrawingArea => Role::Canvas,
        A::ScrollPane | A::Viewport => Role::Scrollpane,
        A::Filler
        | A::Panel
        | A::RootPane
        | A::LayeredPane
        | A::GlassPane
        | A::SplitPane
        | A::HTMLContainer
        | A::Embedded
        | A::RedundantObject
        | A::Page
        | A::Footer => Role::Generic,
        _ => Role::Unknown,
    }
}

/// AT-SPI sends states as two 32-bit words, low word first.
pub fn state_set(words: &[u32]) -> StateSet {
    let low = words.first().copied().unwrap_or(0) as u64;
    let high = words.get(1).copied().unwrap_or(0) as u64;
    // Bits this crate version does not know are dropped, not fatal.
    StateSet::from_bits(low | (high << 32)).unwrap_or_else(|err| StateSet::new(err.truncate()))
}

/// `showing_reliable` is false for toolkits (GTK 4.8) that set Showing on the toplevel only.
pub fn states(set: StateSet, role: Role, showing_reliable: bool) -> States {
    let has = |state: State| set.contains(state);
    States {
        enabled: has(State::Enabled) || has(State::Sensitive),
        visible: has(State::Visible) && (has(State::Showing) || !showing_reliable),
        focused: has(State::Focused),
        focusable: has(State::Focusable),
        checked: has(State::Checked),
        checkable: has(State::Checkable),
        selected: has(State::Selected) && role != Role::Window,
        expanded: has(State::Expanded),
        expandable: has(State::Expandable),
        editable: has(State::Editable) && !has(State::ReadOnly),
        pressed: has(State::Pressed),
        modal: has(State::Modal),
        from_pixels: false,
    }
}

/// An element's name as an observation lists it: cleaned of a toolkit's markup and, from GTK
/// 4.8 (`gtk4`), of its class names and doubled labels. The walk and the check that a ref still
/// names its element both name elements so.
pub fn listed_name(name: String, gtk4: bool) -> String {
    clean_name(if gtk4 { gtk4_name(name) } else { name })
}

/// GTK 4.8 names an unnamed widget after its class ("GtkMenuButton", or an app's own:
/// "EditorSourceView") and doubles a button's label into its name ("7 7"); neither is what a
/// person reads on screen.
pub fn gtk4_name(name: String) -> String {
    let class_name = ["Gtk", "Adw"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_uppercase())
                && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    });
    if class_name || app_class_name(&name) {
        return String::new();
    }
    let half = name.len() / 2;
    if name.len() % 2 == 1
        && name.is_char_boundary(half)
        && name[half..].starts_with(' ')
        && name[..half] == name[half + 1..]
    {
        return name[..half].to_owned();
    }
    name
}

/// An app's own widget class as GTK 4.8 names an unnamed widget of it: one word of three or more
/// capitalized parts, the last a kind of widget ("EditorSourceView", gnome-text-editor's text).
fn app_class_name(name: &str) -> bool {
    const KINDS: [&str; 14] = [
        "View", "Box", "Bar", "Button", "Widget", "Label", "Frame", "Window", "Grid", "Entry",
        "Area", "Stack", "Row", "Popover",
    ];
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && name.chars().filter(char::is_ascii_uppercase).count() >= 3
        && KINDS.iter().any(|kind| name.ends_with(kind))
}

/// A name as a person reads it, whatever the toolkit put in it: a label with its mnemonic
/// marker doubled by its plain text ("_Discard Discard"), or a Qt tooltip in rich text
/// ("<p style='white-space:pre'>Calculate number of words</p>").
pub fn clean_name(name: String) -> String {
    let words: Vec<&str> = name.split(' ').collect();
    if words.len().is_multiple_of(2) {
        let (marked, plain) = words.split_at(words.len() / 2);
        let (marked, plain) = (marked.join(" "), plain.join(" "));
        if marked.contains('_') && marked.replace('_', "") == plain {
            return plain;
        }
    }
    let trimmed = name.trim_start();
    if !(trimmed.starts_with('<') && trimmed.contains('>')) {
        return name;
    }
    let body = without_unshown(trimmed);
    let mut text = String::with_capacity(name.len());
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Rich text without what it does not show: its head (the style sheet Qt writes there) and any
/// style element.
fn without_unshown(rich: &str) -> String {
    let mut text = rich.to_owned();
    for tag in ["head", "style"] {
        loop {
            let lower = text.to_ascii_lowercase();
            let Some(open) = lower.find(&format!("<{tag}")) else {
                break;
            };
            let close_tag = format!("</{tag}>");
            let Some(close) = lower[open..].find(&close_tag) else {
                break;
            };
            text.replace_range(open..open + close + close_tag.len(), " ");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qt_rich_text_names_keep_only_what_they_show() {
        assert_eq!(
            clean_name(
                "<html><head/><body><p>Save current plot to a file</p></body></html>".into()
            ),
            "Save current plot to a file"
        );
        assert_eq!(
            clean_name(
                "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.0//EN\"><html><head><meta name=\"qrichtext\" content=\"1\" /><style type=\"text/css\">p, li { white-space: pre-wrap; }</style></head><body><p>Ensure all margins</p></body></html>".into()
            ),
            "Ensure all margins"
        );
        assert_eq!(
            clean_name("<qt>Ensure all margins are <b>equal</b></qt>".into()),
            "Ensure all margins are equal"
        );
    }

    #[test]
    fn names_lose_doubled_mnemonics_and_rich_text() {
        assert_eq!(clean_name("_Discard Discard".into()), "Discard");
        assert_eq!(clean_name("Save _As Save As".into()), "Save As");
        assert_eq!(
            clean_name(
                "<p style='white-space:pre'>Calculate number of words\n(For huge texts, this may be CPU-intensive.)</p>"
                    .into()
            ),
            "Calculate number of words (For huge texts, this may be CPU-intensive.)"
        );
        assert_eq!(clean_name("<b>Tom &amp; Jerry</b>".into()), "Tom & Jerry");
        assert_eq!(clean_name("a < b".into()), "a < b");
        assert_eq!(clean_name("snake_case name".into()), "snake_case name");
    }

    #[test]
    fn roles_map_to_what_agents_act_on() {
        assert_eq!(role(A::Button as u32), Role::Button);
        assert_eq!(role(A::PasswordText as u32), Role::Password);
        assert_eq!(role(A::Frame as u32), Role::Window);
        assert_eq!(role(A::Filler as u32), Role::Generic);
        assert_eq!(role(A::Entry as u32), Role::Text);
        assert_eq!(role(9999), Role::Unknown);
    }

    #[test]
    fn gtk4_names_lose_class_names_and_doubling() {
        assert_eq!(gtk4_name("GtkMenuButton".into()), "");
        assert_eq!(gtk4_name("AdwGizmo".into()), "");
        assert_eq!(gtk4_name("EditorSourceView".into()), "");
        assert_eq!(gtk4_name("PanelFrameHeaderBar".into()), "");
        assert_eq!(gtk4_name("TextView".into()), "TextView");
        assert_eq!(gtk4_name("LibreOffice".into()), "LibreOffice");
        assert_eq!(gtk4_name("Open in New Window".into()), "Open in New Window");
        assert_eq!(gtk4_name("7 7".into()), "7");
        assert_eq!(gtk4_name("× ×".into()), "×");
        assert_eq!(gtk4_name("mod mod".into()), "mod");
        assert_eq!(gtk4_name("Gtk is fine".into()), "Gtk is fine");
        assert_eq!(gtk4_name("New window".into()), "New window");
        assert_eq!(gtk4_name("Undo".into()), "Undo");
    }

    #[test]
    fn states_decode_from_both_words() {
        let set: StateSet = [
            State::Showing,
            State::Visible,
            State::Enabled,
            State::Checked,
        ]
        .into_iter()
        .collect();
        let bits = set.bits();
        let words = [bits as u32, (bits >> 32) as u32];
        let states = states(state_set(&words), Role::Check, true);
        assert!(states.visible && states.enabled && states.checked);
        assert!(!states.focused);
        let gtk4: StateSet = [State::Visible].into_iter().collect();
        let bits = gtk4.bits();
        let words = [bits as u32, (bits >> 32) as u32];
        assert!(!super::states(state_set(&words), Role::Button, true).visible);
        assert!(super::states(state_set(&words), Role::Button, false).visible);
    }
}
