package triage

import (
	"strings"
	"testing"

	"mailsift/model"
)

// TestThankedClosure checks that thanks for something done, with nothing
// asked, closes a thread whose subject was urgent, in the five languages;
// and that thanks beside an ask, a problem that goes on, or a due date
// in the reader's conversation do not.
func TestThankedClosure(t *testing.T) {
	for _, tt := range []categoryCase{
		{"ops@carrier.example", "RE: URGENT - trucks cannot load routes", "Thank you for the quick patch: all 40 trucks left on time this morning.", nil, false, "informational"},
		{"ops@carrier.example", "Re: ASAP: dispatch board blank since 7:00", "Thanks Alex for staying on the call. Everything is back to normal here.", nil, false, "informational"},
		{"ops@carrier.example", "RE: URGENT - trucks cannot load routes", "Thank you for the patch, but the Lyon depot still cannot load routes. Can you check today?", nil, false, "urgent"},
		{"ops@carrier.example", "RE: URGENT - trucks cannot load routes", "Thanks for the patch. It still fails for the Lyon depot.", nil, false, "urgent"},
		{"ops@carrier.example", "RE: URGENT - trucks cannot load routes", "Thanks for the patch! Could you send the incident report by tonight?", nil, false, "urgent"},
		{"e.roux@transport.example", "RE: URGENT - export bloqué", "Bonjour Alex,\n\nJe vous confirme que tout fonctionne. Merci à vous et à l'équipe pour la réactivité.", nil, false, "informational"},
		{"k.weber@spedition.example", "AW: DRINGEND: Tourenplanung steht", "Vielen Dank für die schnelle Hilfe, seit 11 Uhr läuft wieder alles.", nil, false, "informational"},
		{"l.gil@logistica.example", "RE: URGENTE: no podemos planificar rutas", "Muchas gracias por la ayuda, ya funciona todo. Por favor, transmite nuestro agradecimiento al equipo.", nil, false, "informational"},
		{"sato@unyu.example", "Re: 【至急】APIエラーについて", "迅速にご対応いただき、誠にありがとうございました。午後の便は予定どおり出発しました。", nil, false, "informational"},
		{"sato@unyu.example", "Re: 【至急】APIエラーについて", "ご対応ありがとうございます。まだ一部のルートでエラーが出ています。本日中にご確認いただけますでしょうか。", nil, false, "urgent"},
	} {
		checkCategory(t, tt)
	}
	// In a conversation the reader is in, thanks beside a due date keep
	// the date theirs.
	msgs := []*model.Message{
		{MessageID: "a@x", From: model.Address{Email: "chloe@uni.example"}, To: []model.Address{demoPrincipal}, Subject: "Reference letter",
			Text: "Would you write me a reference letter?", HasBody: true},
		{MessageID: "b@x", From: demoPrincipal, To: []model.Address{{Email: "chloe@uni.example"}}, Subject: "Re: Reference letter",
			Text: "Happy to.", HasBody: true},
		{MessageID: "c@x", From: model.Address{Email: "chloe@uni.example"}, To: []model.Address{demoPrincipal}, Subject: "Re: Reference letter",
			Text: "Thank you so much! The forms were sent to you; the earliest one is due December 5.", HasBody: true},
	}
	if o := Deterministic(msgs, demoPrincipal); o.Result.Category != "actionable" {
		t.Errorf("thanks with a due date in the reader's conversation: %s, want actionable; signals %v", o.Result.Category, o.Signals)
	}
}

