//! deskhand's memory in SQLite: the windows an agent has seen, their named controls, and what
//! acting on a control led to, so `recall` can answer where something is and the route there
//! without looking at the screen.
//!
//! The store is one file (WAL journal): each `saw`, `learned` and `forget` is one transaction,
//! so a crash loses at most the call it interrupted, never one already answered.
#![forbid(unsafe_code)]

mod recall;
mod schema;
mod store;
mod time;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use deskhand_core::memory::{Memory, Recall, Recalled, Sighting, Transition};
use deskhand_core::{Error, ErrorKind, Result};
use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

/// How long a call waits for another process (a CLI call, a second server) that is writing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The SQLite store behind `recall`. One connection, shared by the calls of one process;
/// other processes may open the same file at the same time.
pub struct SqliteMemory {
    conn: Mutex<Connection>,
    /// The file, or `None` for a store that lives only as long as the process.
    path: Option<PathBuf>,
}

impl fmt::Debug for SqliteMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteMemory")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteMemory {
    /// Opens the store at `path`, creating it and its folders (readable by the user only) if
    /// needed, and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let place = path.display().to_string();
        create_private(&path).map_err(|err| {
            Error::platform(format!(
                "The memory store {place} could not be created: {err}. Choose a writable \
                 place with --memory PATH, or turn memory off."
            ))
        })?;
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|err| failure(&place, "be opened", &err))?;
        Self::prepare(conn, Some(path))
    }

    /// A store that lives only as long as the value: for tests.
    pub fn in_memory() -> Result<Self> {
        let conn =
            Connection::open_in_memory().map_err(|err| failure(IN_MEMORY, "be opened", &err))?;
        Self::prepare(conn, None)
    }

    /// Where the store is by default: `$XDG_DATA_HOME/deskhand/memory.sqlite`, else
    /// `~/.local/share/deskhand/memory.sqlite`; `None` without either variable.
    pub fn default_path() -> Option<PathBuf> {
        let data = std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .or_else(|| {
                std::env::var_os("HOME")
                    .map(PathBuf::from)
                    .filter(|home| home.is_absolute())
                    .map(|home| home.join(".local/share"))
            })?;
        Some(data.join("deskhand").join("memory.sqlite"))
    }

    /// The file the store lives in; `None` for [`SqliteMemory::in_memory`].
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn prepare(mut conn: Connection, path: Option<PathBuf>) -> Result<Self> {
        let place = place_of(path.as_deref());
        let setup = |conn: &Connection| -> rusqlite::Result<()> {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            // WAL: readers never wait for a writer, and a commit is one append. NORMAL syncs
            // at checkpoints only, which keeps every commit through a crash of the process
            // (not through a power cut, which may take the last commits back).
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            conn.pragma_update(None, "foreign_keys", true)?;
            // What `forget` deletes is overwritten, not left in free pages of the file.
            conn.pragma_update(None, "secure_delete", true)?;
            // A long-lived server must not grow by SQLite's default 2 MB page cache as the store
            // grows; 512 KiB holds the hot pages of a store of thousands of windows.
            conn.pragma_update(None, "cache_size", -512)?;
            conn.set_prepared_statement_cache_capacity(64);
            Ok(())
        };
        setup(&conn).map_err(|err| failure(&place, "be set up", &err))?;
        schema::migrate(&mut conn, &place)?;
        Ok(Self {
            conn: Mutex::new(conn),
            path,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic inside a call dropped its transaction, which rolled it back: the connection
        // is as good as before.
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn place(&self) -> String {
        place_of(self.path.as_deref())
    }

    /// Runs `work` in one write transaction, taken at once so two writers never deadlock.
    fn write<T>(
        &self,
        doing: &str,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T> {
        let mut conn = self.lock();
        let place = self.place();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|err| failure(&place, doing, &err))?;
        let value = work(&tx).map_err(|err| failure(&place, doing, &err))?;
        tx.commit().map_err(|err| failure(&place, doing, &err))?;
        Ok(value)
    }
}

impl Memory for SqliteMemory {
    fn saw(&self, sighting: &Sighting, at: SystemTime) -> Result<()> {
        let at = time::millis(at);
        self.write("record a window", |tx| {
            store::saw(tx, sighting, at).map(drop)
        })
    }

    fn learned(&self, transition: &Transition, at: SystemTime) -> Result<()> {
        let at = time::millis(at);
        self.write("record what a step led to", |tx| {
            store::learned(tx, transition, at)
        })
    }

    fn recall(&self, request: &Recall, now: SystemTime) -> Result<Recalled> {
        let mut conn = self.lock();
        let place = self.place();
        // One read transaction: the answer comes from one state of the store, whatever other
        // processes write meanwhile.
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(|err| failure(&place, "be read", &err))?;
        let answer = recall::recall(&tx, request, time::millis(now), &place);
        tx.finish()
            .map_err(|err| failure(&place, "be read", &err))?;
        answer
    }

    fn forget(&self, app: Option<&str>) -> Result<usize> {
        let gone = self.write("forget", |tx| store::forget(tx, app))?;
        // Deleted pages also linger in the WAL until a checkpoint copies them over; do it now
        // so what was forgotten leaves the disk. Busy readers only delay it, which is no failure.
        let conn = self.lock();
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        Ok(gone)
    }
}

const IN_MEMORY: &str = "(in memory)";

fn place_of(path: Option<&Path>) -> String {
    path.map_or_else(|| IN_MEMORY.to_owned(), |p| p.display().to_string())
}

/// Creates the folders and an empty file readable by the user only: the store describes what
/// is on their screen. SQLite gives its WAL and shared-memory files the same mode. (Elsewhere
/// than Unix, a file under the user's own folders is theirs alone already.)
fn create_private(path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(err),
    }
}

/// A failed store operation as a sentence: what, where, why, and what to do about it.
fn failure(place: &str, doing: &str, err: &rusqlite::Error) -> Error {
    let advice = match err.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            "another deskhand process held it locked for longer than 5 s; try again"
        }
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => {
            "check that the file and its folder are writable, or choose another place with \
             --memory PATH"
        }
        Some(ErrorCode::DiskFull) => {
            "free some disk space, or choose another place with --memory PATH"
        }
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            "the file is damaged or is not a deskhand memory: move it away (a new one will be \
             made) or choose another place with --memory PATH"
        }
        _ => {
            "the store is left as it was before this call; memory can be turned off if this persists"
        }
    };
    Error::new(
        ErrorKind::Platform,
        format!("The memory store {place} could not {doing}: {err}; {advice}."),
    )
}
