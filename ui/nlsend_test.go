package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/drafts"
	"mailsift/internal/compose"
	"mailsift/mailops"
	"mailsift/model"
	"mailsift/store"
)

// newSendEnv is a draft environment over the fixture mailbox plus extra
// messages (more people in the address book) and a plain-language model
// answering with the given args.
func newSendEnv(t *testing.T, answers map[string]string, extra ...fx) *draftEnv {
	t.Helper()
	st := newFixtureStore(t, append(fixtureMessages(), extra...), fixtureTriage())
	tr := &countingTransport{}
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: tr}}})
	in, _ := nlModel(t, answers)
	d := newDriver(t, Options{Store: st, Drafts: eng, Principal: me, Interpreter: in}, 110, 40)
	d.m.c.manualTicks = true
	return &draftEnv{driver: d, st: st, eng: eng, tr: tr}
}

// newMessages are the open new messages (drafts without a thread).
func (e *draftEnv) newMessages() []store.Draft {
	e.t.Helper()
	return e.openDrafts(0)
}

func (e *draftEnv) field(f int) string { return e.m.compose.inputs[f].Value() }

func (e *draftEnv) sentCount() int {
	e.tr.mu.Lock()
	defer e.tr.mu.Unlock()
	return e.tr.n
}

// TestPlainLanguageSendPreviewOpensCompose: "write to Dana …" opens the
// compose screen with the recipients resolved (a name through the address
// book, an address as typed), the subject and the body, saved as a new
// message; the address book never reaches the model.
func TestPlainLanguageSendPreviewOpensCompose(t *testing.T) {
	line := "write to Dana and cc bob@example.com about lunch saying 12:30 works for me"
	e := newSendEnv(t, map[string]string{
		line: `{"operation":"sendPreview","to":["Dana"],"cc":["bob@example.com"],"subject":"Lunch","body":"12:30 works for me."}`,
	})
	e.command(line)
	if e.m.screen != stateCompose || e.m.compose.d == nil {
		t.Fatalf("screen %d, error %q; want the compose screen\n%s", e.m.screen, e.m.c.errText, e.view())
	}
	for f, want := range map[int]string{fieldTo: "Dana <dana@example.com>", fieldCc: "Bob Builder <bob@example.com>", fieldBcc: "", fieldSubject: "Lunch"} {
		if got := e.field(f); got != want {
			t.Errorf("%s %q, want %q", fieldNames[f], got, want)
		}
	}
	if got := e.m.compose.body.Value(); got != "12:30 works for me." {
		t.Errorf("body %q", got)
	}
	if v := e.view(); !strings.Contains(v, "understood: sendPreview to:Dana cc:bob@example.com subject:Lunch") {
		t.Errorf("the status line does not say what was understood:\n%s", v)
	}
	ds := e.newMessages()
	if len(ds) != 1 || compose.FormatAddresses(ds[0].To) != "Dana <dana@example.com>" || ds[0].Body != "12:30 works for me." {
		t.Fatalf("stored new messages = %+v", ds)
	}
	if len(e.outbox()) != 0 || e.sentCount() != 0 {
		t.Fatal("something was queued")
	}
	// The user can edit everything; ctrl+s goes on to the confirm screen.
	e.typeText(" Or 13:00?")
	e.keys("ctrl+s")
	if e.m.screen != stateConfirm || e.m.confirm.a == nil || !strings.Contains(e.m.confirm.a.What.Message, "12:30 works for me. Or 13:00?") {
		t.Fatalf("ctrl+s after editing: screen %d\n%s", e.m.screen, e.view())
	}
}

