//! What a point inside an element reaches, and the points a click on it may take.

use futures::future::join_all;
use zbus::zvariant::OwnedObjectPath;

use deskhand_core::backend::{Hit, SpotKind};
use deskhand_core::model::Rect;

use super::walk::manages_descendants;
use super::*;

impl Atspi {
    /// What the pointer at (x, y), in the coordinates the toolkit reports, reaches: the element
    /// when its parent's element at that point is the element, is inside it, or is a new
    /// object for the same thing (LibreOffice makes one at every ask). A parent that has
    /// nothing at the point is asked again in its own coordinates, which Dolphin's item view
    /// takes where it should take the screen's. `None` when the toolkit cannot say: no parent,
    /// or a parent without hit testing.
    pub async fn reaches(
        &self,
        object: &ObjectRef,
        x: i32,
        y: i32,
    ) -> Result<Option<Hit>, AtspiError> {
        /// Deeper than any element's own content; a toolkit that returns the deepest element at
        /// a point (Qt) returns one inside the element a level or two down.
        const MAX_LEVELS: usize = 12;
        let cannot_say = |err: AtspiError| {
            if matches!(err, AtspiError::Call { .. }) {
                Ok(None)
            } else {
                Err(err)
            }
        };
        let parent = match self.parent(object).await {
            Ok(Some(parent)) => parent,
            Ok(None) => return Ok(None),
            Err(err) => return cannot_say(err),
        };
        let hit = match self.element_at(&parent, x, y).await {
            Ok(Some(hit)) => hit,
            Ok(None) => {
                let local = match self.extents(&parent).await {
                    Ok(Some(bounds)) => self.element_at(&parent, x - bounds.x, y - bounds.y).await,
                    Ok(None) => Ok(None),
                    Err(err) => Err(err),
                };
                match local {
                    Ok(Some(hit)) if hit == *object => return Ok(Some(Hit::Element)),
                    Ok(Some(_)) => return Ok(Some(Hit::Other)),
                    Ok(None) => return Ok(Some(Hit::Nothing)),
                    Err(err) => return cannot_say(err),
                }
            }
            Err(err) => return cannot_say(err),
        };
        let mut at = hit.clone();
        for _ in 0..MAX_LEVELS {
            if at == *object {
                return Ok(Some(Hit::Element));
            }
            if at == parent {
                break;
            }
            match self.parent(&at).await? {
                Some(up) => at = up,
                None => break,
            }
        }
        let (hit_is, element_is, hit_extents, element_extents) = futures::join!(
            self.identity(&hit, false),
            self.identity(object, false),
            self.extents(&hit),
            self.extents(object),
        );
        let same = matches!((hit_is, element_is), (Ok(Some(a)), Ok(Some(b))) if a == b)
            && matches!((hit_extents, element_extents), (Ok(a), Ok(b)) if a == b);
        Ok(Some(if same { Hit::Element } else { Hit::Other }))
    }

    /// The child `parent` has at (x, y) in screen coordinates, as the toolkit answers.
    pub(super) async fn element_at(
        &self,
        parent: &ObjectRef,
        x: i32,
        y: i32,
    ) -> Result<Option<ObjectRef>, AtspiError> {
        let reference: (String, OwnedObjectPath) = self
            .call(
                parent,
                COMPONENT,
                "GetAccessibleAtPoint",
                &(x, y, COORD_SCREEN),
            )
            .await?;
        Ok(element_of(reference, &parent.bus))
    }

    /// Points of the element where it draws what it shows, in the coordinates the toolkit
    /// reports: the middle of its text, then its first children's centers (never those of an
    /// element that creates its children on demand).
    pub async fn spots(&self, object: &ObjectRef) -> Result<Vec<(Rect, SpotKind)>, AtspiError> {
        /// Enough to find a child that takes the click, few enough to answer at once.
        const CHILDREN: usize = 8;
        let (interfaces, states) = futures::join!(
            self.interfaces(object),
            self.call::<_, Vec<u32>>(object, ACCESSIBLE, "GetState", &()),
        );
        let (interfaces, states) = (interfaces?, states?);
        let mut spots = Vec::new();
        if interfaces.iter().any(|i| i == TEXT) {
            let count =
                i32::try_from(self.property(object, TEXT, "CharacterCount").await?).unwrap_or(0);
            if count > 0 {
                let (x, y, w, h): (i32, i32, i32, i32) = self
                    .call(
                        object,
                        TEXT,
                        "GetRangeExtents",
                        &(0i32, count, COORD_SCREEN),
                    )
                    .await?;
                if w > 0 && h > 0 {
                    spots.push((Rect::new(x, y, w as u32, h as u32), SpotKind::Text));
                }
            }
        }
        if !manages_descendants(&states) {
            let children = self.children(object).await?;
            let extents = join_all(
                children
                    .iter()
                    .take(CHILDREN)
                    .map(|child| async move { self.extents(child).await }),
            )
            .await;
            spots.extend(
                extents
                    .into_iter()
                    .filter_map(|e| e.ok().flatten())
                    .map(|e| (e, SpotKind::Part)),
            );
        }
        Ok(spots)
    }
}
