package ui

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"mailsift/drafts"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// listRaw is list mail with one-click unsubscribe, a mailto alternative
// and an HTML part whose links include a mismatch and a javascript: link.
func listRaw(post string) string {
	h := "From: Gadget News <news@gadgets.example>\r\nTo: me@example.com\r\nSubject: Gadget deals of the week\r\n" +
		"Date: Sat, 14 Mar 2026 09:00:00 +0000\r\nMessage-ID: <deals@gadgets.example>\r\nList-Id: Gadget News <news.gadgets.example>\r\n" +
		"List-Unsubscribe: <mailto:leave@gadgets.example?subject=unsubscribe%20me>, <" + post + ">\r\n"
	if !strings.Contains(post, "without-post") {
		h += "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"
	}
	return h + "MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nDeals at https://gadgets.example/deals\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Deals! <a href=\"https://gadgets.example/deals\">See the deals</a> " +
		"<a href=\"https://track.evil.example/c?u=1\">https://gadgets.example/account</a> <a href=\"javascript:steal()\">more</a>" +
		"<img src=\"https://pixel.evil.example/p.gif\"></p>\r\n--b--\r\n"
}

// featureEnv is a draft environment with one extra list message and fakes
// for the browser and notifications.
type featureEnv struct {
	*draftEnv
	mu     sync.Mutex
	opened []string
	listID int64
}

func newFeatureEnv(t *testing.T, w, h int, post string, opts func(*Options)) *featureEnv {
	t.Helper()
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	m, err := rfc822.Parse([]byte(listRaw(post)))
	if err != nil {
		t.Fatal(err)
	}
	m.Loc = model.Location{Account: "test", Mailbox: "INBOX", Key: "deals"}
	if err := st.PutMessages(context.Background(), []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	tr := &countingTransport{}
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: tr}}})
	fe := &featureEnv{}
	o := Options{Store: st, Drafts: eng, Principal: me, OpenURL: func(_ context.Context, u string) error {
		fe.mu.Lock()
		fe.opened = append(fe.opened, u)
		fe.mu.Unlock()
		return nil
	}}
	if opts != nil {
		opts(&o)
	}
	d := newDriver(t, o, w, h)
	d.m.c.manualTicks = true
	fe.draftEnv = &draftEnv{driver: d, st: st, eng: eng, tr: tr}
	fe.listID = threadID(t, st, "deals@gadgets.example")
	return fe
}

// openThreadView shows a thread as enter from the inbox would.
func (e *featureEnv) openThreadView(id int64) {
	e.t.Helper()
	e.run(e.m.openThread(id))
	if e.m.screen != stateThread {
		e.t.Fatalf("thread %d did not open:\n%s", id, e.view())
	}
}