// TestPlainLanguageSendConfirm: sendConfirm writes the same message and
// opens the confirm screen; nothing is queued by any key but y.
func TestPlainLanguageSendConfirm(t *testing.T) {
	line := "send bob@example.com a mail saying the report is done"
	e := newSendEnv(t, map[string]string{
		line: `{"operation":"sendConfirm","to":["bob@example.com"],"subject":"Report","body":"The report is done."}`,
	})
	e.command(line)
	if e.m.screen != stateConfirm || e.m.confirm.a == nil {
		t.Fatalf("screen %d, error %q (confirm err %v); want the confirm screen\n%s", e.m.screen, e.m.c.errText, e.m.confirm.err, e.view())
	}
	a := e.m.confirm.a
	if got := strings.Join(a.What.Recipients, ","); got != "bob@example.com" {
		t.Errorf("envelope %s", got)
	}
	if v := e.view(); !strings.Contains(v, "The report is done.") || !strings.Contains(v, "Subject:  Report") {
		t.Errorf("confirm screen:\n%s", v)
	}
	e.keys("tab") // the exact bytes
	if len(e.outbox()) != 0 {
		t.Fatal("queued by tab")
	}
	e.keys("n")
	if e.m.screen != stateCompose || len(e.outbox()) != 0 || e.sentCount() != 0 {
		t.Fatalf("a key other than y: screen %d, %d queued", e.m.screen, len(e.outbox()))
	}
	e.keys("ctrl+s", "y")
	if items := e.outbox(); len(items) != 1 || !strings.Contains(string(items[0].Raw), "The report is done.") {
		t.Fatalf("after y: %d queued, want the message once", len(items))
	}
}

// TestPlainLanguageSendDropsInventedAddresses: addresses the request does
// not contain are dropped with a note (even one of the address book, when
// the request does not name that person), an address that spells out a
// person the request names is that person, a name no one has leaves the
// field empty, and a sendConfirm with anything dropped stops at the
// compose screen.
func TestPlainLanguageSendDropsInventedAddresses(t *testing.T) {
	e := newSendEnv(t, map[string]string{
		"write to Dana about the launch":    `{"operation":"sendPreview","to":["Dana","eve@evil.example"],"bcc":["bob@example.com"],"subject":"Launch"}`,
		"mail carol about the outage":       `{"operation":"sendPreview","to":["carol@example.com"],"subject":"Outage"}`,
		"write to Zed about lunch":          `{"operation":"sendPreview","to":["Zed"],"subject":"Lunch"}`,
		"send dana the launch date, it's 5": `{"operation":"sendConfirm","to":["dana@example.com","Mallory"],"body":"It's the 5th."}`,
	})
	e.command("write to Dana about the launch")
	if e.m.screen != stateCompose {
		t.Fatalf("screen %d error %q", e.m.screen, e.m.c.errText)
	}
	if e.field(fieldTo) != "Dana <dana@example.com>" || e.field(fieldBcc) != "" {
		t.Fatalf("To %q Bcc %q: an address the user did not write was kept", e.field(fieldTo), e.field(fieldBcc))
	}
	v := e.view()
	for _, want := range []string{"To: dropped eve@evil.example, which is neither in your request", "Bcc: dropped bob@example.com"} {
		if !strings.Contains(v, want) {
			t.Errorf("no note %q:\n%s", want, v)
		}
	}
	if ds := e.newMessages(); len(ds) != 1 || len(ds[0].To) != 1 || len(ds[0].Bcc) != 0 {
		t.Fatalf("stored: %+v", ds)
	}
	e.keys("esc")

	e.command("mail carol about the outage")
	if e.field(fieldTo) != "Carol Ops <carol@example.com>" || len(e.m.compose.problems) != 0 {
		t.Errorf("carol: To %q notes %q", e.field(fieldTo), e.m.compose.problems)
	}
	e.keys("esc")

	e.command("write to Zed about lunch")
	if e.m.screen != stateCompose || e.field(fieldTo) != "" || !strings.Contains(e.view(), `no one in your address book matches "Zed"`) {
		t.Errorf("Zed: screen %d To %q\n%s", e.m.screen, e.field(fieldTo), e.view())
	}
	e.keys("esc")

	e.command("send dana the launch date, it's 5")
	if e.m.screen != stateCompose {
		t.Fatalf("a sendConfirm with a dropped recipient went to screen %d, want the compose screen", e.m.screen)
	}
	if e.field(fieldTo) != "Dana <dana@example.com>" || !strings.Contains(e.view(), `dropped "Mallory", which is not in your request`) {
		t.Errorf("To %q\n%s", e.field(fieldTo), e.view())
	}
	if len(e.outbox()) != 0 || e.sentCount() != 0 {
		t.Fatal("something was queued")
	}
}

