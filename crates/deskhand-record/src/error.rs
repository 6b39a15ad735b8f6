//! What can go wrong with a recording folder, each said as what failed, why and what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    #[error(
        "cannot record into {}: {source}; give a folder this user can write, or create it first",
        .dir.display()
    )]
    NotWritable {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} is not a deskhand recording: it has no readable manifest.json ({why}); give the folder `--record` wrote",
        .dir.display()
    )]
    NotARecording { dir: PathBuf, why: String },
    #[error(
        "{} was recorded in format {found}, newer than the {supported} this deskhand reads; replay or report it with the deskhand that recorded it, or upgrade",
        .dir.display()
    )]
    NewerFormat {
        dir: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("step {line} of {} cannot be read ({why}); the file was cut or edited", .file.display())]
    BadStep {
        file: PathBuf,
        line: usize,
        why: String,
    },
    #[error(
        "{} cannot be read ({why}); the file was cut or edited: delete it, and the report shows the rerun without how each step went",
        .file.display()
    )]
    BadVerdicts { file: PathBuf, why: String },
    #[error("writing {} failed: {source}", .file.display())]
    Write {
        file: PathBuf,
        source: std::io::Error,
    },
}
