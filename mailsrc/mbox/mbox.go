// Package mbox is the read-only mbox mail source: one mbox file (mailbox
// "INBOX") or a directory of mbox files (one mailbox per file name). It
// reads mboxo and mboxrd ("From " separator lines, ">From " quoting) with
// LF or CRLF line ends, streaming so large files are never held in memory.
//
// Flags come from the Status and X-Status headers mail clients write.
// PushFlags returns mailsrc.ErrReadOnly: callers keep flag changes local
// (in the store) and must not treat the error as a failure to retry.
package mbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"mailsift/mailsrc"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// maxMessage bounds one message; larger ones are skipped with a warning
// (a missing separator would otherwise pull a whole file into memory).
const maxMessage = 256 << 20

// batchSize is the number of messages per Sink.PutMessages call.
const batchSize = 500

// Source reads mbox files. It implements mailsrc.Source.
type Source struct {
	account string
	path    string
	// Logger receives warnings; nil discards. Set before calling Sync.
	Logger *slog.Logger
	// PollInterval is how often Watch checks file sizes and times
	// (default 5s). Set before calling Watch.
	PollInterval time.Duration
}

var _ mailsrc.Source = (*Source)(nil)

// New returns a Source for the mbox file or directory of mbox files at path.
func New(account, path string) *Source {
	return &Source{account: account, path: path}
}

func (s *Source) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

type file struct {
	mailbox string
	path    string
}

// files lists the mbox files with their mailbox names.
func (s *Source) files() ([]file, error) {
	fi, err := os.Stat(s.path)
	if err != nil {
		return nil, fmt.Errorf("mbox: open %q: %w (check the mbox:// path in the account URL)", s.path, err)
	}
	if !fi.IsDir() {
		return []file{{mailbox: "INBOX", path: s.path}}, nil
	}
	entries, err := os.ReadDir(s.path)
	if err != nil {
		return nil, fmt.Errorf("mbox: list %q: %w", s.path, err)
	}
	var out []file
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".msf") || strings.HasSuffix(n, ".lock") {
			continue
		}
		out = append(out, file{mailbox: n, path: filepath.Join(s.path, n)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].mailbox < out[j].mailbox })
	return out, nil
}

// Message is one message read from an mbox file.
type Message struct {
	// Key is stable as long as the message and its position do not change.
	Key string
	// Raw is the message with the separator line removed and ">From "
	// quoting undone.
	Raw []byte
}

// Reader splits an mbox stream into messages.
type Reader struct {
	br      *bufio.Reader
	ordinal int
	pending []byte // a separator line already read
	started bool
	err     error
}

// NewReader returns a Reader over an mbox stream.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

func isSeparator(line []byte) bool {
	return bytes.HasPrefix(line, []byte("From "))
}

// isQuotedFrom reports lines matching ^>+From .
func isQuotedFrom(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(line[i:], []byte("From "))
}

func isBlank(line []byte) bool {
	return len(line) == 0 || string(line) == "\n" || string(line) == "\r\n"
}

