//! Schema migrations: the SQL files of `migrations/`, applied in order, each in its own
//! transaction, the count applied kept in `PRAGMA user_version`.

use deskhand_core::{Error, Result};
use rusqlite::{Connection, TransactionBehavior};

use crate::failure;

/// Every migration ever shipped, oldest first; a shipped one is never edited, only followed.
pub(crate) const MIGRATIONS: &[(&str, &str)] =
    &[("0001_init.sql", include_str!("../migrations/0001_init.sql"))];

pub(crate) fn migrate(conn: &mut Connection, place: &str) -> Result<()> {
    loop {
        // Taken before reading the version: another process opening the same new file waits
        // here and then finds the work done.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|err| failure(place, "be migrated", &err))?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|err| failure(place, "be migrated", &err))?;
        let applied = usize::try_from(version).unwrap_or(usize::MAX);
        if applied > MIGRATIONS.len() {
            return Err(Error::platform(format!(
                "The memory store {place} has schema {version}, newer than this deskhand knows \
                 ({known}); use a newer deskhand, or another place with --memory PATH.",
                known = MIGRATIONS.len()
            )));
        }
        let Some((name, sql)) = MIGRATIONS.get(applied) else {
            return Ok(());
        };
        let doing = format!("be migrated with {name}");
        tx.execute_batch(sql)
            .and_then(|()| tx.pragma_update(None, "user_version", version + 1))
            .and_then(|()| tx.commit())
            .map_err(|err| failure(place, &doing, &err))?;
    }
}
