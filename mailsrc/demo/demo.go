// Package demo is the embedded demo mailbox behind `demo://` accounts: a
// few dozen realistic threads for the principal Alex Morgan, with dates
// shifted at load time so the mailbox always looks fresh.
package demo

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/mail"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"mailsift/mailsrc"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

//go:embed mail/*.eml
var files embed.FS

// Mailbox names used by the demo source.
const (
	Inbox = "INBOX"
	Sent  = "Sent"
)

// unreadThreads is how many of the newest threads are left unread.
const unreadThreads = 12

// newestAge is how long before now the newest demo message is dated.
const newestAge = 10 * time.Minute

// Principal is the demo mailbox's owner.
func Principal() model.Address {
	return model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
}

// Raw is one demo message as raw RFC 5322 bytes.
type Raw struct {
	// Key is the stable key: the file name without extension.
	Key string
	// Mailbox is "INBOX", or "Sent" for mail from the principal.
	Mailbox string
	// Data is the raw message with its dates shifted.
	Data []byte
	// Seen is true for older mail and mail from the principal; in the
	// newest threads, mail after the principal's last reply is unread.
	Seen bool
}

// thread returns the thread key of a file key: its "NN" prefix.
func thread(key string) string {
	if i := strings.IndexByte(key, '-'); i > 0 {
		return key[:i]
	}
	return key
}

var (
	rfcDate = regexp.MustCompile(`\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}`)
	icsDate = regexp.MustCompile(`(?m)^((?:DTSTART|DTEND|DTSTAMP)(?:;[^:\r\n]*)?:)(\d{8}T\d{6}Z)`)
)

const (
	rfcLayout = "Mon, 2 Jan 2006 15:04:05 -0700"
	icsLayout = "20060102T150405Z"
)

// shift moves every RFC 5322 date (Date, Received, quote attributions,
// forwarded headers) and every iCalendar DTSTART/DTEND/DTSTAMP by d.
func shift(data []byte, d time.Duration) []byte {
	data = rfcDate.ReplaceAllFunc(data, func(m []byte) []byte {
		t, err := time.Parse(rfcLayout, string(m))
		if err != nil {
			return m
		}
		return []byte(t.Add(d).Format(rfcLayout))
	})
	return icsDate.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := icsDate.FindSubmatch(m)
		t, err := time.Parse(icsLayout, string(sub[2]))
		if err != nil {
			return m
		}
		return append(append([]byte(nil), sub[1]...), t.Add(d).UTC().Format(icsLayout)...)
	})
}

type loaded struct {
	key  string
	data []byte
	date time.Time
	from string
}

// Messages returns the demo mail as raw RFC 5322 messages with dates
// shifted so the newest message is about ten minutes before now and the
// others keep their offsets, oldest first.
func Messages(now time.Time) ([]Raw, error) {
	names, err := fs.Glob(files, "mail/*.eml")
	if err != nil {
		return nil, fmt.Errorf("demo: list messages: %w", err)
	}
	var all []loaded
	var newest time.Time
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("demo: read %s: %w", name, err)
		}
		msg, err := mail.ReadMessage(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("demo: parse %s: %w", name, err)
		}
		date, err := msg.Header.Date()
		if err != nil {
			return nil, fmt.Errorf("demo: date of %s: %w", name, err)
		}
		from, err := msg.Header.AddressList("From")
		if err != nil || len(from) == 0 {
			// Hostile demo mail may have an undecodable sender; it is not
			// from the principal either way.
			from = []*mail.Address{{}}
		}
		if date.After(newest) {
			newest = date
		}
		all = append(all, loaded{
			key:  strings.TrimSuffix(path.Base(name), ".eml"),
			data: data,
			date: date,
			from: strings.ToLower(from[0].Address),
		})
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("demo: no embedded messages")
	}
	delta := now.Add(-newestAge).Sub(newest).Truncate(time.Minute)

	// The newest threads (by their latest message) stay unread.
	latest := map[string]time.Time{}
	for _, m := range all {
		if t := thread(m.key); m.date.After(latest[t]) {
			latest[t] = m.date
		}
	}
	threads := make([]string, 0, len(latest))
	for t := range latest {
		threads = append(threads, t)
	}
	sort.Slice(threads, func(i, j int) bool { return latest[threads[i]].After(latest[threads[j]]) })
	unread := map[string]bool{}
	for i := 0; i < len(threads) && i < unreadThreads; i++ {
		unread[threads[i]] = true
	}

	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].date.Equal(all[j].date) {
			return all[i].date.Before(all[j].date)
		}
		return all[i].key < all[j].key
	})
	// Inside an unread thread, mail older than the principal's last reply
	// was read before replying.
	principal := strings.ToLower(Principal().Email)
	replied := map[string]time.Time{}
	for _, m := range all {
		if t := thread(m.key); m.from == principal && m.date.After(replied[t]) {
			replied[t] = m.date
		}
	}
	out := make([]Raw, 0, len(all))
	for _, m := range all {
		t := thread(m.key)
		r := Raw{Key: m.key, Mailbox: Inbox, Data: shift(m.data, delta), Seen: !unread[t] || !m.date.After(replied[t])}
		if m.from == principal {
			r.Mailbox, r.Seen = Sent, true
		}
		out = append(out, r)
	}
	return out, nil
}

