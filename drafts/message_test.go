package drafts

import (
	"fmt"
	"io"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"
	"unicode"

	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// checkWire reports what in raw breaks the wire rules of an outgoing
// message: a header section of printable ASCII (plus folding whitespace),
// CRLF line ends only (no bare CR or LF), lines of at most 998 octets, and
// a blank line between header and body.
func checkWire(raw []byte) error {
	s := string(raw)
	head, _, ok := strings.Cut(s, "\r\n\r\n")
	if !ok {
		return fmt.Errorf("no blank line after the header")
	}
	for i := 0; i < len(head); i++ {
		c := head[i]
		if c == '\r' || c == '\n' {
			continue
		}
		if (c < 0x20 && c != '\t') || c > 0x7e {
			return fmt.Errorf("header byte %#02x at %d is not printable ASCII", c, i)
		}
	}
	for n, line := range strings.Split(head, "\r\n") {
		if strings.TrimSpace(line) == "" {
			return fmt.Errorf("header line %d is only whitespace", n+1)
		}
		if len(line) > 76 && strings.Contains(line, "=?") {
			return fmt.Errorf("header line %d holds an encoded-word and is %d octets, over 76 (RFC 2047)", n+1, len(line))
		}
	}
	if !strings.HasSuffix(s, "\r\n") {
		return fmt.Errorf("the message does not end with CRLF")
	}
	for n, line := range strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n") {
		if strings.ContainsAny(line, "\r\n") {
			return fmt.Errorf("line %d has a bare CR or LF: %q", n+1, line)
		}
		if len(line) > 998 {
			return fmt.Errorf("line %d is %d octets, over 998", n+1, len(line))
		}
	}
	return nil
}

// hostileDraft carries what a hostile incoming message can put into a
// reply: ids with C1, OSC, bidi and raw 8-bit bytes, an overlong id, 200
// References, U+202E in names and subject, escape sequences in the body.
func hostileDraft() *Draft {
	refs := []string{"root@example.com", "a\u009db@evil.example", "a\x9db@evil.example", "a\u202eb@evil.example",
		strings.Repeat("x", 3000) + "@evil.example"}
	for i := range 200 {
		refs = append(refs, fmt.Sprintf("r%03d@example.com", i))
	}
	return &Draft{
		From: model.Address{Name: "Me \u202eevil", Email: "me@example.com"},
		To: []model.Address{{Name: "Dana\u202e\u0085 \x1b]52;c;eA==\x07", Email: "dana@example.com"},
			{Name: strings.Repeat("N", 3000), Email: "long@example.com"}},
		Subject:    "Re: \u202elunch\x1b[2J " + strings.Repeat("y", 2000),
		Body:       "Hi\x1b]0;pwned\x07 there\r\n\u009b31m red \u202e\n",
		InReplyTo:  "a\u009db@evil.example",
		References: refs,
	}
}

func TestBuildMessageHostile(t *testing.T) {
	out, err := BuildMessage(hostileDraft(), time.Unix(0, 0).UTC(), "id1@example.com")
	if err != nil {
		t.Fatalf("BuildMessage(hostile draft): %v", err)
	}
	if err := checkWire(out.Raw); err != nil {
		t.Fatalf("BuildMessage(hostile draft): %v\n%s", err, out.Raw)
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(out.Raw)))
	if err != nil {
		t.Fatalf("the built message does not parse: %v", err)
	}
	if got := msg.Header.Get("In-Reply-To"); got != "" {
		t.Errorf("In-Reply-To = %q, want none (the only id is invalid)", got)
	}
	refs := strings.Fields(msg.Header.Get("References"))
	if len(refs) != rfc822.MaxReferences || refs[0] != "<root@example.com>" || refs[len(refs)-1] != "<r199@example.com>" ||
		refs[1] != fmt.Sprintf("<r%03d@example.com>", 200-(rfc822.MaxReferences-1)) {
		t.Errorf("References = %q, want the root and the %d most recent", refs, rfc822.MaxReferences-1)
	}
	dec := new(mime.WordDecoder)
	subj, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("Subject does not decode: %v", err)
	}
	if want := "Re: lunch[2J " + strings.Repeat("y", 2000); subj != want {
		t.Errorf("decoded Subject = %q, want %q", subj, want)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 2 {
		t.Fatalf("To does not parse: %v %v", to, err)
	}
	if to[0].Name != "Dana ]52;c;eA==" || to[1].Name != strings.Repeat("N", 3000) || to[1].Address != "long@example.com" {
		t.Errorf("To names = %q, %q", to[0].Name, to[1].Name)
	}
	body, _ := io.ReadAll(msg.Body)
	if strings.ContainsAny(string(body), "\x1b\u009b") {
		t.Errorf("raw escapes in the body:\n%s", body)
	}
}

