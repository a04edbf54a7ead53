package store

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"

	"mailsift/model"
)

// threadSnapshot returns every thread row as text, by id.
func threadSnapshot(t *testing.T, s *Store) map[int64]string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `SELECT id, subject, norm_subject, latest, count, unread,
		has_attachment, has_body, from_name, from_email, participants, content_hash, COALESCE(triage_key, ''),
		section, in_inbox FROM threads`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		vals := make([]any, 14)
		ptrs := []any{&id}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out[id] = fmt.Sprint(vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// recomputeAll recomputes every thread's aggregates from the database,
// the slow path, in a write transaction of its own.
func recomputeAll(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		if err := w.markThreads(`SELECT id FROM threads`); err != nil {
			return err
		}
		return w.finish()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkBatchThreads asserts that the thread rows PutMessages wrote (new
// threads get their aggregates computed from the batch in memory) are
// exactly what recomputing them from the stored messages gives, that
// every message points at an existing thread, and that the section
// counts add up.
func checkBatchThreads(t *testing.T, s *Store) {
	t.Helper()
	before := threadSnapshot(t, s)
	if len(before) == 0 {
		t.Fatal("no threads stored")
	}
	if n := countRows(t, s, `SELECT count(*) FROM messages m WHERE NOT EXISTS(SELECT 1 FROM threads t WHERE t.id = m.thread_id)`); n != 0 {
		t.Errorf("%d messages point at a missing thread", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM threads t WHERE NOT EXISTS(SELECT 1 FROM messages m WHERE m.thread_id = t.id)`); n != 0 {
		t.Errorf("%d threads without a message", n)
	}
	checkSectionCounts(t, s)
	recomputeAll(t, s)
	after := threadSnapshot(t, s)
	if !reflect.DeepEqual(before, after) {
		n := 0
		for id, a := range after {
			if before[id] != a && n < 5 {
				n++
				t.Errorf("thread %d as written by the batch:\n  %s\nrecomputed from the messages:\n  %s", id, before[id], a)
			}
		}
		t.Errorf("%d threads before, %d after recompute; rows differ", len(before), len(after))
	}
}

// TestBatchThreadAggregates covers what the in-memory aggregates of new
// threads must get right: replies within one batch and across batches,
// threads merged within a batch, subject threading, copies in two
// folders, read and unread copies, the principal's own messages,
// attachments, an envelope and its body in the same batch, a location
// reused for another message, and inbox membership by role and by name.
func TestBatchThreadAggregates(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Archive", Role: model.RoleArchive}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Posteingang", Role: model.RoleInbox}); err != nil {
		t.Fatal(err)
	}
	att := func(m *model.Message) {
		m.Attachments = []model.Attachment{{Part: "2", Filename: "a.pdf", ContentType: "application/pdf", Size: 10}}
	}
	mine := from("Me", "ME@example.com")
	h := time.Hour
	// Batch 1: a root, a reply before its parent (child first), a copy of
	// the root in Archive (read), a subject-only follow-up, an attachment,
	// two threads joined by a later message of the same batch.
	b1 := []*model.Message{
		mkMsg("r1@x", "Budget", at(0)),
		mkMsg("c1@x", "Re: Budget", at(2*h), inReplyTo("p1@x")),
		mkMsg("p1@x", "Re: Budget", at(h), inReplyTo("r1@x"), mine, seen()),
		mkMsg("r1@x", "Budget", at(0), inMailbox("Archive"), withKey("arch-r1"), seen()),
		mkMsg("s1@x", "Lunch", at(3*h)),
		mkMsg("s2@x", "RE: Lunch", at(4*h), att),
		mkMsg("a1@x", "Left", at(5*h)),
		mkMsg("b1@x", "Right", at(6*h), inMailbox("Posteingang")),
		mkMsg("j1@x", "Join", at(7*h), inReplyTo("a1@x", "b1@x")),
		mkMsg("e1@x", "Envelope then body", at(8*h), envelopeOnly()),
		mkMsg("e1@x", "Envelope then body", at(8*h)),
		mkMsg("only-archived@x", "Archived only", at(9*h), inMailbox("Archive"), withKey("arch-1")),
		mkMsg("k1@x", "Key reused", at(10*h), withKey("reused")),
		mkMsg("k2@x", "Key reused by another", at(11*h), withKey("reused")),
	}
	put(t, s, b1...)
	checkBatchThreads(t, s)
	// Batch 2: replies to batch-1 threads (existing threads), a new
	// thread merging with an old one, the principal replying.
	b2 := []*model.Message{
		mkMsg("r2@x", "Re: Budget", at(12*h), inReplyTo("r1@x", "c1@x"), mine),
		mkMsg("n1@x", "New", at(13*h)),
		mkMsg("n2@x", "Re: New", at(14*h), inReplyTo("n1@x", "s1@x")),
		mkMsg("s3@x", "Lunch", at(15*h), seen()),
	}
	put(t, s, b2...)
	checkBatchThreads(t, s)
	if threadOf(t, s, "c1@x") != threadOf(t, s, "r1@x") || threadOf(t, s, "r2@x") != threadOf(t, s, "r1@x") {
		t.Error("replies not threaded with their root")
	}
	if threadOf(t, s, "a1@x") != threadOf(t, s, "b1@x") {
		t.Error("two threads joined by a reply were not merged")
	}
	if threadOf(t, s, "s2@x") != threadOf(t, s, "s1@x") {
		t.Error("subject follow-up not threaded")
	}
}

// TestBatchThreadAggregatesCorpus checks the same on the real corpus
// (skipped without it): 6,000 messages, mailing-list threads across
// batches of 500.
func TestBatchThreadAggregatesCorpus(t *testing.T) {
	msgs := corpusMessages(t)
	for i, m := range msgs {
		if m.Loc.Mailbox == "easy-ham-1" {
			m.Loc.Mailbox = "INBOX"
		}
		m.Flags.Seen = i%3 == 0
	}
	s := openTest(t)
	for i := 0; i < len(msgs); i += 500 {
		put(t, s, msgs[i:min(i+500, len(msgs))]...)
	}
	checkBatchThreads(t, s)
}
