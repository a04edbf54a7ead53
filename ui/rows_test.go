package ui

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/app/event"
	"mailsift/model"
	"mailsift/store"
)

func TestRelAgeFitsColumn(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		t    time.Time
		want string
	}{
		{now.Add(-30 * time.Second), "now"},
		{now.Add(-5 * time.Minute), "5m"},
		{now.Add(-3 * time.Hour), "3h"},
		{now.Add(-2 * 24 * time.Hour), "2d"},
		{time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), "Mar 02"},
		{time.Date(2025, 12, 31, 9, 0, 0, 0, time.UTC), "Dec'25"},
		{time.Date(2002, 1, 15, 9, 0, 0, 0, time.UTC), "Jan'02"},
		{time.Date(1999, 10, 1, 9, 0, 0, 0, time.UTC), "Oct'99"},
	}
	for _, tt := range tests {
		got := relAge(now, tt.t)
		if got != tt.want || len(got) > ageWidth {
			t.Errorf("relAge(%v) = %q, want %q (at most %d cells)", tt.t, got, tt.want, ageWidth)
		}
	}
}

// TestSenderLabelInvisibleName: a display name made only of invisible
// fillers or escapes shows the address instead of a blank sender.
func TestSenderLabelInvisibleName(t *testing.T) {
	for _, name := range []string{"\u3164", "\u115f\u1160", "\u2800\u2800", "\u034f\ufe0f", "\x1b[8m", "\u200d", "\u3000"} {
		got := senderLabel(model.Address{Name: name, Email: "mallory@evil.example"})
		if got != "mallory@evil.example" {
			t.Errorf("senderLabel(name %q) = %q, want the address", name, got)
		}
	}
	got := senderLabel(model.Address{Name: "PayPal\u3164\u3164Support", Email: "x@evil.example"})
	if got != "PayPalSupport" {
		t.Errorf("senderLabel with fillers inside = %q, want them dropped", got)
	}
}

// TestOfflineBadgeOnlyForFallbacks: deterministic triage is said once in
// the status bar; a row carries a badge only when the model's answer was
// rejected and the row fell back.
func TestOfflineBadgeOnlyForFallbacks(t *testing.T) {
	plain := store.ThreadSummary{Triage: &store.TriageRecord{Source: "deterministic"}}
	if got := badgeText(plain); got != "" {
		t.Errorf("badgeText(deterministic) = %q, want no badge", got)
	}
	fell := store.ThreadSummary{Triage: &store.TriageRecord{Source: "deterministic", Signals: []string{"fallback: model answer failed the schema"}}}
	if got := badgeText(fell); got != "[fallback triage]" {
		t.Errorf("badgeText(fallback) = %q, want [fallback triage]", got)
	}
}

// TestStatusBarCutsAtSegment: a status bar too narrow for its segments cuts
// at a word or segment boundary with an ellipsis and keeps the message on
// the right apart from it.
func TestStatusBarCutsAtSegment(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s, Account: "work"}, 80, 20)
	d.send(event.Conn{State: event.ConnIdle})
	d.send(event.TriageProgress{Offline: "Ollama not reachable at http://127.0.0.1:11434; start it with `ollama serve`"})
	d.send(event.Failure{Err: errors.New("imap: login failed")})
	v := d.view()
	last := ansi.Strip(v[strings.LastIndex(v, "\n")+1:])
	if !strings.HasSuffix(last, "! imap: login failed (esc) ") {
		t.Fatalf("status %q lacks the whole message on the right", last)
	}
	left := strings.TrimSuffix(last, "! imap: login failed (esc) ")
	if !regexp.MustCompile(`[^ ] …  +$`).MatchString(left) && !regexp.MustCompile(`\S…  +$`).MatchString(left) {
		t.Fatalf("status %q: the left part is not cut with an ellipsis and kept apart from the message", last)
	}
	// No word is cut in the middle: every word left of the ellipsis is one
	// of the full segments' words.
	full := "work · IDLE · offline triage: Ollama not reachable at http://127.0.0.1:11434; start it with `ollama serve`"
	words := strings.Fields(strings.TrimSpace(strings.TrimRight(strings.TrimSpace(left), "…")))
	for _, w := range words {
		if !strings.Contains(" "+full+" ", " "+w+" ") {
			t.Errorf("status %q cuts the word %q", last, w)
		}
	}
	if ansi.StringWidth(last) != 80 {
		t.Errorf("status is %d cells wide, want 80", ansi.StringWidth(last))
	}
}
