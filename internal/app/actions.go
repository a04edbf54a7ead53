package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"mailsift/internal/app/event"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

// Actions is the inbox actions service: archive, delete, spam, star,
// read state, move, snooze and undo on whole threads. Each action changes
// the store at once (a surface shows the result in its next frame) and is
// queued for the source, which the sync loops replay in the background
// (pushed at once when online, kept in the store while offline); each is
// on the store's undo stack.
type Actions struct {
	st  *store.Store
	now func() time.Time
	// poke wakes the sync loops to replay the queue (nil: none running).
	poke func()
	// snoozed wakes the snooze timer after a new snooze (nil: none).
	snoozed func()
	// accounts names the configured accounts (Folders).
	accounts []string
	// mark and unmark tell triage's learning about a spam verdict the
	// user gave or took back (nil: no learning).
	mark   func(ctx context.Context, threadID int64, spam bool) (string, error)
	unmark func(ctx context.Context, threadID int64) error
	// unbucket takes back what the learning recorded of an undone bucket
	// move (nil: no learning).
	unbucket func(ctx context.Context, o store.UndoneOverride) error
	log      *slog.Logger
}

// Actions returns the actions service over the app's store. poke, when
// not nil, is called after each change so the sync loops replay it.
func (a *App) Actions(poke func()) *Actions {
	x := &Actions{st: a.st, now: a.now, poke: poke, mark: a.RecordSpamMark, unmark: a.UndoSpamMark,
		unbucket: a.unlearnBucket, log: a.log}
	for i := range a.cfg.Accounts {
		x.accounts = append(x.accounts, a.cfg.Accounts[i].Name)
	}
	return x
}

// Every action returns a one-line note for the surface to show
// ("archived 3 threads (u undoes)").

func (x *Actions) done(verb string, r store.ActionResult, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if x.poke != nil && r.Threads > 0 {
		x.poke()
	}
	if r.Threads == 0 {
		return "nothing to " + verb, nil
	}
	return fmt.Sprintf("%s %s (u undoes)", pastTense(verb), plural(r.Threads, "thread")), nil
}

