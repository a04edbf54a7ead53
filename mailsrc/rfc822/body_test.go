package rfc822

import (
	"strings"
	"testing"

	"mailsift/model"
)

func kinds(parts []model.BodyPart) string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Kind.String())
	}
	return strings.Join(out, ",")
}

func TestSplitBody(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		kinds string
		strip string
	}{
		{"plain", "Hello\nWorld", "text", "Hello\nWorld"},
		{"gmail reply", "Sounds good.\n\nOn Thu, Nov 20, 2025 at 10:00 AM Alice <a@example.com> wrote:\n> Lunch?\n> \n> A\n", "text,quote,text", "Sounds good."},
		{"wrapped attribution", "Yes.\n\nOn Thu, Nov 20, 2025 at 10:00 AM Alice Example\n<a@example.com> wrote:\n\n> Lunch?", "text,quote", "Yes."},
		{"french", "Oui.\n\nLe jeu. 20 nov. 2025 à 10:00, Alice <a@example.com> a écrit :\n> Déjeuner ?", "text,quote", "Oui."},
		{"signature", "Thanks!\n-- \nBob\nACME Corp", "text,signature", "Thanks!"},
		{"mobile signature", "OK\n\nSent from my iPhone", "text,signature", "OK"},
		{"outlook", "See below.\n\n-----Original Message-----\nFrom: Alice\nSent: Monday\nSubject: x\n\nold text", "text,quote", "See below."},
		{"outlook without separator", "Fine.\n\nFrom: Alice <a@example.com>\nSent: Monday, 3 November 2025 10:00\nTo: Bob\n\nold", "text,quote", "Fine."},
		{"forwarded", "FYI\n\n---------- Forwarded message ----------\nFrom: X\n\nbody", "text,forward", "FYI"},
		{"interleaved", "> q1\nanswer 1\n> q2\nanswer 2", "quote,text,quote,text", "answer 1\nanswer 2"},
		{"signature then quote", "Reply\n-- \nBob\n\nOn Mon, X wrote:\n> old", "text,signature,quote", "Reply"},
		{"crlf", "Hi\r\n> q\r\n", "text,quote,text", "Hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := SplitBody(tt.in)
			if got := kinds(parts); got != tt.kinds {
				t.Errorf("SplitBody(%q) kinds = %s, want %s (%q)", tt.in, got, tt.kinds, parts)
			}
			var all []string
			for _, p := range parts {
				all = append(all, p.Text)
			}
			if strings.Join(all, "\n") != strings.ReplaceAll(tt.in, "\r\n", "\n") {
				t.Errorf("SplitBody(%q) does not join back to the input: %q", tt.in, all)
			}
			if got := StripQuotes(tt.in); got != tt.strip {
				t.Errorf("StripQuotes(%q) = %q, want %q", tt.in, got, tt.strip)
			}
		})
	}
}

func TestSplitBodyOfParsedForward(t *testing.T) {
	m, err := Parse(readFixture(t, "nested-rfc822.eml"))
	if err != nil {
		t.Fatal(err)
	}
	parts := SplitBody(m.Text)
	if got := kinds(parts); got != "text,forward" {
		t.Errorf("forward parts = %s (%q)", got, parts)
	}
	if StripQuotes(m.Text) != "FYI, see below." {
		t.Errorf("StripQuotes = %q", StripQuotes(m.Text))
	}
}
