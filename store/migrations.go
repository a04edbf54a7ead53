package store

// migrations is the ordered list of schema migrations. Migration i (0-based)
// brings the schema from user_version i to i+1; Open applies the missing ones
// in one transaction each. Later features (drafts, approvals, outbox, audit)
// keep their SQL in a const in their own file and append it to this list;
// an applied migration is never edited.
var migrations = []string{
	// 1: mail mirror, threads, search, triage, overrides, flag queue.
	`
CREATE TABLE accounts (
	name       TEXT PRIMARY KEY,
	source_url TEXT NOT NULL DEFAULT ''
);

CREATE TABLE mailboxes (
	account       TEXT NOT NULL,
	name          TEXT NOT NULL,
	role          TEXT NOT NULL DEFAULT '',
	uidvalidity   INTEGER NOT NULL DEFAULT 0,
	uidnext       INTEGER NOT NULL DEFAULT 0,
	highestmodseq INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (account, name)
);

CREATE TABLE threads (
	id             INTEGER PRIMARY KEY,
	subject        TEXT NOT NULL DEFAULT '',
	norm_subject   TEXT NOT NULL DEFAULT '',
	latest         INTEGER NOT NULL DEFAULT 0,
	count          INTEGER NOT NULL DEFAULT 0,
	unread         INTEGER NOT NULL DEFAULT 0,
	has_attachment INTEGER NOT NULL DEFAULT 0,
	has_body       INTEGER NOT NULL DEFAULT 0,
	from_name      TEXT NOT NULL DEFAULT '',
	from_email     TEXT NOT NULL DEFAULT '',
	participants   TEXT NOT NULL DEFAULT '[]',
	content_hash   TEXT NOT NULL DEFAULT '',
	triage_key     TEXT,
	section        TEXT NOT NULL DEFAULT 'untriaged'
);
CREATE INDEX threads_section_latest ON threads(section, latest DESC, id DESC);
CREATE INDEX threads_subject ON threads(norm_subject, latest);
CREATE INDEX threads_triage_queue ON threads(has_body, unread, latest);

CREATE TABLE messages (
	id               INTEGER PRIMARY KEY,
	message_id       TEXT NOT NULL,
	content_hash     TEXT,
	thread_id        INTEGER REFERENCES threads(id),
	from_name        TEXT NOT NULL DEFAULT '',
	from_email       TEXT NOT NULL DEFAULT '',
	sender_json      TEXT NOT NULL DEFAULT '{}',
	to_json          TEXT NOT NULL DEFAULT '[]',
	cc_json          TEXT NOT NULL DEFAULT '[]',
	bcc_json         TEXT NOT NULL DEFAULT '[]',
	reply_to_json    TEXT NOT NULL DEFAULT '[]',
	in_reply_to_json TEXT NOT NULL DEFAULT '[]',
	references_json  TEXT NOT NULL DEFAULT '[]',
	date             INTEGER NOT NULL DEFAULT 0,
	subject          TEXT NOT NULL DEFAULT '',
	norm_subject     TEXT NOT NULL DEFAULT '',
	text             TEXT NOT NULL DEFAULT '',
	html_text        TEXT NOT NULL DEFAULT '',
	headers_json     TEXT NOT NULL DEFAULT '{}',
	attachments_json TEXT NOT NULL DEFAULT '[]',
	problems_json    TEXT NOT NULL DEFAULT '[]',
	size             INTEGER NOT NULL DEFAULT 0,
	has_body         INTEGER NOT NULL DEFAULT 0,
	has_attachment   INTEGER NOT NULL DEFAULT 0,
	-- search columns: sender and recipients as one text each
	from_text        TEXT NOT NULL DEFAULT '',
	to_text          TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX messages_dedupe ON messages(message_id, content_hash) WHERE content_hash IS NOT NULL;
CREATE INDEX messages_message_id ON messages(message_id);
CREATE INDEX messages_thread ON messages(thread_id, date);
CREATE INDEX messages_date ON messages(date);

CREATE TABLE raw_messages (
	message INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
	raw     BLOB NOT NULL
);

CREATE TABLE locations (
	account  TEXT NOT NULL,
	mailbox  TEXT NOT NULL,
	key      TEXT NOT NULL,
	uid      INTEGER NOT NULL DEFAULT 0,
	seen     INTEGER NOT NULL DEFAULT 0,
	answered INTEGER NOT NULL DEFAULT 0,
	flagged  INTEGER NOT NULL DEFAULT 0,
	deleted  INTEGER NOT NULL DEFAULT 0,
	draft    INTEGER NOT NULL DEFAULT 0,
	keywords TEXT NOT NULL DEFAULT '[]',
	message  INTEGER NOT NULL REFERENCES messages(id),
	PRIMARY KEY (account, mailbox, key)
);
CREATE INDEX locations_message ON locations(message);

CREATE TABLE message_refs (
	message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
	ref     TEXT NOT NULL,
	PRIMARY KEY (message, ref)
);
CREATE INDEX message_refs_ref ON message_refs(ref);

CREATE VIEW messages_fts_src AS
	SELECT id, from_text, to_text, subject,
	       CASE WHEN trim(text) <> '' THEN text ELSE html_text END AS body
	FROM messages;

CREATE VIRTUAL TABLE messages_fts USING fts5(
	from_text, to_text, subject, body,
	content = 'messages_fts_src', content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE triage (
	thread_id        INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
	cache_key        TEXT NOT NULL,
	content_hash     TEXT NOT NULL,
	result_json      TEXT NOT NULL,
	source           TEXT NOT NULL DEFAULT '',
	model            TEXT NOT NULL DEFAULT '',
	intent           TEXT NOT NULL DEFAULT '',
	urgency          TEXT NOT NULL DEFAULT '',
	sentiment        TEXT NOT NULL DEFAULT '',
	route            TEXT NOT NULL DEFAULT '',
	confidence       REAL NOT NULL DEFAULT 0,
	spam_reasons     TEXT NOT NULL DEFAULT '[]',
	phishing_reasons TEXT NOT NULL DEFAULT '[]',
	signals          TEXT NOT NULL DEFAULT '[]',
	created_at       INTEGER NOT NULL,
	PRIMARY KEY (thread_id, cache_key)
);

CREATE TABLE overrides (
	thread_id INTEGER PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
	category  TEXT NOT NULL,
	at        INTEGER NOT NULL
);
CREATE INDEX overrides_at ON overrides(at);

CREATE TABLE pending_flags (
	id       INTEGER PRIMARY KEY,
	account  TEXT NOT NULL,
	mailbox  TEXT NOT NULL,
	key      TEXT NOT NULL,
	uid      INTEGER NOT NULL DEFAULT 0,
	flag     TEXT NOT NULL,
	value    INTEGER NOT NULL,
	created  INTEGER NOT NULL
);
CREATE INDEX pending_flags_loc ON pending_flags(account, mailbox, key);
`,
	// 2: drafts, approvals, tool calls, outbox, audit log (store/drafts.go).
	draftsSchema,
	// 3: date-ordered search rowids, section counts kept by triggers.
	speedSchema,
	// 4: ThreadsNeedingTriage walks an index in its own order and stops
	// after its page instead of sorting every thread.
	`
DROP INDEX threads_triage_queue;
CREATE INDEX threads_triage_order ON threads(has_body, (unread > 0) DESC, latest DESC, id DESC);
`,
	// 5: a queued message's bytes, Message-ID and idempotency key never change (store/outbox.go).
	outboxFixedSchema,
	// 6: search index merge and flush settings for bulk imports.
	ftsBulkSchema,
	// 7: only threads with a message in an inbox are in the sections.
	inboxSchema,
	// 8: envelopes are not in the search index until their body arrives.
	envelopeSearchSchema,
	// 9: messages left without a location wait for the end of the sync.
	orphansSchema,
	// 10: MissingBodies walks the envelopes newest first instead of a folder.
	`CREATE INDEX messages_missing_body ON messages(date DESC, id DESC) WHERE has_body = 0;`,
	// 11: one index on message_id instead of two. The dedupe index need
	// not be partial (SQLite's UNIQUE lets rows with a NULL content_hash,
	// envelopes, repeat) and then serves every lookup by Message-ID; the
	// plain one was a second b-tree written for every message.
	`
DROP INDEX messages_message_id;
DROP INDEX messages_dedupe;
CREATE UNIQUE INDEX messages_dedupe ON messages(message_id, content_hash);
`,
	// embedding vectors for semantic search (store/embeddings.go).
	embeddingsSchema,
	// Address completion reads the principal's own messages by sender (store/addressbook.go).
	addressbookSchema,
	// Files attached to drafts (store/draft_attachments.go).
	draftAttachmentsSchema,
	// scheduling analyses, calendar parts and iTIP drafts (scheduling.go).
	schedulingSchema,
	// inbox actions: queued moves, the undo stack, snoozes, spam marks,
	// waiting for reply (store/actions.go).
	actionsSchema,
	// agent surfaces: tool call answers, audit columns, approvals by status (store/toolcalls.go).
	agentSchema,
	// pending_moves ids never repeat, so placeholders never collide (store/move_ids.go).
	moveIDsSchema,
	// Joins by subject look messages up by normalised subject and date
	// (store/thread_subject.go), no longer threads.
	`
DROP INDEX threads_subject;
CREATE INDEX messages_subject ON messages(norm_subject, date) WHERE norm_subject <> '';
`,
}

