package store

// moveIDsSchema (a migration) makes pending_moves ids never repeat. A
// queued move's id names its copy's placeholder location (~move-ID); a
// move the source applied without saying where the copy landed loses its
// queue row but keeps that placeholder until the next sync. With a plain
// INTEGER PRIMARY KEY SQLite hands the deleted id to the next move, whose
// placeholder then collided with the old one (UNIQUE on locations).
// AUTOINCREMENT never reuses an id; the sequence starts above every id
// still named by a placeholder.
const moveIDsSchema = `
CREATE TABLE pending_moves_ai (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	account      TEXT NOT NULL,
	message      INTEGER NOT NULL,
	from_mailbox TEXT NOT NULL,
	from_key     TEXT NOT NULL,
	from_uid     INTEGER NOT NULL DEFAULT 0,
	to_mailbox   TEXT NOT NULL,
	to_role      TEXT NOT NULL DEFAULT '',
	expunge      INTEGER NOT NULL DEFAULT 0,
	claimed      INTEGER NOT NULL DEFAULT 0,
	created      INTEGER NOT NULL
);
INSERT INTO pending_moves_ai(id, account, message, from_mailbox, from_key, from_uid, to_mailbox, to_role, expunge, claimed, created)
	SELECT id, account, message, from_mailbox, from_key, from_uid, to_mailbox, to_role, expunge, claimed, created FROM pending_moves;
DROP TABLE pending_moves;
ALTER TABLE pending_moves_ai RENAME TO pending_moves;
CREATE INDEX pending_moves_account ON pending_moves(account, id);
DELETE FROM sqlite_sequence WHERE name = 'pending_moves';
INSERT INTO sqlite_sequence(name, seq) SELECT 'pending_moves', max(
	coalesce((SELECT max(id) FROM pending_moves), 0),
	coalesce((SELECT max(CAST(substr(key, 7) AS INTEGER)) FROM locations WHERE key LIKE '~move-%'), 0),
	coalesce((SELECT max(CAST(substr(from_key, 7) AS INTEGER)) FROM pending_moves WHERE from_key LIKE '~move-%'), 0));
`
