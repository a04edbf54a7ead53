package app

import (
	"mailsift/drafts"
	"mailsift/mailsrc/imap"
)

// The IMAP source is what the drafts engine appends Sent and Drafts copies
// to, looks unknown sends up in, and replaces old server drafts through.
var (
	_ drafts.Mailbox        = (*imap.Source)(nil)
	_ drafts.MessageDeleter = (*imap.Source)(nil)
)
