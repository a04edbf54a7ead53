package demo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"mailsift/mailsrc"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

var testNow = time.Date(2027, 3, 4, 15, 30, 0, 0, time.UTC)

func decoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: func(charset string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(charset) {
		case "iso-8859-1", "latin1":
			return charmap.ISO8859_1.NewDecoder().Reader(in), nil
		}
		return nil, fmt.Errorf("unknown charset %q", charset)
	}}
}

type parsed struct {
	raw     Raw
	msg     *mail.Message
	subject string
	date    time.Time
}

func load(t *testing.T) []parsed {
	t.Helper()
	raws, err := Messages(testNow)
	if err != nil {
		t.Fatalf("Messages: %v", err)
	}
	dec := decoder()
	var out []parsed
	for _, r := range raws {
		m, err := mail.ReadMessage(bytes.NewReader(r.Data))
		if err != nil {
			t.Fatalf("%s: net/mail: %v", r.Key, err)
		}
		for _, h := range []string{"Message-Id", "Date", "From", "To", "Subject"} {
			if m.Header.Get(h) == "" {
				t.Errorf("%s: missing %s header", r.Key, h)
			}
		}
		d, err := m.Header.Date()
		if err != nil {
			t.Errorf("%s: bad Date: %v", r.Key, err)
		}
		subj, err := dec.DecodeHeader(m.Header.Get("Subject"))
		if err != nil {
			t.Errorf("%s: subject does not decode: %v", r.Key, err)
		}
		out = append(out, parsed{raw: r, msg: m, subject: subj, date: d})
	}
	return out
}

var subjPrefix = regexp.MustCompile(`(?i)^\s*((re|fwd?|aw|wg)\s*:\s*)+`)

// threads groups messages by Message-ID/In-Reply-To/References and by
// normalised subject, independently of the file naming.
func threads(ps []parsed) map[string][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		parent[x] = x
		return x
	}
	union := func(a, b string) { parent[find(a)] = find(b) }
	for _, p := range ps {
		id := "key:" + p.raw.Key
		union(id, "mid:"+strings.Trim(p.msg.Header.Get("Message-Id"), "<>"))
		for _, ref := range strings.Fields(p.msg.Header.Get("References") + " " + p.msg.Header.Get("In-Reply-To")) {
			union(id, "mid:"+strings.Trim(ref, "<>"))
		}
		union(id, "subj:"+strings.ToLower(strings.TrimSpace(subjPrefix.ReplaceAllString(p.subject, ""))))
	}
	out := map[string][]string{}
	for _, p := range ps {
		r := find("key:" + p.raw.Key)
		out[r] = append(out[r], p.raw.Key)
	}
	return out
}

func TestCounts(t *testing.T) {
	ps := load(t)
	if len(ps) < 75 {
		t.Errorf("got %d messages, want at least 75", len(ps))
	}
	th := threads(ps)
	if len(th) < 32 {
		t.Errorf("got %d threads, want at least 32", len(th))
	}
	longest := 0
	for _, keys := range th {
		longest = max(longest, len(keys))
	}
	if longest < 10 {
		t.Errorf("longest thread has %d messages, want at least 10", longest)
	}
	keys := map[string]bool{}
	for _, p := range ps {
		if keys[p.raw.Key] {
			t.Errorf("duplicate key %s", p.raw.Key)
		}
		keys[p.raw.Key] = true
	}
}

