package imap

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/emersion/go-imap/v2"

	"mailsift/model"
)

// flagsFromIMAP translates IMAP flags into model.Flags. \Recent is
// dropped (it is session state, not message state); keywords are sorted.
func flagsFromIMAP(fl []imap.Flag) model.Flags {
	var f model.Flags
	for _, x := range fl {
		switch strings.ToLower(string(x)) {
		case `\seen`:
			f.Seen = true
		case `\answered`:
			f.Answered = true
		case `\flagged`:
			f.Flagged = true
		case `\deleted`:
			f.Deleted = true
		case `\draft`:
			f.Draft = true
		case `\recent`:
		default:
			f.Keywords = append(f.Keywords, string(x))
		}
	}
	sort.Strings(f.Keywords)
	f.Keywords = compactStrings(f.Keywords)
	return f
}

// flagsToIMAP translates model flags into IMAP flags (for APPEND).
func flagsToIMAP(fl []model.Flag) []imap.Flag {
	out := make([]imap.Flag, 0, len(fl))
	for _, f := range fl {
		out = append(out, imap.Flag(f))
	}
	return out
}

func compactStrings(s []string) []string {
	if len(s) < 2 {
		return s
	}
	out := s[:1]
	for _, x := range s[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }

// flagsEqual compares two flag states.
func flagsEqual(a, b model.Flags) bool {
	if a.Seen != b.Seen || a.Answered != b.Answered || a.Flagged != b.Flagged ||
		a.Deleted != b.Deleted || a.Draft != b.Draft || len(a.Keywords) != len(b.Keywords) {
		return false
	}
	for i := range a.Keywords {
		if a.Keywords[i] != b.Keywords[i] {
			return false
		}
	}
	return true
}

// roleFromList derives a mailbox role from its special-use attributes
// (RFC 6154), falling back to common folder names.
func roleFromList(name string, delim rune, attrs []imap.MailboxAttr) model.Role {
	if strings.EqualFold(name, "INBOX") {
		return model.RoleInbox
	}
	for _, a := range attrs {
		switch strings.ToLower(string(a)) {
		case `\sent`:
			return model.RoleSent
		case `\drafts`:
			return model.RoleDrafts
		case `\junk`:
			return model.RoleJunk
		case `\trash`:
			return model.RoleTrash
		case `\archive`:
			return model.RoleArchive
		case `\all`:
			return model.RoleAll
		}
	}
	leaf := name
	if delim != 0 {
		if i := strings.LastIndex(name, string(delim)); i >= 0 {
			leaf = name[i+1:]
		}
	}
	switch strings.ToLower(leaf) {
	case "sent", "sent items", "sent messages", "sent mail", "gesendet", "gesendete objekte", "envoyés", "enviados":
		return model.RoleSent
	case "drafts", "draft", "entwürfe", "brouillons", "borradores":
		return model.RoleDrafts
	case "junk", "spam", "junk e-mail", "junk email", "bulk mail", "unerwünscht":
		return model.RoleJunk
	case "trash", "deleted items", "deleted messages", "bin", "papierkorb", "corbeille", "papelera":
		return model.RoleTrash
	case "archive", "archives", "archiv":
		return model.RoleArchive
	case "all mail":
		return model.RoleAll
	}
	return model.RoleNone
}

// attachmentsFromStructure lists the attachments (and inline non-text
// parts) described by a BODYSTRUCTURE, so envelope-only messages can
// show an attachment marker before the body is fetched.
func attachmentsFromStructure(bs imap.BodyStructure) []model.Attachment {
	if bs == nil {
		return nil
	}
	var out []model.Attachment
	bs.Walk(func(p []int, part imap.BodyStructure) bool {
		sp, ok := part.(*imap.BodyStructureSinglePart)
		if !ok {
			return true
		}
		disp := ""
		if d := sp.Disposition(); d != nil {
			disp = strings.ToLower(d.Value)
		}
		name := sp.Filename()
		mt := sp.MediaType()
		isText := strings.HasPrefix(mt, "text/")
		if disp != "attachment" && name == "" && (isText || strings.HasPrefix(mt, "multipart/")) {
			return true
		}
		if disp == "" && name == "" && isText {
			return true
		}
		fn := ""
		if name != "" {
			fn = path.Base(strings.ReplaceAll(name, `\`, "/"))
		}
		out = append(out, model.Attachment{
			Filename:    fn,
			ContentType: mt,
			Size:        int64(sp.Size),
			ContentID:   strings.Trim(sp.ID, "<>"),
			Inline:      disp == "inline",
			Part:        partPath(p),
		})
		return true
	})
	return out
}

func partPath(p []int) string {
	s := make([]string, len(p))
	for i, n := range p {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}

func loc(account, mailbox string, uid imap.UID) model.Location {
	return model.Location{Account: account, Mailbox: mailbox, UID: uint32(uid), Key: strconv.FormatUint(uint64(uid), 10)}
}

// hasAttr reports whether attrs holds a (matched case-insensitively).
func hasAttr(attrs []imap.MailboxAttr, a imap.MailboxAttr) bool {
	for _, x := range attrs {
		if strings.EqualFold(string(x), string(a)) {
			return true
		}
	}
	return false
}
