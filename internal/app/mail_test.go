package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/mailsrc"
	"mailsift/mailsrc/maildir"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// otherReader returns the same bytes for every location.
type otherReader struct{ raw string }

func (r otherReader) ReadRaw(context.Context, model.Location) ([]byte, error) {
	return []byte(r.raw), nil
}

// TestMailReadsMaildirRawFromSource: a Maildir's messages are stored
// without a raw copy; Mail (the store as surfaces see it) reads the bytes (to save an
// attachment) from the Maildir file through the account's source, and
// says what is wrong when there is no source that keeps them.
func TestMailReadsMaildirRawFromSource(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	raw := "From: Bob <bob@example.com>\r\nTo: me@example.com\r\nSubject: Report\r\nMessage-ID: <r1@example.com>\r\n" +
		"Date: Mon, 3 Nov 2025 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nSee attached.\r\n--b\r\nContent-Type: text/csv; name=q.csv\r\n" +
		"Content-Disposition: attachment; filename=q.csv\r\n\r\na,b\r\n1,2\r\n--b--\r\n"
	if err := os.WriteFile(filepath.Join(root, "cur", "5000.r1.host:2,S"), []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := maildir.New("mail", root, nil)
	if err := src.Sync(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RawMessage(ctx, "r1@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("store RawMessage = %v, want ErrNotFound (no copy of Maildir bytes)", err)
	}
	b := &Mail{Store: st, raw: map[string]mailsrc.RawReader{"mail": src}}
	got, err := b.RawMessage(ctx, "r1@example.com")
	if err != nil || string(got) != raw {
		t.Fatalf("backend RawMessage = %q, %v; want the file's bytes", got, err)
	}
	name, data, err := rfc822.AttachmentContent(got, "2")
	if err != nil || name != "q.csv" || !strings.Contains(string(data), "1,2") {
		t.Errorf("attachment from the source's bytes = %q %q, %v", name, data, err)
	}
	none := &Mail{Store: st}
	if _, err := none.RawMessage(ctx, "r1@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("without the source: RawMessage = %v, want ErrNotFound", err)
	}
	// Bytes a source returns for a stored location are used only if they
	// are the message asked for: a server that reset its UIDs since the
	// last sync may hold another message there.
	other := strings.Replace(raw, "<r1@example.com>", "<someone-else@example.com>", 1)
	swapped := &Mail{Store: st, raw: map[string]mailsrc.RawReader{"mail": otherReader{other}}}
	if _, err := swapped.RawMessage(ctx, "r1@example.com"); err == nil || !strings.Contains(err.Error(), "changed since the last sync") {
		t.Errorf("RawMessage with another message at the location = %v, want an error saying the folder changed", err)
	}
}
