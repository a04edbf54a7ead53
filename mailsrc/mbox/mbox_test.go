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
	"testing"

	"mailsift/mailsrc"
	"mailsift/mailsrc/internal/memsink"
	"mailsift/model"
)

func newMemSink() *memsink.Sink { return memsink.New() }

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
	if len(sink.Mailboxes) != 2 || sink.Mailboxes["Sent"].Role != model.RoleSent {
		t.Errorf("mailboxes = %+v", sink.Mailboxes)
	}
	if len(sink.Msgs) != 6 {
		t.Errorf("stored %d messages, want 6", len(sink.Msgs))
	}
	m := sink.BySubject("First")
	if m == nil || !m.Flags.Seen || !m.Flags.Answered || !m.Flags.Flagged || m.From.Email != "alice@example.com" {
		t.Errorf("first message = %+v", m)
	}
	if m := sink.BySubject("Second"); m == nil || m.Flags.Seen {
		t.Errorf("second message = %+v, want unseen (Status: O)", m)
	}
	if m := sink.BySubject("Dritte Nachricht ✓"); m == nil || !strings.HasSuffix(m.MessageID, "@mailsift.invalid") {
		t.Errorf("third message = %+v", m)
	}

	// Re-sync: stable keys, nothing re-imported.
	puts := sink.Puts
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatal(err)
	}
	if sink.Puts != puts || sink.Removed != 0 {
		t.Errorf("re-sync put %d, removed %d; want 0, 0", sink.Puts-puts, sink.Removed)
	}
	// Truncate one file to its first message: the others are removed.
	i := bytes.Index(data, []byte("\nFrom carol"))
	if err := os.WriteFile(filepath.Join(dir, "Archive"), data[:i+1], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := src.Sync(ctx, sink, nil); err != nil {
		t.Fatal(err)
	}
	if sink.Removed != 2 || sink.Puts != puts {
		t.Errorf("after truncation removed %d (want 2), put %d (want 0)", sink.Removed, sink.Puts-puts)
	}
}

func TestSingleFileAndErrors(t *testing.T) {
	sink := newMemSink()
	src := New("acct", filepath.Join("testdata", "crlf.mbox"))
	if err := src.Sync(context.Background(), sink, nil); err != nil {
		t.Fatal(err)
	}
	if len(sink.Msgs) != 3 || sink.Mailboxes["INBOX"].Role != model.RoleInbox {
		t.Errorf("single file: %d messages, mailboxes %+v", len(sink.Msgs), sink.Mailboxes)
	}
	if m := sink.BySubject("Second"); m == nil || m.Text != "Second body." {
		t.Errorf("CRLF message = %+v", m)
	}
	err := src.PushFlags(context.Background(), []model.FlagChange{{Flag: model.FlagSeen, Set: true}})
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
		if len(sink.Msgs) != total {
			b.Fatalf("got %d", len(sink.Msgs))
		}
		n += total
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msg/s")
}
