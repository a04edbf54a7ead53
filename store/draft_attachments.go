package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// draftAttachmentsSchema holds the files attached to drafts (compose and
// forward): a copy of the bytes taken when the file was attached, so the
// message the user confirms does not change if the file does later, and a
// draft survives a crash with its attachments.
const draftAttachmentsSchema = `
CREATE TABLE draft_attachments (
	id           INTEGER PRIMARY KEY,
	draft_id     TEXT NOT NULL REFERENCES drafts(id),
	filename     TEXT NOT NULL,
	content_type TEXT NOT NULL,
	-- forwarded: the original message attached whole (message/rfc822)
	forwarded    INTEGER NOT NULL DEFAULT 0,
	data         BLOB NOT NULL
);
CREATE INDEX draft_attachments_draft ON draft_attachments(draft_id, id);
`

// DraftAttachment is one file attached to a draft.
type DraftAttachment struct {
	ID          int64
	DraftID     string
	Filename    string
	ContentType string
	// Forwarded marks the original message of a forward-as-attachment.
	Forwarded bool
	Data      []byte
}

// AddDraftAttachment attaches a file to an open draft (a.ID is set). The
// draft's pending approvals expire, since they no longer describe it.
func (s *Store) AddDraftAttachment(ctx context.Context, a *DraftAttachment) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		d, err := getDraft(ctx, tx, a.DraftID)
		if err != nil {
			return err
		}
		if d.State != DraftOpen {
			return fmt.Errorf("draft is %s: %w", d.State, ErrNotEditable)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO draft_attachments(draft_id, filename, content_type, forwarded, data)
			VALUES(?, ?, ?, ?, ?)`, a.DraftID, a.Filename, a.ContentType, boolInt(a.Forwarded), a.Data)
		if err != nil {
			return err
		}
		if a.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := expireForChange(ctx, tx, a.DraftID, "attachment added"); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: d.TraceID, Stage: "operator", Type: "draft.edited",
			Summary: "attachment added", Outcome: "info", DraftID: d.ID,
			Details: detailsJSON(map[string]any{"attachment_bytes": len(a.Data), "content_type": a.ContentType})})
	})
	if err != nil {
		return fmt.Errorf("store: attach to draft %s: %w", a.DraftID, err)
	}
	return nil
}

// RemoveDraftAttachment removes one attachment of an open draft.
func (s *Store) RemoveDraftAttachment(ctx context.Context, draftID string, id int64) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		d, err := getDraft(ctx, tx, draftID)
		if err != nil {
			return err
		}
		if d.State != DraftOpen {
			return fmt.Errorf("draft is %s: %w", d.State, ErrNotEditable)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM draft_attachments WHERE draft_id = ? AND id = ?`, draftID, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("attachment %d: %w", id, ErrNotFound)
		}
		if err := expireForChange(ctx, tx, draftID, "attachment removed"); err != nil {
			return err
		}
		return s.appendAudit(ctx, tx, AuditEvent{TraceID: d.TraceID, Stage: "operator", Type: "draft.edited",
			Summary: "attachment removed", Outcome: "info", DraftID: d.ID})
	})
	if err != nil {
		return fmt.Errorf("store: remove attachment of draft %s: %w", draftID, err)
	}
	return nil
}

// DraftAttachments returns a draft's attachments in the order attached.
// withData false leaves Data nil (for listing; the length is in Size).
func (s *Store) DraftAttachments(ctx context.Context, draftID string) ([]DraftAttachment, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, filename, content_type, forwarded, data FROM draft_attachments
		WHERE draft_id = ? ORDER BY id`, draftID)
	if err != nil {
		return nil, fmt.Errorf("store: attachments of draft %s: %w", draftID, err)
	}
	defer rows.Close()
	var out []DraftAttachment
	for rows.Next() {
		a := DraftAttachment{DraftID: draftID}
		if err := rows.Scan(&a.ID, &a.Filename, &a.ContentType, &a.Forwarded, &a.Data); err != nil {
			return nil, fmt.Errorf("store: attachments of draft %s: %w", draftID, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: attachments of draft %s: %w", draftID, err)
	}
	return out, nil
}

// expireForChange expires the pending approvals of a draft whose content
// changed outside SaveDraft.
func expireForChange(ctx context.Context, tx *sql.Tx, draftID, reason string) error {
	_, err := tx.ExecContext(ctx, `UPDATE approvals SET status = 'expired', decision_reason = ?
		WHERE draft_id = ? AND status = 'pending'`, "draft edited: "+reason, draftID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return nil
}
