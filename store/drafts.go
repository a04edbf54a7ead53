package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"mailsift/model"
)

// draftsSchema is migration 2: reply drafts, approvals, tool calls, the
// outbox and the append-only audit log.
const draftsSchema = `
CREATE TABLE drafts (
	id               TEXT PRIMARY KEY,
	thread_id        INTEGER NOT NULL DEFAULT 0,
	trace_id         TEXT NOT NULL,
	account          TEXT NOT NULL DEFAULT '',
	from_json        TEXT NOT NULL DEFAULT '{}',
	to_json          TEXT NOT NULL DEFAULT '[]',
	cc_json          TEXT NOT NULL DEFAULT '[]',
	bcc_json         TEXT NOT NULL DEFAULT '[]',
	subject          TEXT NOT NULL DEFAULT '',
	body             TEXT NOT NULL DEFAULT '',
	in_reply_to      TEXT NOT NULL DEFAULT '',
	references_json  TEXT NOT NULL DEFAULT '[]',
	risk_flags_json  TEXT NOT NULL DEFAULT '[]',
	cited_json       TEXT NOT NULL DEFAULT '[]',
	needs_approval   INTEGER NOT NULL DEFAULT 1,
	reply_all        INTEGER NOT NULL DEFAULT 0,
	source           TEXT NOT NULL DEFAULT '',
	state            TEXT NOT NULL DEFAULT 'draft',
	server_mailbox   TEXT NOT NULL DEFAULT '',
	server_uid       INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL
);
CREATE INDEX drafts_thread ON drafts(thread_id, updated_at);
CREATE INDEX drafts_state ON drafts(state, updated_at);

CREATE TABLE approvals (
	id              TEXT PRIMARY KEY,
	draft_id        TEXT NOT NULL REFERENCES drafts(id),
	trace_id        TEXT NOT NULL,
	created_at      INTEGER NOT NULL,
	expires_at      INTEGER NOT NULL,
	status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
	risk_level      TEXT NOT NULL DEFAULT 'medium',
	autonomy_level  TEXT NOT NULL DEFAULT 'gated',
	what_json       TEXT NOT NULL,
	what_hash       TEXT NOT NULL,
	why             TEXT NOT NULL DEFAULT '',
	how_to_approve  TEXT NOT NULL DEFAULT '',
	decision_by     TEXT NOT NULL DEFAULT '',
	decision_at     INTEGER NOT NULL DEFAULT 0,
	decision_reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX approvals_draft ON approvals(draft_id, created_at);

CREATE TABLE tool_calls (
	id              TEXT PRIMARY KEY,
	created_at      INTEGER NOT NULL,
	trace_id        TEXT NOT NULL,
	connector_id    TEXT NOT NULL DEFAULT '',
	tool_name       TEXT NOT NULL,
	action          TEXT NOT NULL,
	request_hash    TEXT NOT NULL,
	idempotency_key TEXT NOT NULL UNIQUE CHECK (idempotency_key <> ''),
	status          TEXT NOT NULL CHECK (status IN ('attempted', 'succeeded', 'failed', 'unknown')),
	latency_ms      INTEGER,
	risk_level      TEXT NOT NULL DEFAULT 'medium',
	autonomy_level  TEXT NOT NULL DEFAULT 'gated'
);

CREATE TABLE outbox (
	id              INTEGER PRIMARY KEY,
	draft_id        TEXT NOT NULL REFERENCES drafts(id),
	approval_id     TEXT NOT NULL UNIQUE REFERENCES approvals(id),
	tool_call_id    TEXT NOT NULL UNIQUE REFERENCES tool_calls(id),
	trace_id        TEXT NOT NULL,
	account         TEXT NOT NULL DEFAULT '',
	thread_id       INTEGER NOT NULL DEFAULT 0,
	in_reply_to     TEXT NOT NULL DEFAULT '',
	message_id      TEXT NOT NULL UNIQUE,
	idempotency_key TEXT NOT NULL UNIQUE,
	envelope_from   TEXT NOT NULL,
	rcpts_json      TEXT NOT NULL,
	raw             BLOB NOT NULL,
	state           TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'sent', 'failed', 'unknown', 'cancelled')),
	phase           TEXT NOT NULL DEFAULT '',
	attempts        INTEGER NOT NULL DEFAULT 0,
	next_attempt_at INTEGER NOT NULL DEFAULT 0,
	last_error      TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	sent_at         INTEGER NOT NULL DEFAULT 0,
	append_state    TEXT NOT NULL DEFAULT '',
	resend_ok       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX outbox_due ON outbox(state, next_attempt_at);

CREATE TABLE audit_events (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	id           TEXT NOT NULL UNIQUE,
	ts           INTEGER NOT NULL,
	trace_id     TEXT NOT NULL,
	stage        TEXT NOT NULL,
	type         TEXT NOT NULL,
	summary      TEXT NOT NULL,
	outcome      TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'suppressed', 'info')),
	draft_id     TEXT NOT NULL DEFAULT '',
	approval_id  TEXT NOT NULL DEFAULT '',
	tool_call_id TEXT NOT NULL DEFAULT '',
	outbox_id    INTEGER NOT NULL DEFAULT 0,
	details_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_trace ON audit_events(trace_id, seq);
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
`