func TestComposeNewMessageWithCompletionAttachmentAndBcc(t *testing.T) {
	e := newFeatureEnv(t, 110, 40, "https://gadgets.example/u", nil)
	ctx := context.Background()
	// Dana is known because she wrote: typing "da" offers her.
	e.keys("c")
	if e.m.screen != stateCompose || e.m.compose.d == nil {
		t.Fatalf("c did not open the compose screen:\n%s", e.view())
	}
	e.typeText("da")
	if v := e.view(); !strings.Contains(v, "▸ Dana <dana@example.com>") {
		t.Fatalf("no completion for \"da\":\n%s", v)
	}
	e.keys("enter")
	if got := e.m.compose.inputs[fieldTo].Value(); got != "Dana <dana@example.com>, " {
		t.Fatalf("To after accepting = %q", got)
	}
	e.keys("tab", "tab") // Cc, Bcc
	e.typeText("archive@example.com")
	e.keys("tab")
	e.typeText("Menu for Friday")
	e.keys("tab")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "menu-friday.txt"), []byte("ramen\nudon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A path that does not exist is refused, and the typed path stays.
	e.typeText(filepath.Join(dir, "nope.txt"))
	e.keys("enter")
	if !strings.Contains(e.m.c.errText, "no such file; check the path") || e.m.compose.inputs[fieldAttach].Value() == "" {
		t.Fatalf("missing file: error %q, field %q", e.m.c.errText, e.m.compose.inputs[fieldAttach].Value())
	}
	e.keys("x") // not the dismiss key here: typed text
	for range len("nope.txtx") {
		e.keys("backspace")
	}
	e.typeText("men")
	e.keys("tab") // completes the file name
	if got := e.m.compose.inputs[fieldAttach].Value(); got != filepath.Join(dir, "menu-friday.txt") {
		t.Fatalf("completion gave %q", got)
	}
	e.keys("enter")
	if len(e.m.compose.atts) != 1 || !strings.Contains(e.view(), "menu-friday.txt (text/plain, 11 B)") {
		t.Fatalf("attachment not listed:\n%s", e.view())
	}
	e.keys("tab")
	e.typeText("Hi Dana, the menu is attached.")
	e.keys("ctrl+s")
	if e.m.screen != stateConfirm || e.m.confirm.a == nil {
		t.Fatalf("ctrl+s did not reach the confirm screen (err %v):\n%s", e.m.confirm.err, e.view())
	}
	v := e.view()
	for _, want := range []string{"To:       Dana <dana@example.com>", "Subject:  Menu for Friday", "Attached: menu-friday.txt (text/plain, 11 B)",
		"Hi Dana, the menu is attached.", "archive@example.com (envelope only", "y send this message"} {
		if !strings.Contains(v, want) {
			t.Errorf("confirm screen lacks %q:\n%s", want, v)
		}
	}
	// Any other key goes back to the compose screen with everything kept.
	e.keys("n")
	if e.m.screen != stateCompose || e.m.compose.inputs[fieldSubject].Value() != "Menu for Friday" {
		t.Fatalf("a key other than y did not go back to the compose screen:\n%s", e.view())
	}
	e.keys("ctrl+s")
	a := e.m.confirm.a
	e.keys("y")
	items := e.outbox()
	if len(items) != 1 || string(items[0].Raw) != a.What.Message {
		t.Fatalf("outbox after y = %d items; want the approved message once", len(items))
	}
	if got := strings.Join(a.What.Recipients, ","); got != "dana@example.com,archive@example.com" {
		t.Fatalf("envelope = %s", got)
	}
	if strings.Contains(a.What.Message, "archive@example.com") {
		t.Fatal("the Bcc is in the message headers")
	}
	m, err := rfc822.Parse(items[0].Raw)
	if err != nil || len(m.Attachments) != 1 || m.Attachments[0].Filename != "menu-friday.txt" {
		t.Fatalf("queued message attachments: %+v, %v", m, err)
	}
	// c again starts a new message: the sent one is not resumed.
	e.keys("c")
	if e.m.compose.resumed || e.m.compose.d == nil || e.m.compose.d.ID == a.DraftID {
		t.Fatalf("c after sending resumed the sent message")
	}
	// It is the one open new message; esc keeps it and c resumes it.
	e.typeText("bob@example.com")
	e.keys("esc")
	if e.m.screen != stateInbox {
		t.Fatalf("esc did not leave the compose screen:\n%s", e.view())
	}
	e.keys("c")
	if !e.m.compose.resumed || e.m.compose.inputs[fieldTo].Value() != "bob@example.com" {
		t.Fatalf("c did not resume the unsent message: resumed %v, To %q", e.m.compose.resumed, e.m.compose.inputs[fieldTo].Value())
	}
	if ds, _ := e.st.Drafts(ctx, 0, store.DraftOpen); len(ds) != 1 {
		t.Fatalf("%d open drafts; the resumed message should be the only one", len(ds))
	}
}

func TestComposeBadAddressIsKeptAndExplained(t *testing.T) {
	e := newFeatureEnv(t, 110, 40, "https://gadgets.example/u", nil)
	e.keys("c")
	e.typeText("dana@")
	e.keys("ctrl+s")
	if e.m.screen != stateCompose {
		t.Fatalf("ctrl+s with a bad address left the compose screen:\n%s", e.view())
	}
	if v := e.view(); !strings.Contains(v, `To: "dana@" is not a mail address`) {
		t.Fatalf("no explanation under the field:\n%s", v)
	}
	if got := e.m.compose.inputs[fieldTo].Value(); got != "dana@" {
		t.Fatalf("the typed address was changed to %q", got)
	}
	e.keys("esc")
	if e.m.screen != stateCompose {
		t.Fatal("the first esc with a bad address left without asking")
	}
}

