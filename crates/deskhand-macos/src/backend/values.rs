//! The `Values` capability: setting an element's text or number, reading its value and text.

use deskhand_core::backend::Values;
use deskhand_core::model::ElementHandle;
use deskhand_core::{Error, ErrorKind, Result};
use objc2_core_foundation::{CFNumber, CFString};

use crate::actions::{NumberPath, StepVerdict, Stepper, number_path};
use crate::attributes::{AxValue, FrameF};
use crate::errors::{AxError, Request, classify};
use crate::permissions::Permission;
use crate::roles::role;
use crate::tree::to_node;

use super::ax::{self, Element};
use super::find::{gone, resolve};
use super::{MacBackend, blocking, require};

/// The element's node as an observation shows it, children aside.
fn node_of(element: &Element) -> std::result::Result<deskhand_core::model::Node, AxError> {
    let mut attributes = ax::attributes(element)?;
    let role = role(attributes.role(), attributes.subrole.as_deref());
    if role != deskhand_core::model::Role::Password {
        attributes.value = ax::value_of(element, "AXValue")?;
    }
    let bounds = attributes.frame().map(FrameF::to_rect);
    Ok(to_node(
        &attributes,
        role,
        ElementHandle(String::new()),
        bounds,
        true,
    ))
}

impl Values for MacBackend {
    async fn set_text(&self, element: &ElementHandle, text: &str) -> Result<()> {
        require(Permission::Accessibility)?;
        let (element, text) = (element.clone(), text.to_owned());
        blocking("Setting the text", Request::Change, move || {
            let found = resolve(&element)?;
            let settable = ax::settable(&found, "AXValue")
                .map_err(|err| classify(err, Request::Read, "Setting the text"))?;
            if !settable {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "the element's text cannot be set through accessibility; type into it instead",
                ));
            }
            ax::set(&found, "AXValue", &CFString::from_str(&text))
                .map_err(|err| classify(err, Request::Change, "Setting the text"))
        })
        .await
    }

    async fn set_number(&self, element: &ElementHandle, value: f64) -> Result<()> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Setting the number", Request::Change, move || {
            let found = resolve(&element)?;
            let read = |what| move |err| classify(err, Request::Read, what);
            let changed = |err| classify(err, Request::Change, "Setting the number");
            let number = |found: &Element| -> Result<Option<f64>> {
                Ok(
                    match ax::value_of(found, "AXValue").map_err(read("Reading the number"))? {
                        Some(AxValue::Number(n)) => Some(n),
                        _ => None,
                    },
                )
            };
            let current = number(&found)?;
            let settable = ax::settable(&found, "AXValue").map_err(read("Setting the number"))?;
            let actions = ax::action_names(&found).map_err(read("Reading the actions"))?;
            match number_path(settable, current, value, &actions)? {
                NumberPath::Nothing => Ok(()),
                NumberPath::SetValue => {
                    ax::set(&found, "AXValue", &CFNumber::new_f64(value)).map_err(changed)
                }
                NumberPath::Step(action) => {
                    let mut stepper = Stepper::new(current.unwrap_or_default(), value);
                    loop {
                        ax::perform(&found, action).map_err(changed)?;
                        let now = number(&found)
                            .map_err(Error::after_sending)?
                            .ok_or_else(|| gone("Setting the number").after_sending())?;
                        if stepper.after_step(now)? == StepVerdict::Arrived {
                            return Ok(());
                        }
                    }
                }
            }
        })
        .await
    }

    async fn element_value(&self, element: &ElementHandle) -> Result<Option<String>> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's value", Request::Read, move || {
            let found = resolve(&element)?;
            let node = node_of(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's value"))?;
            Ok(node.value)
        })
        .await
    }

    async fn element_text(&self, element: &ElementHandle) -> Result<String> {
        require(Permission::Accessibility)?;
        let element = element.clone();
        blocking("Reading the element's text", Request::Read, move || {
            let found = resolve(&element)?;
            let node = node_of(&found)
                .map_err(|err| classify(err, Request::Read, "Reading the element's text"))?;
            if node.role == deskhand_core::model::Role::Password {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "a password field's content is never read; observe shows the field without it",
                ));
            }
            Ok(node.value.unwrap_or(node.name))
        })
        .await
    }
}
