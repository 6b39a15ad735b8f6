//! The applications on the bus and the frames (top-level windows) each one shows.

use std::collections::HashMap;

use futures::future::join_all;

use super::*;

impl Atspi {
    /// Every application registered on the bus, with its process id.
    pub async fn applications(&self) -> Result<Vec<Application>, AtspiError> {
        self.applications_of(None).await
    }

    /// The applications registered on the bus, only those of process `pid` when given: the
    /// others are not asked anything, so a hung application never slows a call about another.
    pub async fn applications_of(&self, pid: Option<u32>) -> Result<Vec<Application>, AtspiError> {
        let registry = ObjectRef {
            bus: REGISTRY.into(),
            path: ROOT_PATH.into(),
        };
        let roots = self.children(&registry).await?;
        let known: HashMap<String, Application> = self.apps.lock().expect("not poisoned").clone();
        let lookups = roots.into_iter().map(|root| {
            let cached = known.get(&root.bus).cloned();
            async move {
                if let Some(app) = cached {
                    return pid.is_none_or(|pid| app.pid == Some(pid)).then_some(app);
                }
                let dbus = ObjectRef {
                    bus: "org.freedesktop.DBus".into(),
                    path: "/org/freedesktop/DBus".into(),
                };
                let bus_name = (root.bus.clone(),);
                // The bus daemon answers for the process; only then is the application asked.
                let found: Result<u32, _> = self
                    .call(
                        &dbus,
                        "org.freedesktop.DBus",
                        "GetConnectionUnixProcessID",
                        &bus_name,
                    )
                    .await;
                // Without a process the connection is gone since the registry listed it.
                let found = found.ok()?;
                if pid.is_some_and(|pid| pid != found) {
                    return None;
                }
                let pid = found;
                let (name, toolkit, version) = futures::join!(
                    self.string_property(&root, ACCESSIBLE, "Name"),
                    self.string_property(&root, APPLICATION, "ToolkitName"),
                    self.string_property(&root, APPLICATION, "Version"),
                );
                let (name, answering) = match name {
                    Ok(name) => (name, true),
                    // Hung or busy: listed, so a caller can say so instead of "not registered".
                    Err(err) if err.unanswered() => (String::new(), false),
                    // A root that refuses its name is still the process's application: its
                    // windows are matched by their frames, not by this name.
                    Err(_) => (String::new(), true),
                };
                Some(Application {
                    root,
                    pid: Some(pid),
                    name,
                    toolkit: toolkit.unwrap_or_default(),
                    toolkit_version: version.unwrap_or_default(),
                    answering,
                })
            }
        });
        let apps: Vec<Application> = join_all(lookups).await.into_iter().flatten().collect();
        let mut cache = self.apps.lock().expect("not poisoned");
        if pid.is_none() {
            cache.clear();
        }
        // A hung application is asked again next time.
        for app in apps.iter().filter(|app| app.answering) {
            cache.insert(app.root.bus.clone(), app.clone());
        }
        Ok(apps)
    }

    /// The top-level objects of an application, with their names and extents.
    pub async fn frames(&self, app: &Application) -> Result<Vec<Frame>, AtspiError> {
        let children = self.children(&app.root).await?;
        let frames = children.into_iter().map(|object| async move {
            let (name, extents, state) = futures::join!(
                self.string_property(&object, ACCESSIBLE, "Name"),
                self.extents(&object),
                self.call::<_, Vec<u32>>(&object, ACCESSIBLE, "GetState", &()),
            );
            // An application that stops answering here cannot be matched to its windows: say
            // so, rather than that it has no such frame.
            let name = match name {
                Ok(name) => name,
                Err(err) if err.unanswered() => return Err(err),
                // Gone since the application listed it.
                Err(_) => return Ok(None),
            };
            let extents = match extents {
                Ok(extents) => extents,
                Err(err) if err.unanswered() => return Err(err),
                Err(_) => None,
            };
            let states = match state {
                Ok(words) => translate::state_set(&words),
                Err(err) if err.unanswered() => return Err(err),
                Err(_) => atspi::StateSet::empty(),
            };
            Ok(Some(Frame {
                object,
                name,
                extents,
                active: states.contains(atspi::State::Active),
                showing: states.contains(atspi::State::Showing),
            }))
        });
        join_all(frames)
            .await
            .into_iter()
            .filter_map(Result::transpose)
            .collect()
    }
}
