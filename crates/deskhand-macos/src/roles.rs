//! AX roles and subroles onto the core's roles, the same ones the Linux backend maps AT-SPI
//! onto, so an observation of a button, a field or a table reads the same on both.

use deskhand_core::model::Role;

/// The core role of an element with this `AXRole` and `AXSubrole`.
pub fn role(ax_role: &str, subrole: Option<&str>) -> Role {
    // A subrole refines its role: a secure text field is a password, a tab is a radio button.
    match subrole {
        Some("AXSecureTextField") => return Role::Password,
        Some("AXTabButton") => return Role::Tab,
        Some("AXToggle" | "AXSwitch") => return Role::Toggle,
        Some("AXOutlineRow") => return Role::Treeitem,
        Some("AXSortButton") => return Role::Header,
        Some("AXDialog" | "AXSystemDialog" | "AXApplicationDialog") => return Role::Dialog,
        Some("AXApplicationAlert" | "AXApplicationAlertDialog") => return Role::Alert,
        Some("AXApplicationStatus") => return Role::Statusbar,
        Some("AXDocumentArticle" | "AXDocument") if ax_role == "AXGroup" => return Role::Document,
        Some("AXTabPanel") => return Role::Group,
        _ => {}
    }
    match ax_role {
        "AXApplication" | "AXWindow" => Role::Window,
        "AXSheet" | "AXPopover" => Role::Dialog,
        "AXButton" | "AXMenuButton" | "AXColorWell" | "AXDockItem" | "AXDisclosureTriangle" => {
            Role::Button
        }
        "AXCheckBox" => Role::Check,
        "AXRadioButton" => Role::Radio,
        "AXTextField" | "AXTextArea" | "AXDateField" | "AXTimeField" => Role::Text,
        "AXStaticText" => Role::Label,
        "AXLink" => Role::Link,
        "AXImage" => Role::Image,
        "AXMenuBar" => Role::Menubar,
        "AXMenu" => Role::Menu,
        "AXMenuBarItem" | "AXMenuItem" => Role::Menuitem,
        "AXPopUpButton" | "AXComboBox" => Role::Combobox,
        "AXSlider" => Role::Slider,
        "AXIncrementor" | "AXStepper" => Role::Spin,
        "AXScrollBar" => Role::Scrollbar,
        "AXList" | "AXDescriptionList" => Role::List,
        "AXOutline" | "AXBrowser" => Role::Tree,
        "AXTable" | "AXGrid" => Role::Table,
        "AXRow" => Role::Row,
        "AXCell" => Role::Cell,
        "AXTabGroup" => Role::Tablist,
        "AXToolbar" => Role::Toolbar,
        "AXProgressIndicator" | "AXBusyIndicator" | "AXLevelIndicator" | "AXRelevanceIndicator" => {
            Role::Progress
        }
        "AXSplitter" => Role::Separator,
        "AXWebArea" => Role::Document,
        "AXHeading" => Role::Heading,
        "AXGroup" | "AXRadioGroup" | "AXDrawer" => Role::Group,
        "AXForm" => Role::Form,
        "AXHelpTag" => Role::Tooltip,
        "AXScrollArea" => Role::Scrollpane,
        "AXSplitGroup" | "AXLayoutArea" | "AXLayoutItem" | "AXMatte" | "AXGrowArea" | "AXRuler"
        | "AXRulerMarker" | "AXHandle" | "AXValueIndicator" | "AXColumn" => Role::Generic,
        _ => Role::Unknown,
    }
}

/// Whether the element's `AXValue` says whether it is checked (0 off, 1 on, 2 mixed).
pub fn value_is_checked_state(role: Role) -> bool {
    matches!(role, Role::Check | Role::Radio | Role::Toggle | Role::Tab)
}

/// Whether the element's `AXValue` is what a person reads as its value, so the walk asks for
/// it. A password is never asked; a label's value is its words.
pub fn shows_value(role: Role) -> bool {
    matches!(
        role,
        Role::Text
            | Role::Label
            | Role::Combobox
            | Role::Slider
            | Role::Spin
            | Role::Scrollbar
            | Role::Progress
            | Role::Check
            | Role::Radio
            | Role::Toggle
            | Role::Tab
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subroles_refine_their_roles() {
        assert_eq!(role("AXTextField", None), Role::Text);
        assert_eq!(
            role("AXTextField", Some("AXSecureTextField")),
            Role::Password
        );
        assert_eq!(role("AXTextField", Some("AXSearchField")), Role::Text);
        assert_eq!(role("AXRadioButton", Some("AXTabButton")), Role::Tab);
        assert_eq!(role("AXCheckBox", Some("AXToggle")), Role::Toggle);
        assert_eq!(role("AXCheckBox", Some("AXSwitch")), Role::Toggle);
        assert_eq!(role("AXRow", Some("AXOutlineRow")), Role::Treeitem);
        assert_eq!(role("AXRow", Some("AXTableRow")), Role::Row);
        assert_eq!(role("AXWindow", Some("AXStandardWindow")), Role::Window);
        assert_eq!(role("AXWindow", Some("AXDialog")), Role::Dialog);
        assert_eq!(role("AXButton", Some("AXCloseButton")), Role::Button);
        assert_eq!(role("AXButton", Some("AXSortButton")), Role::Header);
        assert_eq!(role("AXGroup", Some("AXApplicationAlert")), Role::Alert);
    }

    #[test]
    fn roles_read_as_the_linux_backend_reads_the_same_controls() {
        assert_eq!(role("AXButton", None), Role::Button);
        assert_eq!(role("AXStaticText", None), Role::Label);
        assert_eq!(role("AXPopUpButton", None), Role::Combobox);
        assert_eq!(role("AXMenuBarItem", None), Role::Menuitem);
        assert_eq!(role("AXScrollArea", None), Role::Scrollpane);
        assert_eq!(role("AXSplitGroup", None), Role::Generic);
        assert_eq!(role("AXWebArea", None), Role::Document);
        assert_eq!(role("AXOutline", Some("AXSourceList")), Role::Tree);
        assert_eq!(role("AXSomethingNew", None), Role::Unknown);
    }

    #[test]
    fn a_password_never_shows_a_value() {
        assert!(!shows_value(Role::Password));
        assert!(shows_value(Role::Text) && shows_value(Role::Label));
        assert!(!shows_value(Role::Window) && !shows_value(Role::Group));
    }
}