// Errors of the draft, approval and outbox life cycle; test with errors.Is.
var (
	// ErrNotEditable: the draft is queued, sent or discarded.
	ErrNotEditable = errors.New("store: draft is not editable")
	// ErrApprovalNotApproved: the approval is pending, denied or expired.
	ErrApprovalNotApproved = errors.New("store: approval is not approved")
	// ErrApprovalExpired: the approval's expiry has passed.
	ErrApprovalExpired = errors.New("store: approval expired")
	// ErrBadState: the outbox item is not in a state that allows the operation.
	ErrBadState = errors.New("store: outbox item is in the wrong state")
	// ErrIntegrity: the queued message no longer matches what was approved.
	ErrIntegrity = errors.New("store: queued message does not match its approval")
)

// DraftState is the life-cycle state of a draft.
type DraftState string

// Draft states.
const (
	DraftOpen      DraftState = "draft"
	DraftQueued    DraftState = "queued"
	DraftSent      DraftState = "sent"
	DraftDiscarded DraftState = "discarded"
)

// Draft is a reply draft. Recipients, subject and threading headers are
// computed by the drafts package, never generated by a model.
type Draft struct {
	ID       string
	ThreadID int64
	// TraceID is the one trace id of every audit event of this reply.
	TraceID string
	// Account is the sending account ("" means the default).
	Account    string
	From       model.Address
	To, Cc     []model.Address
	Bcc        []model.Address
	Subject    string
	Body       string
	InReplyTo  string   // Message-ID without brackets
	References []string // Message-IDs without brackets, oldest first
	RiskFlags  []string
	// CitedMessageIDs are the thread messages the body relies on.
	CitedMessageIDs []string
	NeedsApproval   bool
	ReplyAll        bool
	// Source is "ollama" or "template".
	Source string
	State  DraftState
	// ServerMailbox and ServerUID locate the latest copy in the server's
	// Drafts folder (empty/0 when none).
	ServerMailbox string
	ServerUID     uint32
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// NewID returns a random RFC 4122 version 4 UUID string.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("store: crypto/rand failed: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func draftContentEqual(a, b *Draft) bool {
	return mustJSON([]any{a.From, a.To, a.Cc, a.Bcc, a.Subject, a.Body, a.InReplyTo, a.References, a.RiskFlags, a.CitedMessageIDs, a.NeedsApproval, a.ReplyAll, a.Account}) ==
		mustJSON([]any{b.From, b.To, b.Cc, b.Bcc, b.Subject, b.Body, b.InReplyTo, b.References, b.RiskFlags, b.CitedMessageIDs, b.NeedsApproval, b.ReplyAll, b.Account})
}

