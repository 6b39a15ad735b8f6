//! An application's own accessibility cache (`Cache.GetItems`), read once per walk: what it
//! holds of every object, indexed by object and by parent.

use std::collections::HashMap;

use zbus::zvariant::OwnedObjectPath;

use super::*;

impl Atspi {
    /// Everything the application's own cache holds, or an empty snapshot when it has none.
    pub(super) async fn snapshot(&self, bus: &str) -> Snapshot {
        let cache = ObjectRef {
            bus: bus.to_owned(),
            path: "/org/a11y/atspi/cache".into(),
        };
        let Ok(rows) = self
            .call::<_, Vec<CacheRow>>(&cache, "org.a11y.atspi.Cache", "GetItems", &())
            .await
        else {
            return Snapshot::default();
        };
        Snapshot::from_rows(rows)
    }
}

/// What an application's accessibility cache says about one object.
pub(super) struct Cached {
    pub(super) role: u32,
    pub(super) states: Vec<u32>,
    pub(super) interfaces: Vec<String>,
    pub(super) name: String,
    pub(super) child_count: i32,
}

/// One `Cache.GetItems` answer, indexed for the walk.
#[derive(Default)]
pub(super) struct Snapshot {
    pub(super) items: HashMap<ObjectRef, Cached>,
    pub(super) children: HashMap<ObjectRef, Vec<(i32, ObjectRef)>>,
}

impl Snapshot {
    /// The rows of a `Cache.GetItems` answer, indexed by object and by parent, each parent's
    /// children in index order.
    pub(super) fn from_rows(rows: Vec<CacheRow>) -> Snapshot {
        let mut snapshot = Snapshot::default();
        let to_ref = |(bus, path): (String, OwnedObjectPath)| ObjectRef {
            bus,
            path: path.as_str().to_owned(),
        };
        for (object, _app, parent, index, child_count, interfaces, name, role, _, states) in rows {
            let object = to_ref(object);
            snapshot
                .children
                .entry(to_ref(parent))
                .or_default()
                .push((index, object.clone()));
            snapshot.items.insert(
                object,
                Cached {
                    role,
                    states,
                    interfaces,
                    name,
                    child_count,
                },
            );
        }
        for children in snapshot.children.values_mut() {
            children.sort_by_key(|(index, _)| *index);
        }
        snapshot
    }

    /// The children the cache knows, when it knows all of them in order; the cache of a toolkit
    /// that creates accessibles lazily misses the ones nobody asked for yet, and some
    /// containers (GTK3's scrolled window) report indexes that disagree with their child order,
    /// so the order is trusted only when the indexes are exactly 0..n.
    pub(super) fn children_of(&self, parent: &ObjectRef) -> Option<Vec<ObjectRef>> {
        let expected = usize::try_from(self.items.get(parent)?.child_count).ok()?;
        let known = self
            .children
            .get(parent)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let in_order = known
            .iter()
            .enumerate()
            .all(|(position, (index, _))| usize::try_from(*index) == Ok(position));
        (known.len() == expected && in_order)
            .then(|| known.iter().map(|(_, child)| child.clone()).collect())
    }
}

pub(super) type CacheRow = (
    (String, OwnedObjectPath),
    (String, OwnedObjectPath),
    (String, OwnedObjectPath),
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Mousepad's (GTK 3) answer to `Cache.GetItems`, recorded on the headless desktop with its
    /// window open, the bus name replaced by ":1.42".
    fn mousepad() -> Vec<CacheRow> {
        serde_json::from_str(include_str!("recorded/mousepad-cache.json"))
            .expect("the recording parses as GetItems rows")
    }

    fn object(path: &str) -> ObjectRef {
        ObjectRef {
            bus: ":1.42".into(),
            path: format!("/org/a11y/atspi/accessible/{path}"),
        }
    }

    fn names(snapshot: &Snapshot, children: &[ObjectRef]) -> Vec<String> {
        children
            .iter()
            .map(|child| snapshot.items[child].name.clone())
            .collect()
    }

    #[test]
    fn a_recorded_cache_gives_the_frame_and_a_menu_bar_in_index_order() {
        let rows = mousepad();
        let count = rows.len();
        let snapshot = Snapshot::from_rows(rows);
        assert_eq!(snapshot.items.len(), count);
        let frames = snapshot
            .children_of(&object("root"))
            .expect("the app's frames");
        assert_eq!(names(&snapshot, &frames), ["Untitled 1 - Mousepad"]);
        let menus = snapshot
            .children_of(&object("10"))
            .expect("the menu bar's menus");
        assert_eq!(
            names(&snapshot, &menus),
            ["File", "Edit", "Search", "View", "Document", "Help"]
        );
        // Recorded out of order (indexes 4, 1, 5, 3, 2, 0): listed by index.
        let filler = snapshot
            .children_of(&object("1"))
            .expect("the frame's filler");
        assert_eq!(filler, ["2", "3", "4", "5", "6", "9"].map(object));
    }

    #[test]
    fn children_the_cache_does_not_know_all_of_are_asked_of_the_app() {
        // GTK 3 gives a menu's child count as -1 until the menu is built.
        let snapshot = Snapshot::from_rows(mousepad());
        assert_eq!(snapshot.items[&object("13")].child_count, -1);
        assert_eq!(snapshot.children_of(&object("13")), None);
        // A menu bar with one of its menus missing from the cache.
        let without_edit: Vec<CacheRow> = mousepad()
            .into_iter()
            .filter(|row| row.0.1.as_str() != "/org/a11y/atspi/accessible/14")
            .collect();
        assert_eq!(
            Snapshot::from_rows(without_edit).children_of(&object("10")),
            None
        );
    }
}