// Next returns the next message, or io.EOF after the last one. A message
// longer than 256 MiB is skipped and reported as an error; Next can be
// called again after it.
func (r *Reader) Next() (*Message, error) {
	if r.err != nil {
		return nil, r.err
	}
	// Find the first separator (skipping any garbage before it).
	if !r.started {
		for {
			line, err := r.br.ReadBytes('\n')
			if isSeparator(line) {
				r.pending = line
				r.started = true
				break
			}
			if err != nil {
				r.err = io.EOF
				if err != io.EOF {
					r.err = fmt.Errorf("mbox: read: %w", err)
				}
				return nil, r.err
			}
		}
	}
	if r.pending == nil {
		r.err = io.EOF
		return nil, io.EOF
	}
	r.pending = nil
	var buf bytes.Buffer
	prevBlank := true
	tooBig := false
	for {
		line, err := r.br.ReadBytes('\n')
		if len(line) > 0 {
			if prevBlank && isSeparator(line) {
				r.pending = line
				break
			}
			prevBlank = isBlank(line)
			if isQuotedFrom(line) {
				line = line[1:]
			}
			if buf.Len()+len(line) > maxMessage {
				tooBig = true
			} else if !tooBig {
				buf.Write(line)
			}
		}
		if err != nil {
			if err != io.EOF {
				r.err = fmt.Errorf("mbox: read: %w", err)
				return nil, r.err
			}
			break
		}
	}
	r.ordinal++
	if tooBig {
		return nil, fmt.Errorf("mbox: message %d is larger than %d MiB, skipped", r.ordinal, maxMessage>>20)
	}
	raw := buf.Bytes()
	// The blank line before the next separator belongs to the mbox format.
	if bytes.HasSuffix(raw, []byte("\r\n\r\n")) {
		raw = raw[:len(raw)-2]
	} else if bytes.HasSuffix(raw, []byte("\n\n")) {
		raw = raw[:len(raw)-1]
	}
	prefix := raw[:min(len(raw), 4096)]
	sum := sha256.Sum256(prefix)
	return &Message{Key: strconv.Itoa(r.ordinal) + "-" + hex.EncodeToString(sum[:8]), Raw: raw}, nil
}

// statusFlags reads the Status and X-Status headers (mutt, Thunderbird,
// Pine): R read, A answered, F flagged, D deleted, T draft.
func statusFlags(raw []byte) model.Flags {
	var f model.Flags
	hdr := raw
	if i := bytes.Index(raw, []byte("\n\n")); i >= 0 {
		hdr = raw[:i]
	}
	if i := bytes.Index(hdr, []byte("\r\n\r\n")); i >= 0 {
		hdr = hdr[:i]
	}
	for _, line := range bytes.Split(hdr, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch strings.ToLower(string(bytes.TrimSpace(k))) {
		case "status":
			f.Seen = f.Seen || bytes.ContainsRune(v, 'R')
		case "x-status":
			f.Answered = f.Answered || bytes.ContainsRune(v, 'A')
			f.Flagged = f.Flagged || bytes.ContainsRune(v, 'F')
			f.Deleted = f.Deleted || bytes.ContainsRune(v, 'D')
			f.Draft = f.Draft || bytes.ContainsRune(v, 'T')
		}
	}
	return f
}

func sameFlags(a, b model.Flags) bool {
	return a.Seen == b.Seen && a.Answered == b.Answered && a.Flagged == b.Flagged &&
		a.Deleted == b.Deleted && a.Draft == b.Draft
}

// Sync mirrors every mbox file into sink. Unparseable messages are
// logged and skipped.
func (s *Source) Sync(ctx context.Context, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	if progress == nil {
		progress = func(mailsrc.Progress) {}
	}
	progress(mailsrc.Progress{Account: s.account, Phase: "list"})
	files, err := s.files()
	if err != nil {
		return err
	}
	total := 0
	for _, f := range files {
		n, err := s.syncFile(ctx, sink, f, progress)
		if err != nil {
			return err
		}
		total += n
	}
	// Files removed from the directory are forgotten (a missing single
	// file failed above instead).
	names := make(map[string]bool, len(files))
	for _, f := range files {
		names[f.mailbox] = true
	}
	gone, err := mailsrc.ForgetGone(ctx, sink, s.account, len(files), func(name string) bool { return names[name] })
	for _, name := range gone {
		s.log().Info("mbox file removed, forgotten", "mailbox", name)
	}
	if err != nil {
		return fmt.Errorf("mbox: %w", err)
	}
	if err := mailsrc.CollectOrphans(ctx, sink); err != nil {
		return fmt.Errorf("mbox: %w", err)
	}
	progress(mailsrc.Progress{Account: s.account, Phase: "done", Done: total, Total: total})
	return nil
}