// SaveDraft creates (ID empty) or updates a draft. A new draft gets an ID,
// a trace id (unless set) and a "draft.created" audit event; an update of
// an open draft whose content changed gets "draft.edited". Queued, sent and
// discarded drafts are not editable (ErrNotEditable). d is updated with the
// stored IDs, state and times. Every save is committed to the WAL at once,
// so autosaved drafts survive a crash.
func (s *Store) SaveDraft(ctx context.Context, d *Draft) error {
	now := s.now().UTC()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if d.ID == "" {
			d.ID = NewID()
			if d.TraceID == "" {
				d.TraceID = NewID()
			}
			d.State = DraftOpen
			d.CreatedAt, d.UpdatedAt = now, now
			if _, err := tx.ExecContext(ctx, `INSERT INTO drafts(id, thread_id, trace_id, account, from_json, to_json, cc_json,
				bcc_json, subject, body, in_reply_to, references_json, risk_flags_json, cited_json, needs_approval, reply_all,
				source, state, created_at, updated_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				d.ID, d.ThreadID, d.TraceID, d.Account, mustJSON(d.From), jsonList(d.To), jsonList(d.Cc), jsonList(d.Bcc),
				d.Subject, d.Body, d.InReplyTo, jsonList(d.References), jsonList(d.RiskFlags), jsonList(d.CitedMessageIDs),
				boolInt(d.NeedsApproval), boolInt(d.ReplyAll), d.Source, string(d.State), ms(now), ms(now)); err != nil {
				return err
			}
			return s.appendAudit(ctx, tx, AuditEvent{TraceID: d.TraceID, Stage: "operator", Type: "draft.created",
				Summary: fmt.Sprintf("draft created for thread %d (%s)", d.ThreadID, d.Source), Outcome: "info", DraftID: d.ID,
				Details: detailsJSON(map[string]any{"thread_id": d.ThreadID, "source": d.Source, "risk_flags": d.RiskFlags, "reply_all": d.ReplyAll, "recipients": len(d.To) + len(d.Cc) + len(d.Bcc)})})
		}
		old, err := getDraft(ctx, tx, d.ID)
		if err != nil {
			return err
		}
		if old.State != DraftOpen {
			return fmt.Errorf("draft is %s: %w", old.State, ErrNotEditable)
		}
		if draftContentEqual(old, d) {
			*d = *old
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE drafts SET account = ?, from_json = ?, to_json = ?, cc_json = ?, bcc_json = ?,
			subject = ?, body = ?, in_reply_to = ?, references_json = ?, risk_flags_json = ?, cited_json = ?, needs_approval = ?,
			reply_all = ?, updated_at = ? WHERE id = ?`,
			d.Account, mustJSON(d.From), jsonList(d.To), jsonList(d.Cc), jsonList(d.Bcc), d.Subject, d.Body, d.InReplyTo,
			jsonList(d.References), jsonList(d.RiskFlags), jsonList(d.CitedMessageIDs), boolInt(d.NeedsApproval),
			boolInt(d.ReplyAll), ms(now), d.ID); err != nil {
			return err
		}
		// Pending approvals of the old text no longer describe the draft.
		if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'expired', decision_reason = 'draft edited'
			WHERE draft_id = ? AND status = 'pending'`, d.ID); err != nil {
			return err
		}
		d.TraceID, d.ThreadID, d.Source, d.State = old.TraceID, old.ThreadID, old.Source, old.State
		d.ServerMailbox, d.ServerUID, d.CreatedAt, d.UpdatedAt = old.ServerMailbox, old.ServerUID, old.CreatedAt, now
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: d.TraceID, Stage: "operator", Type: "draft.edited",
			Summary: "draft edited", Outcome: "info", DraftID: d.ID,
			Details: detailsJSON(map[string]any{"body_chars": len(d.Body), "recipients": len(d.To) + len(d.Cc) + len(d.Bcc)})})
	})
	if err != nil {
		return fmt.Errorf("store: save draft %s: %w", d.ID, err)
	}
	return nil
}

const draftCols = `id, thread_id, trace_id, account, from_json, to_json, cc_json, bcc_json, subject, body, in_reply_to,
	references_json, risk_flags_json, cited_json, needs_approval, reply_all, source, state, server_mailbox, server_uid,
	created_at, updated_at`

// rowScanner is a row or rows to scan (*sql.Row, *sql.Rows).
type rowScanner interface{ Scan(dest ...any) error }

func scanDraft(r rowScanner) (*Draft, error) {
	var d Draft
	var from, to, cc, bcc, refs, risk, cited, state string
	var created, updated int64
	var uid int64
	if err := r.Scan(&d.ID, &d.ThreadID, &d.TraceID, &d.Account, &from, &to, &cc, &bcc, &d.Subject, &d.Body, &d.InReplyTo,
		&refs, &risk, &cited, &d.NeedsApproval, &d.ReplyAll, &d.Source, &state, &d.ServerMailbox, &uid, &created, &updated); err != nil {
		return nil, err
	}
	decodeInto(from, &d.From)
	decodeInto(to, &d.To)
	decodeInto(cc, &d.Cc)
	decodeInto(bcc, &d.Bcc)
	decodeInto(refs, &d.References)
	decodeInto(risk, &d.RiskFlags)
	decodeInto(cited, &d.CitedMessageIDs)
	d.State = DraftState(state)
	d.ServerUID = uint32(uid)
	d.CreatedAt, d.UpdatedAt = fromMS(created), fromMS(updated)
	return &d, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func getDraft(ctx context.Context, q querier, id string) (*Draft, error) {
	d, err := scanDraft(q.QueryRowContext(ctx, `SELECT `+draftCols+` FROM drafts WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("draft %s: %w", id, ErrNotFound)
	}
	return d, err
}

