package ui

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzParseCommand: no command line makes the `:` parser panic; an
// accepted one names an operation and no negative row, and an error
// message (shown in the status line) carries no control characters.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"list from:bob unread", "open 3", "reply 2", "replyall 1", "reply all 4", "read 4", "unread 4",
		"open latest from bob", `list subject:"weekly report" limit:5`, "list to carol", "open", "frob",
		`list "unclosed`, "list limit:-1", "open 99999999999999999999", "list from:\x1b[31mx", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseCommand(line)
		if err != nil {
			if strings.IndexFunc(err.Error(), unicode.IsControl) >= 0 {
				t.Fatalf("ParseCommand(%q) error %q carries a control character", line, err)
			}
			return
		}
		if c.Index < 0 {
			t.Fatalf("ParseCommand(%q) = %+v: negative row", line, c)
		}
		switch c.Op {
		case OpList, OpOpen, OpReply, OpReplyAll, OpRead, OpUnread:
		default:
			t.Fatalf("ParseCommand(%q) = %+v: no operation", line, c)
		}
	})
}
