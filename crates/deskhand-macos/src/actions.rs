//! Which Accessibility request carries out what the core asks: the action names it sees, and
//! how a number is set on a slider or stepper.

use deskhand_core::{Error, ErrorKind};

/// The programmatic name the core knows an AX action by: `AXPress` is "press", `AXShowMenu`
/// "showmenu", `AXConfirm` "confirm", `AXIncrement` "increment", `AXOpen` "open".
pub fn core_action_name(ax_name: &str) -> String {
    ax_name
        .strip_prefix("AX")
        .unwrap_or(ax_name)
        .to_ascii_lowercase()
}

/// How a number reaches an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberPath {
    /// `AXValue` is settable: set it, then read it back.
    SetValue,
    /// Only its actions move it (a stepper): press this one until the value gets there.
    Step(&'static str),
    /// It shows the number already.
    Nothing,
}

/// The way to give an element `target`: its value set where it is settable, else its
/// `AXIncrement`/`AXDecrement` in the right direction; an error naming another way otherwise.
pub fn number_path(
    settable: bool,
    current: Option<f64>,
    target: f64,
    ax_actions: &[String],
) -> Result<NumberPath, Error> {
    if current == Some(target) {
        return Ok(NumberPath::Nothing);
    }
    if settable {
        return Ok(NumberPath::SetValue);
    }
    let has = |name: &str| ax_actions.iter().any(|a| a == name);
    match current {
        Some(now) if target > now && has("AXIncrement") => Ok(NumberPath::Step("AXIncrement")),
        Some(now) if target < now && has("AXDecrement") => Ok(NumberPath::Step("AXDecrement")),
        _ => Err(Error::new(
            ErrorKind::Unsupported,
            "this element's number can be neither set nor stepped through accessibility; drag \
             its thumb or press the arrow keys with it focused instead",
        )),
    }
}

/// Steps taken at most toward a number: a stepper of 0–10,000 in ones is not worth a minute.
pub const MAX_STEPS: u32 = 200;

/// Follows the value while a stepper's action is pressed again and again.
#[derive(Debug, Clone, Copy)]
pub struct Stepper {
    target: f64,
    last: f64,
    up: bool,
    steps: u32,
}

/// What the value read after one more step says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepVerdict {
    /// Keep pressing.
    Again,
    /// At the target, or as near as the step size allows (the next step would pass it).
    Arrived,
}

impl Stepper {
    pub fn new(current: f64, target: f64) -> Stepper {
        Stepper {
            target,
            last: current,
            up: target > current,
            steps: 0,
        }
    }