func TestForwardFromTheThread(t *testing.T) {
	e := newFeatureEnv(t, 110, 40, "https://gadgets.example/u", nil)
	e.openThreadView(e.listID)
	e.keys("f")
	if e.m.screen != stateCompose || e.m.compose.d == nil {
		t.Fatalf("f did not open the forward:\n%s (err %v)", e.view(), e.m.compose.loadErr)
	}
	d := e.m.compose.d
	if d.Subject != "Fwd: Gadget deals of the week" || !strings.Contains(e.m.compose.body.Value(), "---------- Forwarded message ----------") {
		t.Fatalf("forward = %q\n%s", d.Subject, e.m.compose.body.Value())
	}
	if e.m.compose.focus != fieldTo {
		t.Fatalf("the forward starts in field %d, want To", e.m.compose.focus)
	}
	e.keys("esc", "esc")
	e.openThreadView(e.listID)
	e.keys("F")
	if e.m.screen != stateCompose || len(e.m.compose.atts) != 1 || e.m.compose.atts[0].ContentType != "message/rfc822" {
		t.Fatalf("F did not attach the original: %+v", e.m.compose.atts)
	}
	e.typeText("carol@example.com")
	e.keys("ctrl+s")
	if v := e.view(); !strings.Contains(v, "Attached: Gadget deals of the week.eml (message/rfc822,") {
		t.Fatalf("confirm screen does not list the forwarded message:\n%s", v)
	}
}

func TestLinksListOpensOnlyAfterY(t *testing.T) {
	e := newFeatureEnv(t, 100, 40, "https://gadgets.example/u", nil)
	e.openThreadView(e.listID)
	e.keys("L")
	if e.m.screen != stateLinks {
		t.Fatalf("L did not open the links:\n%s", e.view())
	}
	v := e.view()
	for _, want := range []string{"1  See the deals", "→ https://gadgets.example/deals", "2  https://gadgets.example/account",
		"→ https://track.evil.example/c?u=1", "! the text names another place than the link leads to", "3  more", "→ javascript:steal()",
		"✗ not opened: only http, https and mailto links are"} {
		if !strings.Contains(v, want) {
			t.Errorf("links list lacks %q:\n%s", want, v)
		}
	}
	e.keys("2")
	if !strings.Contains(e.view(), "open link 2 (the full target above) in the browser?") || len(e.opened) != 0 {
		t.Fatalf("2 should ask first:\n%s", e.view())
	}
	e.keys("n")
	if len(e.opened) != 0 {
		t.Fatal("a key other than y opened the link")
	}
	e.keys("3") // javascript: refused without asking
	if e.m.links.asking != askNone || !strings.Contains(e.m.c.note, "link 3 is not opened") {
		t.Fatalf("javascript link: asking %d, note %q", e.m.links.asking, e.m.c.note)
	}
	e.keys("2", "y")
	if len(e.opened) != 1 || e.opened[0] != "https://track.evil.example/c?u=1" {
		t.Fatalf("opened %q, want exactly the shown target", e.opened)
	}
	// The HTML part: a private file that blocks remote content.
	e.keys("O", "n")
	if len(e.opened) != 1 {
		t.Fatalf("O then n opened %q", e.opened)
	}
	e.keys("O", "y")
	if len(e.opened) != 2 || !strings.HasPrefix(e.opened[1], "file:///") {
		t.Fatalf("O y opened %q", e.opened)
	}
	u, err := url.Parse(e.opened[1])
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(u.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("HTML copy %s: %v mode %v", u.Path, err, fi.Mode().Perm())
	}
	b, _ := os.ReadFile(u.Path)
	if !strings.Contains(string(b), "default-src 'none'") || !strings.Contains(string(b), "See the deals") {
		t.Fatalf("HTML copy lacks the CSP or the mail:\n%s", b)
	}
	e.send(htmlCleanupMsg{dir: filepath.Dir(u.Path)}) // the timer's message
	if _, err := os.Stat(filepath.Dir(u.Path)); !os.IsNotExist(err) {
		t.Fatalf("the HTML copy was not removed: %v", err)
	}
	e.keys("esc")
	if e.m.screen != stateThread {
		t.Fatalf("esc left the links for %d", e.m.screen)
	}
}

