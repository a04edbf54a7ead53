package store

import (
	"context"
	"fmt"
)

// This file holds the agent surfaces' paged read by thread status (MCP
// list_threads status open / closed / snoozed), cut by key like the
// other agent pages (agent_pages.go).

// notSnoozed and isSnoozed test a thread (the threads row) against its
// thread_status row, as ThreadStatus reads it.
const (
	isSnoozed  = `EXISTS (SELECT 1 FROM thread_status ts WHERE ts.thread_id = threads.id AND ts.status = 'snoozed')`
	notSnoozed = `NOT ` + isSnoozed
)

// ThreadStatusPage returns the threads of one status newest first (by
// latest message, then id), as ThreadStatus reports it: StatusSnoozed
// (snoozed, wherever its messages are), StatusOpen (not snoozed, a
// message in an inbox) or StatusClosed (not snoozed, no message in an
// inbox: archived, deleted, spam). A snoozed thread's Section is
// SectionSnoozed until it wakes, so f.Section selects no snoozed thread.
func (s *Store) ThreadStatusPage(ctx context.Context, status string, f ThreadPageFilter) ([]ThreadSummary, error) {
	switch status {
	case StatusSnoozed:
		return s.threadPage(ctx, f, []string{isSnoozed}, nil)
	case StatusOpen:
		return s.threadPage(ctx, f, []string{"in_inbox = 1", notSnoozed}, nil)
	case StatusClosed:
		return s.threadPage(ctx, f, []string{"in_inbox = 0", notSnoozed}, nil)
	}
	return nil, fmt.Errorf("store: thread page: no status %q (want %s, %s or %s)", status, StatusOpen, StatusClosed, StatusSnoozed)
}