    /// The verdict on `value`, read after one more press; an error (after sending: the presses
    /// landed) when the value stopped moving or the step budget ran out.
    pub fn after_step(&mut self, value: f64) -> Result<StepVerdict, Error> {
        self.steps += 1;
        let step = (value - self.last).abs();
        let moved_right_way = if self.up {
            value > self.last
        } else {
            value < self.last
        };
        if !moved_right_way {
            return Err(Error::platform(format!(
                "the element stopped at {value} after {} steps toward {}; it may have reached \
                 its limit: observe it, or set the number by dragging or with the arrow keys",
                self.steps, self.target
            ))
            .after_sending());
        }
        self.last = value;
        let remaining = self.target - value;
        let passed = if self.up {
            remaining <= 0.0
        } else {
            remaining >= 0.0
        };
        if passed || remaining.abs() < step / 2.0 {
            return Ok(StepVerdict::Arrived);
        }
        if self.steps >= MAX_STEPS {
            return Err(Error::platform(format!(
                "the element reached {value} after {MAX_STEPS} steps and is still short of {}; \
                 set the rest by typing the number into it or dragging its thumb",
                self.target
            ))
            .after_sending());
        }
        Ok(StepVerdict::Again)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ax_actions_reach_the_core_by_the_names_it_clicks_with() {
        assert_eq!(core_action_name("AXPress"), "press");
        assert_eq!(core_action_name("AXShowMenu"), "showmenu");
        assert_eq!(core_action_name("AXConfirm"), "confirm");
        assert_eq!(core_action_name("AXIncrement"), "increment");
        assert_eq!(core_action_name("AXOpen"), "open");
        assert_eq!(core_action_name("custom"), "custom");
        let offered: Vec<String> = ["AXShowMenu", "AXPress"]
            .iter()
            .map(|n| core_action_name(n))
            .collect();
        assert_eq!(
            deskhand_core::render::click_action(deskhand_core::model::Role::Button, &offered),
            Some(1),
            "a click runs AXPress, not AXShowMenu"
        );
    }

    #[test]
    fn a_number_is_set_where_settable_else_stepped_the_right_way() {
        let both = names(&["AXIncrement", "AXDecrement"]);
        assert_eq!(
            number_path(true, Some(3.0), 7.0, &both).unwrap(),
            NumberPath::SetValue
        );
        assert_eq!(
            number_path(false, Some(3.0), 7.0, &both).unwrap(),
            NumberPath::Step("AXIncrement")
        );
        assert_eq!(
            number_path(false, Some(3.0), 1.0, &both).unwrap(),
            NumberPath::Step("AXDecrement")
        );
        assert_eq!(
            number_path(false, Some(3.0), 3.0, &[]).unwrap(),
            NumberPath::Nothing
        );
        let err = number_path(false, Some(3.0), 1.0, &names(&["AXIncrement"])).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(err.message.contains("arrow keys"), "{}", err.message);
        let unread = number_path(false, None, 1.0, &both).unwrap_err();
        assert_eq!(unread.kind, ErrorKind::Unsupported);
    }

    #[test]
    fn stepping_stops_at_the_target_or_the_nearest_step() {
        let mut stepper = Stepper::new(0.0, 3.0);
        assert_eq!(stepper.after_step(1.0).unwrap(), StepVerdict::Again);
        assert_eq!(stepper.after_step(2.0).unwrap(), StepVerdict::Again);
        assert_eq!(stepper.after_step(3.0).unwrap(), StepVerdict::Arrived);

        let mut coarse = Stepper::new(0.0, 12.0);
        assert_eq!(coarse.after_step(5.0).unwrap(), StepVerdict::Again);
        assert_eq!(
            coarse.after_step(10.0).unwrap(),
            StepVerdict::Arrived,
            "15 is farther"
        );

        let mut down = Stepper::new(10.0, 4.0);
        assert_eq!(down.after_step(8.0).unwrap(), StepVerdict::Again);
        assert_eq!(down.after_step(6.0).unwrap(), StepVerdict::Again);
        assert_eq!(down.after_step(4.0).unwrap(), StepVerdict::Arrived);

        let mut past = Stepper::new(10.0, 3.0);
        assert_eq!(past.after_step(6.0).unwrap(), StepVerdict::Again);
        assert_eq!(
            past.after_step(2.0).unwrap(),
            StepVerdict::Arrived,
            "passed: stop"
        );
    }

    #[test]
    fn a_stepper_that_stops_moving_is_an_error_after_sending() {
        let mut stuck = Stepper::new(0.0, 5.0);
        assert_eq!(stuck.after_step(1.0).unwrap(), StepVerdict::Again);
        let err = stuck.after_step(1.0).unwrap_err();
        assert!(
            err.sent && err.message.contains("stopped at 1"),
            "{}",
            err.message
        );

        let mut slow = Stepper::new(0.0, 1_000.0);
        let mut result = Ok(StepVerdict::Again);
        let mut value = 0.0;
        while result == Ok(StepVerdict::Again) {
            value += 1.0;
            result = slow.after_step(value);
        }
        let err = result.unwrap_err();
        assert!(
            err.sent && err.message.contains("200 steps"),
            "{}",
            err.message
        );
    }
}