// TestNoticeAsksNothing checks that a notice's "please be aware" and a
// courtesy ("please pass on our thanks") ask nothing, while a request
// beside them still does.
func TestNoticeAsksNothing(t *testing.T) {
	for _, tt := range []categoryCase{
		{"tanaka@northwind.example", "リリース延期のお知らせ", "来週予定していたリリースは12/1に延期となりました。以上、ご承知おきください。", nil, false, "informational"},
		{"tanaka@northwind.example", "リリース延期のお知らせ", "来週予定していたリリースは12/1に延期となりました。影響範囲をご確認ください。", nil, false, "actionable"},
		{"soumu@northwind.example", "オフィス移転のお知らせ", "12月14日にオフィスを移転します。当日は入館できません。ご理解とご協力をお願いいたします。", nil, false, "informational"},
		{"soumu@northwind.example", "オフィス移転のお知らせ", "12月14日にオフィスを移転します。私物は11日までに段ボールへ移してください。", nil, false, "actionable"},
		{"lena@northwind.example", "Office move", "Please note that the office moves to the 4th floor on Monday.", nil, false, "informational"},
		{"lena@northwind.example", "Office move", "Please pack your desk before Friday.", nil, false, "actionable"},
		{"r.castillo@iberia.example", "Gracias", "El sistema volvió a las 9:40. Por favor, transmite nuestro agradecimiento al equipo.", nil, false, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestVocativeWithoutComma checks that a name opening a sentence without
// its comma still turns to the reader before an ask ("Alex we need a
// decision"), and does not when it is the sentence's subject.
func TestVocativeWithoutComma(t *testing.T) {
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"Alex we need a decision on failing over", true},
		{"Alex can you take the bridge", true},
		{"Alex please approve it", true},
		{"Alex said we need a decision", false},
		{"@Alex, could you add a short section to the doc?", true},
		{"Alexandra can you take it", false},
	} {
		if got := vocative(tt.sentence, "Alex"); got != tt.want {
			t.Errorf("vocative(%q) = %v, want %v", tt.sentence, got, tt.want)
		}
	}
	// In Cc, an ask turned to the reader by name about a live problem is
	// theirs now.
	m := []*model.Message{{MessageID: "inc@x", From: model.Address{Email: "sam@northwind.example"},
		To: []model.Address{{Email: "platform@northwind.example"}}, Cc: []model.Address{demoPrincipal},
		Subject: "Re: INC-77 geocoding degraded", Text: "Rollback did not help. Alex we need a decision on failing over to the secondary provider.", HasBody: true}}
	if o := Deterministic(m, demoPrincipal); o.Result.Category != "urgent" {
		t.Errorf("named ask in Cc about a live problem: %s, want urgent; signals %v", o.Result.Category, o.Signals)
	}
}

// TestOpenAsksCarried checks that a follow-up asking nothing itself leaves
// its sender's earlier ask open (in four languages), and that a follow-up
// taking the ask back, thanking for it, or a reply of the reader in
// between closes it.
func TestOpenAsksCarried(t *testing.T) {
	colleague := model.Address{Email: "florian@northwind.example"}
	thread := func(first, second string, replied bool) []*model.Message {
		msgs := []*model.Message{{MessageID: "q@x", From: colleague, To: []model.Address{demoPrincipal}, Subject: "Topic design",
			Text: first, HasBody: true}}
		if replied {
			msgs = append(msgs, &model.Message{MessageID: "r@x", From: demoPrincipal, To: []model.Address{colleague},
				Subject: "Re: Topic design", Text: "Looks good to me, approved.", HasBody: true})
		}
		return append(msgs, &model.Message{MessageID: "f@x", From: colleague, To: []model.Address{demoPrincipal},
			Subject: "Re: Topic design", Text: second, HasBody: true})
	}
	for _, tt := range []struct {
		first, second string
		replied       bool
		want          string
	}{
		{"Could you review the topic layout before Thursday's sync?", "Small addendum: Jana already commented on the tenant prefix.", false, "actionable"},
		{"Kannst du dir das Konzept bis Donnerstag ansehen?", "Kleiner Nachtrag: Jana hat schon kommentiert.", false, "actionable"},
		{"¿Puedes revisar el borrador antes del jueves?", "Lo retraso a la semana que viene, así que tus comentarios me valen hasta el miércoles.", false, "actionable"},
		{"Pourrais-tu relire le document avant jeudi ?", "Petite précision : Jana a déjà commenté la partie sur les préfixes.", false, "actionable"},
		{"Could you review the topic layout before Thursday's sync?", "Never mind, Jana reviewed it already.", false, "informational"},
		{"Could you review the topic layout before Thursday's sync?", "Thanks for the review, merged it this morning.", false, "informational"},
		{"Could you review the topic layout before Thursday's sync?", "Small addendum: Jana already commented on the tenant prefix.", true, "informational"},
	} {
		if o := Deterministic(thread(tt.first, tt.second, tt.replied), demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q then %q (replied %v): %s, want %s; signals %v", tt.first, tt.second, tt.replied, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestCodeHostReason checks that a code host's notice sent because the
// reader's review was requested, they were mentioned or assigned (GitHub's
// Cc address and X-GitHub-Reason, GitLab's X-GitLab-NotificationReason)
// is theirs to act on, one about their own pull request (reason author)
// is worth knowing, while one they only watch is read later.
func TestCodeHostReason(t *testing.T) {
	list := map[string][]string{"List-Id": {"northwind/infra <infra.northwind.github.com>"}, "List-Unsubscribe": {"<mailto:unsub@reply.github.com>"},
		"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=github.com; dmarc=pass header.from=github.com"}}
	with := func(k, v string) map[string][]string {
		h := map[string][]string{k: {v}}
		for hk, hv := range list {
			h[hk] = hv
		}
		return h
	}
	for _, tt := range []struct {
		cc   string
		hdr  map[string][]string
		want string
	}{
		{"review_requested@noreply.github.com", list, "actionable"},
		{"mention@noreply.github.com", list, "actionable"},
		{"subscribed@noreply.github.com", list, "low priority"},
		{"", with("X-Github-Reason", "assign"), "actionable"},
		{"", with("X-Github-Reason", "subscribed"), "low priority"},
		{"", with("X-Gitlab-Notificationreason", "review_requested"), "actionable"},
		// a notice about the reader's own pull request is worth knowing
		{"author@noreply.github.com", list, "informational"},
		{"", with("X-Github-Reason", "author"), "informational"},
	} {
		m := &model.Message{MessageID: "pr@x", From: model.Address{Name: "Tariq", Email: "notifications@github.com"}, To: []model.Address{demoPrincipal},
			Subject: "[northwind/infra] Bump grpc-go to 1.68 (PR #2314)", Text: "This bumps grpc-go and drops the custom keepalive settings.\n\nYou can view, comment on, or merge this pull request online.",
			HasBody: true, Headers: tt.hdr}
		if tt.cc != "" {
			m.Cc = []model.Address{{Email: tt.cc}}
		}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("cc %q headers %v: %s, want %s; signals %v", tt.cc, tt.hdr, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestColleaguesPressingReport checks that a colleague's report of a live
// problem to the reader is urgent even without an ask ("critical",
// "expires tonight", or calm), and stays informational when the problem
// is over or looked back on.
func TestColleaguesPressingReport(t *testing.T) {
	for _, tt := range []categoryCase{
		{"noah@northwind.example", "[FIRING:1] CertificateExpiringSoon api.eu (critical)", "The cert expires at 22:47 tonight; after that every integration fails the TLS handshake.", nil, false, "urgent"},
		{"noah@northwind.example", "Checkout outage in Chile", "Critical: payments fail for every Chilean customer since 14:10.", nil, false, "urgent"},
		{"noah@northwind.example", "Some Chilean payments failing", "Payments fail for some Chilean customers; the provider is on it.", nil, false, "urgent"},
		{"noah@northwind.example", "Postmortem: Chilean payments failing on Nov 12", "The write-up is in the wiki.", nil, false, "informational"},
		{"noah@northwind.example", "[Resolved] Checkout outage in Chile", "Critical incident closed, payments flow again since 15:02.", nil, false, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestAsksOfEveryone checks an ask of everyone the reader is among ("we
// need from each of you"), a formal Spanish or French ask ("le rogamos
// que…", "nous vous prions de…") and a reminder naming the date a task
// is due, beside notices that ask nothing.
func TestAsksOfEveryone(t *testing.T) {
	hr := map[string][]string{"List-Id": {"managers <managers.northwind.example>"}}
	for _, tt := range []categoryCase{
		{"people@northwind.example", "H2 calibration: manager inputs", "Calibration is on December 8. Before then we need from each of you, in Lattice, a rating for every report. Deadline: Friday December 4.", hr, false, "actionable"},
		{"people@northwind.example", "H2 calibration: how it works", "Calibration is on December 8. Ratings are discussed per team and shared in January.", hr, false, "informational"},
		{"compras@cliente.example", "Cuestionario de proveedores 2027", "Estimado Sr. Morgan:\n\nLe rogamos que complete las secciones 4 y 5 y nos lo devuelva antes del 9 de diciembre.", nil, false, "actionable"},
		{"achats@client.example", "Questionnaire fournisseurs 2027", "Bonjour Monsieur Morgan,\n\nNous vous prions de compléter les sections 4 et 5 avant le 9 décembre.", nil, false, "actionable"},
		{"learning@northwind.example", "Reminder: security awareness training due Dec 15 (2 of 3 modules left)", "You still have 2 of 3 modules to complete.", nil, true, "actionable"},
		{"learning@northwind.example", "Security awareness training: completed", "You completed all 3 modules.", nil, true, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestNoticeFixes checks four readings: a German urgency word only as a
// word ("Es eilt", not the "eilt" of "verteilt"), a sign-in notice's
// "if this wasn't you, … right away" as its conditional (an alert that
// presses elsewhere still does), a published postmortem as no failure
// notice, and a lockout as a live problem.
func TestNoticeFixes(t *testing.T) {
	if w, ok := containsWordStart("das update wird in wellen verteilt", foreignUrgent); ok {
		t.Errorf("verteilt: urgent word %q", w)
	}
	if _, ok := containsWordStart("es eilt, bitte heute", foreignUrgent); !ok {
		t.Error("es eilt: no urgent word")
	}
	if _, ok := containsWordStart("【至急】ご確認ください", foreignUrgent); !ok {
		t.Error("至急: no urgent word")
	}
	team := map[string][]string{"List-Id": {"engineering <eng.northwind.example>"}}
	for _, tt := range []categoryCase{
		{"kundenservice@box.example", "Firmware-Update - Terminbestätigung erbeten", "Sehr geehrter Herr Morgan,\n\ndas Update wird in Wellen verteilt. Bitte bestätigen Sie uns bis zum 30. November eines der beiden Fenster.", nil, false, "actionable"},
		{"noreply@okta.com", "New sign-on notification", "Your account was used to sign in from Chrome on macOS. If this wasn't you, contact security@northwind.example right away.", nil, true, "informational"},
		{"noreply@okta.com", "Your account was locked", "Your account was locked after 10 failed attempts. Reset your password right away.", nil, true, "urgent"},
		{"chloe@northwind.example", "Postmortem published: 2026-11-19 geocoder outage (SEV-2)", "The postmortem is in the wiki; the action items have owners.", team, false, "informational"},
		{"dave@carrier.example", "All dispatchers locked out after the SSO change", "Can you look at it now? 140 trucks are waiting.", nil, false, "urgent"},
	} {
		checkCategory(t, tt)
	}
}

// TestMailboxFullLure checks that a "your mailbox is full" lure under the
// provider's name from another domain is phishing in German, French and
// Spanish, and that the provider's own quota notice is not.
func TestMailboxFullLure(t *testing.T) {
	for _, tt := range []struct {
		name, from, subject, body string
		phish                     bool
	}{
		{"Microsoft 365 Administrator", "postmaster@m365-kontoservice.example", "Ihr Postfach ist zu 99 % voll", "Sehr geehrter Benutzer,\n\nIhr Postfach hat die Speichergrenze erreicht. Bestätigen Sie Ihr Konto innerhalb von 12 Stunden, sonst wird Ihr Postfach automatisch deaktiviert.\n\nJetzt Speicher erweitern: https://m365-kontoservice.example/owa/upgrade", true},
		{"Outlook Web Access", "admin@owa-support-mail.example", "Votre boîte aux lettres est pleine", "Bonjour,\n\nVotre boîte aux lettres est pleine. Validez votre compte ici sous 24 heures : https://owa-support-mail.example/quota", true},
		{"IT Service Desk", "it-servicedesk@northwind-mailsupport.example", "[Action Required] Mailbox storage full - 18 incoming messages on hold", "Your mailbox storage is full. Verify your account to release the messages: https://northwind-mailsupport.example/release", true},
		{"Microsoft Outlook", "soporte@correo-webmail.example", "Su buzón está lleno", "Estimado usuario:\n\nSu buzón está lleno y será desactivado. Amplíe su cuota aquí: https://correo-webmail.example/cuota", true},
		{"Google", "no-reply@google.com", "Your Google storage is 90% full", "You've used 90% of your 15 GB. Manage your storage in Google One.", false},
	} {
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, tt.subject, tt.body, nil, tt.phish)
	}
}

// TestStatusAndAnnouncements checks a status page's "resolved" mailing
// (worth knowing, like the incident), and an announcement to a team
// alias whose subject tells everyone what to do within the day (urgent)
// beside one that names a later day (actionable).
func TestStatusAndAnnouncements(t *testing.T) {
	status := map[string][]string{"List-Id": {"status <status.postmarkapp.example>"}, "List-Unsubscribe": {"<https://status.postmarkapp.example/unsubscribe>"}}
	for _, tt := range []categoryCase{
		{"noreply@status.postmarkapp.example", "[Postmark] Resolved: Delayed outbound processing", "This incident has been resolved.", status, true, "informational"},
		{"noreply@status.postmarkapp.example", "[Postmark] Weekly product news", "Three new features this week.", status, true, "low priority"},
		{"feedback@slack.com", "Slack: 37 new messages in Northwind", "You have 37 unread messages from #platform-chatter, #random and 4 others.", nil, false, "low priority"},
	} {
		checkCategory(t, tt)
	}
	for _, tt := range []struct{ subject, want string }{
		{"Rotate staging database credentials by 18:00 today", "urgent"},
		{"Rotate staging database credentials by Friday, December 4", "actionable"},
	} {
		m := &model.Message{MessageID: "sec@x", From: model.Address{Name: "Security", Email: "security@northwind.example"},
			To: []model.Address{{Email: "platform-leads@northwind.example"}}, Subject: tt.subject, HasBody: true,
			Text: "Hi all,\n\nThe staging superuser password was in the leaked file. Each owning team must rotate the credentials listed below and confirm in the incident channel by 18:00 UTC."}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestColleaguesNoteOnACustomersAsk checks that a colleague's note on a
// customer's questions to the reader leaves them open (actionable), also
// in German, while the same note on questions the reader was only
// copied on, or after the reader answered, does not; and that "it would
// help me a lot to have…" asks.
func TestColleaguesNoteOnACustomersAsk(t *testing.T) {
	customer := model.Address{Name: "Owen", Email: "owen@parcelpoint.example"}
	nina := model.Address{Name: "Nina", Email: "nina@northwind.example"}
	for _, tt := range []struct {
		ask, note    string
		toReader     bool
		readerAnswer bool
		want         string
	}{
		{"Is the limit per key or per account? Is there a way to get a temporary raise?", "Alex - context: they are in renewal talks. Whenever you get to it.", true, false, "actionable"},
		{"Unterstützen Sie SP-initiated Login? Ist SCIM-Provisioning möglich?", "Kurze Info: die haben SCIM im Vertrag. Ich kann beim Termin dabei sein.", true, false, "actionable"},
		{"Is the limit per key or per account? Is there a way to get a temporary raise?", "Alex - context: they are in renewal talks. Whenever you get to it.", false, false, "informational"},
		{"Is the limit per key or per account? Is there a way to get a temporary raise?", "Alex - context: they are in renewal talks. Whenever you get to it.", true, true, "informational"},
	} {
		first := &model.Message{MessageID: "c@x", From: customer, Subject: "Batch geocoding limits", Text: tt.ask, HasBody: true,
			To: []model.Address{nina}, Cc: []model.Address{demoPrincipal}}
		if tt.toReader {
			first.To, first.Cc = []model.Address{demoPrincipal}, []model.Address{nina}
		}
		msgs := []*model.Message{first}
		if tt.readerAnswer {
			msgs = append(msgs, &model.Message{MessageID: "a@x", From: demoPrincipal, To: []model.Address{customer}, Subject: "Re: Batch geocoding limits",
				Text: "Per account; yes, we can raise it for the backfill.", HasBody: true})
		}
		msgs = append(msgs, &model.Message{MessageID: "n@x", From: nina, To: []model.Address{demoPrincipal}, Subject: "Re: Batch geocoding limits",
			Text: tt.note, HasBody: true})
		if o := Deterministic(msgs, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q (to reader %v, answered %v): %s, want %s; signals %v", tt.note, tt.toReader, tt.readerAnswer, o.Result.Category, tt.want, o.Signals)
		}
	}
	checkCategory(t, categoryCase{"hiroshi@northwind.example", "Nov 12 + Nov 23", "For the ops review next Tuesday it would help me a lot to have a single page that puts both incidents side by side.", nil, false, "actionable"})
}

// TestAskNamingTheReader checks an ask naming the reader in the third
// person ("I'd like Alex to look at section 5"), also under a list reply
// that asks nothing, beside a sentence that only mentions them.
func TestAskNamingTheReader(t *testing.T) {
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"i'd particularly like alex to look at section 5", true},
		{"we need alex to sign off on the budget", true},
		{"me gustaría que alex revise la sección 5", true},
		{"alex and i talked about it last week", false},
		{"i'd like alexandra to look at it", false},
	} {
		if got := asksOfNamed(tt.sentence, "Alex"); got != tt.want {
			t.Errorf("asksOfNamed(%q) = %v, want %v", tt.sentence, got, tt.want)
		}
	}
	team := []model.Address{{Email: "platform@northwind.example"}}
	for _, tt := range []struct{ proposal, want string }{
		{"I've written up the proposal. I'd particularly like Alex to look at section 5, the cost part.", "actionable"},
		{"I've written up the proposal. I'd particularly like Leon to look at section 4, the runbook part.", "informational"},
	} {
		msgs := []*model.Message{
			{MessageID: "p@x", From: model.Address{Email: "aisha@northwind.example"}, To: team, Subject: "RFC-031: active/active", Text: tt.proposal, HasBody: true},
			{MessageID: "r@x", From: model.Address{Email: "leon@northwind.example"}, To: team, Subject: "Re: RFC-031: active/active", Text: "Thanks Aisha, will read it over the weekend. One early thought on section 4.", HasBody: true},
		}
		if o := Deterministic(msgs, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.proposal, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestConditionalAsksAndMonitors checks asks written as the condition of
// what the writer will do ("si me las pasas el lunes, me da tiempo"), a
// subject that needs the reader's sign-off in German or their scorecard
// before an hour of today, and a monitor's triggered alert through list
// headers (urgent, unlike a status page's incident notice).
func TestConditionalAsksAndMonitors(t *testing.T) {
	list := map[string][]string{"List-Id": {"alerts <alerts.example>"}, "List-Unsubscribe": {"<https://monitor.example/unsub>"}}
	for _, tt := range []categoryCase{
		{"carlos@northwind.example", "15 preguntas técnicas del RFP", "Hola Alex:\n\nLas tienes en la hoja. La entrega es el miércoles 2; si me las pasas el lunes 30, me da tiempo a maquetar la respuesta.", nil, false, "actionable"},
		{"antoine@northwind.example", "Questionnaire sécurité - 28 questions", "Salut Alex,\n\nLeur date limite est le 4 décembre ; si je peux l'avoir d'ici le 2, c'est parfait.", nil, false, "actionable"},
		{"leo@northwind.example", "Postmortem INC-1163 (Redis failover job loss) - draft for review", "The draft is in the wiki.", nil, false, "actionable"},
		{"leo@northwind.example", "Postmortem INC-1163 (Redis failover job loss) - published", "The final version is in the wiki.", nil, false, "informational"},
		{"lena@northwind.example", "Hotfix 4.18.1 – brauche dein Approval", "Der Fix ist getestet, die Pipeline wartet.", nil, false, "actionable"},
		{"olivia@northwind.example", "Aylin Demir — your scorecard before the 17:30 debrief", "Yours is the only one missing in Greenhouse.", nil, false, "urgent"},
		{"notifications@github.com", "[northwind/driver-sync] Dependabot alert: High severity vulnerability in golang.org/x/net", "Review the alert.", nil, true, "actionable"},
		{"notifications@github.com", "[northwind/route-api] Critical severity Dependabot alert: jackson-databind", "Actively exploited. Review the alert.", nil, true, "urgent"},
		{"alert@monitor.example", "[Triggered on {service:optimizer}] optimizer error rate above 5%", "The monitor triggered at 14:02.", map[string][]string{"Precedence": {"bulk"}}, false, "urgent"},
		{"noreply@status.example", "Elevated error rate on the EU API", "We are investigating elevated error rates.", list, true, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestOwnRunsAndWarnings checks that a failed run on the reader's own
// branch ("alex/…") is theirs to fix and a failed production deploy they
// triggered is urgent, while a failed run on someone else's branch stays
// low priority; and that the organisation's own authenticated warning
// about phishing, which quotes the lures, is not phishing.
func TestOwnRunsAndWarnings(t *testing.T) {
	repo := map[string][]string{"List-Id": {"northwind/dispatch-api <dispatch-api.northwind.github.com>"}, "X-Github-Reason": {"ci_activity"},
		"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=github.com; dmarc=pass header.from=github.com"}}
	for _, tt := range []struct{ subject, want string }{
		{"[northwind/dispatch-api] Run failed: CI - alex/eta-cache-ttl (9be31c0)", "actionable"},
		{"[northwind/dispatch-api] Run failed: Deploy production - main (a3f9c21)", "urgent"},
		{"[northwind/dispatch-api] Run failed: CI - sokafor/eta-config (77ab120)", "low priority"},
		{"[northwind/dispatch-api] Run failed: CI - alexandra/retry (77ab121)", "low priority"},
	} {
		m := &model.Message{MessageID: tt.subject, From: model.Address{Name: "GitHub", Email: "notifications@github.com"},
			To: []model.Address{{Email: "dispatch-api@noreply.github.com"}}, Subject: tt.subject, Text: "CI: Some jobs were not successful", HasBody: true, Headers: repo}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
	auth := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass; dkim=pass header.d=northwind.example; dmarc=pass header.from=northwind.example"}}
	for _, tt := range []struct {
		subject, body string
		phish         bool
	}{
		{"Heads-up: phishing emails imitating Okta", "We see a wave of phishing emails saying your password expires today and asking you to verify your account, or vendors sending updated bank details. Report them with the button.", false},
		{"Your password expires today", "Your password expires today. Verify your account now: https://okta-northwind-login.example/verify", true},
	} {
		checkPhishing(t, model.Address{Name: "IT Security", Email: "it-security@northwind.example"}, tt.subject, tt.body, auth, tt.phish)
	}
}

// TestDeadlinesInContext checks deadlines read in context: "by Thursday
// end of day" is another day's end, an hour inside a quoted title is no
// deadline, a cut-off of the day makes an ask elsewhere urgent, a
// root-cause report looks back on an outage, "within 24 hours of the
// interview" counts from an event, not from now, and a booking's
// confirmation names the hours of a stay, not a deadline.
func TestDeadlinesInContext(t *testing.T) {
	for _, tt := range []categoryCase{
		{"priya@northwind.example", "FY27 budget", "Can you fill in the Dispatch tab? I need it by Thursday end of day.", nil, false, "actionable"},
		{"priya@northwind.example", "FY27 budget", "Can you fill in the Dispatch tab? I need it by end of day.", nil, false, "urgent"},
		{"speakers@summit.example", "Your talk has been accepted", "Dear Alex Morgan,\n\nyour talk \"Replanning 180 trucks before 6 a.m.: what we learned\" was accepted. Please confirm by 2 December via the portal.", nil, false, "actionable"},
		{"servicedesk@corp.example", "Approval requested: CHG7731 revert optimizer parameters", "Change CHG7731 is waiting for your approval. Changes in tonight's window need all approvals before the CAB cut-off at 18:00.", nil, true, "urgent"},
		{"m.brandt@spedition.example", "Schriftlicher Ursachenbericht zum Telematikausfall 21.–24.11.", "Sehr geehrter Herr Morgan,\n\nkönnen Sie uns den schriftlichen Bericht bis Freitag senden?", nil, false, "actionable"},
		{"no-reply@hiring.example", "Interview confirmed: Lucas Moreau - Tue Dec 1, 10:00", "Your interview is on Tuesday. Please submit your scorecard within 24 hours of the interview.", nil, true, "informational"},
		{"jonas@northwind.example", "Dispatch export", "Can you send the corrected export within 24 hours?", nil, false, "urgent"},
		{"trips@travel.example", "Booking confirmed: Garden Hotel, Dec 13 - Dec 18", "Check-in from 15:00, check-out until 11:00. Please bring your passport.", nil, true, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestLongMailAndStatedNeeds checks that the ask closing a long message
// is found (and that a long message without one asks nothing), and that
// "I'd need to know by December 1" asks.
func TestLongMailAndStatedNeeds(t *testing.T) {
	long := "Hi Alex,\n\n" + strings.Repeat("I looked at three options for storing dispatch state and measured each against the Osaka burst.\n\n", 25) +
		"The one thing I need from you: sign-off on option B before I start on it Monday the 30th.\n\nTomás"
	checkCategory(t, categoryCase{"tomas@northwind.example", "Dispatch state: where I landed", long, nil, false, "actionable"})
	checkCategory(t, categoryCase{"tomas@northwind.example", "Dispatch state: where I landed", strings.Repeat("I looked at three options for storing dispatch state.\n\n", 50), nil, false, "informational"})
	checkCategory(t, categoryCase{"ryan@vendor.example", "Renewal proposal", "Hi Alex,\n\nTo get the paperwork through procurement in time, I'd need to know by December 1 which option you'd like.", map[string][]string{"Authentication-Results": {"mx; dkim=pass header.d=vendor.example; dmarc=pass header.from=vendor.example"}}, false, "actionable"})
}

// TestOpenAskInTheSummary checks that when the latest message asks
// nothing, the summary quotes the ask it leaves open, which is also the
// thread's first action item.
func TestOpenAskInTheSummary(t *testing.T) {
	owen := model.Address{Name: "Owen Brooks", Email: "owen@parcelpoint.example"}
	nina := model.Address{Name: "Nina Alvarez", Email: "nina@northwind.example"}
	msgs := []*model.Message{
		{MessageID: "c@x", From: owen, To: []model.Address{demoPrincipal}, Subject: "Batch geocoding limits", HasBody: true,
			Text: "Hi Alex,\n\nWe plan to move our nightly cleanup to your batch endpoint. Could you tell us whether the limit is per key or per account?\n\nOwen"},
		{MessageID: "n@x", From: nina, To: []model.Address{demoPrincipal}, Subject: "Re: Batch geocoding limits", HasBody: true,
			Text: "Alex - context: they are in renewal talks for a 3-year deal. Whenever you get to it.\n\nNina"},
	}
	o := Deterministic(msgs, demoPrincipal)
	if !strings.Contains(o.Result.Summary, "per key or per account") {
		t.Errorf("summary %q does not quote the open ask", o.Result.Summary)
	}
	if len(o.Result.ActionItems) == 0 || !strings.Contains(o.Result.ActionItems[0].Description, "per key or per account") {
		t.Errorf("action items %+v: the first is not the open ask", o.Result.ActionItems)
	}
}

// TestUnpaidInvoiceLure checks that an unpaid invoice behind a sign-in
// with the reader's password is phishing in French, German and Spanish,
// while a supplier's reminder of an unpaid invoice is not.
func TestUnpaidInvoiceLure(t *testing.T) {
	for _, tt := range []struct {
		subject, body string
		phish         bool
	}{
		{"Facture impayée n° 4471 - relance", "Bonjour,\n\nVotre facture impayée est disponible sur notre portail. Pour accéder au document, veuillez vous identifier avec votre adresse e-mail professionnelle et votre mot de passe : https://portail-factures.example/doc", true},
		{"Offene Rechnung 4471 - Mahnung", "Guten Tag,\n\nIhre offene Rechnung liegt im Portal. Bitte melden Sie sich mit Ihrem Passwort an, um das Dokument zu öffnen: https://rechnungsportal.example/doc. Anmeldedaten: Ihre E-Mail-Adresse.", true},
		{"Factura impagada 4471", "Hola,\n\nsu factura impagada está disponible. Inicie sesión con su usuario y clave para verla: https://portal-facturas.example/doc", true},
		{"Facture impayée n° 4471 - relance", "Bonjour,\n\nSauf erreur de notre part, la facture 4471 du 12 octobre reste impayée. Merci de procéder au règlement sous huitaine.", false},
	} {
		checkPhishing(t, model.Address{Name: "Comptabilité", Email: "compta@fournisseur.example"}, tt.subject, tt.body, nil, tt.phish)
	}
}

// checkPhishing triages one message from from to the principal offline
// and fails unless its phishing verdict is want.
func checkPhishing(t *testing.T, from model.Address, subject, body string, hdr map[string][]string, want bool) {
	t.Helper()
	m := &model.Message{MessageID: subject + "@x", From: from, To: []model.Address{demoPrincipal}, Subject: subject, Text: body, HasBody: true, Headers: hdr}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != want {
		t.Errorf("%q: phishing %v, want %v; signals %v", subject, o.Result.IsPhishing, want, o.Signals)
	}
}