// Source is the demo mailbox as a mailsrc.Source. It is read-only in the
// sense that flag changes live only in the local store: PushFlags accepts
// and drops them, so reading and archiving work in the demo.
type Source struct {
	account string
	now     func() time.Time
}

var _ mailsrc.Source = (*Source)(nil)

// New returns the demo Source for account; now (time.Now if nil) anchors
// the message dates.
func New(account string, now func() time.Time) *Source {
	if now == nil {
		now = time.Now
	}
	return &Source{account: account, now: now}
}

// Sync puts every demo message into sink the first time; later syncs find
// the messages already stored (via sink.Locations) and add nothing, so
// flags changed in the store are kept.
func (s *Source) Sync(ctx context.Context, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	if progress == nil {
		progress = func(mailsrc.Progress) {}
	}
	raws, err := Messages(s.now())
	if err != nil {
		return err
	}
	byBox := map[string][]Raw{}
	for _, r := range raws {
		byBox[r.Mailbox] = append(byBox[r.Mailbox], r)
	}
	moved, err := movedKeys(ctx, sink, s.account)
	if err != nil {
		return err
	}
	for _, box := range []struct {
		name string
		role model.Role
	}{{Inbox, model.RoleInbox}, {Sent, model.RoleSent}} {
		if err := ctx.Err(); err != nil {
			return err
		}
		progress(mailsrc.Progress{Account: s.account, Mailbox: box.name, Phase: "list"})
		if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: box.name, Role: box.role}); err != nil {
			return fmt.Errorf("demo: record mailbox %q: %w", box.name, err)
		}
		have, err := sink.Locations(ctx, s.account, box.name)
		if err != nil {
			return fmt.Errorf("demo: list stored locations of %q: %w", box.name, err)
		}
		var msgs []*model.Message
		todo := byBox[box.name]
		for i, r := range todo {
			loc := model.Location{Account: s.account, Mailbox: box.name, Key: r.Key}
			if _, ok := have[loc]; ok || moved[r.Key] {
				continue
			}
			m, err := rfc822.Parse(r.Data)
			if err != nil {
				return fmt.Errorf("demo: parse %s: %w", r.Key, err)
			}
			m.Loc = loc
			m.Raw = r.Data
			m.HasBody = true
			m.Flags = model.Flags{Seen: r.Seen}
			msgs = append(msgs, m)
			progress(mailsrc.Progress{Account: s.account, Mailbox: box.name, Phase: "bodies", Done: i + 1, Total: len(todo)})
		}
		if len(msgs) > 0 {
			if err := sink.PutMessages(ctx, msgs); err != nil {
				return fmt.Errorf("demo: store %d messages in %q: %w", len(msgs), box.name, err)
			}
		}
		progress(mailsrc.Progress{Account: s.account, Mailbox: box.name, Phase: "done", Done: len(todo), Total: len(todo)})
	}
	return nil
}

// movedKeys returns the keys of demo messages the user moved out of the
// demo's own mailboxes (archived, deleted, moved: inbox actions keep a
// demo message's key in its new mailbox), so a later sync does not put
// them back.
func movedKeys(ctx context.Context, sink mailsrc.Sink, account string) (map[string]bool, error) {
	f, ok := sink.(mailsrc.MailboxForgetter)
	if !ok {
		return nil, nil
	}
	boxes, err := f.Mailboxes(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("demo: list stored mailboxes: %w", err)
	}
	keys := map[string]bool{}
	for _, mb := range boxes {
		if mb.Name == Inbox || mb.Name == Sent {
			continue
		}
		locs, err := sink.Locations(ctx, account, mb.Name)
		if err != nil {
			return nil, fmt.Errorf("demo: list stored locations of %q: %w", mb.Name, err)
		}
		for l := range locs {
			keys[l.Key] = true
		}
	}
	return keys, nil
}

// PushFlags accepts flag changes and returns nil: demo flags live only in
// the local store, there is no server to write them back to.
func (s *Source) PushFlags(ctx context.Context, changes []model.FlagChange) error {
	return nil
}

// Watch blocks until ctx ends; the demo mailbox never changes.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	<-ctx.Done()
	return nil
}

// Close releases nothing and returns nil.
func (s *Source) Close() error { return nil }
