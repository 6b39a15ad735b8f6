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