// TestPlainLanguageSendAmbiguousNameAsks: "Dana" names two people; the
// request asks which one and writes nothing until the user chooses; esc
// cancels it.
func TestPlainLanguageSendAmbiguousNameAsks(t *testing.T) {
	scully := fx{id: "scully@x", subject: "Case files", from: model.Address{Name: "Dana Scully", Email: "dana.scully@fbi.example"}, ago: 5 * 24 * time.Hour, seen: true, body: "See attached."}
	line := "send a mail to dana saying see you at 3"
	e := newSendEnv(t, map[string]string{
		line: `{"operation":"sendConfirm","to":["dana"],"body":"See you at 3."}`,
	}, scully)
	e.command(line)
	pp, ok := e.m.c.overlay.(*personPicker)
	if !ok {
		t.Fatalf("no question; screen %d error %q\n%s", e.m.screen, e.m.c.errText, e.view())
	}
	v := e.view()
	if !strings.Contains(v, `To: 2 people match "dana" — which one do you mean?`) || !strings.Contains(v, "Dana Scully <dana.scully@fbi.example>") || !strings.Contains(v, "Dana <dana@example.com>  · never written to") {
		t.Fatalf("the question:\n%s", v)
	}
	if n := len(e.newMessages()); n != 0 {
		t.Fatalf("%d messages written before the user chose", n)
	}
	e.keys("esc")
	if e.m.c.overlay != nil || e.m.screen != stateInbox || len(e.newMessages()) != 0 {
		t.Fatalf("esc: overlay %v screen %d, %d written", e.m.c.overlay, e.m.screen, len(e.newMessages()))
	}

	e.command(line)
	pp, ok = e.m.c.overlay.(*personPicker)
	if !ok {
		t.Fatal("no question the second time")
	}
	pick := 0
	for i, c := range pp.req.plan.Ask[0].Candidates {
		if c.Address.Email == "dana.scully@fbi.example" {
			pick = i + 1
		}
	}
	e.keys(string(rune('0' + pick)))
	if e.m.screen != stateConfirm || e.m.confirm.a == nil {
		t.Fatalf("after choosing: screen %d error %q\n%s", e.m.screen, e.m.c.errText, e.view())
	}
	if got := strings.Join(e.m.confirm.a.What.Recipients, ","); got != "dana.scully@fbi.example" {
		t.Errorf("envelope %s, want the chosen Dana", got)
	}
	if len(e.outbox()) != 0 {
		t.Fatal("queued without y")
	}
}

// TestPlainLanguageSendNeedsTheModel: offline, or with the model down,
// a request to write says plain language needs the model, and nothing is
// written.
func TestPlainLanguageSendNeedsTheModel(t *testing.T) {
	line := "write to dana@example.com saying hi"
	e := newSendEnv(t, map[string]string{line: `{"operation":"sendPreview","to":["dana@example.com"],"body":"hi"}`})
	e.m.opts.Interpreter = nil
	e.command(line)
	if e.m.screen != stateInbox || !strings.Contains(e.m.c.errText, "plain language needs the local model") {
		t.Errorf("offline: screen %d error %q", e.m.screen, e.m.c.errText)
	}
	in, srv := nlModel(t, nil)
	srv.Close()
	e.m.opts.Interpreter = in
	e.command(line)
	if e.m.screen != stateInbox || !strings.Contains(e.m.c.errText, "plain language needs the local model") {
		t.Errorf("model down: screen %d error %q", e.m.screen, e.m.c.errText)
	}
	if n := len(e.newMessages()); n != 0 {
		t.Errorf("%d messages written", n)
	}
}

