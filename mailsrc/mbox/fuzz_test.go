package mbox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// FuzzReader splits arbitrary bytes as an mbox: it must end, never return
// more message bytes than it was given, and give every message a key.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"inbox.mbox", "crlf.mbox"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// A few corpus messages as one mbox, at run time only (never committed).
	names, _ := filepath.Glob("../../testdata/corpus/maildir/*/cur/*")
	sort.Strings(names)
	var box bytes.Buffer
	for i := 0; i < len(names) && i < 30*97; i += 97 {
		raw, err := os.ReadFile(names[i])
		if err != nil {
			f.Fatal(err)
		}
		box.WriteString("From sender@example.com Mon Nov  3 10:00:00 2025\n")
		box.Write(raw)
		box.WriteString("\n")
	}
	if box.Len() > 0 {
		f.Add(box.Bytes())
	}
	for _, s := range []string{"From a\n\nFrom b\n>From c\n\n", "garbage\nFrom x\r\n\r\nFrom y", "From \n", ">From \n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		r := NewReader(bytes.NewReader(data))
		total := 0
		for n := 0; ; n++ {
			if n > len(data)+1 {
				t.Fatalf("Reader returned more than %d messages from %d bytes", n, len(data))
			}
			m, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("Next = %v on an in-memory stream", err)
			}
			if m.Key == "" {
				t.Fatalf("message %d has no key", n)
			}
			total += len(m.Raw)
		}
		if total > len(data) {
			t.Fatalf("Reader returned %d message bytes from %d bytes of input", total, len(data))
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("reading %d bytes took %v", len(data), d)
		}
	})
}
