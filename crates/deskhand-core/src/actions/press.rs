//! `press`: key chords to the focused window.

use crate::backend::{Input, Windows};
use crate::desk::answer::{Acted, Did};
use crate::desk::focus::focused_window;
use crate::desk::reply::Reply;
use crate::error::Result;
use crate::keys::Keys;
use crate::session::Session;

pub(crate) async fn press<B: Windows + Input>(
    backend: &B,
    session: &mut Session,
    keys: &Keys,
) -> Result<Reply> {
    let into = focused_window(backend, session).await?;
    let sent = backend.press_keys(keys).await?;
    Ok(Acted {
        did: Did::Press {
            keys: keys.to_string(),
            into,
        },
        sent,
    }
    .into())
}
