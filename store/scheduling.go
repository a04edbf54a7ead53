package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// schedulingSchema adds the scheduling assistant's tables: one analysis
// per meeting thread (the scheduling contract's objects as JSON, the
// badge, the next follow-up and whether it resurfaced the thread), the
// calendar parts found in mail, and the iTIP object a draft carries.
const schedulingSchema = `
CREATE TABLE scheduling (
	thread_id    INTEGER PRIMARY KEY,
	is_meeting   INTEGER NOT NULL DEFAULT 0,
	state_json   TEXT NOT NULL DEFAULT '{}',
	badge        TEXT NOT NULL DEFAULT '',
	content_hash TEXT NOT NULL DEFAULT '',
	follow_up_at INTEGER NOT NULL DEFAULT 0,
	resurfaced   INTEGER NOT NULL DEFAULT 0,
	updated_at   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX scheduling_follow_up ON scheduling(follow_up_at) WHERE follow_up_at > 0;

CREATE TABLE invitations (
	message_id  TEXT NOT NULL,
	uid         TEXT NOT NULL,
	thread_id   INTEGER NOT NULL,
	method      TEXT NOT NULL,
	sequence    INTEGER NOT NULL DEFAULT 0,
	organizer   TEXT NOT NULL DEFAULT '',
	summary     TEXT NOT NULL DEFAULT '',
	start_at    INTEGER NOT NULL DEFAULT 0,
	end_at      INTEGER NOT NULL DEFAULT 0,
	my_partstat TEXT NOT NULL DEFAULT '',
	superseded  INTEGER NOT NULL DEFAULT 0,
	ics         TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (message_id, uid)
);
CREATE INDEX invitations_uid ON invitations(uid, sequence);
CREATE INDEX invitations_thread ON invitations(thread_id);

CREATE TABLE itip_drafts (
	draft_id TEXT PRIMARY KEY,
	method   TEXT NOT NULL,
	uid      TEXT NOT NULL,
	partstat TEXT NOT NULL,
	ics      TEXT NOT NULL
);
`

// SchedulingRecord is a thread's scheduling analysis as stored.
type SchedulingRecord struct {
	ThreadID int64
	// IsMeeting is false for a thread looked at and found not to
	// coordinate a meeting (so it is not looked at again until it changes).
	IsMeeting bool
	// State is the analysis (schedule.State) as JSON.
	State []byte
	// Badge is the short status the inbox shows.
	Badge string
	// ContentHash is the thread content hash the analysis was made on.
	ContentHash string
	// FollowUpAt is when to analyse again and resurface the thread (zero:
	// no follow-up).
	FollowUpAt time.Time
	// Resurfaced is set when a follow-up came due: the thread shows in
	// Actionable (unless the user overrode its bucket) until the next
	// analysis of new mail in it.
	Resurfaced bool
	UpdatedAt  time.Time
}

