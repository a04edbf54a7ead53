package triage

import (
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/triage/internal/ascii"
)

// TestWhatIsAnAsk checks which sentences ask the reader something, in
// the five languages: indirect questions do, a sentence saying no answer
// or action is wanted does not, nor a Japanese request already met, nor
// a Spanish "puede" that only says what the reader can do.
func TestWhatIsAnAsk(t *testing.T) {
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"Please review the attached draft.", true},
		{"Please do not reply to this message.", false},
		{"No action is required on your part, please keep this for your records.", false},
		{"I was wondering whether the limit can be raised for our plan.", true},
		{"We wanted to know if the export can run twice a day.", true},
		{"Bitte antworten Sie nicht auf diese E-Mail.", false},
		{"Ich wollte fragen, ob der Termin am Donnerstag noch steht.", true},
		{"Merci de ne pas répondre à ce message automatique.", false},
		{"Je voudrais savoir si le devis est encore valable.", true},
		{"Por favor, no responda a este correo.", false},
		{"Puede consultar su factura en su área de cliente.", false},
		{"Nos gustaría saber si el plan incluye soporte en español.", true},
		{"資料をご確認ください。", true},
		{"先日ご承認いただいた請求書のお支払いが完了しました。", false},
		{"ご確認いただきありがとうございます。", false},
		{"特にご対応いただくことはありません。", false},
		{"Your call, I'm waiting on you.", true},
		{"It's your call whether we roll back.", true},
		{"Thanks for your call yesterday.", false},
		{"I'd like sign-off from you before the design review, so comments by Friday would be ideal.", true},
		{"Nous aurions besoin du bon de commande signé au plus tard le 15 décembre.", true},
		{"Une réponse d'ici la semaine prochaine nous conviendrait parfaitement.", true},
		{"Eine Rückmeldung bis Mittwoch wäre ideal.", true},
		{"Me gustaría pedirte que fueras mi mentor.", true},
		{"Nous avons besoin de temps pour migrer.", false},
		{"La politique d'accès demande ta validation pour tout accès production.", true},
		{"Für den Zugang fehlt nur noch deine Freigabe.", true},
		{"Solo falta tu visto bueno para cerrar el pedido.", true},
		{"Les trois autres membres du jury ont déjà saisi leur avis, il ne manque que le tien.", true},
		{"Si tu peux saisir ton retour avant jeudi, nous pourrons décider vendredi.", true},
		{"Te recordamos que siguen pendientes los dos justificantes de tu nota de gastos.", true},
		{"Für die Abrechnung fehlt nur noch dein Beleg vom 14. Oktober.", true},
		{"If you can send the slides by Friday, I'll merge them into the deck.", true},
		{"The other reviewers are done; only yours is missing.", true},
		{"Il ne pleut plus à Lyon depuis ce matin.", false},
		{"Please keep it to yourselves until Monday.", false},
		{"If this was you, there's nothing else you need to do.", false},
		{"Please do not share this email, link, or access code with others.", false},
		{"Approve or deny this request: https://hr.example/requests/40217", true},
		{"時間帯指定のタイムゾーンは配送先の現地時間で指定するという理解でよろしいでしょうか。", true},
		{"Bitte das bis Montag vertraulich behandeln.", false},
	} {
		low := ascii.LowerString(tt.sentence)
		if got := isRequest(low) || hasForeignRequest(tt.sentence); got != tt.want {
			t.Errorf("%q: ask %t, want %t", tt.sentence, got, tt.want)
		}
	}
}

// TestVocative checks when a sentence turns to the principal by name.
func TestVocative(t *testing.T) {
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"Alex, can you approve the extra spend?", true},
		{"alex: the key policy needs an owner.", true},
		{"Hi Alex, quick one about the rota.", true},
		{"Hola Alex: ¿puedes revisar el contrato?", true},
		{"Alex さん", true},
		{"Alex — one more thing.", true},
		{"As Alex said, the rollout waits.", false},
		{"Alexander, can you look?", false},
		{"Sofia, can you approve the extra spend?", false},
		{"I can't recreate it, you're the only admin there, Alex.", true},
		{"Could you take this one, Alex?", true},
		{"The plan was written by Alex.", false},
		{"Thanks to Sofia and Alex", false},
	} {
		if got := vocative(tt.sentence, "Alex"); got != tt.want {
			t.Errorf("vocative(%q) = %t, want %t", tt.sentence, got, tt.want)
		}
	}
}

