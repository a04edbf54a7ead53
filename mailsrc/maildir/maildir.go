// Package maildir is the Maildir mail source: a tree of maildirs on the
// local disk, in Maildir++ layout (root is INBOX, subfolders ".Sent",
// ".Archive.2024") or mbsync's plain layout (root/INBOX, root/Sent,
// root/Archive/2024), or both.
package maildir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"mailsift/mailsrc"
	"mailsift/mailsrc/internal/pipeline"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// Options tunes a Source. A nil *Options means defaults.
type Options struct {
	// Logger receives warnings about unreadable files; nil discards.
	Logger *slog.Logger
	// PollInterval is how often Watch compares directory times (default 3s).
	PollInterval time.Duration
	// Workers is the number of parsing goroutines (default GOMAXPROCS).
	Workers int
	// BatchSize is the number of messages per Sink.PutMessages call
	// (default 500).
	BatchSize int
	// MaxBatchBytes also ends a batch once its messages' raw bytes reach
	// it (default 32 MB), so a folder of large messages does not hold
	// hundreds of megabytes per batch.
	MaxBatchBytes int
}

// SyncStats counts what the last Sync did.
type SyncStats struct {
	// Parsed is the number of messages read and stored.
	Parsed int
	// Degraded is the number of stored messages with decoding Problems.
	Degraded int
	// Failed is the number of files that could not be read or parsed;
	// they are logged and skipped, never abort the sync.
	Failed int
	// FlagsChanged and Removed count flag updates and vanished files.
	FlagsChanged int
	Removed      int
	// Moved counts files moved from new/ to cur/.
	Moved int
}

// Source reads one account's maildir tree. It implements mailsrc.Source.
type Source struct {
	account string
	root    string
	opts    Options
	log     *slog.Logger

	// ticks, if set, drives Watch instead of a PollInterval ticker
	// (tests).
	ticks <-chan time.Time

	mu    sync.Mutex
	stats SyncStats
}

var _ mailsrc.Source = (*Source)(nil)

// New returns a Source for the maildir tree at root, recorded under
// account. opts may be nil.
func New(account, root string, opts *Options) *Source {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 3 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = 32 << 20
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Source{account: account, root: root, opts: o, log: log}
}

// Stats returns the counts of the last completed (or failed) Sync.
func (s *Source) Stats() SyncStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// folder is one maildir found under the root.
type folder struct {
	name string // mailbox name, "/" separated
	dir  string
	role model.Role
}

