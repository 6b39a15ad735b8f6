//! Long text pasted into the focused field through the CLIPBOARD selection, for a field that
//! takes text neither in one accessibility request nor quickly as keys (Firefox reads about
//! 1,000 key events a second). The person's clipboard is saved whole first, every target its
//! owner offers, and served again afterwards by a holder process exactly as it was; a clipboard
//! that cannot be read whole is not touched, and keys go instead. PRIMARY is never touched.

use std::rc::Rc;
use std::time::{Duration, Instant};

use x11rb::NONE;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{Atom, ConnectionExt as _, Window};

use super::clipboard::{Endpoint, Holder, Offer, Offered, Reader, clipboard_owner, take};
use super::{During as _, X11Error};
use crate::clipboard::{ClipboardError, MAX_TEXT};

/// How long the person's clipboard may take to be read whole before keys go instead.
const SAVE_DEADLINE: Duration = Duration::from_secs(3);

/// The person's clipboard as its owner offered it before a paste: the targets it listed, and
/// each data target as the owner converted it.
pub(super) struct Saved {
    listed: Vec<Atom>,
    targets: Vec<(Atom, Atom, u8, Vec<u8>)>,
}

/// What became of ctrl+v.
#[derive(Debug)]
pub enum Sent {
    /// The focused app asked for the text and was sent all of it.
    Taken,
    /// ctrl+v went out, and no app asked for the text in time (a read-only field ignores a
    /// paste); or another program took the clipboard first and served it.
    NotTaken,
    /// ctrl+v was not sent: nothing reached the app.
    KeysFailed(X11Error),
    /// ctrl+v went out, then serving the text failed: the app may have part of it.
    ServingFailed(ClipboardError),
}

/// A paste that went ahead: what became of it, and the person's clipboard to give back.
pub struct Pasting {
    pub sent: Sent,
    /// Another program took the clipboard during the paste: what it put there is not
    /// overwritten, and the person's is not put back.
    pub replaced: bool,
    /// The saved clipboard, as a holder's standard input to serve it again;
    /// `None` where it was empty, and ownership has been given up already.
    pub saved: Option<Vec<u8>>,
    /// Owns the clipboard until the holder takes it over, so that it never stands empty for a
    /// clipboard manager to fill with the pasted text.
    pub keeper: Option<Keeper>,
}

/// The connection that owns the clipboard while the person's is being put back.
pub struct Keeper {
    _owner: Endpoint,
}

/// Pastes `text` into the focused field of window `focused`: saves the person's clipboard
/// whole, takes the clipboard with `text`, sends ctrl+v through `send_ctrl_v`, and serves the
/// text until the app of `focused` has taken it or `wait` has passed. Only that app's request
/// counts: a clipboard manager asks for every new clipboard's text as it appears, and the
/// person's clipboard put back on its word would be what the app pastes. `Ok(None)` where the clipboard cannot be read whole (the
/// owner refuses a target, hangs, or holds more than can be kept) or was taken meanwhile:
/// nothing was sent or changed, and keys go instead.
pub fn paste(
    text: &str,
    focused: Option<Window>,
    wait: Duration,
    send_ctrl_v: impl FnOnce() -> Result<(), X11Error>,
) -> Result<Option<Pasting>, ClipboardError> {
    let endpoint = Endpoint::open()?;
    let Ok(saved) = save(&endpoint) else {
        return Ok(None);
    };
    let acquired = match take(&endpoint) {
        Ok(acquired) => acquired,
        // Another program took the clipboard as deskhand did: the person's is theirs now.
        Err(ClipboardError::Lost) => return Ok(None),
        Err(err) => return Err(err),
    };
    // A client's windows share the bits of its id outside the resource mask.
    let client = !endpoint.conn.setup().resource_id_mask;
    let of_focused_app =
        |requestor: &Window| focused.is_none_or(|f| requestor & client == f & client);
    let mut holder = Holder::new(&endpoint, Offer::text(&endpoint.atoms, text), acquired);
    let sent = match send_ctrl_v() {
        Err(err) => Sent::KeysFailed(err),
        Ok(()) => {
            let until = Instant::now() + wait;
            let taken = |holder: &Holder| holder.delivered_to.iter().any(of_focused_app);
            let served = holder.serve_until(Some(until), |holder| holder.replaced || taken(holder));
            match served {
                Err(err) => Sent::ServingFailed(err),
                Ok(()) if taken(&holder) => Sent::Taken,
                Ok(()) => Sent::NotTaken,
            }
        }
    };
    let replaced = holder.replaced;
    drop(holder);
    if replaced {
        return Ok(Some(Pasting {
            sent,
            replaced,
            saved: None,
            keeper: None,
        }));
    }
    let Some(saved) = saved else {
        // The clipboard was empty: it is left empty, unless another program took it since.
        let _ = endpoint
            .conn
            .set_selection_owner(NONE, endpoint.atoms.CLIPBOARD, acquired)
            .during("giving the clipboard up")
            .map(|cookie| cookie.check());
        return Ok(Some(Pasting {
            sent,
            replaced,
            saved: None,
            keeper: None,
        }));
    };
    Ok(Some(Pasting {
        sent,
        replaced,
        saved: Some(saved.encode()),
        keeper: Some(Keeper { _owner: endpoint }),
    }))
}

