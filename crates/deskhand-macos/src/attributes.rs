//! What the Accessibility API answers about one element, as plain values: the FFI shell turns
//! `CFType`s into these, the recorded dumps of the tests are written in them, and everything
//! after works on them alone.

/// An attribute value, by the Core Foundation type the API returned.
#[derive(Debug, Clone, PartialEq)]
pub enum AxValue {
    Text(String),
    Number(f64),
    Bool(bool),
    /// An `AXValue` of type `kAXValueCGPointType`.
    Point {
        x: f64,
        y: f64,
    },
    /// An `AXValue` of type `kAXValueCGSizeType`.
    Size {
        width: f64,
        height: f64,
    },
    /// An array, by its length: of `AXChildren`, how many children there are.
    Count(usize),
    /// Anything else (an element, a URL, a range): not shown as a value.
    Other,
}

/// The attributes read in one `AXUIElementCopyMultipleAttributeValues` call, in this order. The
/// value is not among them: a password's value must never be read, and which element is a
/// password is known only once its subrole has come back. Nor is any array: the batch copies an
/// array whole, and a big table's `AXChildren` (every row, each made on demand) would time the
/// batch out and leave the rest of the window unread; how many children there are is counted
/// apart ([`COUNTED`]), so a leaf is never asked for them. `AXIndex` is a row's place in its
/// table, which its handle keeps.
pub const BATCH: [&str; 11] = [
    "AXRole",
    "AXSubrole",
    "AXTitle",
    "AXDescription",
    "AXPosition",
    "AXSize",
    "AXEnabled",
    "AXFocused",
    "AXSelected",
    "AXExpanded",
    "AXIndex",
];

/// Attributes whose values are arrays of elements: never copied in the batch.
pub const ARRAYS: [&str; 5] = [
    "AXChildren",
    "AXRows",
    "AXVisibleRows",
    "AXColumns",
    "AXSelectedChildren",
];

/// Counted (`AXUIElementGetAttributeValueCount`) rather than copied: fills
/// [`Attributes::children`].
pub const COUNTED: &str = "AXChildren";

/// One element's attributes; `None` where the element has no such attribute or no value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attributes {
    pub role: Option<String>,
    pub subrole: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub position: Option<(f64, f64)>,
    pub size: Option<(f64, f64)>,
    pub enabled: Option<bool>,
    pub focused: Option<bool>,
    pub selected: Option<bool>,
    pub expanded: Option<bool>,
    /// How many `AXChildren` it has; `None` where it has no such attribute (a leaf). Counted
    /// apart from the batch, see [`COUNTED`].
    pub children: Option<usize>,
    /// A table's or outline's row: its `AXIndex`.
    pub index: Option<usize>,
    /// Read apart from the batch, and only where [`crate::roles::shows_value`] says so.
    pub value: Option<AxValue>,
}

impl Attributes {
    /// The attributes from the batch's answers, one per name of [`BATCH`] in its order, and the
    /// count of [`COUNTED`]. A value of an unexpected type counts as missing: an app may answer
    /// anything.
    pub fn from_batch(values: &[Option<AxValue>], children: Option<usize>) -> Attributes {
        let at = |i: usize| values.get(i).cloned().flatten();
        let text = |i| match at(i) {
            Some(AxValue::Text(text)) => Some(text),
            _ => None,
        };
        let flag = |i| match at(i) {
            Some(AxValue::Bool(b)) => Some(b),
            Some(AxValue::Number(n)) => Some(n != 0.0),
            _ => None,
        };
        Attributes {
            role: text(0),
            subrole: text(1),
            title: text(2),
            description: text(3),
            position: match at(4) {
                Some(AxValue::Point { x, y }) => Some((x, y)),
                _ => None,
            },
            size: match at(5) {
                Some(AxValue::Size { width, height }) => Some((width, height)),
                _ => None,
            },
            enabled: flag(6),
            focused: flag(7),
            selected: flag(8),
            expanded: flag(9),
            children,
            index: match at(10) {
                Some(AxValue::Number(n)) if n >= 0.0 => Some(n as usize),
                _ => None,
            },
            value: None,
        }
    }

    pub fn role(&self) -> &str {
        self.role.as_deref().unwrap_or("AXUnknown")
    }

    /// The frame in global display points (top-left of the main display at 0,0, y down).
    pub fn frame(&self) -> Option<FrameF> {
        let (x, y) = self.position?;
        let (width, height) = self.size?;
        Some(FrameF {
            x,
            y,
            width,
            height,
        })
    }
}

/// A rectangle in global display points, as AX and Quartz report it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameF {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl FrameF {
    /// The smallest whole-point rectangle that holds it: a Retina frame may lie on half points.
    pub fn to_rect(self) -> deskhand_core::model::Rect {
        let clamp = |v: f64| v.clamp(i32::MIN as f64, i32::MAX as f64);
        let x0 = clamp(self.x.floor());
        let y0 = clamp(self.y.floor());
        let x1 = clamp((self.x + self.width.max(0.0)).ceil());
        let y1 = clamp((self.y + self.height.max(0.0)).ceil());
        deskhand_core::model::Rect::new(x0 as i32, y0 as i32, (x1 - x0) as u32, (y1 - y0) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_of_the_wrong_types_reads_as_missing() {
        let attrs = Attributes::from_batch(
            &[
                Some(AxValue::Text("AXButton".into())),
                Some(AxValue::Bool(true)),
                None,
                Some(AxValue::Text("Close".into())),
                Some(AxValue::Point { x: 10.0, y: 20.0 }),
                Some(AxValue::Text("not a size".into())),
                Some(AxValue::Number(1.0)),
            ],
            None,
        );
        assert_eq!(attrs.role(), "AXButton");
        assert_eq!(attrs.subrole, None);
        assert_eq!(attrs.description.as_deref(), Some("Close"));
        assert_eq!(attrs.position, Some((10.0, 20.0)));
        assert_eq!(attrs.size, None);
        assert_eq!(attrs.frame(), None);
        assert_eq!(attrs.enabled, Some(true));
        assert_eq!(attrs.focused, None);
    }

    #[test]
    fn the_batch_copies_no_array_and_children_are_counted_apart() {
        for array in ARRAYS {
            assert!(!BATCH.contains(&array), "{array} would be copied whole");
        }
        assert!(ARRAYS.contains(&COUNTED));
        let values = vec![Some(AxValue::Text("AXTable".into())); 1];
        assert_eq!(
            Attributes::from_batch(&values, Some(80_000)).children,
            Some(80_000)
        );
        assert_eq!(Attributes::from_batch(&values, None).children, None);
    }

    #[test]
    fn half_point_frames_grow_to_whole_points() {
        let frame = FrameF {
            x: 10.5,
            y: 20.0,
            width: 30.0,
            height: 9.5,
        };
        assert_eq!(
            frame.to_rect(),
            deskhand_core::model::Rect::new(10, 20, 31, 10)
        );
    }
}