// SaveScheduling stores a thread's analysis, replacing the previous one,
// with audit events (violations, failures) in the same transaction, and
// moves the thread to its section when Resurfaced changed.
func (s *Store) SaveScheduling(ctx context.Context, rec SchedulingRecord, audit []AuditEvent) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var was sql.NullInt64
		err := w.queryRow(`SELECT resurfaced FROM scheduling WHERE thread_id = ?`, rec.ThreadID).Scan(&was)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var n int
		if err := w.queryRow(`SELECT count(*) FROM threads WHERE id = ?`, rec.ThreadID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		state := rec.State
		if len(state) == 0 {
			state = []byte("{}")
		}
		_, err = w.exec(`INSERT INTO scheduling(thread_id, is_meeting, state_json, badge, content_hash, follow_up_at, resurfaced, updated_at)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET is_meeting = excluded.is_meeting,
			state_json = excluded.state_json, badge = excluded.badge, content_hash = excluded.content_hash,
			follow_up_at = excluded.follow_up_at, resurfaced = excluded.resurfaced, updated_at = excluded.updated_at`,
			rec.ThreadID, boolInt(rec.IsMeeting), string(state), rec.Badge, rec.ContentHash, schedMS(rec.FollowUpAt),
			boolInt(rec.Resurfaced), s.now().UnixMilli())
		if err != nil {
			return err
		}
		for _, e := range audit {
			if err := s.appendAudit(ctx, tx, e); err != nil {
				return err
			}
		}
		if !was.Valid || (was.Int64 != 0) != rec.Resurfaced {
			return w.updateSection(rec.ThreadID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: save scheduling of thread %d: %w", rec.ThreadID, err)
	}
	return nil
}

// Scheduling returns a thread's stored analysis, or ErrNotFound.
func (s *Store) Scheduling(ctx context.Context, threadID int64) (*SchedulingRecord, error) {
	rec := &SchedulingRecord{ThreadID: threadID}
	var fu, up int64
	var meeting, res int
	var state string
	err := s.r.QueryRowContext(ctx, `SELECT is_meeting, state_json, badge, content_hash, follow_up_at, resurfaced, updated_at
		FROM scheduling WHERE thread_id = ?`, threadID).Scan(&meeting, &state, &rec.Badge, &rec.ContentHash, &fu, &res, &up)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: scheduling of thread %d: %w", threadID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: scheduling of thread %d: %w", threadID, err)
	}
	rec.IsMeeting, rec.Resurfaced, rec.State = meeting != 0, res != 0, []byte(state)
	rec.FollowUpAt, rec.UpdatedAt = schedFromMS(fu), schedFromMS(up)
	return rec, nil
}

// SchedulingCandidates returns inbox threads (up to limit) that may
// coordinate a meeting and have no analysis on their current content:
// triage saw a meeting intent, a calendar route or signal, or the thread
// has an attachment (a calendar part is one).
func (s *Store) SchedulingCandidates(ctx context.Context, limit int) ([]int64, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.id FROM threads t
		LEFT JOIN triage tr ON tr.thread_id = t.id AND tr.cache_key = t.triage_key
		LEFT JOIN scheduling sc ON sc.thread_id = t.id
		WHERE t.in_inbox = 1 AND t.has_body = 1
		AND (t.has_attachment = 1 OR tr.intent = 'meeting' OR tr.route = 'calendar' OR tr.signals LIKE '%calendar%')
		AND (sc.thread_id IS NULL OR sc.content_hash <> t.content_hash)
		ORDER BY t.latest DESC, t.id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: scheduling candidates: %w", err)
	}
	return scanIDs(rows)
}

// DueFollowUps returns the threads whose follow-up is due at now.
func (s *Store) DueFollowUps(ctx context.Context, now time.Time) ([]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT thread_id FROM scheduling WHERE follow_up_at > 0 AND follow_up_at <= ?
		ORDER BY follow_up_at, thread_id`, schedMS(now))
	if err != nil {
		return nil, fmt.Errorf("store: due follow-ups: %w", err)
	}
	return scanIDs(rows)
}

// NextFollowUp returns the earliest pending follow-up (ok false: none).
func (s *Store) NextFollowUp(ctx context.Context) (time.Time, bool, error) {
	var ms sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT min(follow_up_at) FROM scheduling WHERE follow_up_at > 0`).Scan(&ms)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: next follow-up: %w", err)
	}
	if !ms.Valid {
		return time.Time{}, false, nil
	}
	return schedFromMS(ms.Int64), true, nil
}

// BadgeNeedsAnswer is the inbox badge of a meeting thread whose current
// invitation awaits the user's answer.
const BadgeNeedsAnswer = "Invitation/needs_answer"