func TestDatesShifted(t *testing.T) {
	ps := load(t)
	var newest time.Time
	for i, p := range ps {
		if p.date.After(testNow) {
			t.Errorf("%s: date %v is after now %v", p.raw.Key, p.date, testNow)
		}
		if p.date.After(newest) {
			newest = p.date
		}
		if i > 0 && p.date.Before(ps[i-1].date) {
			t.Errorf("%s: not oldest first (%v before %v)", p.raw.Key, p.date, ps[i-1].date)
		}
	}
	if age := testNow.Sub(newest); age < 0 || age > time.Hour {
		t.Errorf("newest message is %v old, want within the last hour", age)
	}
	// A different now shifts every message by the same amount.
	later, err := Messages(testNow.Add(72 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range later {
		m, err := mail.ReadMessage(bytes.NewReader(r.Data))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := m.Header.Date()
		if got := d.Sub(ps[i].date); got != 72*time.Hour {
			t.Errorf("%s: shifted by %v, want 72h", r.Key, got)
		}
	}
}

func TestCalendarShiftedWithMessage(t *testing.T) {
	orig, err := files.ReadFile("mail/09-capacity-meeting-4.eml")
	if err != nil {
		t.Fatal(err)
	}
	offset := func(data []byte) time.Duration {
		t.Helper()
		m, err := mail.ReadMessage(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := m.Header.Date()
		sub := regexp.MustCompile(`DTSTART:(\d{8}T\d{6}Z)`).FindSubmatch(data)
		if sub == nil {
			t.Fatal("no DTSTART in invitation")
		}
		start, err := time.Parse(icsLayout, string(sub[1]))
		if err != nil {
			t.Fatal(err)
		}
		return start.Sub(d)
	}
	want := offset(orig)
	for _, r := range load(t) {
		if r.raw.Key == "09-capacity-meeting-4" {
			if got := offset(r.raw.Data); got != want {
				t.Errorf("meeting starts %v after the invitation, want %v", got, want)
			}
			return
		}
	}
	t.Fatal("invitation 09-capacity-meeting-4 not found")
}

func TestMailboxesAndSeen(t *testing.T) {
	ps := load(t)
	sent, unread := 0, 0
	for _, p := range ps {
		from, err := mail.ParseAddress(p.msg.Header.Get("From"))
		fromPrincipal := err == nil && from.Address == Principal().Email
		if fromPrincipal != (p.raw.Mailbox == Sent) {
			t.Errorf("%s: mailbox %q but from principal = %v", p.raw.Key, p.raw.Mailbox, fromPrincipal)
		}
		if p.raw.Mailbox == Sent {
			sent++
			if !p.raw.Seen {
				t.Errorf("%s: sent mail should be seen", p.raw.Key)
			}
		} else if !p.raw.Seen {
			unread++
		}
	}
	if sent < 10 {
		t.Errorf("%d sent messages, want at least 10", sent)
	}
	if unread == 0 || unread == len(ps)-sent {
		t.Errorf("%d unread inbox messages: want some but not all", unread)
	}
	// The newest inbox message is unread; the oldest is seen.
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].raw.Mailbox == Inbox {
			if ps[i].raw.Seen {
				t.Errorf("newest inbox message %s is seen", ps[i].raw.Key)
			}
			break
		}
	}
	if ps[0].raw.Mailbox == Inbox && !ps[0].raw.Seen {
		t.Errorf("oldest message %s is unread", ps[0].raw.Key)
	}
}

// TestLongThreadFromPrincipal checks the 10+ thread has quoting,
// signatures and at least two messages from the principal.
func TestLongThreadFromPrincipal(t *testing.T) {
	ps := load(t)
	byKey := map[string]parsed{}
	for _, p := range ps {
		byKey[p.raw.Key] = p
	}
	for _, keys := range threads(ps) {
		if len(keys) < 10 {
			continue
		}
		fromAlex, quoted, signed := 0, 0, 0
		for _, k := range keys {
			p := byKey[k]
			body, _ := io.ReadAll(p.msg.Body)
			if strings.Contains(p.msg.Header.Get("From"), Principal().Email) {
				fromAlex++
			}
			if regexp.MustCompile(`(?m)^On .+ wrote:\n> `).Match(body) {
				quoted++
			}
			if bytes.Contains(body, []byte("\n-- \n")) {
				signed++
			}
		}
		if fromAlex < 2 || quoted < 9 || signed < 9 {
			t.Errorf("long thread: %d from principal, %d quoted, %d signed", fromAlex, quoted, signed)
		}
		return
	}
	t.Fatal("no thread with 10+ messages")
}

func TestFeatures(t *testing.T) {
	ps := load(t)
	has := func(name string, ok func(p parsed, raw string) bool) {
		t.Helper()
		for _, p := range ps {
			if ok(p, string(p.raw.Data)) {
				return
			}
		}
		t.Errorf("no demo message has %s", name)
	}
	ct := func(p parsed) string { return p.msg.Header.Get("Content-Type") }
	has("List-Id and List-Post", func(p parsed, _ string) bool {
		return p.msg.Header.Get("List-Id") != "" && p.msg.Header.Get("List-Post") != ""
	})
	has("List-Unsubscribe with one-click and Precedence bulk", func(p parsed, _ string) bool {
		return p.msg.Header.Get("List-Unsubscribe") != "" && p.msg.Header.Get("List-Unsubscribe-Post") != "" &&
			p.msg.Header.Get("Precedence") == "bulk"
	})
	has("HTML-only body with style, script and tracking pixel", func(p parsed, raw string) bool {
		return strings.HasPrefix(ct(p), "text/html") && strings.Contains(raw, "<style>") &&
			strings.Contains(raw, "<script>") && strings.Contains(raw, `width="1" height="1"`)
	})
	has("multipart/alternative", func(p parsed, _ string) bool { return strings.HasPrefix(ct(p), "multipart/alternative") })
	has("base64 PDF attachment in multipart/mixed", func(p parsed, raw string) bool {
		return strings.HasPrefix(ct(p), "multipart/mixed") && strings.Contains(raw, "application/pdf") &&
			strings.Contains(raw, "Content-Disposition: attachment") && strings.Contains(raw, "Content-Transfer-Encoding: base64")
	})
	has("ISO-8859-1 quoted-printable body and encoded subject and name", func(p parsed, raw string) bool {
		return strings.Contains(ct(p), "ISO-8859-1") && p.msg.Header.Get("Content-Transfer-Encoding") == "quoted-printable" &&
			strings.Contains(p.subject, "réponse") && strings.Contains(p.msg.Header.Get("From"), "=?ISO-8859-1?Q?")
	})
	has("UTF-8 B encoded-word with Japanese", func(p parsed, _ string) bool {
		return strings.Contains(p.msg.Header.Get("Subject"), "=?UTF-8?B?") && strings.Contains(p.subject, "東京")
	})
	has("UTF-8 emoji subject", func(p parsed, _ string) bool { return strings.Contains(p.subject, "🎁") })
	has("text/calendar METHOD:REQUEST", func(p parsed, raw string) bool {
		return strings.Contains(raw, "Content-Type: text/calendar") && strings.Contains(raw, "METHOD:REQUEST")
	})
	has("Reply-To mismatch with CEO display name and failing SPF", func(p parsed, _ string) bool {
		from, err1 := mail.ParseAddress(p.msg.Header.Get("From"))
		rt, err2 := mail.ParseAddress(p.msg.Header.Get("Reply-To"))
		return err1 == nil && err2 == nil && from.Name == "Dana Whitfield" &&
			!strings.HasSuffix(from.Address, "@northwind.example") && domain(from.Address) != domain(rt.Address) &&
			strings.Contains(p.msg.Header.Get("Authentication-Results"), "spf=fail")
	})
	has("lookalike phishing with link text and href on different hosts, dkim=fail", func(p parsed, raw string) bool {
		return strings.Contains(p.msg.Header.Get("From"), "northwind-secure.example") &&
			regexp.MustCompile(`<a href="http://\d+\.\d+\.\d+\.\d+/[^"]*">https://sso\.northwind\.example`).MatchString(raw) &&
			strings.Contains(p.msg.Header.Get("Authentication-Results"), "dkim=fail")
	})
	has("message/rfc822 forward", func(p parsed, raw string) bool { return strings.Contains(raw, "Content-Type: message/rfc822") })
	has("prompt injection", func(p parsed, raw string) bool { return strings.Contains(raw, "Ignore previous instructions") })
	has("terminal escapes in subject, sender and body", func(p parsed, raw string) bool {
		name, _ := decoder().DecodeHeader(p.msg.Header.Get("From"))
		return strings.Contains(p.subject, "\x1b[2J") && strings.Contains(p.subject, "\x1b]52;c;") &&
			strings.Contains(name, "\u202e") && strings.Contains(raw, "=1B]8;;")
	})
	has("deadline phrase by Friday", func(p parsed, raw string) bool { return strings.Contains(raw, "by Friday") })
	has("deadline phrase before Nov 30", func(p parsed, raw string) bool { return strings.Contains(raw, "before Nov 30") })
	for _, p := range ps {
		if bytes.ContainsFunc(p.raw.Data, func(r rune) bool { return r > 0x7e || (r < 0x20 && r != '\n' && r != '\r' && r != '\t') }) {
			t.Errorf("%s: raw file is not plain ASCII", p.raw.Key)
		}
	}
}

func domain(addr string) string { return addr[strings.LastIndexByte(addr, '@')+1:] }

func TestExpectations(t *testing.T) {
	ps := load(t)
	byKey := map[string]parsed{}
	for _, p := range ps {
		byKey[p.raw.Key] = p
	}
	exp := Expectations()
	if len(exp) < 32 {
		t.Errorf("%d expectations, want one per thread (>= 32)", len(exp))
	}
	covered := map[string]bool{}
	buckets := map[string]int{}
	spam, phish := 0, 0
	for _, e := range exp {
		p, ok := byKey[e.Key]
		if !ok {
			t.Errorf("expectation key %s has no message", e.Key)
			continue
		}
		if p.subject != e.Subject {
			t.Errorf("%s: subject %q, expectation says %q", e.Key, p.subject, e.Subject)
		}
		if p.msg.Header.Get("In-Reply-To") != "" {
			t.Errorf("%s: not the first message of its thread", e.Key)
		}
		covered[thread(e.Key)] = true
		buckets[e.Bucket]++
		if e.Spam {
			spam++
		}
		if e.Phishing {
			phish++
		}
	}
	for _, p := range ps {
		if !covered[thread(p.raw.Key)] {
			t.Errorf("%s: thread has no expectation", p.raw.Key)
		}
	}
	for _, b := range []string{BucketUrgent, BucketActionable, BucketInformational, BucketLowPriority} {
		if buckets[b] < 4 {
			t.Errorf("bucket %q has %d threads, want at least 4", b, buckets[b])
		}
	}
	if spam < 5 || phish != 2 {
		t.Errorf("%d spam and %d phishing threads, want >= 5 and 2", spam, phish)
	}
}

func TestParseAll(t *testing.T) {
	raws, err := Messages(testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raws {
		m, err := rfc822.Parse(r.Data)
		if err != nil {
			t.Errorf("%s: rfc822.Parse: %v", r.Key, err)
			continue
		}
		hostile := strings.HasPrefix(r.Key, "24-hostile-escapes")
		switch {
		case hostile && len(m.Problems) == 0:
			// The parser must say it stripped escapes: triage flags it.
			t.Errorf("%s: escapes stripped silently, want a parse problem", r.Key)
		case !hostile && len(m.Problems) > 0:
			t.Errorf("%s: parse problems: %v", r.Key, m.Problems)
		}
		if strings.TrimSpace(m.Body()) == "" {
			t.Errorf("%s: empty body", r.Key)
		}
	}
}

// fakeSink is an in-memory mailsrc.Sink.
type fakeSink struct {
	mu        sync.Mutex
	mailboxes map[string]model.Mailbox
	msgs      map[model.Location]*model.Message
	puts      int
}

func newFakeSink() *fakeSink {
	return &fakeSink{mailboxes: map[string]model.Mailbox{}, msgs: map[model.Location]*model.Message{}}
}

func (s *fakeSink) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mailboxes[account+"/"+mailbox].State, nil
}

func (s *fakeSink) SetMailbox(ctx context.Context, mb model.Mailbox) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mailboxes[mb.Account+"/"+mb.Name] = mb
	return nil
}