/// Reads every target the clipboard's owner lists, as it converts each; `Ok(None)` where no
/// program owns the clipboard. An error where it cannot be read whole.
fn save(endpoint: &Endpoint) -> Result<Option<Saved>, ClipboardError> {
    let atoms = &endpoint.atoms;
    let owner = clipboard_owner(endpoint)?;
    if owner == NONE {
        return Ok(None);
    }
    let reader = Reader {
        endpoint,
        owner,
        deadline: Instant::now() + SAVE_DEADLINE,
    };
    let listed = reader
        .convert(atoms.TARGETS, "the request for its types")?
        .map(|targets| targets.atoms())
        .ok_or(ClipboardError::Unsaveable)?;
    // Requests about the selection itself, not data: served by the holder (TARGETS, TIMESTAMP)
    // or not at all, and never asked of the owner, which would act on them (DELETE).
    let protocol = [
        atoms.TARGETS,
        atoms.TIMESTAMP,
        atoms.MULTIPLE,
        atoms.SAVE_TARGETS,
        atoms.DELETE,
        atoms.INSERT_SELECTION,
        atoms.INSERT_PROPERTY,
    ];
    let mut targets = Vec::new();
    let mut size = 0;
    for &target in &listed {
        let seen = |targets: &[(Atom, Atom, u8, Vec<u8>)]| targets.iter().any(|t| t.0 == target);
        if target == NONE || protocol.contains(&target) || seen(&targets) {
            continue;
        }
        let value = reader
            .convert(target, "the request for one of its types")?
            .ok_or(ClipboardError::Unsaveable)?;
        size += value.bytes.len();
        if size > MAX_TEXT {
            return Err(ClipboardError::TooLarge);
        }
        targets.push((target, value.type_, value.format, value.bytes));
    }
    // What is listed again: only targets the holder answers.
    let listed = listed
        .into_iter()
        .filter(|atom| {
            *atom == atoms.TARGETS
                || *atom == atoms.TIMESTAMP
                || targets.iter().any(|t| t.0 == *atom)
        })
        .collect();
    Ok(Some(Saved { listed, targets }))
}

impl Saved {
    /// The holder's standard input: the listed atoms, then each target with its data.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let number = |out: &mut Vec<u8>, n: usize| {
            out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
        };
        number(&mut out, self.listed.len());
        for &atom in &self.listed {
            out.extend_from_slice(&atom.to_le_bytes());
        }
        for (target, type_, format, bytes) in &self.targets {
            out.extend_from_slice(&target.to_le_bytes());
            out.extend_from_slice(&type_.to_le_bytes());
            out.push(*format);
            number(&mut out, bytes.len());
            out.extend_from_slice(bytes);
        }
        out
    }

    /// What a holder serves again from [`Saved::encode`]'s bytes; `None` where they are cut
    /// short.
    pub(super) fn decode(mut input: &[u8]) -> Option<Offer> {
        fn take<'a>(input: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
            let (head, rest) = input.split_at_checked(n)?;
            *input = rest;
            Some(head)
        }
        fn number(input: &mut &[u8]) -> Option<u32> {
            Some(u32::from_le_bytes(take(input, 4)?.try_into().ok()?))
        }
        let count = number(&mut input)?;
        let listed = (0..count)
            .map(|_| number(&mut input))
            .collect::<Option<Vec<Atom>>>()?;
        let mut targets = Vec::new();
        while !input.is_empty() {
            let target = number(&mut input)?;
            let type_ = number(&mut input)?;
            let format = *take(&mut input, 1)?.first()?;
            let length = usize::try_from(number(&mut input)?).ok()?;
            let data: Rc<[u8]> = Rc::from(take(&mut input, length)?);
            targets.push(Offered {
                target,
                type_,
                format,
                data,
            });
        }
        Some(Offer { listed, targets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_clipboard_decodes_to_the_same_targets_and_a_cut_one_to_none() {
        let saved = Saved {
            listed: vec![1, 7, 9],
            targets: vec![
                (7, 8, 8, b"<b>hi</b>".to_vec()),
                (9, 4, 32, vec![1, 0, 0, 0]),
            ],
        };
        let encoded = saved.encode();
        let offer = Saved::decode(&encoded).expect("decodes");
        assert_eq!(offer.listed, vec![1, 7, 9]);
        let targets: Vec<_> = offer
            .targets
            .iter()
            .map(|t| (t.target, t.type_, t.format, t.data.to_vec()))
            .collect();
        assert_eq!(targets, saved.targets);
        assert!(Saved::decode(&encoded[..encoded.len() - 1]).is_none());
    }
}
