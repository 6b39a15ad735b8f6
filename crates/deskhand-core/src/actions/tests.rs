use super::*;
use crate::action::*;
use crate::error::ErrorKind;
use crate::error::Result;
use crate::model::MouseButton;
use serde_json::json;

fn parse(v: serde_json::Value) -> Result<Call> {
    parse_call(v)
}

#[test]
fn the_action_table_lists_every_action_once_in_its_own_order_under_its_serde_name() {
    for (index, spec) in ACTIONS.iter().enumerate() {
        assert_eq!(spec.name as usize, index, "{} is out of order", spec.text);
        assert_eq!(
            serde_json::to_value(spec.name).unwrap(),
            json!(spec.text),
            "the table's name is the one agents send"
        );
        let call = parse(json!({"action": spec.text})).map(|call| call.name());
        if let Ok(name) = call {
            assert_eq!(name, spec.text);
        }
    }
    let schema = serde_json::to_value(schemars::schema_for!(DesktopArgs)).unwrap();
    let properties = schema["properties"].as_object().expect("properties");
    for spec in &ACTIONS {
        for field in spec.fields {
            assert!(
                properties.contains_key(*field),
                "{} takes `{field}`, which the arguments do not have",
                spec.text
            );
        }
    }
}

/// The policy checks an action against what the table says it reaches: an action that
/// changes the desktop and reached nothing would pass every `deny` rule.
#[test]
fn every_action_that_changes_the_desktop_reaches_what_its_fields_name() {
    for spec in &ACTIONS {
        let names_a_place = ["ref", "find", "x", "from"]
            .iter()
            .any(|field| spec.fields.contains(field));
        match spec.changes {
            Changes::Desktop => {
                assert_ne!(spec.reaches, Reaches::Nothing, "{}", spec.text);
                let by_place = matches!(
                    spec.reaches,
                    Reaches::Place | Reaches::PlaceOrFocus | Reaches::PlaceOrPointer
                );
                assert_eq!(by_place, names_a_place, "{}", spec.text);
            }
            _ => assert_eq!(spec.reaches, Reaches::Nothing, "{}", spec.text),
        }
    }
}

#[test]
fn a_batch_with_a_key_no_keyboard_has_is_refused_whole() {
    let err = parse(json!({"action": "batch", "steps": [
        {"action": "press", "keys": "ctrl+s"},
        {"action": "press", "keys": "ctrl+nosuchkey"},
    ]}))
    .unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadArgument);
    assert!(
        err.message
            .starts_with("step 1 is not valid, so no step ran: unknown key \"nosuchkey\""),
        "{}",
        err.message
    );
}

#[test]
fn a_text_condition_waits_for_words_on_the_pixels_present_or_absent_only() {
    let wait = |until: serde_json::Value| {
        parse(json!({"action": "wait", "until": until})).map(|call| match call.action {
            Action::Wait(spec) => spec.conditions,
            other => panic!("not a wait: {other:?}"),
        })
    };
    assert_eq!(
        wait(json!({"text": " Saved "})).unwrap(),
        [Condition::TextShown {
            text: "Saved".into(),
            absent: false
        }]
    );
    assert_eq!(
        wait(json!({"text": "Saved", "is": "absent"})).unwrap(),
        [Condition::TextShown {
            text: "Saved".into(),
            absent: true
        }]
    );
    for bad in [
        json!({"text": ""}),
        json!({"text": "Saved", "is": "enabled"}),
        json!({"text": "Saved", "value": "x"}),
        json!({"text": "Saved", "name": "Save"}),
    ] {
        let err = wait(bad.clone()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}: {}", err.message);
    }
    let observe = parse(json!({"action": "observe", "ocr": true})).unwrap();
    assert!(matches!(observe.action, Action::Observe(spec) if spec.ocr));
}

#[test]
fn refs_and_targets_parse_strictly() {
    assert_eq!(RefId::parse("e12").unwrap(), RefId(12));
    for bad in ["e0", "e", "E1", "e01", "12", "e-1", "e1x"] {
        let err = RefId::parse(bad).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
        assert!(
            err.message.contains("is not an element ref"),
            "{bad}: {}",
            err.message
        );
    }
    assert_eq!(TargetId::parse("w3").unwrap(), TargetId::Window(3));
    assert_eq!(TargetId::parse("a2").unwrap(), TargetId::App(2));
    assert_eq!(TargetId::parse("screen").unwrap(), TargetId::Screen);
    for bad in ["w0", "x3", "", "Screen", "w", "a-1"] {
        let err = TargetId::parse(bad).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
        assert!(
            err.message.contains("is not a surface"),
            "{bad}: {}",
            err.message
        );
    }
}