// orphansSchema (migration 9): a message whose last location goes during
// a sync (expunged, its mailbox reset or forgotten) is listed here instead
// of being deleted at once, and CollectOrphans deletes it when the sync
// ends unless a location points at it again by then: a message moved
// between folders on the server (gone from one, found in another later in
// the same sync) stays the same message, with its thread, triage result
// and the user's override.
const orphansSchema = `
CREATE TABLE orphans (
	message INTEGER PRIMARY KEY
);
`

// envelopeSearchSchema (migration 8): a message stored as an envelope
// (no body yet) has no search rowid and is indexed when its body arrives,
// so that the arrival is one insert into the index rather than a delete
// and an insert (on a first IMAP sync every message arrives twice). The
// index's content view leaves such rows out, as FTS5 expects every row of
// the content table to be indexed. Envelopes indexed by earlier versions
// keep their rowid and entry until their body replaces them.
const envelopeSearchSchema = `
DROP VIEW messages_fts_src;
CREATE VIEW messages_fts_src AS
	SELECT id, fts_rowid, from_text, to_text, subject,
	       CASE WHEN trim(text) <> '' THEN text ELSE html_text END AS body
	FROM messages WHERE fts_rowid IS NOT NULL;
`

// inboxCond is true for a location l (LEFT JOINed to its mailbox row mb)
// in an inbox: the mailbox has role inbox, or it has no role recorded and
// is named INBOX (any case, as IMAP's INBOX).
const inboxCond = `(COALESCE(NULLIF(mb.role, ''), CASE WHEN upper(l.mailbox) = 'INBOX' THEN 'inbox' ELSE '' END) = 'inbox')`