// schedBadgeCol is the inbox row's scheduling badge (ThreadSummary.
// Scheduling): BadgeNeedsAnswer while the thread's current invitation names
// the user with NEEDS-ACTION and no answer of theirs is in the mail or
// queued, else the analysis' badge. Computed when the row is read, so
// answering shows at once.
const schedBadgeCol = `CASE WHEN sc.thread_id IS NULL THEN '' WHEN EXISTS (SELECT 1 FROM invitations i
		WHERE i.thread_id = t.id AND i.method = 'REQUEST' AND i.superseded = 0 AND i.my_partstat = 'NEEDS-ACTION'
		AND NOT EXISTS (SELECT 1 FROM invitations r WHERE r.uid = i.uid AND r.method = 'REPLY' AND r.my_partstat <> '')
		AND NOT EXISTS (SELECT 1 FROM itip_drafts x JOIN drafts d ON d.id = x.draft_id
			WHERE x.uid = i.uid AND d.state IN ('queued', 'sent'))) THEN '` + BadgeNeedsAnswer + `' ELSE sc.badge END`

// resurfaced reports whether a due follow-up put the thread in Actionable.
func (w *writer) resurfaced(id int64) (bool, error) {
	var r int
	err := w.queryRow(`SELECT resurfaced FROM scheduling WHERE thread_id = ?`, id).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return r != 0, err
}

// Invitation is one calendar part of a message, as stored.
type Invitation struct {
	MessageID string
	UID       string
	ThreadID  int64
	// Method is REQUEST, REPLY, CANCEL, COUNTER, ...
	Method    string
	Sequence  int
	Organizer string
	Summary   string
	Start     time.Time
	End       time.Time
	// MyPartStat is the principal's PARTSTAT in the part ("" when the
	// principal is not an attendee).
	MyPartStat string
	// Superseded is set when a later REQUEST (higher SEQUENCE) or a
	// CANCEL of the same UID arrived.
	Superseded bool
	// ICS is the calendar part itself.
	ICS string
}

// SaveInvitations records a thread's calendar parts (replacing the same
// message's part of the same UID) and marks superseded every part of
// their UIDs that a later REQUEST or a CANCEL replaces: a REQUEST or
// CANCEL with a lower SEQUENCE than the highest seen, and a REQUEST with
// a CANCEL of at least its SEQUENCE.
func (s *Store) SaveInvitations(ctx context.Context, invs []Invitation) error {
	if len(invs) == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		uids := map[string]bool{}
		for _, in := range invs {
			_, err := tx.ExecContext(ctx, `INSERT INTO invitations(message_id, uid, thread_id, method, sequence, organizer, summary,
				start_at, end_at, my_partstat, ics) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT(message_id, uid) DO UPDATE SET thread_id = excluded.thread_id, method = excluded.method,
				sequence = excluded.sequence, organizer = excluded.organizer, summary = excluded.summary,
				start_at = excluded.start_at, end_at = excluded.end_at, my_partstat = excluded.my_partstat, ics = excluded.ics`,
				in.MessageID, in.UID, in.ThreadID, in.Method, in.Sequence, in.Organizer, in.Summary, schedMS(in.Start), schedMS(in.End),
				in.MyPartStat, in.ICS)
			if err != nil {
				return err
			}
			uids[in.UID] = true
		}
		for uid := range uids {
			_, err := tx.ExecContext(ctx, `UPDATE invitations SET superseded = CASE
				WHEN method IN ('REQUEST', 'CANCEL') AND sequence < (SELECT max(sequence) FROM invitations i2
					WHERE i2.uid = invitations.uid AND i2.method IN ('REQUEST', 'CANCEL')) THEN 1
				WHEN method = 'REQUEST' AND EXISTS (SELECT 1 FROM invitations i3 WHERE i3.uid = invitations.uid
					AND i3.method = 'CANCEL' AND i3.sequence >= invitations.sequence) THEN 1
				ELSE 0 END WHERE uid = ?`, uid)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: save invitations: %w", err)
	}
	return nil
}

const invitationCols = `message_id, uid, thread_id, method, sequence, organizer, summary, start_at, end_at, my_partstat, superseded, ics`

