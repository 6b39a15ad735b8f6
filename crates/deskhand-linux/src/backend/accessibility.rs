//! Trees, element actions and values through AT-SPI2, the same on every display server: the
//! display server says only which accessible frame is a window's and where its extents count
//! from.

use deskhand_core::backend::{Accessibility, Hit, Identity, SpotKind, TextState, Typed, Values};
use deskhand_core::error::{Error, ErrorKind, Result};
use deskhand_core::model::{ElementHandle, Point, Rect, Tree, WindowInfo};

use super::LinuxBackend;
use super::display::{DisplayServer, tree_of};
use super::errors::{atspi_error, change_error, element_error, refuse_disabled, unplaced_error};
use super::frames::{Origin, runs_actions_in_request, screen_rect, toolkit_point};
use super::session::{Display, on_display};
use crate::atspi::{self as a11y, AtspiError, Insertion, ObjectRef};

impl LinuxBackend {
    /// How `window`'s extents map to the screen: as learned when its tree was read, else
    /// learned now.
    async fn origin_of(&self, window: &WindowInfo) -> Result<Origin> {
        if let Some(origin) = self.bus.origin_known(window) {
            return Ok(origin);
        }
        let placed = on_display!(&self.display, server => server.frame(window).await)?;
        self.bus.remember(window, placed.origin);
        Ok(placed.origin)
    }

    async fn unplaced(&self) -> Result<bool> {
        on_display!(&self.display, server => server.unplaced().await)
    }
}

impl Accessibility for LinuxBackend {
    async fn tree(&self, window: &WindowInfo) -> Result<Tree> {
        self.start_reading_between();
        on_display!(&self.display, server => tree_of(server, &self.bus, window).await)
    }