func (s *Source) syncFile(ctx context.Context, sink mailsrc.Sink, f file, progress func(mailsrc.Progress)) (int, error) {
	if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: f.mailbox, Role: guessRole(f.mailbox)}); err != nil {
		return 0, fmt.Errorf("mbox: record mailbox %q: %w", f.mailbox, err)
	}
	known, err := sink.Locations(ctx, s.account, f.mailbox)
	if err != nil {
		return 0, fmt.Errorf("mbox: stored locations of %q: %w", f.mailbox, err)
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return 0, fmt.Errorf("mbox: open %q: %w", f.path, err)
	}
	defer fh.Close()

	seen := make(map[string]bool, len(known))
	changed := map[model.Location]model.Flags{}
	var batch []*model.Message
	n := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := sink.PutMessages(ctx, batch); err != nil {
			return fmt.Errorf("mbox: store messages of %q: %w", f.mailbox, err)
		}
		batch = batch[:0]
		progress(mailsrc.Progress{Account: s.account, Mailbox: f.mailbox, Phase: "bodies", Done: n})
		return nil
	}
	rd := NewReader(fh)
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		msg, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if rd.err != nil {
				return n, fmt.Errorf("mbox: %q: %w", f.path, err)
			}
			s.log().Warn("mbox: skipping message", "file", f.path, "err", err)
			continue
		}
		loc := model.Location{Account: s.account, Mailbox: f.mailbox, Key: msg.Key}
		seen[msg.Key] = true
		flags := statusFlags(msg.Raw)
		if old, ok := known[loc]; ok {
			if !sameFlags(old, flags) {
				flags.Keywords = old.Keywords
				changed[loc] = flags
			}
			continue
		}
		m, err := rfc822.Parse(msg.Raw)
		if err != nil {
			s.log().Warn("mbox: skipping unparseable message", "file", f.path, "key", msg.Key, "err", err)
			continue
		}
		m.Loc, m.Flags = loc, flags
		batch = append(batch, m)
		n++
		if len(batch) >= batchSize {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := flush(); err != nil {
		return n, err
	}
	if len(changed) > 0 {
		if err := sink.SetFlags(ctx, changed); err != nil {
			return n, fmt.Errorf("mbox: store flags of %q: %w", f.mailbox, err)
		}
	}
	var gone []model.Location
	for loc := range known {
		if !seen[loc.Key] {
			gone = append(gone, loc)
		}
	}
	if len(gone) > 0 {
		if err := sink.RemoveLocations(ctx, gone); err != nil {
			return n, fmt.Errorf("mbox: remove vanished messages of %q: %w", f.mailbox, err)
		}
	}
	return n, nil
}

func guessRole(name string) model.Role {
	switch strings.ToLower(strings.TrimSuffix(name, ".mbox")) {
	case "inbox":
		return model.RoleInbox
	case "sent", "sent items", "sent mail", "sent-mail":
		return model.RoleSent
	case "drafts", "postponed":
		return model.RoleDrafts
	case "junk", "spam":
		return model.RoleJunk
	case "trash", "deleted items":
		return model.RoleTrash
	case "archive", "archives":
		return model.RoleArchive
	}
	return model.RoleNone
}

// PushFlags returns mailsrc.ErrReadOnly: mbox files are never written.
// Flag changes stay local; callers treat this error as "local only".
func (s *Source) PushFlags(ctx context.Context, changes []model.FlagChange) error {
	if len(changes) == 0 {
		return nil
	}
	return fmt.Errorf("mbox: %w: flag changes stay local", mailsrc.ErrReadOnly)
}

// Watch polls the files' sizes and modification times every
// PollInterval and calls changed when they differ. It returns nil when
// ctx ends.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	interval := s.PollInterval
	if interval <= 0 {
		interval = 5 * time.Second
	}
	return mailsrc.PollWatch(ctx, interval, s.signature, changed)
}

func (s *Source) signature() string {
	files, err := s.files()
	if err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	for _, f := range files {
		if fi, err := os.Stat(f.path); err == nil {
			fmt.Fprintf(&sb, "%s|%d|%d\n", f.mailbox, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return sb.String()
}

// Close releases nothing; files are opened only during Sync.
func (s *Source) Close() error { return nil }