func TestBuildMessageRefusesWhatCannotBeSent(t *testing.T) {
	tests := []struct {
		name string
		d    *Draft
		id   string
		want string
	}{
		{name: "overlong address", d: &Draft{From: alice, To: []model.Address{{Email: strings.Repeat("a", 300) + "@example.com"}}},
			id: "x@y", want: "at most 254"},
		{name: "DEL in the local part", d: &Draft{From: alice, To: []model.Address{{Email: "a\x7fb@example.com"}}}, id: "x@y", want: "not printable ASCII"},
		{name: "empty domain label", d: &Draft{From: alice, To: []model.Address{{Email: "a@...example.com"}}}, id: "x@y", want: "invalid domain"},
		{name: "message id with a C1 control", d: &Draft{From: alice, To: []model.Address{bob}}, id: "a\u009db@x", want: "Message-ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuildMessage(tt.d, time.Unix(0, 0).UTC(), tt.id)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("BuildMessage(%s) error = %v, want one saying %q", tt.name, err, tt.want)
			}
		})
	}
}

func TestSubjectWordsEncodesOnlyWhatNeedsIt(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Re: Grüße aus Köln", "Re: =?utf-8?q?Gr=C3=BC=C3=9Fe?= aus =?utf-8?q?K=C3=B6ln?="},
		{"Re: schöne Grüße", "Re: =?utf-8?q?sch=C3=B6ne_Gr=C3=BC=C3=9Fe?="},
		{"a =?x?q?y?= b", "a =?utf-8?q?=3D=3Fx=3Fq=3Fy=3F=3D?= b"},
		{"plain\r\nBcc: x\u202e", "plain Bcc: x"},
	}
	for _, tt := range tests {
		if got := strings.Join(subjectWords(tt.in), " "); got != tt.want {
			t.Errorf("subjectWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
		dec, err := new(mime.WordDecoder).DecodeHeader(tt.want)
		if want := oneLine(tt.in); err != nil || dec != want {
			t.Errorf("%q decodes to %q (%v), want %q", tt.want, dec, err, want)
		}
	}
}

func TestBuildMessageFoldsLongLists(t *testing.T) {
	d := &Draft{From: alice, Subject: "s"}
	for i := range 300 {
		d.To = append(d.To, model.Address{Name: fmt.Sprintf("Person Number %d", i), Email: fmt.Sprintf("p%d@example.com", i)})
	}
	out, err := BuildMessage(d, time.Unix(0, 0).UTC(), "id@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkWire(out.Raw); err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(string(out.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 300 || to[299].Name != "Person Number 299" {
		t.Fatalf("folded To does not parse back: %d addresses, %v", len(to), err)
	}
	for _, l := range strings.Split(string(out.Raw), "\r\n") {
		if len(l) > 78 {
			t.Errorf("line of %d octets where folding at 78 was possible: %q", len(l), l)
		}
	}
}

// FuzzBuildMessage checks the wire rules (checkWire) on whatever a draft
// holds.
func FuzzBuildMessage(f *testing.F) {
	h := hostileDraft()
	f.Add(h.From.Name, h.To[0].Name, "dana@example.com", h.Subject, h.Body, h.InReplyTo, h.References[1], h.References[4])
	f.Add("Zoë Ünal", "Bob", "bob@exämple.com", "Re: Grüße\r\nBcc: eve@evil.example", "Schöne Grüße\r.\n", "m1@x", "<m0@x>", "m1@x")
	f.Add("", "", "a@b", "", "", "", "", "")
	f.Add(strings.Repeat("é", 600), strings.Repeat("\"\\", 400), "x@y", strings.Repeat("=?utf-8?q?x?= ", 100), strings.Repeat("a", 5000), "<<a@b>>", " ", "\x00")
	f.Fuzz(func(t *testing.T, fromName, toName, toEmail, subject, body, irt, ref1, ref2 string) {
		d := &Draft{From: model.Address{Name: fromName, Email: "me@example.com"},
			To:      []model.Address{{Name: toName, Email: toEmail}, {Name: toName + toName, Email: "b@example.com"}},
			Subject: subject, Body: body, InReplyTo: irt, References: []string{ref1, ref2, irt}}
		out, err := BuildMessage(d, time.Unix(0, 0).UTC(), "id@example.com")
		if err != nil {
			return
		}
		if err := checkWire(out.Raw); err != nil {
			t.Fatalf("BuildMessage: %v\n%q", err, out.Raw)
		}
		msg, err := mail.ReadMessage(strings.NewReader(string(out.Raw)))
		if err != nil {
			t.Fatalf("the built message does not parse: %v\n%q", err, out.Raw)
		}
		clean := func(s string) string {
			return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
				switch {
				case r == '\r' || r == '\n' || r == '\t':
					return ' '
				case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
					return -1
				}
				return r
			}, s)), " ")
		}
		subj, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if err != nil || subj != clean(subject) {
			t.Fatalf("Subject decodes to %q (%v), want %q\n%q", subj, err, clean(subject), out.Raw)
		}
		to, err := msg.Header.AddressList("To")
		if err != nil || len(to) != 2 || to[0].Name != clean(toName) || to[1].Name != clean(toName+toName) {
			t.Fatalf("To parses to %v (%v), want the names %q and %q\n%q", to, err, clean(toName), clean(toName+toName), out.Raw)
		}
	})
}