// inboxSchema (migration 7) adds threads.in_inbox: 1 when at least one
// message of the thread has a location in an inbox (see inboxCond), kept
// by the write path (storeThread, and SetMailbox when a mailbox's role
// changes). The sections (SectionCounts, ListThreads) and the triage
// queue only hold in-inbox threads: their indexes become partial on
// in_inbox = 1 and the section_counts triggers count only those threads.
const inboxSchema = `
ALTER TABLE threads ADD COLUMN in_inbox INTEGER NOT NULL DEFAULT 0;
UPDATE threads SET in_inbox = 1 WHERE id IN (SELECT m.thread_id FROM locations l
	JOIN messages m ON m.id = l.message
	LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
	WHERE m.thread_id IS NOT NULL AND ` + inboxCond + `);
DROP INDEX threads_section_latest;
CREATE INDEX threads_inbox_section ON threads(section, latest DESC, id DESC) WHERE in_inbox = 1;
DROP INDEX threads_triage_order;
CREATE INDEX threads_inbox_triage ON threads(has_body, (unread > 0) DESC, latest DESC, id DESC) WHERE in_inbox = 1;
DROP TRIGGER threads_count_insert;
DROP TRIGGER threads_count_delete;
DROP TRIGGER threads_count_update;
DELETE FROM section_counts;
INSERT INTO section_counts(section, n) SELECT section, count(*) FROM threads WHERE in_inbox = 1 GROUP BY section;
CREATE TRIGGER threads_count_insert AFTER INSERT ON threads WHEN NEW.in_inbox = 1 BEGIN
	INSERT INTO section_counts(section, n) VALUES(NEW.section, 1)
		ON CONFLICT(section) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER threads_count_delete AFTER DELETE ON threads WHEN OLD.in_inbox = 1 BEGIN
	UPDATE section_counts SET n = n - 1 WHERE section = OLD.section;
END;
CREATE TRIGGER threads_count_leave AFTER UPDATE OF section, in_inbox ON threads
	WHEN OLD.in_inbox = 1 AND (NEW.in_inbox <> 1 OR OLD.section <> NEW.section) BEGIN
	UPDATE section_counts SET n = n - 1 WHERE section = OLD.section;
END;
CREATE TRIGGER threads_count_enter AFTER UPDATE OF section, in_inbox ON threads
	WHEN NEW.in_inbox = 1 AND (OLD.in_inbox <> 1 OR OLD.section <> NEW.section) BEGIN
	INSERT INTO section_counts(section, n) VALUES(NEW.section, 1)
		ON CONFLICT(section) DO UPDATE SET n = n + 1;
END;
`

