package triage

import (
	"strings"
	"testing"

	"mailsift/model"
)

// TestGreetingByNameTempersLearnedScore checks that the demo receipt (spam
// by the learned score alone without authentication results) is not spam
// once it greets the principal by first name, and still is when the name
// is someone else's or when an independent indicator backs the score.
func TestGreetingByNameTempersLearnedScore(t *testing.T) {
	receipt := demoReceipt(t)
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	base := *receipt
	base.Headers = map[string][]string{}
	if o := Deterministic([]*model.Message{&base}, p); !o.Result.IsSpam {
		t.Fatalf("receipt without authentication: not spam; the test no longer shows the learned score deciding (%v)", o.Signals)
	}
	greeted := base
	greeted.Text = "Hi Alex,\n\n" + base.Body()
	if o := Deterministic([]*model.Message{&greeted}, p); o.Result.IsSpam {
		t.Errorf("receipt greeting Alex by name: is_spam (%v)", o.SpamReasons)
	}
	other := base
	other.Text = "Hi Sam,\n\n" + base.Body()
	if o := Deterministic([]*model.Message{&other}, p); !o.Result.IsSpam {
		t.Error("a greeting to someone else must not vouch for the message")
	}
	backed := greeted
	backed.Headers = map[string][]string{"Received-SPF": {"fail (sender not permitted)"}}
	if o := Deterministic([]*model.Message{&backed}, p); !o.Result.IsSpam {
		t.Error("an SPF failure must still let the learned score count")
	}
}

func TestFirstNameAndGreeting(t *testing.T) {
	for _, tt := range []struct {
		p    model.Address
		want string
	}{
		{model.Address{Name: "Alex Morgan", Email: "x@y.example"}, "Alex"},
		{model.Address{Email: "alex.morgan@northwind.example"}, "alex"},
		{model.Address{Email: "jo@northwind.example"}, ""},
		{model.Address{Email: "me@example.org"}, ""},
		{model.Address{Email: "user42@example.org"}, ""},
	} {
		if got := firstName(tt.p); got != tt.want {
			t.Errorf("firstName(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"Hi Alex,\nplease approve", true},
		{"\n\nBonjour Alex,\n", true},
		{"Alex - quick one", true},
		{"Hallo Alexander,\n", false},
		{"Dear customer,\nAlex told us", false},
		{"", false},
	} {
		if got := greetsByName(tt.text, "Alex"); got != tt.want {
			t.Errorf("greetsByName(%q) = %t, want %t", tt.text, got, tt.want)
		}
	}
}

// TestReservedTLDBrandIsNoLookalike checks that a brand's name under a
// reserved top-level domain (which nobody can register) is not called a
// lookalike, while the brand with extra words or another TLD still is.
func TestReservedTLDBrandIsNoLookalike(t *testing.T) {
	for host, want := range map[string]bool{
		"github.example":                false,
		"accounts.google.example":       false,
		"docusign.test":                 false,
		"github-account-verify.example": true,
		"docusign.tk":                   true,
		"paypa1.example":                true,
		"ovhcloud-renouvellement.com":   true,
		"ovhcloud.com":                  false,
		"ovh.com":                       false,
	} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %t, want %t", host, got, want)
		}
	}
}

