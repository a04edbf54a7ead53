package rfc822

import (
	"fmt"
	"strings"
	"testing"
)

// msgIDOK reports whether id is what the parser may hand out: printable
// ASCII without brackets, at most MaxMsgIDLen octets.
func msgIDOK(id string) bool {
	if id == "" || len(id) > MaxMsgIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7e || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

func TestHostileMessageIDs(t *testing.T) {
	long := strings.Repeat("x", 3000) + "@evil.example"
	var manyRefs []string
	for i := range 200 {
		manyRefs = append(manyRefs, fmt.Sprintf("<r%d@x>", i))
	}
	tests := []struct {
		name       string
		header     string
		messageID  string // "" means synthesised
		inReplyTo  []string
		references []string // nil means: check only that they are clean
	}{
		{name: "C1 OSC in Message-ID", header: "Message-ID: <a\u009db@evil.example>\r\n", messageID: ""},
		{name: "raw 8-bit byte", header: "Message-ID: <a\x9db@evil.example>\r\n", messageID: ""},
		{name: "bidi override", header: "Message-ID: <a\u202eb@evil.example>\r\n", messageID: ""},
		{name: "ESC", header: "Message-ID: <a\x1b]52;c;eA==\x07b@evil.example>\r\n", messageID: ""},
		{name: "overlong", header: "Message-ID: <" + long + ">\r\n", messageID: ""},
		{name: "clean one kept", header: "Message-ID: <ok@example.com>\r\n", messageID: "ok@example.com"},
		{name: "hostile In-Reply-To and References dropped, clean kept",
			header:     "Message-ID: <m@x>\r\nIn-Reply-To: <a\u009db@evil.example> <p@x>\r\nReferences: <r1@x> <a\u202eb@x> <" + long + "> <r2@x>\r\n",
			messageID:  "m@x",
			inReplyTo:  []string{"p@x"},
			references: []string{"r1@x", "r2@x"}},
		{name: "many References: first and most recent kept",
			header:     "Message-ID: <m@x>\r\nReferences: " + strings.Join(manyRefs, " ") + "\r\n",
			messageID:  "m@x",
			references: append([]string{"r0@x"}, trimBrackets(manyRefs[200-(MaxReferences-1):])...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := "From: a@example.com\r\nTo: b@example.com\r\nSubject: s\r\n" + tt.header + "\r\nbody\r\n"
			m, err := Parse([]byte(raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tt.messageID == "" {
				if !strings.HasSuffix(m.MessageID, SynthesisedIDSuffix) {
					t.Errorf("Parse(%q).MessageID = %q, want a synthesised id", tt.name, m.MessageID)
				}
			} else if m.MessageID != tt.messageID {
				t.Errorf("Parse(%q).MessageID = %q, want %q", tt.name, m.MessageID, tt.messageID)
			}
			for _, id := range append(append([]string{m.MessageID}, m.InReplyTo...), m.References...) {
				if !msgIDOK(id) {
					t.Errorf("Parse(%q) kept the id %q (%d octets)", tt.name, truncate(id, 60), len(id))
				}
			}
			if tt.inReplyTo != nil && strings.Join(m.InReplyTo, " ") != strings.Join(tt.inReplyTo, " ") {
				t.Errorf("Parse(%q).InReplyTo = %q, want %q", tt.name, m.InReplyTo, tt.inReplyTo)
			}
			if tt.references != nil && strings.Join(m.References, " ") != strings.Join(tt.references, " ") {
				t.Errorf("Parse(%q).References = %q, want %q", tt.name, m.References, tt.references)
			}
		})
	}
}

func trimBrackets(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, strings.Trim(id, "<>"))
	}
	return out
}

func TestCleanMsgIDs(t *testing.T) {
	in := []string{"a@x", "b\u0085@x", "", " c@x ", "<d@x>", strings.Repeat("e", MaxMsgIDLen+1)}
	got := CleanMsgIDs(in, 10)
	want := []string{"a@x", "c@x", "d@x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CleanMsgIDs(%q) = %q, want %q", in, got, want)
	}
	var many []string
	for i := range 50 {
		many = append(many, fmt.Sprintf("%d@x", i))
	}
	got = CleanMsgIDs(many, 4)
	want = []string{"0@x", "47@x", "48@x", "49@x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CleanMsgIDs(50 ids, 4) = %q, want %q", got, want)
	}
}
