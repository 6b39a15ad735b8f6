//! Reading an observation's lines as a test does: refs, points, roles and states.

/// The lines of an observation before its element lines: the header and the fence line.
pub const HEAD_LINES: usize = 2;

/// An observation's element lines, without the header and the fence line.
pub fn element_lines(observation: &str) -> impl Iterator<Item = &str> {
    observation.lines().skip(HEAD_LINES)
}

/// The ref of the first observation line that contains every one of `needles`.
pub fn ref_of(observation: &str, needles: &[&str]) -> String {
    element_lines(observation)
        .find(|line| needles.iter().all(|n| line.contains(n)))
        .and_then(|line| line.trim_start().split(' ').next())
        .unwrap_or_else(|| panic!("no line with {needles:?} in:\n{observation}"))
        .to_owned()
}

/// The `@x,y` point of an observation line, 0–1000 of its surface.
pub fn point_of(line: &str) -> (f64, f64) {
    let (x, y) = line
        .rsplit_once('@')
        .and_then(|(_, p)| p.split_once(','))
        .unwrap_or_else(|| panic!("no point in {line:?}"));
    (x.trim().parse().expect("x"), y.trim().parse().expect("y"))
}

/// The observation line of the element `reference`.
pub fn line_of<'a>(text: &'a str, reference: &str) -> &'a str {
    element_lines(text)
        .find(|l| l.trim_start().split(' ').next() == Some(reference))
        .unwrap_or_else(|| panic!("no line for {reference} in:\n{text}"))
}

/// The ref of the first element line for which `wanted` holds.
pub fn ref_where(text: &str, what: &str, wanted: impl Fn(&str) -> bool) -> String {
    element_lines(text)
        .find(|l| wanted(l))
        .and_then(|l| l.trim_start().split(' ').next())
        .unwrap_or_else(|| panic!("no {what} in:\n{text}"))
        .to_owned()
}

/// The ref of the first element with `role`.
pub fn first_of_role(text: &str, role: &str) -> String {
    ref_where(text, &format!("{role} element"), |l| {
        l.trim_start().split(' ').nth(1) == Some(role)
    })
}

/// Whether the line lists `state` as one of its words.
pub fn has_state(line: &str, state: &str) -> bool {
    line.split(' ').any(|word| word == state)
}
