package model

import (
	"strings"
	"time"
)

// Address is one mailbox address with an optional display name.
type Address struct {
	Name  string
	Email string
}

// String renders the address as `Name <email>` or just the email.
func (a Address) String() string {
	if a.Name == "" {
		return a.Email
	}
	return a.Name + " <" + a.Email + ">"
}

// Flag is an IMAP system flag or keyword, e.g. `\Seen`.
type Flag string

// The IMAP system flags mailsift tracks.
const (
	FlagSeen     Flag = `\Seen`
	FlagAnswered Flag = `\Answered`
	FlagFlagged  Flag = `\Flagged`
	FlagDeleted  Flag = `\Deleted`
	FlagDraft    Flag = `\Draft`
)

// Flags is the flag state of one message location.
type Flags struct {
	Seen     bool
	Answered bool
	Flagged  bool
	Deleted  bool
	Draft    bool
	// Keywords holds any other flags ($Junk, $Forwarded, ...), sorted.
	Keywords []string
}

// Role is the special use of a mailbox (RFC 6154), or RoleNone.
type Role string

// Mailbox roles.
const (
	RoleNone    Role = ""
	RoleInbox   Role = "inbox"
	RoleSent    Role = "sent"
	RoleDrafts  Role = "drafts"
	RoleJunk    Role = "junk"
	RoleTrash   Role = "trash"
	RoleArchive Role = "archive"
	RoleAll     Role = "all"
)

// MailboxState is the synchronisation state of one mailbox on its server.
// For sources without UIDs (Maildir, mbox, demo) it stays zero.
type MailboxState struct {
	UIDValidity   uint32
	UIDNext       uint32
	HighestModSeq uint64
}

// Mailbox is one folder of an account.
type Mailbox struct {
	Account string
	Name    string
	Role    Role
	State   MailboxState
}

// Location says where one copy of a message lives: account, mailbox and a
// key unique inside that mailbox. For IMAP, UID is set and Key is the
// decimal UID; for Maildir, Key is the file's unique name (without the
// `:2,` info); for mbox and demo, Key is a stable per-message key.
type Location struct {
	Account string
	Mailbox string
	UID     uint32
	Key     string
}

// FlagChange sets or clears one flag on one message location: a change
// made in mailsift, queued in the store until the source applies it.
type FlagChange struct {
	Loc  Location
	Flag Flag
	Set  bool
}

// Attachment describes one attachment (or inline non-text part) of a message.
type Attachment struct {
	Filename    string
	ContentType string
	Size        int64
	ContentID   string
	Inline      bool
	// Part is the MIME part path (e.g. "2.1") to fetch the content again.
	Part string
}

// Message is one parsed mail message, translated out of library types at
// the mailsrc boundary.
type Message struct {
	Loc   Location
	Flags Flags

	// MessageID is the Message-ID without angle brackets. When the mail
	// has none, the parser synthesises one from the content hash.
	MessageID  string
	InReplyTo  []string
	References []string

	From    Address
	Sender  Address
	ReplyTo []Address
	To      []Address
	Cc      []Address
	Bcc     []Address

	Date    time.Time
	Subject string

	// Text is the plain-text body; HTMLText is text derived from the HTML
	// body (links kept as `text <url>`). Either may be empty.
	Text     string
	HTMLText string

	// Headers keeps the headers triage and the UI need beyond the
	// envelope (Authentication-Results, Received-SPF, Return-Path, List-Id,
	// List-Unsubscribe, Precedence, Auto-Submitted, X-Spam-*, ...),
	// keyed by canonical header name.
	Headers map[string][]string

	Attachments []Attachment
	Size        int64
	// ContentHash is the hex SHA-256 of the raw message; with MessageID it
	// forms the dedupe key of the same message in two folders.
	ContentHash string
	// HasBody is false while only the envelope has been fetched.
	HasBody bool
	// Raw is the whole raw message when the source fetched it (nil for
	// envelope-only fetches); the store keeps it for attachments and re-parsing.
	Raw []byte
	// Problems lists decoding problems that degraded but did not stop the
	// parse (unknown charset, broken base64, ...), for display and reports.
	Problems []string
}

// Body returns the best plain-text body: Text if present, else HTMLText.
func (m *Message) Body() string {
	if strings.TrimSpace(m.Text) != "" {
		return m.Text
	}
	return m.HTMLText
}

// Header returns the first value of the named header kept in Headers.
func (m *Message) Header(name string) string {
	if v := m.Headers[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Thread is one conversation: its messages oldest first.
type Thread struct {
	ID       int64
	Subject  string
	Messages []*Message
}