// TestUnsubscribeOneClickPostsAfterY runs the real RFC 8058 POST against
// a local server: nothing before y, exactly one request after it.
func TestUnsubscribeOneClickPostsAfterY(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+r.URL.RequestURI()+" "+string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	archived := ""
	e := newFeatureEnv(t, 100, 30, srv.URL+"/unsub?t=42", func(o *Options) {
		o.ArchiveSender = func(_ context.Context, sender string) (int, error) { archived = sender; return 3, nil }
	})
	e.openThreadView(e.listID)
	e.keys("U")
	v := e.view()
	for _, want := range []string{"Unsubscribe · Gadget News <news.gadgets.example>", "one-click unsubscribe request (RFC 8058)",
		srv.URL + "/unsub?t=42", "y yes, unsubscribe"} {
		if !strings.Contains(v, want) {
			t.Errorf("unsubscribe screen lacks %q:\n%s", want, v)
		}
	}
	e.keys("n")
	mu.Lock()
	n := len(bodies)
	mu.Unlock()
	if n != 0 || e.m.screen != stateThread {
		t.Fatalf("n: %d requests, screen %d; want none and back", n, e.m.screen)
	}
	// A burst of keys ("yy", a paste) is not the deliberate y.
	e.keys("U", "yy")
	mu.Lock()
	n = len(bodies)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("a burst \"yy\" posted %d request(s)", n)
	}
	e.keys("U", "y")
	mu.Lock()
	got := append([]string(nil), bodies...)
	mu.Unlock()
	if len(got) != 1 || got[0] != "POST /unsub?t=42 List-Unsubscribe=One-Click" {
		t.Fatalf("requests = %q", got)
	}
	if !strings.Contains(e.view(), "a archive this sender's threads") {
		t.Fatalf("no archive offer after unsubscribing:\n%s", e.view())
	}
	e.keys("a")
	if archived != "news@gadgets.example" || !strings.Contains(e.m.c.note, "archived 3 threads from news@gadgets.example") {
		t.Fatalf("archive hook got %q, note %q", archived, e.m.c.note)
	}
}

func TestUnsubscribeByMailGoesThroughConfirm(t *testing.T) {
	e := newFeatureEnv(t, 100, 40, "https://gadgets.example/u-without-post", nil)
	// Without List-Unsubscribe-Post the mailto is preferred.
	e.openThreadView(e.listID)
	e.keys("U")
	if v := e.view(); !strings.Contains(v, "To: leave@gadgets.example") || !strings.Contains(v, "Subject: unsubscribe me") {
		t.Fatalf("mailto plan not shown:\n%s", v)
	}
	e.keys("y")
	if e.m.screen != stateConfirm || e.m.confirm.a == nil {
		t.Fatalf("y did not reach the confirm screen (err %v):\n%s", e.m.confirm.err, e.view())
	}
	if got := strings.Join(e.m.confirm.a.What.Recipients, ","); got != "leave@gadgets.example" {
		t.Fatalf("recipients = %s", got)
	}
	if n := len(e.outbox()); n != 0 {
		t.Fatalf("%d queued before y on the confirm screen", n)
	}
	e.keys("y")
	if n := len(e.outbox()); n != 1 {
		t.Fatalf("%d queued after y, want 1", n)
	}
}

// fakeNotifier records notifications.
type fakeNotifier struct {
	mu  sync.Mutex
	got []string
	err error
}

func (f *fakeNotifier) Notify(_ context.Context, summary, body string, urgent bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf("%s|%s|%v", summary, body, urgent))
	return f.err
}

func TestNewUrgentMailNotifiesOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setting string
		fail    bool
		notes   int
		bells   int
	}{
		{"urgent", "", false, 1, 0},
		{"off", NewMailOff, false, 0, 0},
		{"bell when no desktop", NewMailUrgent, true, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &fakeNotifier{}
			if tc.fail {
				n.err = fmt.Errorf("no bus")
			}
			bells := 0
			var titles []string
			var tmu sync.Mutex
			e := newFeatureEnv(t, 100, 30, "https://gadgets.example/u", func(o *Options) {
				o.Notifier, o.NewMail, o.Bell = n, tc.setting, func() { bells++ }
				o.SetTitle = func(s string) { tmu.Lock(); titles = append(titles, s); tmu.Unlock() }
			})
			if e.m.newMail.title != "mailsift (1 urgent)" {
				t.Fatalf("title = %q, want the unread urgent count", e.m.newMail.title)
			}
			// New mail lands in Urgent.
			ctx := context.Background()
			f := fx{id: "fire@x", subject: "Fire alarm in building B", from: model.Address{Name: "Facilities", Email: "fac@example.com"}, ago: time.Minute,
				body: "Evacuate now."}
			if err := e.st.PutMessages(ctx, []*model.Message{f.message()}); err != nil {
				t.Fatal(err)
			}
			saveTriage(t, e.st, "fire@x", store.TriageRecord{Source: "ollama", Result: fixtureTriage()["outage@x"].Result})
			e.send(storeChangedMsg{})
			e.send(storeChangedMsg{}) // another reload: nothing new
			n.mu.Lock()
			got := append([]string(nil), n.got...)
			n.mu.Unlock()
			if len(got) != tc.notes || bells != tc.bells {
				t.Fatalf("notifications %q, bells %d; want %d and %d", got, bells, tc.notes, tc.bells)
			}
			if tc.notes > 0 && got[0] != "mailsift: 1 new urgent thread|Facilities: Fire alarm in building B|true" {
				t.Fatalf("notification = %q", got[0])
			}
			tmu.Lock()
			defer tmu.Unlock()
			if strings.Join(titles, "|") != "mailsift (1 urgent)|mailsift (2 urgent)" {
				t.Fatalf("titles set = %q, want the count once per change", titles)
			}
		})
	}
}

// startFeatureProgram runs the real program over the fixture store plus
// the list message, with a send engine.
func startFeatureProgram(t *testing.T) *teatest.TestModel {
	t.Helper()
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	m, err := rfc822.Parse([]byte(listRaw("https://gadgets.example/u")))
	if err != nil {
		t.Fatal(err)
	}
	m.Loc = model.Location{Account: "test", Mailbox: "INBOX", Key: "deals"}
	if err := st.PutMessages(context.Background(), []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: drafts.DefaultUndoWindow,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	mod := New(Options{Store: st, Account: "test", Now: clock, Principal: me, Drafts: eng,
		OpenURL: func(context.Context, string) error { return nil }})
	tm := teatest.NewTestModel(t, mod, teatest.WithInitialTermSize(goldenW, goldenH))
	waitOutput(t, tm, "Not yet triaged")
	return tm
}

func TestGoldenCompose(t *testing.T) {
	tm := startFeatureProgram(t)
	press(tm, "c")
	waitOutput(t, tm, "New message")
	for _, r := range "da" {
		press(tm, string(r))
	}
	waitOutput(t, tm, "Dana <dana@example.com>")
	press(tm, "down")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenLinks(t *testing.T) {
	tm := startFeatureProgram(t)
	press(tm, "/")
	for _, r := range "Gadget" {
		press(tm, string(r))
	}
	waitOutput(t, tm, "results for Gadget")
	press(tm, "enter")
	waitOutput(t, tm, "Deals at")
	press(tm, "L")
	waitOutput(t, tm, "javascript:steal()")
	press(tm, "j", "2")
	waitOutput(t, tm, "open link 2")
	requireGolden(t, finalView(t, tm))
}

func TestSaveGateSkipsAnOlderSave(t *testing.T) {
	g := &saveGate{}
	older, newer := g.ticket(), g.ticket()
	var ran []int64
	// The newer save lands first; the older one must not overwrite it.
	for _, tk := range []int64{newer, older} {
		if err := g.run(tk, func() error { ran = append(ran, tk); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(ran) != 1 || ran[0] != newer {
		t.Fatalf("saves run: %v, want only the newer (%d)", ran, newer)
	}
}