// isMaildir reports whether dir has a cur/ or a new/ subdirectory. A
// maildir has both (and tmp/), but copies made with tools that drop
// empty directories (git, some backups) keep only the one holding mail:
// reading it needs only that one.
func isMaildir(dir string) bool {
	for _, sub := range []string{"cur", "new"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// Mailboxes lists the maildirs under the root with their mailbox names
// and guessed roles, sorted by name.
func (s *Source) Mailboxes() ([]model.Mailbox, error) {
	fs, err := s.folders()
	if err != nil {
		return nil, err
	}
	out := make([]model.Mailbox, len(fs))
	for i, f := range fs {
		out[i] = model.Mailbox{Account: s.account, Name: f.name, Role: f.role}
	}
	return out, nil
}

func (s *Source) folders() ([]folder, error) {
	fi, err := os.Stat(s.root)
	if err != nil {
		return nil, fmt.Errorf("maildir: open root %q: %w (check the maildir:// path in the account URL)", s.root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("maildir: root %q is not a directory", s.root)
	}
	seen := map[string]bool{}
	var out []folder
	add := func(name, dir string) {
		if seen[name] {
			return
		}
		seen[name] = true
		out = append(out, folder{name: name, dir: dir, role: GuessRole(name)})
	}
	if isMaildir(s.root) {
		add("INBOX", s.root)
	}
	var walk func(dir, prefix string, depth int) error
	walk = func(dir, prefix string, depth int) error {
		if depth > 12 {
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("maildir: list %q: %w", dir, err)
		}
		for _, e := range entries {
			n := e.Name()
			if n == "cur" || n == "new" || n == "tmp" {
				continue
			}
			full := filepath.Join(dir, n)
			if !e.IsDir() {
				// Symlinked folders are followed.
				if e.Type()&fs.ModeSymlink == 0 {
					continue
				}
				if fi, err := os.Stat(full); err != nil || !fi.IsDir() {
					continue
				}
			}
			if strings.HasPrefix(n, ".") {
				// Maildir++ subfolder: only directly under a maildir root.
				if depth == 0 && len(n) > 1 && n != ".." && isMaildir(full) {
					add(strings.ReplaceAll(n[1:], ".", "/"), full)
				}
				continue
			}
			name := prefix + n
			if isMaildir(full) {
				if strings.EqualFold(name, "INBOX") {
					name = "INBOX"
				}
				add(name, full)
			}
			if err := walk(full, name+"/", depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(s.root, "", 0); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("maildir: no maildir under %q: a maildir is a directory with cur/ and new/ subdirectories (check the maildir:// path in the account URL)", s.root)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].name == "INBOX" || out[j].name == "INBOX" {
			return out[i].name == "INBOX" && out[j].name != "INBOX"
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// GuessRole guesses a mailbox's special use from its name (last path
// component, case-insensitive, common English names and Gmail's).
func GuessRole(name string) model.Role {
	last := name
	if i := strings.LastIndexAny(name, "/."); i >= 0 {
		last = name[i+1:]
	}
	switch strings.ToLower(strings.TrimSpace(last)) {
	case "inbox":
		return model.RoleInbox
	case "sent", "sent items", "sent mail", "sent messages", "sent-mail", "outbox sent":
		return model.RoleSent
	case "drafts", "draft":
		return model.RoleDrafts
	case "junk", "spam", "junk e-mail", "junk email", "bulk mail", "bulk":
		return model.RoleJunk
	case "trash", "deleted items", "deleted messages", "bin", "deleted":
		return model.RoleTrash
	case "archive", "archives":
		return model.RoleArchive
	case "all mail", "all":
		return model.RoleAll
	}
	// "Archive/2024": a folder below an archive folder is archive too.
	if first, _, ok := strings.Cut(name, "/"); ok && strings.EqualFold(first, "archive") {
		return model.RoleArchive
	}
	return model.RoleNone
}

// splitName splits a maildir file name into its unique key and its
// info flags ("" when the file has no ":2," info yet).
func splitName(name string) (key, info string, hasInfo bool) {
	if i := strings.LastIndex(name, ":2,"); i >= 0 {
		return name[:i], name[i+3:], true
	}
	// Some tools on file systems without ':' use '!' or ';'.
	if i := strings.LastIndex(name, "!2,"); i >= 0 {
		return name[:i], name[i+3:], true
	}
	return name, "", false
}

// parseFlags maps maildir info letters to flags. Lower-case letters are
// Dovecot keyword indices and are kept only in the file name.
func parseFlags(info string) model.Flags {
	var f model.Flags
	for _, c := range info {
		switch c {
		case 'S':
			f.Seen = true
		case 'R':
			f.Answered = true
		case 'F':
			f.Flagged = true
		case 'T':
			f.Deleted = true
		case 'D':
			f.Draft = true
		}
	}
	return f
}

// flagLetter maps a system flag to its maildir info letter.
func flagLetter(f model.Flag) (byte, bool) {
	switch f {
	case model.FlagSeen:
		return 'S', true
	case model.FlagAnswered:
		return 'R', true
	case model.FlagFlagged:
		return 'F', true
	case model.FlagDeleted:
		return 'T', true
	case model.FlagDraft:
		return 'D', true
	}
	return 0, false
}

// entry is one message file of a maildir.
type entry struct {
	mailbox string
	key     string
	path    string
	info    string
	flags   model.Flags
}

// scan lists a maildir's messages, moving new/ files to cur/ first.
func (s *Source) scan(dir string, moved *int) (map[string]entry, error) {
	newDir, curDir := filepath.Join(dir, "new"), filepath.Join(dir, "cur")
	news, err := os.ReadDir(newDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("maildir: list %q: %w", newDir, err)
	}
	out := make(map[string]entry, 256)
	for _, e := range news {
		n := e.Name()
		if strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		key, info, hasInfo := splitName(n)
		target := key + ":2," + info
		if !hasInfo {
			target = n + ":2,"
		}
		from, to := filepath.Join(newDir, n), filepath.Join(curDir, target)
		if err := os.Rename(from, to); err != nil {
			// Another MUA may have moved it already; read it where it is.
			s.log.Warn("maildir: cannot move new mail to cur", "file", from, "err", err)
			if _, statErr := os.Stat(from); statErr == nil {
				out[key] = entry{key: key, path: from, info: info, flags: parseFlags(info)}
			}
			continue
		}
		*moved++
	}
	curs, err := os.ReadDir(curDir)
	if err != nil {
		return nil, fmt.Errorf("maildir: list %q: %w", curDir, err)
	}
	for _, e := range curs {
		n := e.Name()
		if strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		key, info, _ := splitName(n)
		out[key] = entry{key: key, path: filepath.Join(curDir, n), info: info, flags: parseFlags(info)}
	}
	return out, nil
}

// Sync mirrors every maildir under the root into sink.
func (s *Source) Sync(ctx context.Context, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	progress = mailsrc.SerialProgress(progress)
	var st SyncStats
	defer func() {
		s.mu.Lock()
		s.stats = st
		s.mu.Unlock()
	}()
	progress(mailsrc.Progress{Account: s.account, Phase: "list"})
	folders, err := s.folders()
	if err != nil {
		return err
	}
	// Every folder's new files go through one parse-and-store pipeline,
	// so the store never waits for a folder's first batch to be parsed
	// (nor the parsers for its last one to be stored); flag changes and
	// removals follow, so a message moved between folders is found at its
	// new location before its old one goes and keeps its row and triage.
	plans := make([]folderPlan, 0, len(folders))
	var todo []entry
	for _, f := range folders {
		if err := ctx.Err(); err != nil {
			return err
		}
		pl, err := s.planFolder(ctx, sink, f, &st)
		if err != nil {
			return err
		}
		plans = append(plans, pl)
		todo = append(todo, pl.todo...)
	}
	if len(todo) > 0 {
		if err := s.importFiles(ctx, sink, todo, progress, &st); err != nil {
			return err
		}
	}
	for _, pl := range plans {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.applyPlan(ctx, sink, pl, progress, &st); err != nil {
			return err
		}
	}
	// Folders removed from disk are forgotten; folders() failed above if
	// any directory could not be listed, so the enumeration is complete.
	names := make(map[string]bool, len(folders))
	for _, f := range folders {
		names[f.name] = true
	}
	gone, err := mailsrc.ForgetGone(ctx, sink, s.account, len(folders), func(name string) bool { return names[name] })
	for _, name := range gone {
		s.log.Info("maildir folder removed, forgotten", "mailbox", name)
	}
	if err != nil {
		return fmt.Errorf("maildir: %w", err)
	}
	// Messages that lost their last file and were not found in another
	// folder (a move) go now.
	if err := mailsrc.CollectOrphans(ctx, sink); err != nil {
		return fmt.Errorf("maildir: %w", err)
	}
	progress(mailsrc.Progress{Account: s.account, Phase: "done", Done: st.Parsed, Total: st.Parsed})
	return nil
}

// folderPlan is what one folder's sync has to do: files to import,
// flags changed on disk, files gone.
type folderPlan struct {
	f       folder
	todo    []entry
	changed map[model.Location]model.Flags
	gone    []model.Location
}

// planFolder records a folder, scans it and compares it with the store.
func (s *Source) planFolder(ctx context.Context, sink mailsrc.Sink, f folder, st *SyncStats) (folderPlan, error) {
	pl := folderPlan{f: f, changed: map[model.Location]model.Flags{}}
	if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: f.name, Role: f.role}); err != nil {
		return pl, fmt.Errorf("maildir: record mailbox %q: %w", f.name, err)
	}
	files, err := s.scan(f.dir, &st.Moved)
	if err != nil {
		return pl, err
	}
	known, err := sink.Locations(ctx, s.account, f.name)
	if err != nil {
		return pl, fmt.Errorf("maildir: stored locations of %q: %w", f.name, err)
	}
	for key, e := range files {
		loc := model.Location{Account: s.account, Mailbox: f.name, Key: key}
		old, ok := known[loc]
		if !ok {
			e.mailbox = f.name
			pl.todo = append(pl.todo, e)
			continue
		}
		if !sameFlags(old, e.flags) {
			nf := e.flags
			nf.Keywords = old.Keywords
			pl.changed[loc] = nf
		}
	}
	for loc := range known {
		if _, ok := files[loc.Key]; !ok {
			pl.gone = append(pl.gone, loc)
		}
	}
	// Oldest first (maildir names start with the delivery time).
	sort.Slice(pl.todo, func(i, j int) bool { return pl.todo[i].key < pl.todo[j].key })
	return pl, nil
}

// applyPlan stores a folder's flag changes and removals.
func (s *Source) applyPlan(ctx context.Context, sink mailsrc.Sink, pl folderPlan, progress func(mailsrc.Progress), st *SyncStats) error {
	f := pl.f
	if len(pl.changed) > 0 {
		progress(mailsrc.Progress{Account: s.account, Mailbox: f.name, Phase: "flags", Total: len(pl.changed)})
		if err := sink.SetFlags(ctx, pl.changed); err != nil {
			return fmt.Errorf("maildir: store flags of %q: %w", f.name, err)
		}
		st.FlagsChanged += len(pl.changed)
	}
	if len(pl.gone) > 0 {
		progress(mailsrc.Progress{Account: s.account, Mailbox: f.name, Phase: "expunge", Total: len(pl.gone)})
		if err := sink.RemoveLocations(ctx, pl.gone); err != nil {
			return fmt.Errorf("maildir: remove vanished messages of %q: %w", f.name, err)
		}
		st.Removed += len(pl.gone)
	}
	return nil
}

// sameFlags compares the flags a maildir file name can carry.
func sameFlags(a, b model.Flags) bool {
	return a.Seen == b.Seen && a.Answered == b.Answered && a.Flagged == b.Flagged &&
		a.Deleted == b.Deleted && a.Draft == b.Draft
}

type parsed struct {
	msg *model.Message
	err error
	e   entry
}

// firstBatch is the size of an import's first batch: small, so the
// store starts writing while the rest is parsed.
const firstBatch = 64

// importFiles reads and parses files in a bounded worker pool (in the
// order they finish) and puts them into the sink in batches of BatchSize
// messages or MaxBatchBytes, stored while the workers parse the next.
func (s *Source) importFiles(ctx context.Context, sink mailsrc.Sink, todo []entry, progress func(mailsrc.Progress), st *SyncStats) error {
	// Progress stays per mailbox (Done of Total in that mailbox), as the
	// other sources report it, though a batch may span two folders.
	total := map[string]int{}
	for _, e := range todo {
		total[e.mailbox]++
	}
	w := pipeline.Start(ctx, pipeline.Config{
		// One batch is stored while the next is parsed; it ends at
		// BatchSize messages (the first at firstBatch) or MaxBatchBytes.
		Limits: pipeline.Limits{
			FirstBatch:     firstBatch,
			MinBatch:       s.opts.BatchSize,
			MaxQueued:      s.opts.BatchSize,
			MaxQueuedBytes: s.opts.MaxBatchBytes,
		},
		Store: sink.PutMessages,
		Bytes: func(m *model.Message) int { return int(m.Size) },
		StoreError: func(msgs []*model.Message, err error) error {
			return fmt.Errorf("maildir: store messages of %q: %w", msgs[len(msgs)-1].Loc.Mailbox, err)
		},
		Progress: progress,
		Account:  s.account,
	})
	read := map[string]int{}    // files read per mailbox, stored or not
	counted := map[string]int{} // of them, counted in a Put so far
	err := pipeline.Stream(ctx, s.opts.Workers, todo, func(e entry) parsed {
		msg, err := s.readMessage(e)
		return parsed{msg: msg, err: err, e: e}
	}, func(r parsed) error {
		mb := r.e.mailbox
		read[mb]++
		if r.err != nil {
			st.Failed++
			s.log.Warn("maildir: skipping unreadable message", "mailbox", mb, "file", r.e.path, "err", r.err)
			return nil
		}
		st.Parsed++
		if len(r.msg.Problems) > 0 {
			st.Degraded++
		}
		n := read[mb] - counted[mb]
		counted[mb] = read[mb]
		return w.Put([]*model.Message{r.msg}, pipeline.Part{Mailbox: mb, Phase: "bodies", N: n, Total: total[mb]})
	})
	if werr := w.Stop(); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}

// readMessage reads and parses one file. A file renamed meanwhile (flags
// changed by another client) is looked up again by key.
func (s *Source) readMessage(e entry) (*model.Message, error) {
	raw, err := os.ReadFile(e.path)
	if errors.Is(err, fs.ErrNotExist) {
		if p, info, ok := findKey(filepath.Dir(filepath.Dir(e.path)), e.key); ok {
			e.path, e.info, e.flags = p, info, parseFlags(info)
			raw, err = os.ReadFile(p)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", e.path, err)
	}
	m, err := rfc822.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", e.path, err)
	}
	m.Loc = model.Location{Account: s.account, Mailbox: e.mailbox, Key: e.key}
	m.Flags = e.flags
	// The file is the raw copy: the store need not keep another (ReadRaw
	// reads it when an attachment is saved). Half the import's writes.
	m.Raw = nil
	return m, nil
}

// Compile-time check: the Maildir keeps the raw messages.
var _ mailsrc.RawReader = (*Source)(nil)

// ReadRaw reads the message at loc from its file (found by its unique
// name whatever its flags are now).
func (s *Source) ReadRaw(ctx context.Context, loc model.Location) ([]byte, error) {
	if loc.Account != s.account {
		return nil, fmt.Errorf("maildir: read %s/%s: not this account's (%s)", loc.Account, loc.Mailbox, s.account)
	}
	folders, err := s.folders()
	if err != nil {
		return nil, err
	}
	for _, f := range folders {
		if f.name != loc.Mailbox {
			continue
		}
		p, _, ok := findKey(f.dir, loc.Key)
		if !ok {
			break
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("maildir: read %s: %w", p, err)
		}
		return raw, nil
	}
	return nil, fmt.Errorf("maildir: message %s is no longer in folder %q (moved or deleted since the last sync; sync and try again)", loc.Key, loc.Mailbox)
}

// findKey looks for the file with the given key in a maildir's cur/ and new/.
func findKey(dir, key string) (path, info string, ok bool) {
	for _, sub := range []string{"cur", "new"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		for _, e := range entries {
			k, inf, _ := splitName(e.Name())
			if k == key {
				return filepath.Join(dir, sub, e.Name()), inf, true
			}
		}
	}
	return "", "", false
}

// PushFlags writes flag changes back by renaming each file's info part
// atomically (rename(2) within cur/). Keywords other than the five
// system flags have no maildir letter and are skipped.
func (s *Source) PushFlags(ctx context.Context, changes []model.FlagChange) error {
	if len(changes) == 0 {
		return nil
	}
	folders, err := s.folders()
	if err != nil {
		return err
	}
	dirs := make(map[string]string, len(folders))
	for _, f := range folders {
		dirs[f.name] = f.dir
	}
	// Index each touched mailbox once.
	type fileRef struct{ path, info string }
	index := map[string]map[string]fileRef{}
	lookup := func(mailbox, key string) (fileRef, error) {
		dir, ok := dirs[mailbox]
		if !ok {
			return fileRef{}, fmt.Errorf("maildir: push flags: no mailbox %q under %s", mailbox, s.root)
		}
		idx, ok := index[mailbox]
		if !ok {
			idx = map[string]fileRef{}
			for _, sub := range []string{"new", "cur"} {
				entries, err := os.ReadDir(filepath.Join(dir, sub))
				if err != nil {
					continue
				}
				for _, e := range entries {
					k, inf, _ := splitName(e.Name())
					idx[k] = fileRef{path: filepath.Join(dir, sub, e.Name()), info: inf}
				}
			}
			index[mailbox] = idx
		}
		ref, ok := idx[key]
		if !ok {
			return fileRef{}, fmt.Errorf("maildir: push flags: message %q not found in %q (deleted by another client?)", key, mailbox)
		}
		return ref, nil
	}
	var errs []error
	for _, c := range changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		letter, ok := flagLetter(c.Flag)
		if !ok {
			s.log.Debug("maildir: keyword has no maildir flag letter, kept local", "flag", c.Flag)
			continue
		}
		ref, err := lookup(c.Loc.Mailbox, c.Loc.Key)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		info := []byte(ref.info)
		has := slices.Contains(info, letter)
		switch {
		case c.Set && !has:
			info = append(info, letter)
		case !c.Set && has:
			info = slices.DeleteFunc(info, func(b byte) bool { return b == letter })
		}
		slices.Sort(info)
		info = slices.Compact(info)
		dir := filepath.Dir(filepath.Dir(ref.path))
		newPath := filepath.Join(dir, "cur", c.Loc.Key+":2,"+string(info))
		if newPath != ref.path {
			if err := os.Rename(ref.path, newPath); err != nil {
				errs = append(errs, fmt.Errorf("maildir: push flags: rename %s: %w", ref.path, err))
				continue
			}
		}
		index[c.Loc.Mailbox][c.Loc.Key] = fileRef{path: newPath, info: string(info)}
	}
	return errors.Join(errs...)
}

// Watch polls the maildirs' directory times every PollInterval and calls
// changed when one of them (or the set of folders) changes. It returns
// nil when ctx ends.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	if s.ticks != nil {
		return mailsrc.PollTicks(ctx, s.ticks, s.signature, changed)
	}
	return mailsrc.PollWatch(ctx, s.opts.PollInterval, s.signature, changed)
}

// signature summarises the folder list and the mtimes of new/ and cur/.
func (s *Source) signature() string {
	folders, err := s.folders()
	if err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	for _, f := range folders {
		sb.WriteString(f.name)
		for _, sub := range []string{"new", "cur"} {
			if fi, err := os.Stat(filepath.Join(f.dir, sub)); err == nil {
				fmt.Fprintf(&sb, "|%d", fi.ModTime().UnixNano())
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Close releases nothing; a maildir source holds no open resources.
func (s *Source) Close() error { return nil }
