package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

const attachmentMail = "From: Dana <dana@example.com>\r\n" +
	"To: Me <me@example.com>\r\n" +
	"Subject: Menu\r\n" +
	"Date: Sat, 21 Nov 2026 10:30:00 +0000\r\n" +
	"Message-ID: <menu@x>\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=b1\r\n" +
	"\r\n" +
	"--b1\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"\r\n" +
	"Menu attached. See the site <https://ramen.example/menu>.\r\n" +
	"--b1\r\n" +
	"Content-Type: text/plain; name=\"../menu.txt\"\r\n" +
	"Content-Disposition: attachment; filename=\"../menu.txt\"\r\n" +
	"\r\n" +
	"shoyu 12\r\nmiso 13\r\n" +
	"--b1--\r\n"

func TestSaveAttachment(t *testing.T) {
	msg, err := rfc822.Parse([]byte(attachmentMail))
	if err != nil {
		t.Fatal(err)
	}
	msg.Loc = model.Location{Account: "test", Mailbox: "INBOX", Key: "menu"}
	s := newFixtureStore(t, nil, nil)
	if err := s.PutMessages(context.Background(), []*model.Message{msg}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	d := newDriver(t, Options{Store: s, SaveDir: dir}, 100, 30)
	d.keys("g", "enter")
	v := d.view()
	if !strings.Contains(v, "https://ramen.example/menu") || !strings.Contains(v, "menu.txt") {
		t.Fatalf("thread view lacks link target or attachment:\n%s", v)
	}
	d.keys("S")
	if d.m.promptKind != promptSave {
		t.Fatal("S did not open the save prompt")
	}
	// The prompt proposes a plain file name inside SaveDir (no ../).
	want := filepath.Join(dir, "menu.txt")
	if got := d.m.prompt.Value(); got != want {
		t.Fatalf("save prompt proposes %q, want %q", got, want)
	}
	d.keys("enter")
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("attachment not saved: %v (error line %q)", err, d.m.c.errText)
	}
	// The CRLF before the closing boundary belongs to the boundary (RFC 2046).
	if string(data) != "shoyu 12\r\nmiso 13" {
		t.Errorf("saved %q", data)
	}
	if !strings.Contains(d.view(), "saved "+want) {
		t.Errorf("no confirmation:\n%s", d.view())
	}
	// Saving again to the same path refuses to overwrite.
	d.keys("S", "enter")
	if !strings.Contains(d.m.c.errText, "exists") {
		t.Errorf("second save error = %q, want a refusal to overwrite", d.m.c.errText)
	}
}

func TestThreadViewToggleReadStays(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	id := threadID(t, s, "outage@x")
	d.keys("g", "enter", "m")
	ts, _ := s.ThreadSummaryByID(context.Background(), id)
	if ts.Unread == 0 {
		t.Fatal("m in the thread view did not mark it unread (or opening re-marked it read)")
	}
	d.keys("m")
	ts, _ = s.ThreadSummaryByID(context.Background(), id)
	if ts.Unread != 0 {
		t.Fatal("second m did not mark it read")
	}
}

func TestThreadScrollAndMouse(t *testing.T) {
	var body strings.Builder
	for i := range 200 {
		body.WriteString("line " + strings.Repeat("x", i%50) + "\n")
	}
	msgs := []fx{{id: "long@x", subject: "Long", body: body.String(), from: me, ago: 1}}
	s := newFixtureStore(t, msgs, nil)
	d := newDriver(t, Options{Store: s}, 80, 20)
	d.keys("g", "enter")
	if d.m.thread.vp.YOffset != 0 {
		t.Fatal("thread not at top")
	}
	d.keys("j", "j")
	if d.m.thread.vp.YOffset != 2 {
		t.Fatalf("j j: offset %d, want 2", d.m.thread.vp.YOffset)
	}
	d.send(tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	if d.m.thread.vp.YOffset != 5 {
		t.Fatalf("wheel down: offset %d, want 5", d.m.thread.vp.YOffset)
	}
	d.keys("G")
	if !d.m.thread.vp.AtBottom() {
		t.Fatal("G did not go to the bottom")
	}
	d.keys("g")
	if d.m.thread.vp.YOffset != 0 {
		t.Fatal("g did not go to the top")
	}
}