// Draft returns one draft (ErrNotFound).
func (s *Store) Draft(ctx context.Context, id string) (*Draft, error) {
	d, err := getDraft(ctx, s.r, id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return d, nil
}

// Drafts lists drafts in the given states (all states when none), most
// recently updated first; threadID > 0 restricts to one thread.
func (s *Store) Drafts(ctx context.Context, threadID int64, states ...DraftState) ([]Draft, error) {
	q := `SELECT ` + draftCols + ` FROM drafts WHERE 1 = 1`
	var args []any
	if threadID > 0 {
		q += ` AND thread_id = ?`
		args = append(args, threadID)
	}
	if len(states) > 0 {
		q += ` AND state IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", ") + `)`
		for _, st := range states {
			args = append(args, string(st))
		}
	}
	q += ` ORDER BY updated_at DESC, id`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list drafts: %w", err)
	}
	defer rows.Close()
	var out []Draft
	for rows.Next() {
		d, err := scanDraft(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list drafts: %w", err)
		}
		out = append(out, *d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list drafts: %w", err)
	}
	return out, nil
}

// DiscardDraft marks an open draft discarded (it stays in the store for the
// audit trail) and expires its pending approvals.
func (s *Store) DiscardDraft(ctx context.Context, id string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		d, err := getDraft(ctx, tx, id)
		if err != nil {
			return err
		}
		if d.State != DraftOpen {
			return fmt.Errorf("draft is %s: %w", d.State, ErrNotEditable)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE drafts SET state = 'discarded', updated_at = ? WHERE id = ?`, ms(s.now()), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'expired', decision_reason = 'draft discarded'
			WHERE draft_id = ? AND status = 'pending'`, id); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: d.TraceID, Stage: "operator", Type: "draft.discarded",
			Summary: "draft discarded", Outcome: "info", DraftID: id})
	})
	if err != nil {
		return fmt.Errorf("store: discard draft %s: %w", id, err)
	}
	return nil
}

// SetDraftServerCopy records where the latest copy of a draft lives in the
// server's Drafts folder.
func (s *Store) SetDraftServerCopy(ctx context.Context, id, mailbox string, uid uint32) error {
	_, err := s.w.ExecContext(ctx, `UPDATE drafts SET server_mailbox = ?, server_uid = ? WHERE id = ?`, mailbox, int64(uid), id)
	if err != nil {
		return fmt.Errorf("store: record server copy of draft %s: %w", id, err)
	}
	return nil
}
