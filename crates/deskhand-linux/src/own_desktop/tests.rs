use super::*;

fn session(vars: &[(&str, &str)], seen_in: &str) -> Candidate {
    Candidate {
        vars: vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        seen_in: seen_in.to_owned(),
        processes: 1,
        ..Candidate::default()
    }
}

fn given(vars: &[(&str, &str)], choice: Option<&str>) -> Given {
    Given {
        vars: vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        choice: choice.map(str::to_owned),
    }
}

fn person() -> Candidate {
    Candidate {
        processes: 40,
        ..session(
            &[
                ("DISPLAY", ":0"),
                ("XAUTHORITY", "/run/user/1000/gdm/Xauthority"),
                ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
                ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ],
            "process 812 (xfce4-session)",
        )
    }
}

fn private_desktop() -> Candidate {
    Candidate {
        private: true,
        processes: 6,
        ..session(
            &[
                ("DISPLAY", ":99"),
                ("XAUTHORITY", "/tmp/deskhand-desktop-1/Xauthority"),
                (
                    "DBUS_SESSION_BUS_ADDRESS",
                    "unix:path=/tmp/deskhand-desktop-1/bus",
                ),
            ],
            "process 90 (openbox)",
        )
    }
}

#[test]
fn a_bare_environment_gets_the_persons_session_over_a_private_desktop() {
    let found = choose(&given(&[], None), vec![private_desktop(), person()], "").unwrap();
    assert_eq!(found.picked.as_ref().unwrap().name(), ":0");
    assert_eq!(
        found.set,
        person().vars,
        "every variable of the session is set"
    );
    let summary = found.summary().unwrap();
    assert!(
        summary.starts_with("Desktop: :0 (X11, seen in process 812"),
        "{summary}"
    );
    assert!(
        summary.contains(":99 (X11, a private headless desktop of deskhand's")
            && summary.contains("DESKHAND_SESSION=NAME"),
        "{summary}"
    );
}

#[test]
fn the_active_login_wins_over_a_busier_session() {
    let mut other = person();
    other.vars[0].1 = ":1".into();
    other.processes = 400;
    let mut active = person();
    active.active = true;
    let found = choose(&given(&[], None), vec![other, active], "").unwrap();
    assert_eq!(found.picked.unwrap().name(), ":0");
}

#[test]
fn a_display_given_is_kept_and_only_what_is_missing_is_filled_from_its_own_session() {
    let found = choose(
        &given(&[("DISPLAY", ":99")], None),
        vec![person(), private_desktop()],
        "",
    )
    .unwrap();
    let set: Vec<&str> = found.set.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(set, ["XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS"]);
    assert_eq!(found.set[0].1, "/tmp/deskhand-desktop-1/Xauthority");
    assert!(
        found.others.is_empty(),
        "the user chose; nothing else is offered"
    );
}

#[test]
fn a_display_given_that_no_source_knows_is_used_as_it_is() {
    let found = choose(&given(&[("DISPLAY", ":5")], None), vec![person()], "").unwrap();
    assert!(found.set.is_empty() && found.picked.is_none());
}

#[test]
fn a_choice_picks_its_session_by_display_or_socket_name() {
    for choice in [":99", "99", ":99.0"] {
        let found = choose(
            &given(&[], Some(choice)),
            vec![person(), private_desktop()],
            "",
        )
        .unwrap();
        assert_eq!(found.picked.unwrap().name(), ":99", "{choice}");
    }
    let wayland = session(
        &[
            ("WAYLAND_DISPLAY", "wayland-1"),
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ("SWAYSOCK", "/run/user/1000/sway-ipc.sock"),
        ],
        "process 7 (sway)",
    );
    let found = choose(&given(&[], Some("wayland-1")), vec![person(), wayland], "").unwrap();
    assert!(found.picked.unwrap().describe().contains("(sway,"));
}

#[test]
fn a_choice_that_matches_nothing_names_what_was_found() {
    let err = choose(&given(&[], Some(":7")), vec![person()], "").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("\":7\"")
            && text.contains(":0 (X11")
            && text.contains("leave the choice out"),
        "{text}"
    );
}

#[test]
fn nothing_found_gives_the_env_block_to_configure() {
    let err = choose(&given(&[], None), Vec::new(), "nothing named a display").unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("no graphical session of this user was found: nothing named a display;"),
        "{text}"
    );
    assert!(text.contains("\"env\": {\"DISPLAY\": \":0\""), "{text}");
    assert!(text.contains("--headless"), "{text}");
}

#[test]
fn a_complete_environment_needs_no_search() {
    let full = given(
        &[
            ("DISPLAY", ":0"),
            ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/x"),
            ("XDG_RUNTIME_DIR", "/run/user/0"),
        ],
        None,
    );
    assert!(full.complete());
    assert!(!given(&[("DISPLAY", ":0")], None).complete());
    assert!(look(&full).unwrap().picked.is_none());
}
