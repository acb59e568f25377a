-- The schema of a Scorekeeper database at version 3 (tables, drafts, submissions with
-- their action), as that release made it: row ids without AUTOINCREMENT.

CREATE TABLE schema_migrations ( version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);

CREATE TABLE tables (
            id INTEGER PRIMARY KEY,
            scorer_key TEXT NOT NULL UNIQUE,
            watch_key TEXT NOT NULL UNIQUE,
            game TEXT NOT NULL,
            name TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}',
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 1,
            rematch_of INTEGER REFERENCES tables(id) ON DELETE SET NULL
        );

CREATE TABLE players (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            UNIQUE (table_id, seat)
        );

CREATE TABLE entries (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            kind TEXT NOT NULL,
            request TEXT NOT NULL,
            result TEXT NOT NULL,
            created TEXT NOT NULL,
            submission_id TEXT UNIQUE,
            supersedes INTEGER REFERENCES entries(id)
        );

CREATE INDEX entries_table_round ON entries(table_id, round);

CREATE TABLE entry_points (
            entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            player_id INTEGER NOT NULL REFERENCES players(id) ON DELETE CASCADE,
            points INTEGER NOT NULL,
            PRIMARY KEY (entry_id, player_id)
        );

CREATE TABLE entry_events (
            id INTEGER PRIMARY KEY,
            entry_id INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
            event TEXT NOT NULL CHECK (event IN ('voided', 'restored', 'superseded')),
            by_entry INTEGER REFERENCES entries(id),
            created TEXT NOT NULL
        );

CREATE INDEX entry_events_entry ON entry_events(entry_id, id);

CREATE VIEW live_entries AS
            SELECT e.* FROM entries e
            WHERE COALESCE((SELECT ev.event FROM entry_events ev WHERE ev.entry_id = e.id
                            ORDER BY ev.id DESC LIMIT 1), 'created')
                  NOT IN ('voided', 'superseded');

CREATE TABLE rolls (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            round INTEGER NOT NULL,
            kind TEXT NOT NULL,
            dice TEXT NOT NULL,
            result TEXT NOT NULL,
            physical INTEGER NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            submission_id TEXT UNIQUE
        );

CREATE INDEX rolls_table ON rolls(table_id, id);

CREATE TABLE submissions (
            id TEXT PRIMARY KEY,
            table_id INTEGER REFERENCES tables(id) ON DELETE CASCADE,
            created TEXT NOT NULL,
            outcome TEXT NOT NULL
        , action TEXT);

CREATE TABLE drafts (
            table_id INTEGER NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            data TEXT NOT NULL,
            version INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (table_id, name)
        );
