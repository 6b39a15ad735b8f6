-- deskhand memory, schema 1. Only names are kept: titles, roles and names of controls, menu
-- paths. Never a value, never anything typed. Times are UTC unix milliseconds.

CREATE TABLE apps (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
) STRICT;

-- One row per kind of window: the same structure is the same window however it is filled.
CREATE TABLE windows (
    id INTEGER PRIMARY KEY,
    app_id INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    title TEXT NOT NULL,
    -- The title lowercased, with "…" as "...", for search.
    title_key TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    times_seen INTEGER NOT NULL,
    -- Rises with every write that shows the window: breaks ties of last_seen, so the window a
    -- step led to is the one last seen even when both carry the same time.
    touched INTEGER NOT NULL,
    -- Counts kept by the triggers below, so coverage is one pass over windows, not over every
    -- control and step: controls, controls ever used, steps taken in the window, steps from
    -- other windows that led into it.
    controls INTEGER NOT NULL DEFAULT 0,
    controls_used INTEGER NOT NULL DEFAULT 0,
    steps_out INTEGER NOT NULL DEFAULT 0,
    ways_in INTEGER NOT NULL DEFAULT 0,
    UNIQUE (app_id, fingerprint)
) STRICT;
CREATE INDEX windows_by_app ON windows (app_id, last_seen, touched);
CREATE INDEX windows_by_touch ON windows (touched);

CREATE TABLE controls (
    id INTEGER PRIMARY KEY,
    window_id INTEGER NOT NULL REFERENCES windows (id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    -- 1 once a sighting of the window listed it; 0 while it was only seen appearing after a
    -- step (a tab's page), so a route to it has to take that step.
    sighted INTEGER NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    times_used INTEGER NOT NULL,
    UNIQUE (window_id, role, name)
) STRICT;

-- A step taken in from_window and what followed: another window (to_window) or controls that
-- appeared in from_window (rows of reveals).
CREATE TABLE transitions (
    id INTEGER PRIMARY KEY,
    from_window INTEGER NOT NULL REFERENCES windows (id) ON DELETE CASCADE,
    control_id INTEGER REFERENCES controls (id) ON DELETE CASCADE,
    -- A select's menu path as a JSON array of strings.
    path TEXT,
    path_key TEXT,
    to_window INTEGER REFERENCES windows (id) ON DELETE CASCADE,
    step_key TEXT NOT NULL,
    effect_key TEXT NOT NULL,
    count INTEGER NOT NULL,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    CHECK ((control_id IS NULL) <> (path IS NULL)),
    UNIQUE (from_window, step_key, effect_key)
) STRICT;
CREATE INDEX transitions_into ON transitions (to_window);
CREATE INDEX transitions_by_control ON transitions (control_id);

CREATE TABLE reveals (
    transition_id INTEGER NOT NULL REFERENCES transitions (id) ON DELETE CASCADE,
    control_id INTEGER NOT NULL REFERENCES controls (id) ON DELETE CASCADE,
    PRIMARY KEY (transition_id, control_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX reveals_by_control ON reveals (control_id);

CREATE TRIGGER control_added AFTER INSERT ON controls BEGIN
    UPDATE windows SET controls = controls + 1, controls_used = controls_used + (new.times_used > 0)
    WHERE id = new.window_id;
END;
CREATE TRIGGER control_first_used AFTER UPDATE OF times_used ON controls
WHEN old.times_used = 0 AND new.times_used > 0 BEGIN
    UPDATE windows SET controls_used = controls_used + 1 WHERE id = new.window_id;
END;
CREATE TRIGGER control_removed AFTER DELETE ON controls BEGIN
    UPDATE windows SET controls = controls - 1, controls_used = controls_used - (old.times_used > 0)
    WHERE id = old.window_id;
END;
CREATE TRIGGER step_added AFTER INSERT ON transitions BEGIN
    UPDATE windows SET steps_out = steps_out + 1 WHERE id = new.from_window;
    UPDATE windows SET ways_in = ways_in + 1
    WHERE id = new.to_window AND new.to_window <> new.from_window;
END;
CREATE TRIGGER step_removed AFTER DELETE ON transitions BEGIN
    UPDATE windows SET steps_out = steps_out - 1 WHERE id = old.from_window;
    UPDATE windows SET ways_in = ways_in - 1
    WHERE id = old.to_window AND old.to_window <> old.from_window;
END;
