package ui

import (
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

// evil holds every escape sequence the sanitizer must strip, plus bidi
// overrides, C1 controls and invalid UTF-8.
const evil = "A\x1b[31mRED\x1b[0m" + // CSI SGR
	"\x1b[2J\x1b[H" + // clear screen, home
	"\x1b]0;owned title\x07" + // OSC title (BEL)
	"\x1b]52;c;cm0gLXJmIH4K\x07" + // OSC 52 clipboard write
	"\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\" + // OSC 8 hyperlink
	"\x1bP+q544e\x1b\\" + // DCS (XTGETTCAP)
	"\x1bXsos\x1b\\\x1b^pm\x1b\\\x1b_apc\x1b\\" + // SOS, PM, APC
	"\u009b6n\u009d52;c;AAAA\u009c" + // 8-bit CSI (DSR) and OSC
	"\x07\x08\x7f\r" + // BEL, BS, DEL, CR
	"gnp.\u202eexe\u2066\u2069\u200f" + // RLO, isolates, RLM
	"\xff\xfeZ"

func hostileStore(t *testing.T) *store.Store {
	t.Helper()
	msgs := []fx{{
		id: "evil@x", subject: "Invoice " + evil, body: "Body " + evil + "\n> quoted " + evil + "\n",
		from: model.Address{Name: "Eve " + evil, Email: "eve@evil.example"}, ago: time.Hour,
		atts: []model.Attachment{{Filename: "report" + evil + ".pdf", ContentType: "application/pdf" + evil, Size: 10, Part: "2"}},
	}}
	return newFixtureStore(t, msgs, map[string]store.TriageRecord{
		"evil@x": {Source: "ollama", Model: "m" + evil, Intent: evil, Urgency: evil,
			Result: contract.Result{Category: contract.CategoryUrgent, IsPhishing: true, IsSpam: true, Summary: "Sum " + evil,
				ActionItems: []contract.ActionItem{{Description: "Do " + evil, DueHint: strp("due " + evil)}}},
			PhishingReasons: []string{"r " + evil}, SpamReasons: []string{"s " + evil}},
	})
}

// assertNoControls fails on anything a terminal would interpret. With the
// ASCII profile lipgloss emits no styling, so no ESC at all may appear.
func assertNoControls(t *testing.T, where, out string) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\u009b", "\u009d", "\u009c", "\x07", "\x08", "\x7f", "\r", "\u202e", "\u2066", "\u2069", "\u200f"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s contains %q:\n%q", where, bad, out)
		}
	}
	if strings.ContainsRune(out, 0x9b) {
		t.Errorf("%s contains U+009B", where)
	}
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' {
			t.Fatalf("%s contains control byte %#x at %d", where, c, i)
		}
	}
}

func TestHostileMailReachesScreenWithoutControls(t *testing.T) {
	s := hostileStore(t)
	d := newDriver(t, Options{Store: s}, 200, 40)
	inbox := d.view()
	if !strings.Contains(inbox, "Invoice ARED") {
		t.Fatalf("hostile subject not shown (sanitized) in the inbox:\n%s", inbox)
	}
	assertNoControls(t, "inbox", inbox)

	d.keys("g", "enter")
	thread := d.view()
	if !strings.Contains(thread, "report") || !strings.Contains(thread, "PHISHING") {
		t.Fatalf("thread view:\n%s", thread)
	}
	assertNoControls(t, "thread", thread)
	d.keys("z")
	assertNoControls(t, "unfolded thread", d.view())
	full := d.m.thread.vp.View()
	d.m.thread.vp.GotoBottom()
	assertNoControls(t, "thread bottom", full+d.m.thread.vp.View())

	d.keys("S") // save prompt shows the (sanitized) file name
	assertNoControls(t, "save prompt", d.view())
	d.keys("esc", "esc", "/")
	d.typeText("invoice")
	if len(d.m.search.hits) == 0 {
		t.Fatalf("search found nothing: %q", d.m.search.err)
	}
	assertNoControls(t, "search", d.view())
	d.keys("esc", ":")
	d.typeText("list invoice")
	d.keys("enter")
	assertNoControls(t, "list", d.view())
}

func TestSafeFilename(t *testing.T) {
	tests := []struct{ in, want string }{
		{"../../etc/passwd", "_.._etc_passwd"},
		{".bashrc", "bashrc"},
		{"a\x1b[31mb.pdf", "ab.pdf"},
		{"", "attachment"},
		{"rep\u202eort.pdf", "report.pdf"},
	}
	for _, tt := range tests {
		if got := safeFilename(tt.in); got != tt.want {
			t.Errorf("safeFilename(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
