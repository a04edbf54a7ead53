package mbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mailsift/mailsrc"
	"mailsift/model"
)

type memSink struct {
	mu        sync.Mutex
	mailboxes map[string]model.Mailbox
	msgs      map[model.Location]*model.Message
	flags     map[model.Location]model.Flags
	puts      int
	removed   int
}

func newMemSink() *memSink {
	return &memSink{mailboxes: map[string]model.Mailbox{}, msgs: map[model.Location]*model.Message{}, flags: map[model.Location]model.Flags{}}
}

func (s *memSink) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error) {
	return model.MailboxState{}, nil
}
func (s *memSink) SetMailbox(ctx context.Context, mb model.Mailbox) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mailboxes[mb.Name] = mb
	return nil
}
func (s *memSink) ResetMailbox(ctx context.Context, account, mailbox string) error { return nil }
func (s *memSink) PutMessages(ctx context.Context, msgs []*model.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		s.msgs[m.Loc], s.flags[m.Loc] = m, m.Flags
		s.puts++
	}
	return nil
}
func (s *memSink) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for l, f := range flags {
		s.flags[l] = f
	}
	return nil
}
func (s *memSink) RemoveLocations(ctx context.Context, locs []model.Location) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range locs {
		delete(s.msgs, l)
		delete(s.flags, l)
		s.removed++
	}
	return nil
}
func (s *memSink) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[model.Location]model.Flags{}
	for l, f := range s.flags {
		if l.Account == account && l.Mailbox == mailbox {
			out[l] = f
		}
	}
	return out, nil
}
func (s *memSink) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) {
	return nil, nil
}

func (s *memSink) bySubject(subject string) *model.Message {
	for _, m := range s.msgs {
		if m.Subject == subject {
			return m
		}
	}
	return nil
}

func TestReaderUnquotesAndSplits(t *testing.T) {
	for _, name := range []string{"inbox.mbox", "crlf.mbox"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := NewReader(f)
			var msgs []*Message
			for {
				m, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				msgs = append(msgs, m)
			}
			if len(msgs) != 3 {
				t.Fatalf("Next() gave %d messages, want 3", len(msgs))
			}
			first := strings.ReplaceAll(string(msgs[0].Raw), "\r\n", "\n")
			if !strings.HasPrefix(first, "From: Alice") {
				t.Errorf("separator line kept: %q", first[:30])
			}
			for _, want := range []string{"\nFrom the archives: a quoted line.\n", "\n>From deeper quoting.\n", "\nFrom here on, an unquoted mboxo line after text.\n"} {
				if !strings.Contains(first, want) {
					t.Errorf("message 1 = %q, want it to contain %q", first, want)
				}
			}
			if strings.HasSuffix(first, "\n\n") {
				t.Errorf("mbox separator blank line kept at end: %q", first[len(first)-20:])
			}
			if msgs[0].Key == msgs[1].Key || !strings.HasPrefix(msgs[1].Key, "2-") {
				t.Errorf("keys = %q, %q", msgs[0].Key, msgs[1].Key)
			}
		})
	}
}

func TestSync(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "inbox.mbox"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Sent", "Archive"} {
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Sent.msf"), []byte("index"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := New("acct", dir)
	sink := newMemSink()
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatalf("Sync() = %v", err)
	}
	if len(sink.mailboxes) != 2 || sink.mailboxes["Sent"].Role != model.RoleSent {
		t.Errorf("mailboxes = %+v", sink.mailboxes)
	}
	if len(sink.msgs) != 6 {
		t.Errorf("stored %d messages, want 6", len(sink.msgs))
	}
	m := sink.bySubject("First")
	if m == nil || !m.Flags.Seen || !m.Flags.Answered || !m.Flags.Flagged || m.From.Email != "alice@example.com" {
		t.Errorf("first message = %+v", m)
	}
	if m := sink.bySubject("Second"); m == nil || m.Flags.Seen {
		t.Errorf("second message = %+v, want unseen (Status: O)", m)
	}
	if m := sink.bySubject("Dritte Nachricht ✓"); m == nil || !strings.HasSuffix(m.MessageID, "@mailsift.invalid") {
		t.Errorf("third message = %+v", m)
	}

	// Re-sync: stable keys, nothing re-imported.
	puts := sink.puts
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatal(err)
	}
	if sink.puts != puts || sink.removed != 0 {
		t.Errorf("re-sync put %d, removed %d; want 0, 0", sink.puts-puts, sink.removed)
	}
	// Truncate one file to its first message: the others are removed.
	i := bytes.Index(data, []byte("\nFrom carol"))
	if err := os.WriteFile(filepath.Join(dir, "Archive"), data[:i+1], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatal(err)
	}
	if sink.removed != 2 || sink.puts != puts {
		t.Errorf("after truncation removed %d (want 2), put %d (want 0)", sink.removed, sink.puts-puts)
	}
}

func TestSingleFileAndErrors(t *testing.T) {
	sink := newMemSink()
	src := New("acct", filepath.Join("testdata", "crlf.mbox"))
	if err := src.Sync(context.Background(), sink, nil); err != nil {
		t.Fatal(err)
	}
	if len(sink.msgs) != 3 || sink.mailboxes["INBOX"].Role != model.RoleInbox {
		t.Errorf("single file: %d messages, mailboxes %+v", len(sink.msgs), sink.mailboxes)
	}
	if m := sink.bySubject("Second"); m == nil || m.Text != "Second body." {
		t.Errorf("CRLF message = %+v", m)
	}
	err := src.PushFlags(context.Background(), []mailsrc.FlagChange{{Flag: model.FlagSeen, Set: true}})
	if !errors.Is(err, mailsrc.ErrReadOnly) {
		t.Errorf("PushFlags() = %v, want ErrReadOnly", err)
	}
	err = New("acct", "/nonexistent/mbox").Sync(context.Background(), sink, nil)
	if err == nil || !strings.Contains(err.Error(), "mbox: open") {
		t.Errorf("Sync(missing) = %v", err)
	}
}

func BenchmarkMboxSync(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big")
	var buf bytes.Buffer
	const total = 2000
	for i := range total {
		fmt.Fprintf(&buf, "From a@example.com Mon Nov  3 10:00:00 2025\nFrom: A <a@example.com>\nSubject: m%d\nMessage-ID: <m%d@example.com>\nDate: Mon, 3 Nov 2025 10:00:00 +0000\n\n%s\n\n", i, i, strings.Repeat("Some body text here.\n", 40))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	n := 0
	for b.Loop() {
		sink := newMemSink()
		if err := New("b", path).Sync(context.Background(), sink, nil); err != nil {
			b.Fatal(err)
		}
		if len(sink.msgs) != total {
			b.Fatalf("got %d", len(sink.msgs))
		}
		n += total
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msg/s")
}