#[test]
fn click_needs_exactly_one_place() {
    let ok = parse(json!({"action": "click", "ref": "e3"})).unwrap();
    assert!(matches!(
        ok.action,
        Action::Click {
            place: Place::Ref(RefId(3)),
            ..
        }
    ));
    for bad in [
        json!({"action": "click"}),
        json!({"action": "click", "ref": "e3", "x": 5}),
        json!({"action": "click", "x": 5}),
        json!({"action": "click", "x": 5, "y": 1001}),
        json!({"action": "click", "ref": "e3", "count": 4}),
    ] {
        let err = parse(bad.clone()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
    }
}

#[test]
fn unknown_and_ignored_arguments_are_refused() {
    let err = parse(json!({"action": "observe", "bogus": 1})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadArgument);
    assert!(err.message.contains("bogus"), "{}", err.message);
    let err = parse(json!({"action": "press", "keys": "a", "text": "x"})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadArgument);
    assert!(
        err.message.contains("does not take `text`"),
        "{}",
        err.message
    );
    let err = parse(json!({"action": "fly"})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadArgument);
    let err = parse(json!({"action": "click", "x": "5", "y": 5})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::BadArgument);
}

#[test]
fn an_argument_of_several_forms_names_the_forms_and_the_key_inside_it() {
    let message = |v| parse(v).unwrap_err().message;
    let drag = message(json!({"action": "drag", "from": {"x": 3}, "to": "e2"}));
    assert!(
        drag.contains("`from`: expected a ref such as \"e4\" or a point [x, y] 0–1000 of the surface, not an object"),
        "{drag}"
    );
    assert!(!drag.contains("untagged"), "{drag}");
    let short = message(json!({"action": "drag", "from": [3], "to": "e2"}));
    assert!(
        short.contains("a point is two numbers [x, y] 0–1000, not 1 item"),
        "{short}"
    );
    let value = message(json!({"action": "set_value", "ref": "e1", "value": true}));
    assert!(
        value.contains("`value`: expected a text or a number, not the boolean true"),
        "{value}"
    );
    let until = message(json!({"action": "wait", "until": [{"name": "a"}, {"txt": "b"}]}));
    assert!(
        until.contains("`until[1].txt`: unknown field `txt`"),
        "{until}"
    );
    let inside = message(json!({"action": "wait", "until": {"txt": "b"}}));
    assert!(
        inside.contains("`until.txt`: unknown field `txt`"),
        "{inside}"
    );
    let one = message(json!({"action": "wait", "until": "Saved"}));
    assert!(one.contains("expected one condition as an object"), "{one}");
    assert!(parse(json!({"action": "drag", "from": [1, 2], "to": "e2"})).is_ok());
    assert!(parse(json!({"action": "set_value", "ref": "e1", "value": 4.5})).is_ok());
    assert!(parse(json!({"action": "wait", "until": {"name": "Saved"}})).is_ok());
}

#[test]
fn a_bad_key_is_named_by_its_path() {
    let message = |v| parse(v).unwrap_err().message;
    assert_eq!(
        message(json!({"action": "click", "ref": 4})),
        "the arguments do not fit the desktop tool: `ref`: invalid type: integer `4`, expected a string; see the tool's input schema"
    );
    let nested = message(json!({"action": "click", "find": {"name": "Save", "rol": "button"}}));
    assert!(
        nested.contains("`find.rol`: unknown field `rol`"),
        "{nested}"
    );
    let step = message(json!({"action": "batch", "steps": [
        {"action": "apps"},
        {"action": "press", "keys": "a"},
        {"action": "click", "ref": ["e4"]},
    ]}));
    assert!(
        step.starts_with("step 2 is not valid, so no step ran: the arguments do not fit the desktop tool: `steps[2].ref`: invalid type: sequence"),
        "{step}"
    );
    let unknown = message(json!({"action": "batch", "steps": [{"action": "apps", "bogus": 1}]}));
    assert!(
        unknown.contains("`steps[0].bogus`: unknown field `bogus`"),
        "{unknown}"
    );
    let whole = message(json!({"action": "batch", "steps": ["apps"]}));
    assert!(
        whole.contains("`steps[0]`: invalid type: string \"apps\""),
        "{whole}"
    );
    assert!(
        message(json!("observe"))
            .starts_with("the arguments do not fit the desktop tool: invalid type: string")
    );
}

#[test]
fn text_is_bounded_and_never_empty() {
    let refused = |text: String, why: &str| {
        let err = parse(json!({"action": "type", "text": text})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{text:?}");
        assert!(err.message.contains(why), "{text:?}: {}", err.message);
    };
    refused(String::new(), "needs a non-empty `text`");
    refused("a".repeat(MAX_TEXT_CHARS + 1), "more than 10000");
    refused("a\u{7}b".into(), "the control character U+0007");
    assert!(parse(json!({"action": "type", "text": "héllo\nwörld"})).is_ok());
}

#[test]
fn drag_takes_refs_or_points() {
    let call = parse(json!({"action": "drag", "from": "e2", "to": [10, 990]})).unwrap();
    assert_eq!(
        call.action,
        Action::Drag {
            from: Place::Ref(RefId(2)),
            to: Place::Point { x: 10.0, y: 990.0 },
            via: vec![],
            duration_ms: 0,
            button: MouseButton::Left,
            modifiers: vec![],
        }
    );
    for (bad, why) in [
        (json!({"action": "drag", "from": "e2"}), "`drag` needs `to`"),
        (
            json!({"action": "drag", "from": "x", "to": "e1"}),
            "\"x\" is not an element ref",
        ),
    ] {
        let err = parse(bad.clone()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadArgument, "{bad}");
        assert!(err.message.contains(why), "{bad}: {}", err.message);
    }
}

#[test]
fn a_desktop_handle_is_refused_where_no_private_desktops_are_served() {
    for args in [
        json!({"action": "windows", "desktop": "new"}),
        json!({"action": "windows", "desktop": "desk-00", "end_desktop": true}),
    ] {
        let err = parse(args.clone()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported, "{args}");
        assert!(
            err.message.contains("--desktop-per-session"),
            "{}",
            err.message
        );
    }
    let step = json!({"action": "batch", "steps": [{"action": "windows", "desktop": "desk-00"}]});
    let err = parse(step).unwrap_err();
    assert!(
        err.message.contains("not in a batch's steps"),
        "{}",
        err.message
    );
}