    async fn element_bounds(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Rect>> {
        let object = object_of(element)?;
        if self.unplaced().await? {
            return Err(unplaced_error("Reaching an element with the pointer"));
        }
        let origin = self.origin_of(window).await?;
        let atspi = self.bus.atspi().await?;
        match atspi.extents(&object).await {
            Ok(extents) => Ok(extents.map(|e| screen_rect(origin, window, e))),
            Err(AtspiError::Call { .. }) => Ok(None),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn element_identity(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Option<Identity>> {
        let object = object_of(element)?;
        let origin = self.origin_of(window).await?;
        // GTK4 is the toolkit whose extents are window-relative, and whose names the walk
        // cleans of class names and doubled labels.
        let gtk4 = matches!(origin, Origin::Window { .. });
        let identity = self
            .bus
            .atspi()
            .await?
            .identity(&object, gtk4)
            .await
            .map_err(atspi_error)?;
        Ok(identity.map(|(role, name, enabled)| Identity {
            role,
            name,
            enabled,
        }))
    }

    async fn reaches(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
        at: Point,
    ) -> Result<Option<Hit>> {
        let object = object_of(element)?;
        if self.unplaced().await? {
            return Ok(None);
        }
        let at = toolkit_point(self.origin_of(window).await?, window, at);
        self.bus
            .atspi()
            .await?
            .reaches(&object, at.x, at.y)
            .await
            .map_err(atspi_error)
    }

    async fn element_spots(
        &self,
        window: &WindowInfo,
        element: &ElementHandle,
    ) -> Result<Vec<(Point, SpotKind)>> {
        let object = object_of(element)?;
        if self.unplaced().await? {
            return Ok(Vec::new());
        }
        let origin = self.origin_of(window).await?;
        match self.bus.atspi().await?.spots(&object).await {
            Ok(spots) => Ok(spots
                .into_iter()
                .map(|(rect, what)| (screen_rect(origin, window, rect).center(), what))
                .collect()),
            Err(AtspiError::Call { .. }) => Ok(Vec::new()),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn action_names(&self, element: &ElementHandle) -> Result<Vec<String>> {
        let object = object_of(element)?;
        match self.bus.atspi().await?.action_names(&object).await {
            Ok(names) => Ok(names),
            // An element without the Action interface answers with an error: it has no actions.
            Err(AtspiError::Call { .. }) => Ok(Vec::new()),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn do_action(&self, element: &ElementHandle, index: usize) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.bus.atspi().await?;
        // GTK3 answers a disabled button's action with success and does nothing: a click there
        // would report done for nothing.
        refuse_disabled(
            atspi.enabled(&object).await,
            "its action was not run and nothing was done",
        )?;
        let done = atspi
            .do_action(&object, index)
            .await
            .map_err(change_error)?;
        if done {
            Ok(())
        } else {
            Err(Error::platform(
                "the element refused its accessibility action (it may be disabled or gone)",
            ))
        }
    }

    async fn actions_run_in_request(&self, window: &WindowInfo) -> bool {
        self.bus
            .applications_of(window)
            .await
            .iter()
            .any(|app| runs_actions_in_request(&app.toolkit, &app.toolkit_version))
    }

    async fn answers(&self, window: &WindowInfo) -> bool {
        self.bus.answers(window).await
    }

    async fn focus_element(&self, element: &ElementHandle) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.bus.atspi().await?;
        match atspi.grab_focus(&object).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Error::new(
                ErrorKind::Unsupported,
                "the element refused to take the keyboard focus when asked",
            )),
            // GTK4 text views and other elements without the Component interface's GrabFocus
            // answer NotSupported: they are there, they only cannot be focused this way.
            Err(AtspiError::Call { .. }) if atspi.exists(&object).await => Err(Error::new(
                ErrorKind::Unsupported,
                "the element cannot be asked to take the keyboard focus through accessibility",
            )),
            Err(err) => Err(match err {
                AtspiError::Call { .. } => element_error(err),
                err => change_error(err),
            }),
        }
    }

    async fn element_focused(&self, element: &ElementHandle) -> Result<bool> {
        let object = object_of(element)?;
        self.bus
            .atspi()
            .await?
            .focus_within(&object)
            .await
            .map_err(element_error)
    }
}

impl Values for LinuxBackend {
    async fn text_state(&self, element: &ElementHandle) -> Result<TextState> {
        let object = object_of(element)?;
        let (text, caret, selection) = self
            .bus
            .atspi()
            .await?
            .text_state(&object)
            .await
            .map_err(element_error)?;
        let offset = |n: i32| usize::try_from(n).ok();
        Ok(TextState {
            text,
            caret: caret.and_then(offset),
            selection: selection.and_then(|(start, end)| Some((offset(start)?, offset(end)?))),
        })
    }

    async fn insert_text(&self, element: &ElementHandle, text: &str) -> Result<bool> {
        // On every display server: X11 sends a key event per character and waits until the app
        // has read them, and sway and GNOME send text in a few writes, which the app still
        // reads a key at a time (mousepad takes over a second for 1,000 on sway).
        let object = object_of(element)?;
        // Errors name the call and the element, never the text.
        match self
            .bus
            .atspi()
            .await?
            .insert_text(&object, text)
            .await
            .map_err(element_error)?
        {
            Insertion::Inserted => Ok(true),
            Insertion::Refused => Ok(false),
            Insertion::Unconfirmed(why) => Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "the text was sent to the element through accessibility, but {why}; `read` the element to see what it holds before typing again"
                ),
            )
            .after_sending()),
        }
    }

    async fn paste_text(&self, element: &ElementHandle, text: &str) -> Result<Option<Typed>> {
        // GNOME's text already goes through the input method. On sway, keys go out in a few
        // writes, but Firefox still reads them one by one, for over a second.
        if matches!(*self.display, Display::Gnome(_)) {
            return Ok(None);
        }
        let object = object_of(element)?;
        if !self
            .bus
            .atspi()
            .await?
            .takes_paste(&object)
            .await
            .map_err(element_error)?
        {
            return Ok(None);
        }
        match &*self.display {
            Display::X11(x11) => x11.paste(text).await,
            Display::Sway(sway) => sway.commit_text(text).await,
            Display::Gnome(_) => Ok(None),
        }
    }

    async fn select_all_text(&self, element: &ElementHandle) -> Result<()> {
        let object = object_of(element)?;
        match self.bus.atspi().await?.select_all_text(&object).await {
            Ok(true) => Ok(()),
            Ok(false) | Err(AtspiError::Call { .. }) => Err(Error::new(
                ErrorKind::Unsupported,
                "the element's text cannot be selected through accessibility",
            )),
            Err(err) => Err(atspi_error(err)),
        }
    }

    async fn set_text(&self, element: &ElementHandle, text: &str) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.bus.atspi().await?;
        let (interfaces, enabled) = tokio::join!(atspi.interfaces(&object), atspi.enabled(&object));
        if !interfaces
            .map_err(element_error)?
            .iter()
            .any(|i| i == a11y::EDITABLE_TEXT)
        {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the element's text cannot be replaced through accessibility: it does not implement EditableText (Chromium's fields and read-only texts do not); click it, `press` \"ctrl+a\" and `type` the text instead",
            ));
        }
        refuse_disabled(enabled, "its text cannot be replaced")?;
        // Errors name the call and the element, never the text: it may be a password.
        if atspi
            .set_text_contents(&object, text)
            .await
            .map_err(change_error)?
        {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::Unsupported,
                "the element refused to have its text replaced (it may be read-only); check its states with `observe`, or click it and `type` the text",
            ))
        }
    }

    async fn set_number(&self, element: &ElementHandle, value: f64) -> Result<()> {
        let object = object_of(element)?;
        let atspi = self.bus.atspi().await?;
        let (interfaces, enabled, min, max) = tokio::join!(
            atspi.interfaces(&object),
            atspi.enabled(&object),
            atspi.number(&object, "MinimumValue"),
            atspi.number(&object, "MaximumValue"),
        );
        if !interfaces
            .map_err(element_error)?
            .iter()
            .any(|i| i == a11y::VALUE)
        {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "the element has no number to set: it does not implement Value (sliders and spin buttons do); set a text `value` on a text field, or click or `press` keys",
            ));
        }
        refuse_disabled(enabled, "its value cannot be set")?;
        // A toolkit that reports no usable range (minimum above maximum) leaves the check to it.
        if let (Some(min), Some(max)) = (min.map_err(atspi_error)?, max.map_err(atspi_error)?)
            && min <= max
            && !(min..=max).contains(&value)
        {
            let (min, max) = (a11y::format_number(min), a11y::format_number(max));
            return Err(Error::bad_argument(format!(
                "{} is outside the element's range {min} to {max}; pass a number from {min} to {max}",
                a11y::format_number(value)
            )));
        }
        atspi
            .set_current_value(&object, value)
            .await
            .map_err(|err| match err {
                AtspiError::Call { .. } => Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "the application refused to set the value through accessibility ({err}); drag or click the control, or focus it and `press` arrow keys"
                    ),
                ),
                err => change_error(err),
            })
    }

    async fn element_value(&self, element: &ElementHandle) -> Result<Option<String>> {
        let object = object_of(element)?;
        self.bus
            .atspi()
            .await?
            .element_value(&object)
            .await
            .map_err(element_error)
    }

    async fn element_text(&self, element: &ElementHandle) -> Result<String> {
        let object = object_of(element)?;
        self.bus
            .atspi()
            .await?
            .element_text(&object)
            .await
            .map_err(element_error)
    }
}

fn object_of(element: &ElementHandle) -> Result<ObjectRef> {
    ObjectRef::from_handle(element).ok_or_else(|| {
        Error::new(
            ErrorKind::ElementGone,
            format!(
                "element handle {:?} is not an accessible object; call `observe` again",
                element.0
            ),
        )
    })
}
