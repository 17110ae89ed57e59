-- The schema PostgresAdStore made before the schema description (migrations v1 to v8), statement
-- by statement as it ran them, and its record of them. PostgresSchemaTests runs it, one statement at
-- a time (split at ";" ending a line), to make a database "from an earlier version".
CREATE TABLE intermission_migration (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE decision (
    viewer TEXT NOT NULL, scope TEXT NOT NULL, break_id TEXT NOT NULL,
    decided_at_ms BIGINT NOT NULL, start_offset_ns BIGINT, pod_ns BIGINT NOT NULL, assets TEXT NOT NULL,
    PRIMARY KEY (viewer, scope, break_id)
);
CREATE TABLE decision_creative (viewer TEXT NOT NULL, creative_id TEXT NOT NULL, decided_at_ms BIGINT NOT NULL);
CREATE INDEX decision_creative_by_viewer ON decision_creative (viewer, decided_at_ms);
CREATE TABLE live_break (channel TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (channel, id));
CREATE TABLE inventory_change (seq BIGSERIAL PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE decision_v3 (
    viewer TEXT NOT NULL, scope TEXT NOT NULL, break_id TEXT NOT NULL,
    decided_at_ms BIGINT NOT NULL, start_offset_ns BIGINT, pod_ns BIGINT NOT NULL, assets TEXT NOT NULL,
    creatives TEXT NOT NULL,
    PRIMARY KEY (viewer, scope, break_id)
);
DROP TABLE decision;
DROP TABLE decision_creative;
ALTER TABLE decision_v3 RENAME TO decision;
CREATE TABLE break_revision (channel TEXT PRIMARY KEY, revision BIGINT NOT NULL);
CREATE TABLE tracking_beacon (
    viewer TEXT NOT NULL,
    scope TEXT NOT NULL,
    break_id TEXT NOT NULL,
    slot BIGINT NOT NULL,
    event TEXT NOT NULL,
    creative_id TEXT NOT NULL,
    plan TEXT NOT NULL,
    received_at_ms BIGINT NOT NULL,
    duplicates BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (viewer, scope, break_id, slot, event)
);
CREATE INDEX tracking_beacon_by_break ON tracking_beacon (scope, break_id);
CREATE INDEX tracking_beacon_by_creative ON tracking_beacon (creative_id);
CREATE TABLE group_head (group_id TEXT PRIMARY KEY, n BIGINT NOT NULL);
CREATE TABLE group_input (group_id TEXT NOT NULL, n BIGINT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (group_id, n));
CREATE TABLE group_instance (instance TEXT PRIMARY KEY, seen_at TIMESTAMPTZ NOT NULL);
ALTER TABLE decision ADD COLUMN nonce TEXT NOT NULL DEFAULT '';
CREATE INDEX decision_by_age ON decision (decided_at_ms);
CREATE TABLE creative_conditioning (
    key TEXT PRIMARY KEY,
    creative_id TEXT NOT NULL,
    source_url TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_ms BIGINT,
    lease_owner TEXT,
    lease_expiry_ms BIGINT,
    error TEXT,
    updated_at_ms BIGINT NOT NULL
);
INSERT INTO intermission_migration (name) VALUES
    ('v1: decisions and live breaks'),
    ('v2: inventory changes'),
    ('v3: decisions carry their creatives'),
    ('v4 (PostgreSQL): break revisions shared by instances'),
    ('v5 (PostgreSQL): tracking beacons'),
    ('v6 (PostgreSQL): group inputs relayed between instances'),
    ('v7: decision nonces, and decisions by age'),
    ('v8: creative conditioning');
