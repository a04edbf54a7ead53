package store_test

import (
	"mailsift/mailsrc"
	"mailsift/store"
)

// The store is the sink every mail source writes to, with the optional
// capabilities sources look for by type assertion.
var (
	_ mailsrc.Sink             = (*store.Store)(nil)
	_ mailsrc.MailboxForgetter = (*store.Store)(nil)
	_ mailsrc.BodyLinker       = (*store.Store)(nil)
	_ mailsrc.OrphanCollector  = (*store.Store)(nil)
)