// ftsBulkSchema (migration 6) tunes how FTS5 builds the search index (the
// settings live in messages_fts_config; search results do not change):
//   - hashsize 8 MB (default 1 MB): the pending terms of a whole
//     PutMessages batch fit in memory, so a batch is written as one segment
//     instead of one per megabyte of terms;
//   - automerge 16 (default 4): segments are merged when 16 of the same
//     level exist instead of 4, so a first import stops rewriting the
//     index it has just written (the merge was 0.3 s of the 6,046-message
//     corpus import, 40 % of the index cost); a search reads at most 15
//     segments per level;
//   - crisismerge 64 (default 16): with automerge 16 the default would
//     force the same merges back.
const ftsBulkSchema = `
INSERT INTO messages_fts(messages_fts, rank) VALUES('hashsize', 8388608);
INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 16);
INSERT INTO messages_fts(messages_fts, rank) VALUES('crisismerge', 64);
`

// speedSchema (migration 3) makes the two hot reads cheap at 100k threads:
//   - the search index's rowid becomes a date-ordered key (fts_rowid = date
//     seconds << 20 | low bits of the message id, bumped on collision), so
//     "newest first" is the index's own order and a search stops after its
//     page instead of sorting every match;
//   - section_counts holds the number of threads per section, kept by
//     triggers on threads, so SectionCounts reads six rows.
const speedSchema = `
DROP TABLE messages_fts;
DROP VIEW messages_fts_src;
ALTER TABLE messages ADD COLUMN fts_rowid INTEGER;
UPDATE messages SET fts_rowid = date * 1048576 + (id % 1048576);
CREATE UNIQUE INDEX messages_fts_rowid ON messages(fts_rowid);
CREATE VIEW messages_fts_src AS
	SELECT id, fts_rowid, from_text, to_text, subject,
	       CASE WHEN trim(text) <> '' THEN text ELSE html_text END AS body
	FROM messages;
CREATE VIRTUAL TABLE messages_fts USING fts5(
	from_text, to_text, subject, body,
	content = 'messages_fts_src', content_rowid = 'fts_rowid',
	tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO messages_fts(messages_fts) VALUES('rebuild');

CREATE TABLE section_counts (
	section TEXT PRIMARY KEY,
	n       INTEGER NOT NULL
);
INSERT INTO section_counts(section, n) SELECT section, count(*) FROM threads GROUP BY section;
CREATE TRIGGER threads_count_insert AFTER INSERT ON threads BEGIN
	INSERT INTO section_counts(section, n) VALUES(NEW.section, 1)
		ON CONFLICT(section) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER threads_count_delete AFTER DELETE ON threads BEGIN
	UPDATE section_counts SET n = n - 1 WHERE section = OLD.section;
END;
CREATE TRIGGER threads_count_update AFTER UPDATE OF section ON threads
	WHEN OLD.section <> NEW.section BEGIN
	UPDATE section_counts SET n = n - 1 WHERE section = OLD.section;
	INSERT INTO section_counts(section, n) VALUES(NEW.section, 1)
		ON CONFLICT(section) DO UPDATE SET n = n + 1;
END;
`