// TestPlainLanguageSendPromptHasNoAddressBook: the model sees only the
// request: no address of the address book, no mail.
func TestPlainLanguageSendPromptHasNoAddressBook(t *testing.T) {
	line := "write to Dana about lunch"
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	eng := drafts.New(st, drafts.Options{Principal: me, Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	in, srv := nlModel(t, map[string]string{line: `{"operation":"sendPreview","to":["Dana"],"subject":"Lunch"}`})
	d := newDriver(t, Options{Store: st, Drafts: eng, Principal: me, Interpreter: in}, 110, 40)
	d.m.c.manualTicks = true
	d.command(line)
	if d.m.screen != stateCompose {
		t.Fatalf("screen %d error %q", d.m.screen, d.m.c.errText)
	}
	for _, c := range srv.ChatCalls() {
		for _, part := range []string{c.System, c.User} {
			if strings.Contains(part, "dana@example.com") || strings.Contains(part, "Lunch tomorrow") {
				t.Fatalf("the prompt holds mail or the address book:\n%s", part)
			}
		}
	}
}

func TestResolveRecipients(t *testing.T) {
	people := []store.Correspondent{
		{Address: model.Address{Name: "Dana", Email: "dana@example.com"}},
		{Address: model.Address{Name: "Bob Builder", Email: "bob@example.com"}},
		{Address: model.Address{Name: "Dana Scully", Email: "dana.scully@fbi.example"}},
	}
	for _, tt := range []struct {
		name, request string
		args          mailops.Args
		to, cc, bcc   string
		notes, ask    string
	}{
		{"typed address", "mail x@y.example please.", mailops.Args{To: []string{"x@y.example"}}, "x@y.example", "", "", "", ""},
		{"typed address, invented name", "mail x@y.example", mailops.Args{To: []string{"The CEO <x@y.example>"}}, "x@y.example", "", "", "", ""},
		{"address book name on a typed address", "mail BOB@example.com", mailops.Args{To: []string{"bob@example.com"}}, "Bob Builder <bob@example.com>", "", "", "", ""},
		{"unique name", "write to bob", mailops.Args{To: []string{"Bob"}}, "Bob Builder <bob@example.com>", "", "", "", ""},
		{"ambiguous name", "write to dana", mailops.Args{To: []string{"Dana"}}, "", "", "", "", "Dana:2"},
		{"spelled-out address of a named person", "write to bob", mailops.Args{To: []string{"bob@example.com"}}, "Bob Builder <bob@example.com>", "", "", "", ""},
		{"address of an unnamed person", "write to bob", mailops.Args{To: []string{"Bob"}, Bcc: []string{"dana@example.com"}}, "Bob Builder <bob@example.com>", "", "", "Bcc: dropped dana@example.com", ""},
		{"invented address", "write to bob", mailops.Args{To: []string{"bob", "eve@evil.example"}}, "Bob Builder <bob@example.com>", "", "", "To: dropped eve@evil.example", ""},
		{"a longer address holds the typed one", "mail rob@example.com.evil", mailops.Args{To: []string{"rob@example.com"}}, "", "", "", "dropped rob@example.com", ""},
		{"invented name", "write to bob", mailops.Args{To: []string{"Bob"}, Cc: []string{"Dana"}}, "Bob Builder <bob@example.com>", "", "", `Cc: dropped "Dana"`, ""},
		{"nobody", "write to zed", mailops.Args{To: []string{"Zed"}}, "", "", "", `no one in your address book matches "Zed"`, ""},
		{"not an address", "write to a@", mailops.Args{To: []string{"a@"}}, "", "", "", `dropped "a@", which is not a mail address`, ""},
		{"once", "write to bob and cc bob@example.com", mailops.Args{To: []string{"bob"}, Cc: []string{"bob@example.com"}}, "Bob Builder <bob@example.com>", "", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := ResolveRecipients(tt.request, tt.args, people)
			got := []string{compose.FormatAddresses(p.Fields[0]), compose.FormatAddresses(p.Fields[1]), compose.FormatAddresses(p.Fields[2])}
			if want := []string{tt.to, tt.cc, tt.bcc}; strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("fields = %q, want %q", got, want)
			}
			notes := strings.Join(p.Notes, "; ")
			if (tt.notes == "") != (notes == "") || !strings.Contains(notes, tt.notes) {
				t.Errorf("notes = %q, want %q", notes, tt.notes)
			}
			var ask []string
			for _, q := range p.Ask {
				ask = append(ask, q.Name+":"+string(rune('0'+len(q.Candidates))))
			}
			if strings.Join(ask, ",") != tt.ask {
				t.Errorf("ask = %v, want %q", ask, tt.ask)
			}
		})
	}
}

