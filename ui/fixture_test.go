package ui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

func TestMain(m *testing.M) {
	// Goldens are plain text: no colour, whatever the terminal running the tests.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// fixedNow is the clock of every UI test.
var fixedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return fixedNow }

var me = model.Address{Name: "Me", Email: "me@example.com"}

// fx builds one fixture message.
type fx struct {
	id, subject, body string
	from              model.Address
	ago               time.Duration
	seen              bool
	replyTo           string
	atts              []model.Attachment
	raw               []byte
}

func (f fx) message() *model.Message {
	m := &model.Message{
		Loc:         model.Location{Account: "test", Mailbox: "INBOX", Key: f.id},
		Flags:       model.Flags{Seen: f.seen},
		MessageID:   f.id,
		From:        f.from,
		To:          []model.Address{me},
		Date:        fixedNow.Add(-f.ago),
		Subject:     f.subject,
		Text:        f.body,
		HasBody:     true,
		Size:        int64(len(f.body)),
		Attachments: f.atts,
		Raw:         f.raw,
	}
	if f.replyTo != "" {
		m.InReplyTo = []string{f.replyTo}
		m.References = []string{f.replyTo}
	}
	sum := sha256.Sum256([]byte(f.id + "\n" + f.subject + "\n" + f.body))
	m.ContentHash = hex.EncodeToString(sum[:])
	return m
}

func strp(s string) *string { return &s }

// fixtureMessages is a small inbox covering every section and badge.
func fixtureMessages() []fx {
	bob := model.Address{Name: "Bob Builder", Email: "bob@example.com"}
	return []fx{
		{id: "outage@x", subject: "Production database is down", from: model.Address{Name: "Carol Ops", Email: "carol@example.com"}, ago: 20 * time.Minute,
			body: "The primary database stopped accepting writes at 11:35.\nPlease approve the failover now.\n\n-- \nCarol, on call"},
		{id: "budget@x", subject: "Q3 budget review meeting", from: bob, ago: 3 * time.Hour, seen: true,
			body: "Can we meet Tuesday or Wednesday afternoon to go through the Q3 numbers?\nPlease send the spreadsheet before."},
		{id: "news@x", subject: "This week in Go", from: model.Address{Name: "Go Weekly", Email: "news@golangweekly.example"}, ago: 26 * time.Hour, seen: true,
			body: "Go 1.26 is out. Read more <https://go.dev/blog>."},
		{id: "shoes@x", subject: "50% off all shoes this weekend", from: model.Address{Name: "ShoeShop", Email: "deals@shoeshop.example"}, ago: 3 * 24 * time.Hour,
			body: "Huge sale!"},
		{id: "parcel@x", subject: "Your parcel has shipped", from: model.Address{Name: "Parcel Service", Email: "noreply@parcels.example"}, ago: 4 * 24 * time.Hour, seen: true,
			body: "Tracking number 12345."},
		{id: "phish@x", subject: "Verify your account now", from: model.Address{Name: "PayPal Security", Email: "security@paypa1.example"}, ago: 5 * time.Hour,
			body: "Your account is locked. Log in at http://paypa1.example/login to restore access."},
		{id: "lunch1@x", subject: "Lunch tomorrow?", from: bob, ago: 2 * time.Hour, seen: true,
			body: "Shall we try the new ramen place?"},
		{id: "lunch2@x", subject: "Re: Lunch tomorrow?", from: model.Address{Name: "Dana", Email: "dana@example.com"}, ago: 90 * time.Minute, replyTo: "lunch1@x",
			body: "Yes! 12:30 works. Menu attached.\n\nOn Sat, Bob Builder wrote:\n> Shall we try the new ramen place?\n> It opened last week.\n\n-- \nDana\nSent from my phone",
			atts: []model.Attachment{{Filename: "menu.pdf", ContentType: "application/pdf", Size: 2048, Part: "2"}}},
		{id: "report@x", subject: "Weekly report from Bob", from: bob, ago: 8 * 24 * time.Hour, seen: true,
			body: "All green this week."},
	}
}

// fixtureTriage is the triage of the fixture threads, by first message ID.
func fixtureTriage() map[string]store.TriageRecord {
	return map[string]store.TriageRecord{
		"outage@x": {Source: "ollama", Model: "llama3.2:3b", Urgency: "high", Intent: "request",
			Result: contract.Result{Category: contract.CategoryUrgent, Summary: "The production database is down; Carol needs approval to fail over.",
				ActionItems: []contract.ActionItem{{Description: "Approve the failover", DueHint: strp("now")}, {Description: "Tell customers"}}}},
		"budget@x": {Source: "ollama", Model: "llama3.2:3b", Intent: "scheduling", Signals: []string{"scheduling: proposes meeting times"},
			Result: contract.Result{Category: contract.CategoryActionable, Summary: "Bob wants to meet about the Q3 budget.",
				ActionItems: []contract.ActionItem{{Description: "Send the spreadsheet", DueHint: strp("before the meeting")}}}},
		"news@x": {Source: "deterministic",
			Result: contract.Result{Category: contract.CategoryInformational, Summary: "Newsletter."}},
		"shoes@x": {Source: "deterministic",
			Result: contract.Result{Category: contract.CategoryLowPriority, IsSpam: true, Summary: "Promotion."}, SpamReasons: []string{"bulk promotion"}},
		"parcel@x": {Source: "deterministic",
			Result: contract.Result{Category: contract.CategoryLowPriority, Summary: "Shipping notice."}},
		"phish@x": {Source: "ollama", Model: "llama3.2:3b",
			Result:          contract.Result{Category: contract.CategoryLowPriority, IsPhishing: true, Summary: "Credential phishing imitating PayPal."},
			PhishingReasons: []string{"look-alike domain paypa1.example", "urgent login request"}},
	}
}

// newFixtureStore opens a store in t.TempDir and fills it with msgs and triage.
func newFixtureStore(t testing.TB, msgs []fx, triage map[string]store.TriageRecord) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), &store.Options{Principal: me})
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.EnsureAccount(ctx, "test", "demo://"); err != nil {
		t.Fatalf("EnsureAccount: %v", err)
	}
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "test", Name: "INBOX", Role: model.RoleInbox}); err != nil {
		t.Fatalf("SetMailbox: %v", err)
	}
	ms := make([]*model.Message, len(msgs))
	for i, f := range msgs {
		ms[i] = f.message()
	}
	if err := s.PutMessages(ctx, ms); err != nil {
		t.Fatalf("PutMessages: %v", err)
	}
	for mid, rec := range triage {
		saveTriage(t, s, mid, rec)
	}
	return s
}

func threadID(t testing.TB, s *store.Store, mid string) int64 {
	t.Helper()
	id, err := s.ThreadIDForMessage(context.Background(), mid)
	if err != nil {
		t.Fatalf("ThreadIDForMessage(%q): %v", mid, err)
	}
	return id
}

func saveTriage(t testing.TB, s *store.Store, mid string, rec store.TriageRecord) {
	t.Helper()
	ctx := context.Background()
	rec.ThreadID = threadID(t, s, mid)
	rec.CacheKey = "test/" + rec.Source
	rec.CreatedAt = fixedNow
	h, err := s.ThreadContentHash(ctx, rec.ThreadID)
	if err != nil {
		t.Fatalf("ThreadContentHash: %v", err)
	}
	rec.ContentHash = h
	if err := s.SaveTriage(ctx, rec); err != nil {
		t.Fatalf("SaveTriage(%s): %v", mid, err)
	}
}