// TestDMARCFailIsSpamAndWithALinkPhishing checks that mail its sender's
// domain disowns (DMARC fail, not through a list) is quarantined, and is
// phishing when it points at a link; list mail that breaks DMARC is not
// condemned for it alone.
func TestDMARCFailIsSpamAndWithALinkPhishing(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	msg := func(body string, list bool) *model.Message {
		m := &model.Message{From: model.Address{Name: "Banco", Email: "avisos@banco-avisos.example"},
			To: []model.Address{p}, Subject: "Aviso", Text: body, HasBody: true,
			Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=banco-avisos.example; dmarc=fail header.from=banco-avisos.example"}}}
		if list {
			m.Headers["List-Id"] = []string{"<avisos.lists.example>"}
		}
		return m
	}
	o := Deterministic([]*model.Message{msg("Estimado cliente, su cuenta tiene un aviso.", false)}, p)
	if !o.Result.IsSpam || o.Result.IsPhishing {
		t.Errorf("DMARC fail without a link: spam %t phishing %t, want spam only", o.Result.IsSpam, o.Result.IsPhishing)
	}
	o = Deterministic([]*model.Message{msg("Estimado cliente, acceda aquí: https://banco-avisos.example/desbloqueo", false)}, p)
	if !o.Result.IsSpam || !o.Result.IsPhishing {
		t.Errorf("DMARC fail with a link: spam %t phishing %t, want both", o.Result.IsSpam, o.Result.IsPhishing)
	}
	o = Deterministic([]*model.Message{msg("Weekly digest of the avisos list.", true)}, p)
	if o.Result.IsSpam {
		t.Errorf("list mail breaking DMARC: spam (%v)", o.SpamReasons)
	}
}

// TestCoverage checks the share of known words and that a message the
// model knows almost nothing of is unscorable.
func TestCoverage(t *testing.T) {
	if coverage(0, 0) != 1 || coverage(1, 4) != 0.25 {
		t.Error("coverage")
	}
	an := &analysis{coverage: minCoverage / 2, known: 3}
	if !an.unscorable() {
		t.Error("few known words at low coverage must be unscorable")
	}
	an.known = maxUnscorableKnown
	if an.unscorable() {
		t.Error("many known words must be scorable whatever the coverage")
	}
	an = &analysis{coverage: minCoverage, known: 1}
	if an.unscorable() {
		t.Error("coverage at the minimum is scorable")
	}
}

// TestBucketCuesInOtherLanguages checks the bucket a short thread gets
// from cues outside English: a request, a question, a deadline, an ask
// in the subject, and a calendar cancellation.
func TestBucketCuesInOtherLanguages(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	mk := func(subject, body string) *model.Message {
		return &model.Message{From: model.Address{Name: "Kollegin", Email: "k@partner.example"}, To: []model.Address{p},
			Subject: subject, Text: body, HasBody: true}
	}
	for _, tt := range []struct {
		subject, body, want string
	}{
		{"Zugang zum Cluster", "Hallo,\n\nkönnten Sie mir bitte Zugriff auf das Staging-Cluster geben.\n\nDanke", "actionable"},
		{"ログ保存期間", "アレックスさん\n\nログの保存期間は何日ですか？\n\n伊藤", "actionable"},
		{"Rechnung 2026-1184 - Bitte um Freigabe", "Anbei die Rechnung für Oktober.", "actionable"},
		{"Kassen ohne Verbindung", "Seit 8 Uhr sind alle Kassen offline. Bitte rufen Sie mich heute noch an, es ist dringend.", "urgent"},
		{"Notes from the offsite", "Here are the notes from last week.", "informational"},
		{"Certificat VPN Lyon expire ce soir", "Bonjour Alex,\n\nLe certificat du VPN de Lyon expire.", "urgent"},
		{"Candidate here in 40 min", "The second interviewer is out sick.", "urgent"},
	} {
		o := Deterministic([]*model.Message{mk(tt.subject, tt.body)}, p)
		if o.Result.Category != tt.want || o.Result.IsSpam {
			t.Errorf("%q: %s (spam %t), want %s; signals %v", tt.subject, o.Result.Category, o.Result.IsSpam, tt.want, o.Signals)
		}
	}
	alert := mk("[P1] kafka-prod: 214 under-replicated partitions", "Alert opened by the monitoring rule.")
	alert.Headers = map[string][]string{"Auto-Submitted": {"auto-generated"}}
	if o := Deterministic([]*model.Message{alert}, p); o.Result.Category != "urgent" {
		t.Errorf("P1 alert: %s, want urgent; signals %v", o.Result.Category, o.Signals)
	}
	cal := mk("Annulé : Comité réseau @ ven. 27 nov.", "L'événement a été annulé.")
	cal.Attachments = []model.Attachment{{Filename: "invite.ics", ContentType: "text/calendar"}}
	if o := Deterministic([]*model.Message{cal}, p); o.Result.Category != "informational" || len(o.Result.ActionItems) != 0 {
		t.Errorf("calendar cancellation: %s with %v, want informational without action items", o.Result.Category, o.Result.ActionItems)
	}
	cal.Subject = "Invitation: Comité réseau @ ven. 27 nov."
	if o := Deterministic([]*model.Message{cal}, p); o.Result.Category != "actionable" {
		t.Errorf("calendar invitation: %s, want actionable", o.Result.Category)
	}
}

// TestMailSystemReportTempersLearnedScore checks that a delivery status
// notification (multipart/report) is not condemned by the learned score
// of the message it returns, also when a list carries it, while a From
// of MAILER-DAEMON alone (which spam forges) vouches for nothing.
func TestMailSystemReportTempersLearnedScore(t *testing.T) {
	receipt := demoReceipt(t)
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	forged := *receipt
	forged.From = model.Address{Name: "Mail Delivery System", Email: "MAILER-DAEMON@mx.example.net"}
	forged.Headers = map[string][]string{}
	if o := Deterministic([]*model.Message{&forged}, p); !o.Result.IsSpam {
		t.Fatalf("learned score alone with a MAILER-DAEMON From: not spam; the test no longer shows the score deciding (%v)", o.Signals)
	}
	dsn := forged
	dsn.Headers = map[string][]string{
		"Content-Type": {`multipart/report; report-type=delivery-status; boundary="b1"`},
		"List-Id":      {"Talk <talk.lists.example.org>"},
	}
	o := Deterministic([]*model.Message{&dsn}, p)
	if o.Result.IsSpam {
		t.Errorf("delivery status notification: is_spam (%v)", o.SpamReasons)
	}
	if !hasSignal(o.Signals, SigAutomated) {
		t.Errorf("delivery status notification: no %s signal in %v", SigAutomated, o.Signals)
	}
}

func hasSignal(sigs []Signal, k SignalKind) bool {
	for _, s := range sigs {
		if s.Kind == k {
			return true
		}
	}
	return false
}

// fakeSenders is a Senders over fixed counts: written and read per
// address, and read per list under "list:" and its identifier.
type fakeSenders map[string][2]int

func (f fakeSenders) Familiar(email string) (written, read int) {
	c := f[strings.ToLower(email)]
	return c[0], c[1]
}

func (f fakeSenders) ListRead(id string) int { return f["list:"+id][1] }

// TestFamiliarSenderTempersLearnedScore checks the mailbox's evidence
// about a sender: bulk mail the learned score alone calls spam is kept
// out of quarantine (and lands in Low priority) when the user wrote to
// its sender or read two of their earlier messages, not after one read
// message or when the reads are this thread's own, and an independent
// indicator still condemns it.
func TestFamiliarSenderTempersLearnedScore(t *testing.T) {
	receipt := demoReceipt(t)
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	base := *receipt
	base.Headers = map[string][]string{"List-Unsubscribe": {"<https://lists.mailer.example/u/1>"}}
	from := strings.ToLower(base.From.Email)
	a := NewAnalyzer(nil)
	triage := func(m *model.Message, s Senders) *Outcome {
		o, _ := NewOffline(a).Triage(t.Context(), Input{Messages: []*model.Message{m}, Principal: p, Senders: s})
		return o
	}
	if o := triage(&base, nil); !o.Result.IsSpam {
		t.Fatalf("bulk receipt with nothing known of its sender: not spam; the test no longer shows the learned score deciding (%v)", o.Signals)
	}
	for _, tc := range []struct {
		name          string
		written, read int
		seen          bool // the message itself was read
		want          bool // is_spam
	}{
		{"written to once", 1, 0, false, false},
		{"read two earlier", 0, 2, false, false},
		{"read one earlier", 0, 1, false, true},
		{"the two reads include this message", 0, 2, true, true},
		{"stranger", 0, 0, false, true},
	} {
		m := base
		m.Flags.Seen = tc.seen
		o := triage(&m, fakeSenders{from: {tc.written, tc.read}})
		if o.Result.IsSpam != tc.want {
			t.Errorf("%s: is_spam %t, want %t (%v)", tc.name, o.Result.IsSpam, tc.want, o.Signals)
		}
		if !tc.want {
			if o.Result.Category != "low priority" {
				t.Errorf("%s: category %s, want low priority", tc.name, o.Result.Category)
			}
			if !hasSignal(o.Signals, SigFamiliarSender) {
				t.Errorf("%s: no %s reason in %v", tc.name, SigFamiliarSender, o.Signals)
			}
		}
	}
	backed := base
	backed.Headers = map[string][]string{"Received-SPF": {"fail (sender not permitted)"}}
	if o := triage(&backed, fakeSenders{from: {3, 5}}); !o.Result.IsSpam {
		t.Error("an SPF failure must still let the learned score count for a familiar sender")
	}
	// A list the user reads vouches for its posts, whoever writes them.
	listed := base
	listed.Headers = map[string][]string{"List-Id": {"Deals <deals.lists.mailer.example>"}}
	for _, tc := range []struct {
		read int
		seen bool
		want bool
	}{{2, false, false}, {1, false, true}, {2, true, true}} {
		m := listed
		m.Flags.Seen = tc.seen
		o := triage(&m, fakeSenders{"list:deals.lists.mailer.example": {0, tc.read}})
		if o.Result.IsSpam != tc.want {
			t.Errorf("list read %d times (this one read: %t): is_spam %t, want %t (%v)", tc.read, tc.seen, o.Result.IsSpam, tc.want, o.Signals)
		}
	}
}

// demoReceipt returns the demo mailbox's receipt (thread 14): mail the
// learned score alone calls spam once its authentication results are gone.
func demoReceipt(t *testing.T) *model.Message {
	t.Helper()
	for key, msgs := range demoThreads(t) {
		if strings.HasPrefix(key, "14-") {
			return msgs[0]
		}
	}
	t.Fatal("the demo has no thread 14 (the receipt)")
	return nil
}