// TestSendRequestKeepsAskingInOrder: two ambiguous names are asked one
// after the other, and each choice lands in its own field.
func TestSendRequestKeepsAskingInOrder(t *testing.T) {
	p := RecipientPlan{Ask: []PersonQuestion{
		{Field: rcptTo, Name: "a", Candidates: []store.Correspondent{{Address: model.Address{Email: "a1@x"}}, {Address: model.Address{Email: "a2@x"}}}},
		{Field: rcptCc, Name: "b", Candidates: []store.Correspondent{{Address: model.Address{Email: "b1@x"}}, {Address: model.Address{Email: "b2@x"}}}},
	}}
	pp := &personPicker{req: sendRequest{plan: p}}
	o, cmd := pp.update(keyMsg("down"))
	if o == nil || cmd != nil {
		t.Fatal("moving the cursor ended the question")
	}
	o, cmd = pp.update(keyMsg("enter"))
	if o != nil || cmd == nil {
		t.Fatal("enter did not choose")
	}
	req := cmd().(personChosenMsg).req
	if len(req.plan.Ask) != 1 || req.plan.Ask[0].Name != "b" || compose.FormatAddresses(req.plan.Fields[rcptTo]) != "a2@x" {
		t.Fatalf("after the first choice: %+v", req.plan)
	}
	if len(p.Fields[rcptTo]) != 0 || len(p.Ask) != 2 {
		t.Fatal("choosing changed the picker's own request")
	}
	_, cmd = (&personPicker{req: req}).update(keyMsg("1"))
	req = cmd().(personChosenMsg).req
	if len(req.plan.Ask) != 0 || compose.FormatAddresses(req.plan.Fields[rcptCc]) != "b1@x" {
		t.Fatalf("after the second choice: %+v", req.plan)
	}
}

// TestPlainLanguageSendDoesNotTakeOverCompose: the user opened the
// compose screen (c) while the request was on its way; the late answer
// neither replaces what is being typed nor writes a message.
func TestPlainLanguageSendDoesNotTakeOverCompose(t *testing.T) {
	e := newSendEnv(t, nil)
	step := func(msg tea.Msg) tea.Cmd {
		nm, cmd := e.m.Update(msg)
		e.m = nm.(Model)
		return cmd
	}
	args := mailops.Args{Operation: mailops.SendPreview, To: []string{"bob@example.com"}, Body: "hi"}
	book, ok := runCmd(step(interpretedMsg{line: "mail bob@example.com saying hi", args: args}))
	if !ok {
		t.Fatal("the address book lookup did not finish")
	}
	e.keys("c")
	e.typeText("carol@example.com")
	e.run(step(book))
	if e.m.screen != stateCompose || e.m.c.overlay != nil || e.field(fieldTo) != "carol@example.com" {
		t.Fatalf("the late request took over: screen %d To %q", e.m.screen, e.field(fieldTo))
	}
	if !strings.Contains(e.m.c.note, "was not written") {
		t.Errorf("note %q", e.m.c.note)
	}
	for _, d := range e.newMessages() {
		if d.Body == "hi" {
			t.Fatal("the request wrote a message anyway")
		}
	}
}
