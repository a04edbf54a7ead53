package drafts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSendmailEnvLacksPassword checks that the sendmail command does not
// inherit MAILSIFT_PASSWORD: the fake sendmail prints its environment into
// a file.
func TestSendmailEnvLacksPassword(t *testing.T) {
	t.Setenv("MAILSIFT_PASSWORD", "sendmail-pw-7d1e")
	t.Setenv("MAILSIFT_TEST_MARKER", "present")
	dir := t.TempDir()
	out := filepath.Join(dir, "env.txt")
	script := filepath.Join(dir, "fake-sendmail")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nenv > '"+out+"'\ncat > /dev/null\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	tk := ticketFor(t, "Subject: hi\r\n\r\nbody\r\n", "alice@example.com", "bob@example.com")
	if err := (&Sendmail{Command: script}).Send(context.Background(), tk, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "MAILSIFT_TEST_MARKER=present") {
		t.Fatalf("sendmail environment lacks MAILSIFT_TEST_MARKER: the file holds %d bytes", len(b))
	}
	if strings.Contains(string(b), "MAILSIFT_PASSWORD") || strings.Contains(string(b), "sendmail-pw-7d1e") {
		t.Error("sendmail inherited MAILSIFT_PASSWORD")
	}
}
