//! `screenshot`: a surface's pixels, scaled down to the largest edge allowed; `zoom` shares it.

use crate::action::{Action, ActionName, ActionSpec, Changes, Given, Reaches};
use crate::backend::{Accessibility, Capture, Windows};
use crate::coords::region_to_rect;
use crate::desk::answer::Captured;
use crate::desk::config::Config;
use crate::desk::reach::Reach;
use crate::desk::reply::Reply;
use crate::desk::surface::{describe_surface, make_current};
use crate::error::Result;
use crate::image::{encode_png, fit};
use crate::session::Session;

pub(crate) const SPEC: ActionSpec = ActionSpec {
    name: ActionName::Screenshot,
    text: "screenshot",
    fields: &["target"],
    changes: Changes::Nothing,
    reaches: Reaches::Nothing,
    keeps: &[],
};

/// Checks the call's arguments into the typed action.
pub(crate) fn parse(_: &Given) -> Result<Action> {
    Ok(Action::Screenshot)
}

pub(crate) async fn screenshot<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
) -> Result<Reply> {
    capture(backend, session, config, reach, None).await
}

/// A surface's pixels, whole or a region of it at native size.
pub(crate) async fn capture<B: Windows + Accessibility + Capture>(
    backend: &B,
    session: &mut Session,
    config: &Config,
    reach: &mut Reach,
    region: Option<[f64; 4]>,
) -> Result<Reply> {
    let surface = reach.surface(backend, session).await?;
    let base = match &surface.window {
        Some(window) => crate::desk::surface::window_pixels(backend, window).await?,
        None => surface.rect,
    };
    let (rect, kind) = match region {
        Some(region) => (region_to_rect(&base, region)?, "zoom"),
        None => (base, "screenshot"),
    };
    let image = backend.capture(rect).await?;
    let (native_w, native_h) = (image.width, image.height);
    let image = if region.is_some() {
        image
    } else {
        fit(image, config.max_image_edge)
    };
    let captured = Captured {
        surface: surface.label.clone(),
        kind,
        pixels: rect,
        width: image.width,
        height: image.height,
        described: describe_surface(session, &surface),
        region,
        native: [native_w, native_h],
        png: encode_png(&image)?,
    };
    make_current(session, &surface);
    Ok(captured.into())
}
