-- The schema SQLiteAdStore made before the schema description (migrations v1 to v6), statement
-- by statement as it ran them, and GRDB's record of them. SQLiteSchemaTests runs it to make a
-- database "from an earlier version" and checks the current driver opens it and makes the same.
CREATE TABLE decision (
    viewer TEXT NOT NULL,
    scope TEXT NOT NULL,
    break_id TEXT NOT NULL,
    decided_at_ms INTEGER NOT NULL,
    start_offset_ns INTEGER,
    pod_ns INTEGER NOT NULL,
    assets TEXT NOT NULL,
    PRIMARY KEY (viewer, scope, break_id)
);
CREATE TABLE decision_creative (
    viewer TEXT NOT NULL,
    creative_id TEXT NOT NULL,
    decided_at_ms INTEGER NOT NULL
);
CREATE INDEX decision_creative_by_viewer ON decision_creative (viewer, decided_at_ms);
CREATE TABLE live_break (
    channel TEXT NOT NULL,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (channel, id)
);
CREATE TABLE inventory_change (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    data TEXT NOT NULL
);
CREATE TABLE decision_v3 (
    viewer TEXT NOT NULL,
    scope TEXT NOT NULL,
    break_id TEXT NOT NULL,
    decided_at_ms INTEGER NOT NULL,
    start_offset_ns INTEGER,
    pod_ns INTEGER NOT NULL,
    assets TEXT NOT NULL,
    creatives TEXT NOT NULL,
    PRIMARY KEY (viewer, scope, break_id)
);
DROP TABLE decision;
DROP TABLE decision_creative;
ALTER TABLE decision_v3 RENAME TO decision;
CREATE TABLE tracking_beacon (
    viewer TEXT NOT NULL,
    scope TEXT NOT NULL,
    break_id TEXT NOT NULL,
    slot INTEGER NOT NULL,
    event TEXT NOT NULL,
    creative_id TEXT NOT NULL,
    plan TEXT NOT NULL,
    received_at_ms INTEGER NOT NULL,
    duplicates INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (viewer, scope, break_id, slot, event)
) WITHOUT ROWID;
CREATE INDEX tracking_beacon_by_break ON tracking_beacon (scope, break_id);
CREATE INDEX tracking_beacon_by_creative ON tracking_beacon (creative_id);
ALTER TABLE decision ADD COLUMN nonce TEXT NOT NULL DEFAULT '';
CREATE TABLE creative_conditioning (
    key TEXT PRIMARY KEY NOT NULL,
    creative_id TEXT NOT NULL,
    source_url TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER,
    lease_owner TEXT,
    lease_expiry_ms INTEGER,
    error TEXT,
    updated_at_ms INTEGER NOT NULL
);
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations (identifier) VALUES
    ('v1: decisions and live breaks'),
    ('v2: inventory changes'),
    ('v3: decisions carry their creatives'),
    ('v4: tracking beacons'),
    ('v5: decision nonces'),
    ('v6: creative conditioning');
