//! `read`: an element's whole text, a page at a time.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Place, Reaches};
use crate::backend::{Accessibility, Capture, Values, Windows};
use crate::desk::answer::{Listed, Page};
use crate::desk::reach::Reach;
use crate::desk::reply::{Reply, element_failure};
use crate::error::{Error, ErrorKind, Result};
use crate::model::Role;
use crate::render::plural;
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Read,
    text: "read",
    fields: &["target", "ref", "find", "offset"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(given: &Given) -> Result<Action> {
    if given.element.is_none() && given.find.is_none() {
        return Err(Error::bad_argument(
            "`read` needs the element: a `ref` from observe, or a `find` {\"name\", \"role\"}",
        ));
    }
    Ok(Action::Read {
        place: given.place(true)?.expect("required place"),
        offset: given.args.offset.unwrap_or(0) as usize,
    })
}

/// The most characters one `read` returns.
pub const READ_PAGE_CHARS: usize = 2_000;

/// A page of an element's whole text, each line quoted like all app text, with where the next
/// page starts.
pub(crate) async fn read_text<B: Windows + Accessibility + Values + Capture>(
    backend: &B,
    session: &mut Session,
    reach: &mut Reach,
    place: &Place,
    offset: usize,
) -> Result<Reply> {
    let element = reach
        .named(backend, session, place)
        .await?
        .expect("read names an element");
    let mut label = element.label();
    let mut by_ocr = false;
    let mut nothing_in = None;
    if element.entry.handle.is_read_from_pixels() {
        return Err(Error::bad_argument(format!(
            "{label} is text read from pixels, and its whole text is the name observe listed; observe again to read it anew"
        )));
    }
    if element.entry.role == Role::Password {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("{label} is a password field; its content is never read"),
        ));
    }
    // A canvas or an image draws its text: its name is a caption at most, its pixels hold it.
    let drawn = matches!(element.entry.role, Role::Canvas | Role::Image);
    let text = match reach.reader().filter(|_| drawn).cloned() {
        Some(reader) => {
            let bounds = backend
                .element_bounds(&element.window, &element.entry.handle)
                .await?
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::ElementGone,
                        format!("{label} is not on screen, so its pixels cannot be read; call `observe` again"),
                    )
                })?;
            let mut groups = crate::ocr::read_rect(backend, &reader, bounds).await?;
            groups.sort_by_key(|g| (g.bounds.y, g.bounds.x));
            let text = groups
                .into_iter()
                .map(|g| g.text)
                .filter(|text| !text.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            label = format!("{label} (its pixels, read by OCR)");
            by_ocr = true;
            if text.is_empty() {
                nothing_in = Some((bounds.width, bounds.height));
            }
            text
        }
        None => backend
            .element_text(&element.entry.handle)
            .await
            .map_err(|err| element_failure(err, &format!("{label} could not be read")))?,
    };
    let total = text.chars().count();
    if offset > 0 && offset >= total {
        return Err(Error::bad_argument(format!(
            "`offset` {offset} is past the end of {label}, which has {}; read from 0",
            plural(total, "character", "characters")
        )));
    }
    let page: String = text.chars().skip(offset).take(READ_PAGE_CHARS).collect();
    let end = offset + page.chars().count();
    Ok(Listed::Read(Page {
        text: page,
        offset,
        end,
        total,
        element: element.said(),
        by_ocr,
        nothing_in,
    })
    .into())
}
