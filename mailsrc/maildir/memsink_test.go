package maildir

import "mailsift/mailsrc/internal/memsink"

func newMemSink() *memsink.Sink { return memsink.New() }