// Invitations returns a thread's calendar parts, oldest first.
func (s *Store) Invitations(ctx context.Context, threadID int64) ([]Invitation, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+invitationCols+` FROM invitations WHERE thread_id = ?
		ORDER BY sequence, rowid`, threadID)
	if err != nil {
		return nil, fmt.Errorf("store: invitations of thread %d: %w", threadID, err)
	}
	return scanInvitations(rows)
}

// AcceptedInvitations returns the invitations the user accepted and that
// are still current: a REQUEST not superseded in which the principal's
// PARTSTAT is ACCEPTED, or whose latest REPLY from the principal in the
// mail (answered in another client) says ACCEPTED, or one the user
// accepted through mailsift (an iTIP REPLY draft queued or sent).
func (s *Store) AcceptedInvitations(ctx context.Context) ([]Invitation, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+invitationCols+` FROM invitations i
		WHERE i.method = 'REQUEST' AND i.superseded = 0 AND (i.my_partstat = 'ACCEPTED'
			OR (SELECT r.my_partstat FROM invitations r WHERE r.uid = i.uid AND r.method = 'REPLY' AND r.my_partstat <> ''
				ORDER BY r.rowid DESC LIMIT 1) = 'ACCEPTED'
			OR EXISTS (SELECT 1 FROM itip_drafts x JOIN drafts d ON d.id = x.draft_id
				WHERE x.uid = i.uid AND x.partstat = 'ACCEPTED' AND d.state IN ('queued', 'sent')))
		ORDER BY start_at LIMIT 2000`)
	if err != nil {
		return nil, fmt.Errorf("store: accepted invitations: %w", err)
	}
	return scanInvitations(rows)
}

func scanInvitations(rows *sql.Rows) ([]Invitation, error) {
	defer rows.Close()
	var out []Invitation
	for rows.Next() {
		var in Invitation
		var st, en int64
		var sup int
		if err := rows.Scan(&in.MessageID, &in.UID, &in.ThreadID, &in.Method, &in.Sequence, &in.Organizer, &in.Summary,
			&st, &en, &in.MyPartStat, &sup, &in.ICS); err != nil {
			return nil, fmt.Errorf("store: read invitations: %w", err)
		}
		in.Start, in.End, in.Superseded = schedFromMS(st), schedFromMS(en), sup != 0
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read invitations: %w", err)
	}
	return out, nil
}

// ITIPDraft is the calendar object a draft carries: the message built
// from the draft gets it as a text/calendar part with this METHOD.
type ITIPDraft struct {
	DraftID  string
	Method   string
	UID      string
	PartStat string
	ICS      string
}

// SaveITIPDraft attaches an iTIP object to a stored draft.
func (s *Store) SaveITIPDraft(ctx context.Context, x ITIPDraft) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO itip_drafts(draft_id, method, uid, partstat, ics) VALUES(?, ?, ?, ?, ?)
			ON CONFLICT(draft_id) DO UPDATE SET method = excluded.method, uid = excluded.uid, partstat = excluded.partstat, ics = excluded.ics`,
			x.DraftID, x.Method, x.UID, x.PartStat, x.ICS)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: save iTIP of draft %s: %w", x.DraftID, err)
	}
	return nil
}

// ITIPForDraft returns the iTIP object of a draft (ok false: none).
func (s *Store) ITIPForDraft(ctx context.Context, draftID string) (ITIPDraft, bool, error) {
	x := ITIPDraft{DraftID: draftID}
	err := s.r.QueryRowContext(ctx, `SELECT method, uid, partstat, ics FROM itip_drafts WHERE draft_id = ?`, draftID).
		Scan(&x.Method, &x.UID, &x.PartStat, &x.ICS)
	if errors.Is(err, sql.ErrNoRows) {
		return x, false, nil
	}
	if err != nil {
		return x, false, fmt.Errorf("store: iTIP of draft %s: %w", draftID, err)
	}
	return x, true, nil
}

func schedMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func schedFromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