func (s *fakeSink) ResetMailbox(ctx context.Context, account, mailbox string) error {
	return fmt.Errorf("demo never resets a mailbox")
}

func (s *fakeSink) PutMessages(ctx context.Context, msgs []*model.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		s.msgs[m.Loc] = m
		s.puts++
	}
	return nil
}

func (s *fakeSink) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for loc, f := range flags {
		if m, ok := s.msgs[loc]; ok {
			m.Flags = f
		}
	}
	return nil
}

func (s *fakeSink) RemoveLocations(ctx context.Context, locs []model.Location) error {
	return fmt.Errorf("demo never removes locations")
}

func (s *fakeSink) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[model.Location]model.Flags{}
	for loc, m := range s.msgs {
		if loc.Account == account && loc.Mailbox == mailbox {
			out[loc] = m.Flags
		}
	}
	return out, nil
}

func (s *fakeSink) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) {
	return nil, nil
}

func TestSourceSync(t *testing.T) {
	ctx := context.Background()
	src := New("demo", func() time.Time { return testNow })
	sink := newFakeSink()
	var phases []string
	if err := src.Sync(ctx, sink, func(p mailsrc.Progress) { phases = append(phases, p.Mailbox+":"+p.Phase) }); err != nil {
		t.Fatalf("first Sync: %v", err)
	}
	raws, _ := Messages(testNow)
	if len(sink.msgs) != len(raws) {
		t.Fatalf("sink has %d messages, want %d", len(sink.msgs), len(raws))
	}
	if sink.mailboxes["demo/INBOX"].Role != model.RoleInbox || sink.mailboxes["demo/Sent"].Role != model.RoleSent {
		t.Errorf("mailboxes recorded: %+v", sink.mailboxes)
	}
	for _, r := range raws {
		m := sink.msgs[model.Location{Account: "demo", Mailbox: r.Mailbox, Key: r.Key}]
		if m == nil {
			t.Errorf("%s missing from sink", r.Key)
			continue
		}
		if !m.HasBody || !bytes.Equal(m.Raw, r.Data) || m.Flags.Seen != r.Seen || m.MessageID == "" {
			t.Errorf("%s stored as HasBody=%v raw=%d bytes seen=%v id=%q", r.Key, m.HasBody, len(m.Raw), m.Flags.Seen, m.MessageID)
		}
	}
	if !strings.Contains(strings.Join(phases, " "), "INBOX:done") {
		t.Errorf("progress phases %v lack INBOX:done", phases)
	}

	// Mark one message read in the store; a resync must keep it and add nothing.
	var loc model.Location
	for l, m := range sink.msgs {
		if !m.Flags.Seen {
			loc = l
			break
		}
	}
	_ = sink.SetFlags(ctx, map[model.Location]model.Flags{loc: {Seen: true}})
	puts := sink.puts
	if err := New("demo", func() time.Time { return testNow.Add(time.Hour) }).Sync(ctx, sink, nil); err != nil {
		t.Fatalf("second Sync: %v", err)
	}
	if sink.puts != puts {
		t.Errorf("second Sync put %d messages, want 0", sink.puts-puts)
	}
	if !sink.msgs[loc].Flags.Seen {
		t.Errorf("resync lost the store's flag change on %v", loc)
	}
	if err := src.PushFlags(ctx, []model.FlagChange{{Loc: loc, Flag: model.FlagSeen, Set: true}}); err != nil {
		t.Errorf("PushFlags: %v", err)
	}
}

func TestSyncCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sink := newFakeSink()
	if err := New("demo", nil).Sync(ctx, sink, nil); err == nil {
		t.Fatal("Sync with a cancelled context returned nil")
	}
	if len(sink.msgs) != 0 {
		t.Errorf("cancelled Sync stored %d messages", len(sink.msgs))
	}
}

func TestWatchBlocksUntilCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New("demo", nil).Watch(ctx, func() { t.Error("demo reported a change") }) }()
	select {
	case <-done:
		t.Fatal("Watch returned before the context ended")
	case <-time.After(20 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch: %v", err)
	}
}

func BenchmarkMessages(b *testing.B) {
	for b.Loop() {
		if _, err := Messages(testNow); err != nil {
			b.Fatal(err)
		}
	}
}
