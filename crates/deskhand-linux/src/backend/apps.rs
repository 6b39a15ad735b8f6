//! Installed applications from the desktop entries, launching them, and the processes started.

use deskhand_core::backend::Apps;
use deskhand_core::error::{Error, Result};
use deskhand_core::model::InstalledApp;

use super::LinuxBackend;
use super::errors::launch_error;
use crate::launch::{self, AppDirs, Entry};

impl Apps for LinuxBackend {
    async fn kill(&self, pid: u32) -> Result<()> {
        crate::process::kill(pid).await
    }

    async fn installed(&self) -> Result<Vec<InstalledApp>> {
        let entries = tokio::task::spawn_blocking(|| AppDirs::from_env().entries())
            .await
            .map_err(|join| {
                Error::platform(format!(
                    "reading the installed applications crashed ({join}); try again"
                ))
            })?;
        Ok(entries.iter().map(Entry::installed_app).collect())
    }

    async fn launch(&self, id: &str) -> Result<u32> {
        let query = id.to_owned();
        let launched =
            tokio::task::spawn_blocking(move || launch::spawn(&AppDirs::from_env().find(&query)?))
                .await
                .map_err(|join| {
                    Error::platform(format!(
                        "starting the application crashed ({join}); try again"
                    ))
                })?
                .map_err(launch_error)?;
        let pid = launched.pid;
        let mut all = self.launched.lock().expect("not poisoned");
        // A long-lived server forgets the launches that ended, once there are many.
        if all.len() >= REMEMBERED_LAUNCHES {
            all.retain(|_, l| l.ended.get().is_none());
        }
        all.insert(pid, launched);
        Ok(pid)
    }

    async fn launch_failed(&self, pid: u32) -> Option<String> {
        let ended = self
            .launched
            .lock()
            .expect("not poisoned")
            .get(&pid)?
            .ended
            .get()?
            .clone();
        (ended.failed() && !crate::process::group_alive(pid)).then(|| ended.describe())
    }

    fn descends_from(&self, pid: u32, ancestor: u32) -> bool {
        crate::process::descends_from(pid, ancestor)
    }
}

/// How many launched processes are kept before those that ended are forgotten.
const REMEMBERED_LAUNCHES: usize = 64;