// TestAskedByNameInGroupMail checks that mail to a group, a list or with
// the principal in Cc is actionable when its ask turns to the principal
// by name or says the task is theirs, and not when it turns to someone
// else.
func TestAskedByNameInGroupMail(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	team := model.Address{Name: "Platform", Email: "platform@northwind.example"}
	mk := func(body string, list bool) *model.Message {
		m := &model.Message{From: model.Address{Name: "Kim", Email: "kim@northwind.example"}, To: []model.Address{team},
			Cc: []model.Address{p}, Subject: "rota", Text: body, HasBody: true}
		if list {
			m.Headers = map[string][]string{"List-Id": {"<platform.lists.northwind.example>"}}
		}
		return m
	}
	for _, tt := range []struct {
		body string
		list bool
		want string
	}{
		{"Numbers are in the sheet. Alex, can you approve the extra spend?", false, "actionable"},
		{"Alex, the old bucket is in your account.\n\nCan someone on your side add the role?", true, "actionable"},
		{"Hallo zusammen,\n\nAlex, könntest du bitte die Schicht am 31. eintragen?", false, "actionable"},
		{"Numbers are in the sheet. Sofia, can you approve the extra spend?", false, "informational"},
		{"Numbers are in the sheet. Sofia, can you approve the extra spend?", true, "low priority"},
		{"@kim requested your review on: gateway#12 Drain connections.", true, "actionable"},
	} {
		o := Deterministic([]*model.Message{mk(tt.body, tt.list)}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q (list %t): %s, want %s; signals %v", tt.body, tt.list, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestHourDeadline checks deadlines written as an hour of the day, which
// fall within the day unless another day is named.
func TestHourDeadline(t *testing.T) {
	for _, tt := range []struct {
		sentence, want string
	}{
		{"Can you send me a go/no-go by 14:00?", "by 14:00"},
		{"Please confirm before 5 pm.", "before 5 pm"},
		{"Wir brauchen bis 10 Uhr eine Antwort.", "bis 10 Uhr"},
		{"Pouvez-vous nous répondre avant 14h ?", "avant 14h"},
		{"¿Puede confirmarlo antes de las 12:30?", "antes de las 12:30"},
		{"15時までにご判断ください。", "15時まで"},
		{"Please confirm by 14:00 on Friday.", ""},
		{"Bitte bis Freitag 10 Uhr melden.", ""},
		{"Merci de répondre avant le 3 décembre à 14h.", ""},
		{"The job ran until 03:00 last night.", ""},
		{"The backup finished by 03:00 yesterday.", ""},
		{"Version 2.14 is out.", ""},
		{"Before 3 if at all possible.", "Before 3"},
		{"Can you call me before 4?", "before 4"},
		{"Sag mir bitte bis 11 Bescheid, damit ich antworten kann.", "bis 11 Bescheid"},
		{"Error rates rose by 5.", ""},
		{"We were 20 people before 2019.", ""},
		{"Bitte bis 11. Dezember melden.", ""},
		{"vor, jeweils von 02:00 bis 05:00 Uhr.", ""},
		{"Die Wartung läuft von 2 Uhr bis 5 Uhr.", ""},
		{"Donnerstag, 10:00 bis 13:00 Uhr (MEZ), Raum Spree.", ""},
		{"会議は10時から12時までです。", ""},
		{"Bitte schick mir die Zahlen bis 13:00 Uhr.", "bis 13:00 Uhr"},
		{"I need them by 3 so Farah can check them before it ships.", "need them by 3"},
		{"We need it by 11am for the review.", "need it by 11am"},
		{"Bump the replicas by 2 so we have headroom.", ""},
		{"Bitte bis 10 Uhr melden, wir sind von 8 bis 9 im Termin.", "bis 10 Uhr"},
		{"Before 3 teams joined, the room was empty.", ""},
	} {
		if got := hourDeadline(tt.sentence, ascii.LowerString(tt.sentence), time.Time{}); got != tt.want {
			t.Errorf("hourDeadline(%q) = %q, want %q", tt.sentence, got, tt.want)
		}
	}
}

// TestNearDeadlinesAndNeeds checks the bucket of short mails to the
// principal whose deadline is an hour of the day, or whose ask is a need
// stated with a deadline or of the reader.
func TestNearDeadlinesAndNeeds(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, body, want string
	}{
		{"Release go/no-go", "The train leaves at 15:00. Can you give me a go or no-go by 14:00?", "urgent"},
		{"Filialen", "Guten Morgen,\n\nwir brauchen bis 10 Uhr eine verbindliche Aussage zum Stand.", "urgent"},
		{"Bericht", "Hallo,\n\nich brauche heute noch von dir die Zahlen für den Bericht.", "urgent"},
		{"Rapport", "Bonjour Alex,\n\nj'ai besoin de ta part du chiffre exact pour le rapport.", "actionable"},
		{"Informe", "Hola,\n\nnecesitamos antes de las 12 una respuesta sobre el pedido.", "urgent"},
		{"Release notes", "We need more tests in general. The release went out at 14:00.", "informational"},
		{"Planning", "Can you send me the plan by 14:00 on Friday?", "actionable"},
	} {
		m := &model.Message{From: model.Address{Name: "Kim", Email: "kim@partner.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: tt.body, HasBody: true}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want || o.Result.IsSpam {
			t.Errorf("%q: %s (spam %t), want %s; signals %v", tt.body, o.Result.Category, o.Result.IsSpam, tt.want, o.Signals)
		}
	}
}

// TestPaymentDiversionIsPhishing checks that a message asking that a
// payment go to changed bank details is phishing, in the five languages,
// and that bank words without a change are not.
func TestPaymentDiversionIsPhishing(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, body string
		want          bool
	}{
		{"Invoice 4471", "Hello Alex,\n\nPlease note our bank details have changed. Kindly pay invoice 4471 to the account below.\n\nIBAN: DE00 1234", true},
		{"Invoice 4471", "Alex,\n\nthe supplier changed banks, please ask payables to send this month's payment to their new account today.", true},
		{"Invoice 4471", "Hallo Alex,\n\nbitte überweisen Sie die Rechnung auf unsere neue Bankverbindung unten.", true},
		{"Invoice 4471", "Bonjour Alex,\n\nmerci de régler la facture sur notre nouveau compte, voici nos nouvelles coordonnées bancaires.", true},
		{"Invoice 4471", "Hola Alex,\n\npor favor realice el pago a nuestra nueva cuenta bancaria indicada abajo.", true},
		{"Invoice 4471", "Alexさん\n\n振込先の変更がありましたので、今月分は新しい口座にお振込みください。", true},
		{"Invoice 4471", "Hello Alex,\n\nplease find invoice 4471 attached; payment to the account on the invoice within 30 days.", false},
		{"Accounts", "Hi Alex,\n\nyou can open a new account for the test environment in the portal.", false},
		{"Accounts", "Hi Alex,\n\nplease move your files to the new account before Friday.", false},
		{"Club news", "Hi Alex,\n\nI opened a new bank account for the club, the treasurer has the details.", false},
		{"Contract - banking update", "Alex,\n\nthe vendor let me know their bank changed, and the November payment will bounce. New details below, please send them to AP today.\n\nIBAN: GB00 0000", true},
	} {
		m := &model.Message{From: model.Address{Name: "Accounts", Email: "ar@vendor.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: tt.body, HasBody: true}
		o := Deterministic([]*model.Message{m}, p)
		if o.Result.IsPhishing != tt.want {
			t.Errorf("%q: phishing %t, want %t; signals %v", tt.body, o.Result.IsPhishing, tt.want, o.Signals)
		}
	}
}

// TestPoliteAsks checks conditional and polite asks in the languages.
func TestPoliteAsks(t *testing.T) {
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"If you could approve it on your side, that would be great.", true},
		{"I would like someone from your team to call me this week.", true},
		{"We'd like one of you to join the review.", true},
		{"I would like to thank the team for the launch.", false},
		{"If we do not hear from you by Friday, the plan renews.", true},
		{"Great to hear from you after all these years.", false},
		{"Ich möchte Sie bitten, den Vertrag zu prüfen.", true},
		{"Si vous pouviez valider la demande aujourd'hui, ce serait parfait.", true},
		{"Me gustaría que revisaras el presupuesto.", true},
		{"Wenn Sie Fragen haben, stehe ich gern zur Verfügung.", false},
	} {
		low := ascii.LowerString(tt.sentence)
		if got := isRequest(low) || hasForeignRequest(tt.sentence); got != tt.want {
			t.Errorf("%q: ask %t, want %t", tt.sentence, got, tt.want)
		}
	}
}

// TestTaskFallingDueInTheSubject checks that an automated reminder whose
// subject says a task of the reader's falls due is actionable.
func TestTaskFallingDueInTheSubject(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, want string
	}{
		{"Reminder: submit your timesheet for week 47", "actionable"},
		{"Your annual compliance training is due in 3 days", "actionable"},
		{"Erinnerung: Reisekostenabrechnung ist fällig", "actionable"},
		{"Rappel : évaluation annuelle à compléter", "actionable"},
		{"Recordatorio: su informe de gastos vence el viernes", "actionable"},
		{"【リマインド】勤務表の提出について", "actionable"},
		{"Payment received for invoice 8812", "informational"},
		{"Your parcel is due to arrive on Monday", "informational"},
	} {
		m := &model.Message{From: model.Address{Name: "HR Portal", Email: "no-reply@hr-portal.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: "Hi Alex,\n\nOpen the portal: https://hr-portal.example/tasks", HasBody: true,
			Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want || o.Result.IsSpam {
			t.Errorf("%q: %s (spam %t), want %s; signals %v", tt.subject, o.Result.Category, o.Result.IsSpam, tt.want, o.Signals)
		}
	}
}

// TestPersonsReplyToBulkMailIsNotBulk checks that a person's reply to a
// robot or list message is judged as the conversation it is, while a
// thread whose latest message is list mail stays bulk.
func TestPersonsReplyToBulkMailIsNotBulk(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	robot := &model.Message{From: model.Address{Name: "CI", Email: "ci@git.northwind.example"}, To: []model.Address{p},
		Subject: "Pipeline failed for release/1.4", Text: "Pipeline #812 has failed.\n\nFailed jobs: e2e", HasBody: true,
		Headers: map[string][]string{"List-Id": {"<payments.git.northwind.example>"}, "Auto-Submitted": {"auto-generated"}}}
	reply := &model.Message{From: model.Address{Name: "Lucia", Email: "lucia@northwind.example"}, To: []model.Address{p},
		Subject: "Re: Pipeline failed for release/1.4", Text: "Alex, this is your change. I need a go/no-go from you by 14:00.", HasBody: true}
	if o := Deterministic([]*model.Message{robot, reply}, p); o.Result.Category != "urgent" {
		t.Errorf("a person's reply to a pipeline notice: %s, want urgent; signals %v", o.Result.Category, o.Signals)
	}
	list := func(from, body string) *model.Message {
		return &model.Message{From: model.Address{Name: from, Email: from + "@northwind.example"},
			To: []model.Address{{Email: "infra@lists.northwind.example"}}, Subject: "[infra] ARM runners", Text: body, HasBody: true,
			Headers: map[string][]string{"List-Id": {"<infra.lists.northwind.example>"}}}
	}
	if o := Deterministic([]*model.Message{list("tom", "Anyone tried the ARM runners?"), list("kim", "Yes, works well. Can you share the config?")}, p); o.Result.Category != "low priority" {
		t.Errorf("a list discussion not addressed to the principal: %s, want low priority; signals %v", o.Result.Category, o.Signals)
	}
}

// TestBrokenSinceToday checks the calm way to write an incident: something
// has not worked since earlier the same day.
func TestBrokenSinceToday(t *testing.T) {
	for _, tt := range []struct {
		sentence string
		want     bool
	}{
		{"Since about 16:20 roughly 40% of card payments are declined.", true},
		{"Since this morning the VPN in Lyon is down.", true},
		{"Since about 14:40 UTC, file uploads fail for EU customers with a 413 from the edge.", true},
		{"Seit heute 6 Uhr können unsere Filialen keine Kartenzahlungen mehr abwickeln.", true},
		{"Depuis ce matin, nos clientes ne reçoivent plus les SMS.", true},
		{"La oficina está sin conexión desde las 8:45.", true},
		{"今朝から社内Wikiにつながらない状態です。", true},
		{"16:50頃から大阪リージョンのジョブキューが処理を停止しています。", true},
		{"Since 2019 we have used the token bucket.", false},
		{"Since this morning the dashboards show the new colours.", false},
		{"Payments have been declined since Monday.", false},
		{"Seit ca. 14:05 Uhr bekommen wir auf /v1/orders/bulk nur noch HTTP 502 zurück.", true},
		{"Since 15:10 the checkout API answers 503 to every second request.", true},
		{"Seit 14 Uhr ist die neue Version im Store verfügbar.", false},
	} {
		if got := brokenSinceToday(tt.sentence, ascii.LowerString(tt.sentence)) != ""; got != tt.want {
			t.Errorf("brokenSinceToday(%q) = %t, want %t", tt.sentence, got, tt.want)
		}
	}
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	m := &model.Message{From: model.Address{Name: "Kofi", Email: "kofi@northwind.example"}, To: []model.Address{p},
		Subject: "card payments in NL", HasBody: true,
		Text: "Since about 16:20 roughly 40% of card payments are declined.\n\nI can switch to the backup acquirer. Please say yes or no."}
	if o := Deterministic([]*model.Message{m}, p); o.Result.Category != "urgent" {
		t.Errorf("a disruption since earlier today with an ask: %s, want urgent; signals %v", o.Result.Category, o.Signals)
	}
}

// TestTodayAloneIsNoUrgency checks that "today" presses only as the time
// of an ask: a question beside a remark about today is actionable.
func TestTodayAloneIsNoUrgency(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body, want string
	}{
		{"Hi Alex,\n\nSorry to bother you, Priya is out today. Should I keep the token bucket or switch to a sliding window?", "actionable"},
		{"Hi Alex,\n\nCan you send me the numbers today?", "urgent"},
		{"Hi Alex,\n\nOur auditors are here today; we need the complete export before we close the books.", "urgent"},
		{"Hola Alex:\n\nHoy estoy fuera de la oficina. ¿Prefieres la opción A o la B?", "actionable"},
	} {
		m := &model.Message{From: model.Address{Name: "Yuki", Email: "yuki@northwind.example"}, To: []model.Address{p},
			Subject: "question", Text: tt.body, HasBody: true}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.body, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestListFailureNoticeNamesWhoseItIs checks that a failure notice through
// a list (a repository's notifications) asks the principal for action only
// when it names them, while a failure notice sent to them alone always does.
func TestListFailureNoticeNamesWhoseItIs(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	mk := func(body string, list bool) *model.Message {
		m := &model.Message{From: model.Address{Name: "CI", Email: "ci@ci.example"}, Subject: "Run failed: tests - main (5d0e9b1)",
			Text: body, HasBody: true, Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}
		if list {
			m.Headers["List-Id"] = []string{"<gateway.ci.example>"}
		}
		return m
	}
	for _, tt := range []struct {
		body string
		list bool
		want string
	}{
		{"Run failed for tests (main)\n\nTriggered by: alex-morgan\nFailed job: lint", true, "actionable"},
		{"Pipeline failed.\n\nCommit author: Alex Morgan", true, "actionable"},
		{"Run failed for tests (feature/retry)\n\nTriggered by: henrik-aas\nFailed job: unit", true, "low priority"},
		{"Renewal of your domain failed: the card was declined.", false, "actionable"},
	} {
		o := Deterministic([]*model.Message{mk(tt.body, tt.list)}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q (list %t): %s, want %s; signals %v", tt.body, tt.list, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestDigestIsLowPriority checks that an automated digest of updates is
// read later, unless it asks the principal something.
func TestDigestIsLowPriority(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, body, want string
	}{
		{"[JIRA] Daily digest: 17 updates in PAY", "17 issues were updated yesterday.", "low priority"},
		{"Wöchentliche Zusammenfassung Ihres Teams", "12 Aufgaben wurden erledigt.", "low priority"},
		{"Récapitulatif hebdomadaire de vos projets", "5 tâches terminées cette semaine.", "low priority"},
		{"Resumen semanal de actividad", "Se cerraron 8 incidencias.", "low priority"},
		{"Weekly summary", "Please approve the two pending requests.", "actionable"},
		{"Build report for main", "All 214 tests passed.", "informational"},
	} {
		m := &model.Message{From: model.Address{Name: "Tracker", Email: "tracker@tracker.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: tt.body, HasBody: true, Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestOwnOrganisationAnnouncement checks that an announcement of the
// principal's own organisation to a list is informational, while list
// discussions, digests, "passed" notices and other domains' lists are low
// priority.
func TestOwnOrganisationAnnouncement(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		from, subject, body, want string
	}{
		{"platform-announce@lists.northwind.example", "[platform-announce] Postgres 16 now default", "From today new clusters run Postgres 16.", "informational"},
		{"incidents@northwind.example", "Postmortem published: INC-2291", "The postmortem has been reviewed and published.", "informational"},
		{"comms@northwind.example", "Neue Büros in Lyon ab Januar", "Die Agentur zieht am 11. Januar um.", "informational"},
		{"kim@northwind.example", "Re: [infra] ARM runners", "We moved two repos last month.", "low priority"},
		{"ci@git.northwind.example", "Pipeline #88190 has passed for main", "Pipeline has passed!", "low priority"},
		{"tracker@northwind.example", "Your weekly digest: 23 issues updated", "23 issues were updated.", "low priority"},
		{"news@shop.example", "Our winter collection is here", "Discover the new collection.", "low priority"},
		{"office@northwind.example", "Third floor closed on December 5", "The third floor is closed for works on December 5. Please work from the fourth floor or from home that day.", "informational"},
		{"it@northwind.example", "Wartung VPN-Gateway am Samstag", "Am Samstag ist das VPN von 22 bis 2 Uhr nicht erreichbar. Fragen? Bitte melden Sie sich beim Servicedesk.", "informational"},
		{"finance@northwind.example", "2027 budget template", "The 2027 budget template is in the shared drive. Please fill in your team's tab by Wednesday, December 2.", "actionable"},
		{"lead@northwind.example", "Rota for December", "The rota is in the wiki. Sofia, can you take the week of the 14th?", "low priority"},
	} {
		m := &model.Message{From: model.Address{Email: tt.from}, To: []model.Address{{Email: "engineering@northwind.example"}},
			Subject: tt.subject, Text: tt.body, HasBody: true, Headers: map[string][]string{"List-Id": {"<list.northwind.example>"}}}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%s %q: %s, want %s; signals %v", tt.from, tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestClosingWithinADay checks that something closing, ending or expiring
// on the weekday the message was sent or the next one is urgent with an
// ask, and only actionable when it is further away.
func TestClosingWithinADay(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	thu := time.Date(2026, 11, 19, 16, 5, 0, 0, time.UTC) // a Thursday
	mon := time.Date(2026, 11, 16, 16, 5, 0, 0, time.UTC)
	for _, tt := range []struct {
		body string
		sent time.Time
		want string
	}{
		{"Hi Alex,\n\nThe cancellation window closes this Friday, 20 November. If we do not hear from you by then, the contract renews.", thu, "urgent"},
		{"Hi Alex,\n\nThe cancellation window closes this Friday, 27 November. If we do not hear from you by then, the contract renews.", thu, "actionable"},
		{"Hi Alex,\n\nThe cancellation window closes this Friday. If we do not hear from you by then, the contract renews.", mon, "actionable"},
		{"Hallo Alex,\n\ndie Angebotsfrist endet Freitag. Bitte geben Sie uns bis dahin Bescheid.", thu, "urgent"},
		{"Hola Alex:\n\nla oferta vence el viernes. Por favor, confírmenos si la acepta.", thu, "urgent"},
		{"Bonjour Alex,\n\nl'inscription se termine vendredi. Merci de confirmer votre participation.", thu, "urgent"},
	} {
		m := &model.Message{From: model.Address{Name: "Nora", Email: "nora@vendor.example"}, To: []model.Address{p},
			Subject: "Your contract", Text: tt.body, HasBody: true, Date: tt.sent}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q sent %s: %s, want %s; signals %v", tt.body, tt.sent.Weekday(), o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestExpiresWithinTwoDaysInTheSubject checks that a subject saying
// something expires within two days makes mail to the principal urgent.
func TestExpiresWithinTwoDaysInTheSubject(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, want string
	}{
		{"Certificate for api.example.com expires in 2 days", "urgent"},
		{"Ihr Zertifikat läuft in 2 Tagen ab", "urgent"},
		{"Votre certificat expire dans 1 jour", "urgent"},
		{"Su dominio caduca en 2 días", "urgent"},
		{"Certificate for api.example.com expires in 30 days", "informational"},
	} {
		m := &model.Message{From: model.Address{Name: "Monitor", Email: "certwatch@monitor.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: "Host: api.example.com:443\nIssuer: Example CA", HasBody: true,
			Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestQuotesAndAccessRequestsAwaitADecision checks that a quote or an
// access request sent to the principal, or a decision said to be theirs,
// is actionable.
func TestQuotesAndAccessRequestsAwaitADecision(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, body, want string
	}{
		{"Angebot Wartungsvertrag 2027", "Guten Tag,\n\nanbei unser Angebot für den Wartungsvertrag. Es gilt bis zum 15. Dezember.", "actionable"},
		{"Devis n° 2291 – migration", "Bonjour Alex,\n\nveuillez trouver ci-joint notre devis pour la migration.", "actionable"},
		{"Presupuesto renovación de licencias", "Hola,\n\nadjunto el presupuesto para 2027.", "actionable"},
		{"Quotation for the rack upgrade", "Hello,\n\nattached is our quotation for the rack upgrade.", "actionable"},
		{"Access request: staging cluster", "Hi Alex,\n\nI'm joining the payments team on Monday.", "actionable"},
		{"Préproduction", "Bonjour Alex,\n\nd'après la procédure, c'est à toi de valider la demande dans l'outil.", "actionable"},
		{"Rollout", "Hi Alex,\n\nper the runbook it is up to you to sign off the rollout.", "actionable"},
		{"Notes from the offsite", "Hello,\n\nthe notes from last week are in the wiki.", "informational"},
	} {
		m := &model.Message{From: model.Address{Name: "Thomas", Email: "t@partner.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: tt.body, HasBody: true}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want || o.Result.IsSpam {
			t.Errorf("%q: %s (spam %t), want %s; signals %v", tt.subject, o.Result.Category, o.Result.IsSpam, tt.want, o.Signals)
		}
	}
}

// TestStatusNoticeIsInformational checks that a provider's automatic
// notice of an incident or maintenance sent through a list is
// informational, and a newsletter about incidents stays low priority.
func TestStatusNoticeIsInformational(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject string
		auto    bool
		want    string
	}{
		{"[Resolved] Increased error rates in eu-west-1", true, "informational"},
		{"Scheduled maintenance: database cluster, 2 Dec 02:00 UTC", true, "informational"},
		{"Störung behoben: Anmeldung", true, "informational"},
		{"Incidencia en la API de pagos", true, "informational"},
		{"【障害】管理画面にログインできない事象について", true, "informational"},
		{"Five lessons from our incident reviews", false, "low priority"},
		{"Pipeline #88190 has passed for main", true, "low priority"},
	} {
		m := &model.Message{From: model.Address{Name: "Status", Email: "status@provider.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: "Details on the status page.", HasBody: true,
			Headers: map[string][]string{"List-Unsubscribe": {"<https://status.provider.example/unsubscribe>"}}}
		if tt.auto {
			m.Headers["Auto-Submitted"] = []string{"auto-generated"}
		}
		o := Deterministic([]*model.Message{m}, p)
		if string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestSubjectQuestion checks that a person's question written as the
// subject asks the principal, while a reply's subject (which repeats the
// question answered) and a service's subject do not.
func TestSubjectQuestion(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, body, from, want string
	}{
		{"¿Serías mi mentor el próximo semestre?", "Se abre el programa interno de mentoría y he pensado en ti.", "lucia@northwind.example", "actionable"},
		{"Can you cover the Friday on-call?", "Sam is out and the rota has a gap.", "sam@northwind.example", "actionable"},
		{"Re: who owns the invoice renderer?", "It is the billing team's; Dana leads it.", "sara@northwind.example", "informational"},
		{"Ready for your trip?", "Your booking is confirmed. Check in opens 24 hours before departure.", "noreply@trains.example", "informational"},
	} {
		m := &model.Message{From: model.Address{Email: tt.from}, To: []model.Address{p}, Subject: tt.subject, Text: tt.body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestNoReplyAddressInstructions checks that what a message from a
// service's no-reply address asks ("if this wasn't you, reset your
// password") is its instructions: the notice is informational.
func TestNoReplyAddressInstructions(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	m := &model.Message{From: model.Address{Email: "account-security-noreply@accountprotection.example"}, To: []model.Address{p},
		Subject: "Das Kennwort für Ihr Konto wurde geändert", HasBody: true,
		Text: "Das Kennwort für Ihr Konto wurde am 23.11. geändert. Wenn Sie das nicht waren, setzen Sie bitte Ihr Kennwort zurück."}
	if o := Deterministic([]*model.Message{m}, p); o.Result.Category != "informational" || len(o.Result.ActionItems) != 0 {
		t.Errorf("a no-reply notice: %s with %d action items, want informational with none; signals %v", o.Result.Category, len(o.Result.ActionItems), o.Signals)
	}
}

// TestSaidNotUrgent checks that an urgency word said not to apply ("Rien
// d'urgent, mais…", "no rush", "eilt nicht", "no es urgente") does not
// press: the ask stays actionable.
func TestSaidNotUrgent(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body, want string
	}{
		{"Salut Alex,\n\nPeux-tu approuver la demande ACC-3310 ? Rien d'urgent, mais ce serait bien avant son arrivée.", "actionable"},
		{"Hi Alex,\n\nCan you approve the access request? No rush, it is not urgent.", "actionable"},
		{"Hallo Alex,\n\nkannst du den Zugang freigeben? Das ist nicht dringend.", "actionable"},
		{"Hola Alex:\n\n¿Puedes aprobar el acceso? No es urgente.", "actionable"},
		{"Hi Alex,\n\nCan you approve the access request? It is urgent.", "urgent"},
	} {
		m := &model.Message{From: model.Address{Name: "Julien", Email: "julien@northwind.example"}, To: []model.Address{p},
			Subject: "access request", Text: tt.body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.body, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestFreeMailNamingYourOrganisation checks that a free-mail address
// presenting itself as the principal's organisation (in its address or
// its name) and asking for gift cards is phishing, while the same ask from
// a free-mail address that does not, and a colleague's own address, are not.
func TestFreeMailNamingYourOrganisation(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	body := "Are you available? I need you to buy six gift cards for a client today, I will pay you back."
	for _, tt := range []struct {
		from  model.Address
		phish bool
	}{
		{model.Address{Name: "Farah Nadeem", Email: "farah.nadeem.northwind@gmail.com"}, true},
		{model.Address{Name: "Farah Nadeem (Northwind)", Email: "farah.nadeem1984@gmail.com"}, true},
		{model.Address{Name: "Farah Nadeem", Email: "farah.nadeem1984@gmail.com"}, false},
	} {
		m := &model.Message{From: tt.from, To: []model.Address{p}, ReplyTo: []model.Address{{Email: "farah.n@outlook.example"}},
			Subject: "Are you available?", Text: body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); o.Result.IsPhishing != tt.phish {
			t.Errorf("%s: phishing %t, want %t; signals %v", tt.from, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// TestSigningServiceReplyTo checks that a Reply-To elsewhere on mail a
// service sends automatically and authenticates as itself (an e-signature
// request pointing replies at the person it writes for) is no spam
// indicator, while the same mail without the authentication is one.
func TestSigningServiceReplyTo(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		auth string
		spam bool
	}{
		{"mx.northwind.example; spf=pass smtp.mailfrom=sign.example; dkim=pass header.d=sign.example; dmarc=pass header.from=sign.example", false},
		{"", true},
	} {
		h := map[string][]string{"Auto-Submitted": {"auto-generated"}}
		if tt.auth != "" {
			h["Authentication-Results"] = []string{tt.auth}
		}
		m := &model.Message{From: model.Address{Name: "Dana via Sign", Email: "dse@sign.example"}, To: []model.Address{p},
			ReplyTo: []model.Address{{Email: "dana@meridian.example"}}, Headers: h, HasBody: true,
			Subject: "Please sign: mutual NDA", Text: "Dana sent you a document to review and sign. Click here to review the document."}
		if o := Deterministic([]*model.Message{m}, p); o.Result.IsSpam != tt.spam {
			t.Errorf("auth %q: spam %t, want %t; signals %v", tt.auth, o.Result.IsSpam, tt.spam, o.Signals)
		}
	}
}

// TestConfirmationAddressInstructions checks that what a service's
// confirmation address asks ("Bitte halten Sie Ihren Ausweis bereit") is
// its instructions, and that such an address vouches for nothing else.
func TestConfirmationAddressInstructions(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	m := &model.Message{From: model.Address{Name: "DB", Email: "buchungsbestaetigung@bahn.example"}, To: []model.Address{p},
		Subject: "Ihre Buchung: Berlin - Hamburg am 30.11.", HasBody: true,
		Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=bahn.example; dmarc=pass header.from=bahn.example"}},
		Text:    "Ihre Fahrkarte ist gebucht. Bitte halten Sie bei der Kontrolle Ihren Ausweis bereit."}
	if o := Deterministic([]*model.Message{m}, p); o.Result.Category != "informational" {
		t.Errorf("a booking confirmation: %s, want informational; signals %v", o.Result.Category, o.Signals)
	}
	for _, tt := range []struct {
		email string
		want  bool
	}{
		{"buchungsbestaetigung@bahn.example", true},
		{"booking-confirmation@hotel.example", true},
		{"orders@shop.example", true},
		{"jane@shop.example", false},
	} {
		if got := confirmationAddress(tt.email); got != tt.want {
			t.Errorf("confirmationAddress(%q) = %t, want %t", tt.email, got, tt.want)
		}
		if notifierAddress(tt.email) && tt.email == "orders@shop.example" {
			t.Errorf("%s became a notifier address: it would vouch against the spam score", tt.email)
		}
	}
}

// TestGiftCardCodesArePhishing checks that asking the reader to buy gift
// cards and pass on their codes is phishing on its own, in the five
// languages, while a shop's gift card on a receipt is not.
func TestGiftCardCodesArePhishing(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body  string
		phish bool
	}{
		{"I need you to pick up 8 Apple gift cards at $200 each, scratch the back and email me photos of the codes.", true},
		{"Kannst du bitte 5 Geschenkkarten kaufen und mir die Codes schicken? Ich erstatte es heute.", true},
		{"Peux-tu acheter 6 cartes cadeaux et m'envoyer les codes ? Je te rembourse ce soir.", true},
		{"¿Puedes comprar 4 tarjetas regalo y enviarme los códigos? Te lo devuelvo hoy.", true},
		{"ギフトカードを5枚購入して、裏面のコードを写真で送ってください。", true},
		{"Thank you for your order. Your gift card balance is $25.00 and can be used at checkout.", false},
	} {
		m := &model.Message{From: model.Address{Name: "Dan", Email: "dan.okoro.office@freemail.example"}, To: []model.Address{p},
			Subject: "Quick favour", Text: tt.body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); o.Result.IsPhishing != tt.phish {
			t.Errorf("%q: phishing %t, want %t; signals %v", tt.body, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// TestDMARCFailWithALinkIsPhishingWhenItImpersonates checks that mail
// failing its own domain's DMARC with a link is phishing when it presents
// itself as a brand, an account or the principal's organisation, and only
// spam when it is a scammer's own offer.
func TestDMARCFailWithALinkIsPhishingWhenItImpersonates(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		name, from, subject string
		phish               bool
	}{
		{"PayPal Service", "service@pp-notices.example", "Your payment is on hold", true},
		{"IT Helpdesk", "it@northwind.example", "Mailbox quota", true},
		{"Health Deals", "offers@slim-direct.example", "Lose 15 lbs before the holidays", false},
		{"Quantum Yield", "invest@qyc-returns.example", "Your 4.2% weekly returns are waiting", false},
		{"Quantum Yield Capital", "invest@quantumyield-ai.example", "Alex, your AI trading account is ready (+3.2% daily)", false},
		{"Agencia Tributaria", "notificaciones@agenciatributaria-devolucion.example", "Aviso: tiene una devolución pendiente", true},
	} {
		d := tt.from[strings.LastIndexByte(tt.from, '@')+1:]
		m := &model.Message{From: model.Address{Name: tt.name, Email: tt.from}, To: []model.Address{p}, Subject: tt.subject,
			Text: "See the details here: https://" + d + "/go", HasBody: true,
			Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=" + d + "; dmarc=fail header.from=" + d}}}
		o := Deterministic([]*model.Message{m}, p)
		if !o.Result.IsSpam || o.Result.IsPhishing != tt.phish {
			t.Errorf("%s <%s> %q: spam %t phishing %t, want spam and phishing %t; signals %v", tt.name, tt.from, tt.subject, o.Result.IsSpam, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// TestTasksWaitingInTheSubject checks that a tool's subject counting the
// reader's tasks ("You have 4 manager reviews to write") asks, while one
// counting what happened does not.
func TestTasksWaitingInTheSubject(t *testing.T) {
	for _, tt := range []struct {
		subject, want string
	}{
		{"You have 4 manager reviews to write for H2 2026", "actionable"},
		{"You have 2 expense reports to approve", "actionable"},
		{"You have 3 new followers", "informational"},
	} {
		m := &model.Message{From: model.Address{Email: "notifications@reviews.example"}, To: []model.Address{demoPrincipal},
			Subject: tt.subject, Text: "Open the app to see them.", HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestDueDateInAConversation checks that in a thread the principal wrote
// in, a due date the other side names is actionable, and that without
// the principal's part it is only informational.
func TestDueDateInAConversation(t *testing.T) {
	them := model.Address{Name: "Chloe", Email: "chloe@university.example"}
	first := &model.Message{From: them, To: []model.Address{demoPrincipal}, Subject: "Reference letter", HasBody: true,
		Text: "Would you write me a reference letter for my applications?"}
	mine := &model.Message{From: demoPrincipal, To: []model.Address{them}, Subject: "Re: Reference letter", HasBody: true,
		Text: "Happy to. Send me the list of schools."}
	last := &model.Message{From: them, To: []model.Address{demoPrincipal}, Subject: "Re: Reference letter", HasBody: true,
		Text: "Thank you! The list is attached. The earliest one, ETH, is due December 5."}
	if o := Deterministic([]*model.Message{first, mine, last}, demoPrincipal); o.Result.Category != "actionable" {
		t.Errorf("a due date in a conversation: %s, want actionable; signals %v", o.Result.Category, o.Signals)
	}
	if o := Deterministic([]*model.Message{last}, demoPrincipal); o.Result.Category != "informational" {
		t.Errorf("a due date alone: %s, want informational; signals %v", o.Result.Category, o.Signals)
	}
}

// TestAvailabilityOpenerInYourOrganisationsName checks that "are you at
// your desk?" from a free-mail address presenting itself as the
// principal's organisation is phishing (the opening of payment fraud),
// while the same question from a colleague's own address is not.
func TestAvailabilityOpenerInYourOrganisationsName(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		from  string
		phish bool
	}{
		{"sarah.chen.northwind@gmail.com", true},
		{"sarah.chen@northwind.example", false},
	} {
		m := &model.Message{From: model.Address{Name: "Sarah Chen", Email: tt.from}, To: []model.Address{p},
			Subject: "Are you at your desk?", Text: "Are you at your desk? I need a quick favour, reply when you see this.", HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); o.Result.IsPhishing != tt.phish {
			t.Errorf("%s: phishing %t, want %t; signals %v", tt.from, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// TestIncidentAskOfTheDayInCc checks that with the principal in Cc, an
// ask with a deadline of the day about a live problem is urgent ("Ich
// brauche bis 10 Uhr eine Einschätzung"), and without the deadline it is
// not.
func TestIncidentAskOfTheDayInCc(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body, want string
	}{
		{"Ich brauche bis 10 Uhr eine Einschätzung, ob das heute noch behoben wird.", "urgent"},
		{"Können Sie uns nächste Woche sagen, woran es lag?", "informational"},
	} {
		m := &model.Message{From: model.Address{Name: "Björn", Email: "b.petersen@spedition.example"},
			To: []model.Address{{Email: "support@northwind.example"}}, Cc: []model.Address{p},
			Subject: "Tourenexport seit 6 Uhr nicht möglich", Text: tt.body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.body, o.Result.Category, tt.want, o.Signals)
		}
	}
}