func pastTense(verb string) string {
	switch verb {
	case "archive":
		return "archived"
	case "delete":
		return "moved to Trash:"
	case "mark as spam":
		return "marked as spam:"
	case "mark as not spam":
		return "not spam, back in the inbox:"
	case "star":
		return "starred"
	case "unstar":
		return "unstarred"
	case "mark read":
		return "marked read:"
	case "mark unread":
		return "marked unread:"
	case "snooze":
		return "snoozed"
	}
	return verb + ":"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// roles maps each role of an account's mailboxes to a mailbox name.
func (x *Actions) roles(ctx context.Context, account string) (map[model.Role]string, error) {
	mbs, err := x.st.Mailboxes(ctx, account)
	if err != nil {
		return nil, err
	}
	out := map[model.Role]string{}
	for _, mb := range mbs {
		role := mb.Role
		if role == model.RoleNone && strings.EqualFold(mb.Name, "INBOX") {
			role = model.RoleInbox
		}
		if role != model.RoleNone {
			if _, ok := out[role]; !ok {
				out[role] = mb.Name
			}
		}
	}
	return out, nil
}

// dest returns a store.MoveRequest.Dest that sends the copies for which
// pick is true to the mailbox of role to (or, where the account has none,
// to fallback; "" leaves them).
func (x *Actions) dest(ctx context.Context, to model.Role, fallback string, pick func(role model.Role) bool) func(account, mailbox string, role model.Role) (string, model.Role) {
	cache := map[string]map[model.Role]string{}
	return func(account, mailbox string, role model.Role) (string, model.Role) {
		if !pick(role) {
			return "", ""
		}
		rs, ok := cache[account]
		if !ok {
			rs, _ = x.roles(ctx, account)
			cache[account] = rs
		}
		if name := rs[to]; name != "" {
			return name, to
		}
		if to == model.RoleArchive {
			// Gmail: no \Archive, and archiving is leaving the inbox
			// for All Mail (moving there removes the Inbox label).
			if name := rs[model.RoleAll]; name != "" {
				return name, model.RoleAll
			}
		}
		return fallback, to
	}
}

func is(roles ...model.Role) func(model.Role) bool {
	return func(r model.Role) bool {
		for _, x := range roles {
			if r == x {
				return true
			}
		}
		return false
	}
}

func not(roles ...model.Role) func(model.Role) bool {
	in := is(roles...)
	return func(r model.Role) bool { return !in(r) }
}

// Archive moves the threads out of the inbox into the account's archive
// (\Archive, else Gmail's All Mail, else a folder named Archive, created
// on the server when missing).
func (x *Actions) Archive(ctx context.Context, ids []int64) (string, error) {
	r, err := x.st.MoveThreads(ctx, store.MoveRequest{Kind: "archive", Label: "archive " + plural(len(ids), "thread"),
		Threads: ids, Dest: x.dest(ctx, model.RoleArchive, "Archive", is(model.RoleInbox))})
	return x.done("archive", r, err)
}

// ArchiveSender archives every inbox thread with a message from sender
// (after unsubscribing from its list) and says how many it archived.
func (x *Actions) ArchiveSender(ctx context.Context, sender string) (int, error) {
	ids, err := x.st.InboxThreadsFrom(ctx, sender)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	if _, err := x.Archive(ctx, ids); err != nil {
		return 0, err
	}
	return len(ids), nil
}

// ErrInTrash is returned by Delete when every copy of the threads is in
// the trash already: deleting them for good needs DeleteForever, after
// the user confirmed.
var ErrInTrash = errors.New("already in Trash")

// Delete moves the threads to the account's trash (\Trash, else a folder
// named Trash). Sent mail, drafts and Gmail's All Mail keep their copies.
func (x *Actions) Delete(ctx context.Context, ids []int64) (string, error) {
	r, err := x.st.MoveThreads(ctx, store.MoveRequest{Kind: "delete", Label: "delete " + plural(len(ids), "thread"),
		Threads: ids, Dest: x.dest(ctx, model.RoleTrash, "Trash", not(model.RoleTrash, model.RoleSent, model.RoleDrafts, model.RoleAll))})
	if err == nil && r.Threads == 0 {
		in, terr := x.InTrash(ctx, ids)
		if terr == nil && in {
			return "", fmt.Errorf("delete: %w; delete for good needs a confirmation", ErrInTrash)
		}
	}
	return x.done("delete", r, err)
}

// InTrash reports whether the threads have copies and every one is in a
// trash mailbox.
func (x *Actions) InTrash(ctx context.Context, ids []int64) (bool, error) {
	any := false
	for _, id := range ids {
		locs, err := x.st.ThreadMailboxes(ctx, id)
		if err != nil {
			return false, err
		}
		for _, l := range locs {
			rs, err := x.roles(ctx, l.Account)
			if err != nil {
				return false, err
			}
			if rs[model.RoleTrash] != l.Mailbox {
				return false, nil
			}
			any = true
		}
	}
	return any, nil
}

// DeleteForever deletes the threads' copies in the trash for good, on
// the server too. It cannot be undone: surfaces confirm first.
func (x *Actions) DeleteForever(ctx context.Context, ids []int64) (string, error) {
	r, err := x.st.ExpungeThreads(ctx, ids)
	if err != nil {
		return "", err
	}
	if x.poke != nil && r.Threads > 0 {
		x.poke()
	}
	return fmt.Sprintf("deleted %s for good", plural(r.Threads, "thread")), nil
}

// Spam moves the threads to the junk folder (\Junk, else Junk) with the
// $Junk keyword, or, with spam false, from junk back to the inbox with
// $NotJunk, and records the user's verdict (store.SpamMarks).
func (x *Actions) Spam(ctx context.Context, ids []int64, spam bool) (string, error) {
	req := store.MoveRequest{Threads: ids, Spam: &spam}
	verb := "mark as spam"
	if spam {
		req.Kind, req.SetKeyword, req.ClearKeyword = "spam", "$Junk", "$NotJunk"
		req.Dest = x.dest(ctx, model.RoleJunk, "Junk", not(model.RoleJunk, model.RoleSent, model.RoleDrafts, model.RoleTrash, model.RoleAll))
	} else {
		verb = "mark as not spam"
		req.Kind, req.SetKeyword, req.ClearKeyword = "notspam", "$NotJunk", "$Junk"
		req.Dest = x.dest(ctx, model.RoleInbox, "INBOX", is(model.RoleJunk))
	}
	req.Label = verb + " " + plural(len(ids), "thread")
	r, err := x.st.MoveThreads(ctx, req)
	if err == nil {
		x.learn(ctx, ids, spam)
	}
	return x.done(verb, r, err)
}

// learn records the user's spam verdict on each thread for triage's
// learning. The move already happened; a thread learning cannot record
// (no longer in the store) is logged, not an error of the action.
func (x *Actions) learn(ctx context.Context, ids []int64, spam bool) {
	if x.mark == nil {
		return
	}
	for _, id := range ids {
		if _, err := x.mark(ctx, id, spam); err != nil {
			x.log.Warn("actions: learning from a spam mark", "thread", id, "err", err)
		}
	}
}

// ToggleSpam marks the threads as not spam when the first one has a copy
// in junk (moved back to the inbox) or is in the inbox's Spam & phishing
// section (kept where it is, out of quarantine in its bucket), else as
// spam.
func (x *Actions) ToggleSpam(ctx context.Context, ids []int64) (string, error) {
	if len(ids) == 0 {
		return "nothing selected", nil
	}
	if ts, err := x.st.ThreadSummaryByID(ctx, ids[0]); err == nil && ts.Section == store.SectionQuarantine {
		return x.notSpamInPlace(ctx, ids, ts)
	}
	locs, err := x.st.ThreadMailboxes(ctx, ids[0])
	if err != nil {
		return "", err
	}
	for _, l := range locs {
		rs, err := x.roles(ctx, l.Account)
		if err != nil {
			return "", err
		}
		if rs[model.RoleJunk] == l.Mailbox || strings.EqualFold(l.Mailbox, "Junk") {
			return x.Spam(ctx, ids, false)
		}
	}
	return x.Spam(ctx, ids, true)
}

// notSpamInPlace overrules triage's spam verdict on threads in the
// inbox: $NotJunk on their copies, the verdict recorded, and a bucket
// override (the triage's own bucket) takes them out of quarantine.
func (x *Actions) notSpamInPlace(ctx context.Context, ids []int64, first store.ThreadSummary) (string, error) {
	bucket := contract.CategoryInformational
	if first.Triage != nil && first.Triage.Result.Category != "" {
		bucket = first.Triage.Result.Category
	}
	no := false
	r, err := x.st.MoveThreads(ctx, store.MoveRequest{Kind: "notspam", Label: "mark as not spam " + plural(len(ids), "thread"),
		Threads: ids, InPlace: true, SetKeyword: "$NotJunk", ClearKeyword: "$Junk", Spam: &no, Override: bucket})
	if err != nil {
		return "", err
	}
	x.learn(ctx, ids, false)
	if x.poke != nil && r.Threads > 0 {
		x.poke()
	}
	return fmt.Sprintf("not spam: %s moved to %s (u undoes)", plural(r.Threads, "thread"), bucket), nil
}

// ToggleStar stars the threads (their newest message) unless all of
// them are starred, in which case it unstars them.
func (x *Actions) ToggleStar(ctx context.Context, ids []int64) (string, error) {
	flagged, err := x.st.ThreadsFlagged(ctx, ids)
	if err != nil {
		return "", err
	}
	set := len(flagged) < len(ids)
	verb := "star"
	if !set {
		verb = "unstar"
	}
	r, err := x.st.SetThreadsFlag(ctx, store.FlagRequest{Kind: verb, Label: verb + " " + plural(len(ids), "thread"),
		Threads: ids, Flag: model.FlagFlagged, Set: set, LatestOnly: true})
	return x.done(verb, r, err)
}

// SetRead marks the threads read or unread (every copy, \Seen).
func (x *Actions) SetRead(ctx context.Context, ids []int64, read bool) (string, error) {
	verb := "mark read"
	if !read {
		verb = "mark unread"
	}
	r, err := x.st.SetThreadsFlag(ctx, store.FlagRequest{Kind: verb, Label: verb + " " + plural(len(ids), "thread"),
		Threads: ids, Flag: model.FlagSeen, Set: read})
	return x.done(verb, r, err)
}

// MoveTo moves the threads' inbox copies (or, for threads not in an
// inbox, every copy but sent mail and drafts) to folder, created on the
// server when missing.
func (x *Actions) MoveTo(ctx context.Context, ids []int64, folder string) (string, error) {
	folder = strings.TrimSpace(folder)
	if folder == "" {
		return "", errors.New("move: no folder named; pick one from the list or type its name")
	}
	var inInbox, other []int64
	for _, id := range ids {
		st, err := x.st.ThreadStatus(ctx, id)
		if err != nil {
			return "", err
		}
		if st.Status == store.StatusClosed {
			other = append(other, id)
		} else {
			inInbox = append(inInbox, id)
		}
	}
	to := func(pick func(model.Role) bool) func(string, string, model.Role) (string, model.Role) {
		return func(account, mailbox string, role model.Role) (string, model.Role) {
			if !pick(role) {
				return "", ""
			}
			return folder, model.RoleNone
		}
	}
	var total store.ActionResult
	for _, part := range []struct {
		ids  []int64
		pick func(model.Role) bool
	}{{inInbox, is(model.RoleInbox)}, {other, not(model.RoleSent, model.RoleDrafts, model.RoleAll)}} {
		if len(part.ids) == 0 {
			continue
		}
		r, err := x.st.MoveThreads(ctx, store.MoveRequest{Kind: "move", Label: "move " + plural(len(part.ids), "thread") + " to " + folder,
			Threads: part.ids, Dest: to(part.pick)})
		if err != nil {
			return "", err
		}
		total.Threads += r.Threads
	}
	if total.Threads > 0 {
		_, _ = x.done("move", total, nil)
		return fmt.Sprintf("moved %s to %s (u undoes)", plural(total.Threads, "thread"), folder), nil
	}
	return "nothing to move", nil
}

// Folders lists the mailbox names of every account, sorted, for the
// folder picker.
func (x *Actions) Folders(ctx context.Context) ([]string, error) {
	accounts := make([]string, 0, len(x.accounts))
	accounts = append(accounts, x.accounts...)
	seen := map[string]bool{}
	var out []string
	for _, a := range accounts {
		mbs, err := x.st.Mailboxes(ctx, a)
		if err != nil {
			return nil, err
		}
		for _, mb := range mbs {
			if !seen[mb.Name] {
				seen[mb.Name] = true
				out = append(out, mb.Name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Snooze hides the threads from the inbox until until; they come back
// marked (while running, and at the next start if the time passed).
func (x *Actions) Snooze(ctx context.Context, ids []int64, until time.Time) (string, error) {
	if !until.After(x.now()) {
		return "", fmt.Errorf("snooze: %s is not in the future; pick a later time", until.Format("Mon Jan 2 15:04"))
	}
	r, err := x.st.Snooze(ctx, ids, until, "snooze "+plural(len(ids), "thread"))
	if err != nil {
		return "", err
	}
	if x.snoozed != nil {
		x.snoozed()
	}
	return fmt.Sprintf("snoozed %s until %s (u undoes)", plural(r.Threads, "thread"), until.Format("Mon Jan 2 15:04")), nil
}

// Undo reverts the newest action not undone yet (also one made before a
// restart), on the server too.
func (x *Actions) Undo(ctx context.Context) (string, error) {
	u, err := x.st.Undo(ctx)
	if err != nil {
		return "", err
	}
	if u.Label == "" {
		return "nothing to undo", nil
	}
	if x.poke != nil {
		x.poke()
	}
	if x.snoozed != nil && u.Kind == "snooze" {
		x.snoozed()
	}
	if x.unmark != nil {
		for _, id := range u.Unmarked {
			if err := x.unmark(ctx, id); err != nil {
				x.log.Warn("actions: forgetting an undone spam mark", "thread", id, "err", err)
			}
		}
	}
	if x.unbucket != nil {
		for _, o := range u.Overrides {
			if err := x.unbucket(ctx, o); err != nil {
				x.log.Warn("actions: forgetting an undone bucket move", "thread", o.Thread, "err", err)
			}
		}
	}
	note := "undone: " + u.Label
	if u.Missing > 0 {
		note += fmt.Sprintf(" (%d messages had moved since and were left)", u.Missing)
	}
	return note, nil
}

// SpamMarks returns the user's spam verdicts after id (0: all), for
// triage to learn from.
func (x *Actions) SpamMarks(ctx context.Context, after int64) ([]store.SpamMark, error) {
	return x.st.SpamMarks(ctx, after)
}

// OlderThreads returns the threads of an inbox section whose newest
// message is older than before ("archive everything in Low priority
// older than N days").
func (x *Actions) OlderThreads(ctx context.Context, sec store.Section, before time.Time) ([]int64, error) {
	return x.st.OlderThreads(ctx, sec, before)
}

// SectionThreads returns every thread of an inbox section (select all).
func (x *Actions) SectionThreads(ctx context.Context, sec store.Section) ([]int64, error) {
	if sec == store.SectionWaiting {
		var ids []int64
		for off := 0; ; off += 500 {
			rows, err := x.st.ListThreads(ctx, sec, off, 500)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if len(rows) < 500 {
				return ids, nil
			}
		}
	}
	return x.st.SectionThreadIDs(ctx, sec)
}

// ReturnedThreads lists the threads back from a snooze not opened since.
func (x *Actions) ReturnedThreads(ctx context.Context) (map[int64]bool, error) {
	return x.st.ReturnedThreads(ctx)
}

// SeenReturned clears a thread's "back from snooze" mark.
func (x *Actions) SeenReturned(ctx context.Context, id int64) error {
	return x.st.SeenReturned(ctx, id)
}

// Queued counts the changes (moves, flags) waiting for the servers.
func (x *Actions) Queued(ctx context.Context) (int, error) { return x.st.QueuedChanges(ctx) }

// ThreadStatus returns a thread's status (open, closed or snoozed).
func (x *Actions) ThreadStatus(ctx context.Context, id int64) (store.ThreadStatus, error) {
	return x.st.ThreadStatus(ctx, id)
}

// waitingEvery is how often the "Waiting for reply" section is
// recomputed at most apart (a sync pass recomputes it too).
const waitingEvery = time.Hour

// startActions returns the session's actions service and runs its timer:
// snoozed threads wake when their time comes (and at once for those whose
// time passed while mailsift was not running), and "Waiting for reply" is
// recomputed after each sync pass and every hour.
func (s *Session) startActions(ctx context.Context) *Actions {
	x := s.app.Actions(s.Mail.push)
	x.snoozed = s.pokeTimers
	s.goRun(func() { s.runTimers(ctx, s.timers) })
	return x
}

// pokeTimers wakes the timer of startActions (a snooze was added or
// undone, a sync pass ended).
func (s *Session) pokeTimers() {
	select {
	case s.timers <- struct{}{}:
	default:
	}
}

// runTimers wakes snoozed threads and refreshes "Waiting for reply"
// until ctx ends, publishing ThreadsChanged when either changed.
func (s *Session) runTimers(ctx context.Context, wake <-chan struct{}) {
	a := s.app
	for ctx.Err() == nil {
		changed := false
		woke, err := a.st.WakeSnoozed(ctx)
		if err != nil && ctx.Err() == nil {
			s.send(ctx, event.Failure{Err: err})
		}
		changed = len(woke) > 0
		if n, err := a.refreshWaiting(ctx); err != nil && ctx.Err() == nil {
			s.send(ctx, event.Failure{Err: err})
		} else if n != s.waiting {
			s.waiting, changed = n, true
		}
		if changed {
			s.send(ctx, event.ThreadsChanged{IDs: woke})
		}
		next := waitingEvery
		if at, ok, err := a.st.NextWake(ctx); err == nil && ok {
			next = min(next, max(at.Sub(a.now()), 0)+time.Second)
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-wake:
			t.Stop()
		}
	}
}

// refreshWaiting recomputes "Waiting for reply" from the config and
// returns its size.
func (a *App) refreshWaiting(ctx context.Context) (int, error) {
	days := a.cfg.FollowUp.Days
	var skip []string
	for i := range a.cfg.Accounts {
		if !a.cfg.Accounts[i].WantsFollowUp() {
			skip = append(skip, a.cfg.Accounts[i].Name)
		}
	}
	cutoff := a.now().Add(-time.Duration(days) * 24 * time.Hour)
	if days <= 0 {
		cutoff = time.Unix(0, 0) // off: nothing is that old
	}
	if err := a.st.RefreshWaiting(ctx, cutoff, skip); err != nil {
		return 0, err
	}
	cm, err := a.st.SectionCounts(ctx)
	if err != nil {
		return 0, err
	}
	return cm[store.SectionWaiting], nil
}

// snoozeRecheck is how long RunSnoozeWaker waits at most between two
// looks at the store: a snooze another process made (the TUI) is not
// announced to it.
const snoozeRecheck = 5 * time.Minute

// SnoozeWakerOptions configure RunSnoozeWaker. The zero value is the
// real clock.
type SnoozeWakerOptions struct {
	// After returns a channel that receives once d has passed; nil means
	// time.After. Tests pass one driven by their own clock.
	After func(d time.Duration) <-chan time.Time
	// Woke, when not nil, is called with the threads each pass woke.
	Woke func(ids []int64)
}

// RunSnoozeWaker wakes snoozed threads when their time comes, as a
// Session's timer does, for a surface that runs without one (`mailsift
// mcp`): at once for those whose time passed while nothing ran, then at
// each next wake time (store.NextWake), looking again at least every
// few minutes for snoozes made by another process. It returns when ctx
// ends; a store error is logged and tried again at the next look.
func (a *App) RunSnoozeWaker(ctx context.Context, opt SnoozeWakerOptions) {
	after := opt.After
	if after == nil {
		after = time.After
	}
	for ctx.Err() == nil {
		woke, err := a.st.WakeSnoozed(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Warn("app: waking snoozed threads", "err", err)
		case len(woke) > 0 && opt.Woke != nil:
			opt.Woke(woke)
		}
		next := snoozeRecheck
		if at, ok, err := a.st.NextWake(ctx); err == nil && ok {
			// Snooze times are whole seconds: a second more lands past it.
			next = min(next, max(at.Sub(a.now()), 0)+time.Second)
		}
		select {
		case <-ctx.Done():
			return
		case <-after(next):
		}
	}
}
