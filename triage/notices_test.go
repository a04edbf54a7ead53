package triage

import (
	"slices"
	"testing"

	"mailsift/model"
	"mailsift/model/contract"
)

// autoMail is a one-message thread of automated mail (Auto-Submitted)
// from a service to the demo principal, with the headers hdr besides.
func autoMail(from, subject, body string, hdr map[string][]string) []*model.Message {
	h := map[string][]string{"Auto-Submitted": {"auto-generated"}}
	for k, v := range hdr {
		h[k] = v
	}
	return []*model.Message{{MessageID: subject + "@" + from, From: model.Address{Name: "Service", Email: from},
		To: []model.Address{demoPrincipal}, Subject: subject, Text: body, HasBody: true, Headers: h}}
}

// TestAlertNotice checks the subjects of live alerts in the five
// languages, and that reports of something past or fine are not alerts.
func TestAlertNotice(t *testing.T) {
	for subject, want := range map[string]bool{
		"[PagerDuty] TRIGGERED #4471: orders-db replication lag":        true,
		"[Escalated] Incident #88: checkout 5xx above 5%":               true,
		"[FIRING:1] DiskFull ci-runner-03":                              true,
		"Monitor api.example.net is down":                               true,
		"AWS keys exposed in northwind/tools":                           true,
		"Possible valid secret detected: Slack token":                   true,
		"Alarm ausgelöst: Speicher voll auf db-2":                       true,
		"Alerte déclenchée : latence élevée sur l'API":                  true,
		"Incidente escalado: pagos caídos en eu-west":                   true,
		"【障害】認証基盤がダウンしています":                                             true,
		"[Resolved] Incident #88: checkout 5xx above 5%":                false,
		"[Recovered] Monitor api.example.net is down":                   false,
		"Security alert: new sign-in on Pixel 8":                        false,
		"Your order has shipped":                                        false,
		"Weekly report: 3 alerts triggered last week were all resolved": false,
	} {
		if got := alertNotice(subject); got != want {
			t.Errorf("alertNotice(%q) = %t, want %t", subject, got, want)
		}
	}
}

// TestAutomatedNotices checks what the signals make of automated mail to
// the principal (Auto-Submitted, from a service's notification address):
// a live alert is urgent, a "passed" or "recovered" notice and an
// activity digest are low priority, a provider's resolved incident
// notice and a receipt stay informational, and an alert through a list
// (everyone watching gets it) is not urgent.
func TestAutomatedNotices(t *testing.T) {
	list := map[string][]string{"List-Id": {"Alerts <alerts.example.net>"}}
	cases := []struct {
		name string
		msgs []*model.Message
		want string
	}{
		{"page escalated", autoMail("no-reply@pager.example.net", "[Escalated] Incident #4471: orders-db replication lag",
			"Incident #4471 was escalated to you after 15 minutes without acknowledgement.", nil), contract.CategoryUrgent},
		{"secret exposed", autoMail("security@scanner.example.net", "AWS keys exposed in northwind/tools",
			"We found a valid AWS access key in a public commit pushed 6 minutes ago.", nil), contract.CategoryUrgent},
		{"german alarm", autoMail("monitoring@ops.example.net", "Alarm ausgelöst: Speicher voll auf db-2",
			"Der Alarm Speicher voll wurde um 06:12 ausgelöst.", nil), contract.CategoryUrgent},
		{"alert through a list", autoMail("alerts@ops.example.net", "[FIRING:1] DiskFull ci-runner-03",
			"Alert DiskFull is firing for ci-runner-03.", list), contract.CategoryLowPriority},
		{"recovered", autoMail("alert@monitor.example.net", "[Recovered] Disk usage above 85% on ci-runner-03",
			"Disk usage is back to 61%.", nil), contract.CategoryLowPriority},
		{"pipeline passed", autoMail("builds@ci.example.net", "Passed: platform-infra #2291 (main)",
			"Build #2291 passed in 4m 12s.", nil), contract.CategoryLowPriority},
		{"agenda", autoMail("calendar-notification@calendar.example.net", "Daily agenda for Alex Morgan - Tue 24 Nov",
			"10:00 Standup\n14:00 Roadmap review", nil), contract.CategoryLowPriority},
		{"missed activities", autoMail("noreply@chat.example.net", "You have 6 missed activities in Northwind",
			"Dana mentioned you in #platform. Open the app to see more.", nil), contract.CategoryLowPriority},
		{"provider incident resolved", autoMail("status@provider.example.net", "Incident resolved: increased latency in FSN1",
			"The incident affecting FSN1 is resolved.", nil), contract.CategoryInformational},
		{"receipt", autoMail("receipts@pay.example.net", "Your receipt from Linear Orbit #2291-4410",
			"Amount paid: $96.00. Thank you for your business.", nil), contract.CategoryInformational},
	}
	an := NewAnalyzer(nil)
	for _, c := range cases {
		o := an.Deterministic(c.msgs, demoPrincipal)
		if o.Result.IsSpam || o.Result.IsPhishing {
			t.Errorf("%s: quarantined (%q %q)", c.name, o.SpamReasons, o.PhishingReasons)
			continue
		}
		if o.Result.Category != c.want {
			t.Errorf("%s: %s, want %s", c.name, o.Result.Category, c.want)
		}
	}
}

// TestShortBrandLookalikes checks short brand names (under five letters)
// as a hyphen-separated word of a domain, the brands of the other
// languages, and the brands' own country domains.
func TestShortBrandLookalikes(t *testing.T) {
	for host, want := range map[string]bool{
		"dhl-zustellung-paket.com":         true,
		"ups-delivery-notice.com":          true,
		"paket-dhl.net":                    true,
		"santander-seguridad-clientes.com": true,
		"laposte-suivi-colis.fr":           true,
		"rakuten-card-login.jp":            true,
		"dhlexpress-blog.com":              false, // a short brand inside another word
		"groups-and-teams.com":             false,
		"dhl.de":                           false,
		"amazon.co.jp":                     false,
		"amazon.es":                        false,
		"google.de":                        false,
		"santander.es":                     false,
		// the principal's own name as a word of another domain
		"northwind-hr.example": true,
		"northwind-exec.com":   true,
		"mynorthwind-blog.com": false,
		"northwindtraders.com": false,
	} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %t, want %t", host, got, want)
		}
	}
}

// TestServiceInstructionsAskNothing checks that the questions and
// requests of an automated message (Auto-Submitted) are a service's
// instructions unless they ask for a decision, set a deadline, turn to
// the reader by name or the subject asks or names a decision: a receipt,
// an appointment reminder (greeting the reader by name or not) and a
// booking stay informational; a workflow's approval request, a choice
// due by a date, an ask by name, a signature and an assignment are
// actionable.
func TestServiceInstructionsAskNothing(t *testing.T) {
	auto := func(subject, body string) []*model.Message {
		return []*model.Message{{MessageID: subject + "@svc.example.net", From: model.Address{Name: "Service", Email: "no-reply@svc.example.net"},
			To: []model.Address{demoPrincipal}, Subject: subject, Text: body, HasBody: true,
			Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}}
	}
	for _, tt := range []struct{ subject, body, want string }{
		{"Your receipt #2291-4481", "Amount paid: $96.00. Something wrong with this email? Contact support.", contract.CategoryInformational},
		{"Appointment reminder: Thursday 8:30", "See you on Thursday. If you need to reschedule, please call us at least 24 hours in advance.", contract.CategoryInformational},
		{"Ihre Reservierung 48213", "Bitte bringen Sie einen Ausweis mit. Wir freuen uns auf Ihren Besuch.", contract.CategoryInformational},
		{"Confirmation de réservation", "Merci de présenter votre billet au contrôleur.", contract.CategoryInformational},
		{"予約内容のお知らせ", "ご乗車の際は、交通系ICカードで改札をお通りください。", contract.CategoryInformational},
		{"Appointment reminder: Thursday 8:30", "Dear Alex, see you on Thursday. If you need to reschedule, please call us.", contract.CategoryInformational},
		{"Weekly summary", "Please approve the two pending requests.", contract.CategoryActionable},
		{"[REQ-22871] Laptop refresh", "Your laptop is due for replacement. Please pick one of the standard models in the portal by 27 November.", contract.CategoryActionable},
		{"[JIRA] NW-4412 updated", "Plan the migration of the exports. Alex, please write up the phases and the rollback plan.", contract.CategoryActionable},
		{"Please DocuSign: Order Form", "Rachel Kim sent you a document to review and sign.", contract.CategoryActionable},
		{"[JIRA] NW-4412: Plan migration of tenant exports", "Hannah Cole assigned NW-4412 to you. Please plan the phases.", contract.CategoryActionable},
		{"Re: infra | Add second region (!812)", "Mira Vogel requested changes on merge request !812. Can you derive the bucket name from var.region?", contract.CategoryActionable},
		{"Expense report ER-1 awaits your approval", "Mei Chen submitted an expense report.", contract.CategoryActionable},
	} {
		o := Deterministic(auto(tt.subject, tt.body), demoPrincipal)
		if o.Result.Category != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
		if tt.want == contract.CategoryInformational && len(o.Result.ActionItems) != 0 {
			t.Errorf("%q: action items %+v from a service's instructions", tt.subject, o.Result.ActionItems)
		}
	}
}

// TestNeedOfTheReadersThing checks that a need of something of the
// reader's ("I need your approval") asks, in the five languages, with
// the deadline the sentence names as written.
func TestNeedOfTheReadersThing(t *testing.T) {
	for _, tt := range []struct{ text, due, want string }{
		{"The change is ready. I need your approval for the deploy next week.", "", contract.CategoryActionable},
		{"Das Angebot liegt vor. Wir brauchen deine Freigabe bis Freitag.", "bis Freitag", contract.CategoryActionable},
		{"Le correctif est prêt. Il me faut ton accord pour le déployer avant vendredi.", "vendredi", contract.CategoryActionable},
		{"La propuesta está lista. Necesitamos su firma antes del lunes.", "antes del lunes", contract.CategoryActionable},
		// an hour of the day: within the day
		{"El contrato está listo. Necesito tu firma antes de las 12.", "antes de las 12", contract.CategoryUrgent},
	} {
		o := Deterministic(oneMessage("Status", tt.text), model.Address{Name: "Alice", Email: "alice@example.com"})
		if o.Result.Category != tt.want || len(o.Result.ActionItems) == 0 {
			t.Errorf("%q: %s with items %+v, want %s with an item", tt.text, o.Result.Category, o.Result.ActionItems, tt.want)
			continue
		}
		got := ""
		if d := o.Result.ActionItems[0].DueHint; d != nil {
			got = *d
		}
		if got != tt.due {
			t.Errorf("%q: due hint %q, want %q", tt.text, got, tt.due)
		}
	}
}

// TestSubjectDueDateAndInvitation checks subjects that say a task of the
// reader's falls due on a date and invitations to join something.
func TestSubjectDueDateAndInvitation(t *testing.T) {
	for _, subject := range []string{
		"Your self-review for H2 2026 is due December 4",
		"[GitHub] @elena-novak has invited you to join the northwind organization",
		"Jonas hat dich eingeladen, dem Workspace beizutreten",
		"Camille vous a invité à rejoindre l'espace Lyon",
		"Lucía te ha invitado a unirte al proyecto",
	} {
		m := oneMessage(subject, "Open the link below.")
		m[0].From = model.Address{Name: "Tool", Email: "notifications@tracker.test"}
		if o := Deterministic(m, model.Address{Name: "Alice", Email: "alice@example.com"}); o.Result.Category != contract.CategoryActionable {
			t.Errorf("%q: %s, want actionable; signals %v", subject, o.Result.Category, o.Signals)
		}
	}
}

// TestAssignedToYou checks assignments to the reader with the item
// between, in the five languages.
func TestAssignedToYou(t *testing.T) {
	for s, want := range map[string]bool{
		"hannah cole assigned nw-4412 to you.":       true,
		"jonas hat dir das ticket nw-88 zugewiesen.": true,
		"camille vous a assigné le ticket lyo-12.":   true,
		"lucía te ha asignado la tarea.":             true,
		"このチケットはあなたに割り当てられました。":                      true,
		"your assigned seat is 14c.":                 false,
		"we assigned the ticket to the data team.":   false,
	} {
		if got := assignedToYou(s); got != want {
			t.Errorf("assignedToYou(%q) = %t, want %t", s, got, want)
		}
	}
}

// TestParcelFeeLure checks that a fee held against a parcel is a payment
// lure: from a carrier's lookalike it is phishing (in four languages),
// on a real shop's receipt it is nothing.
func TestParcelFeeLure(t *testing.T) {
	mail := func(from, subject, body string) []*model.Message {
		return []*model.Message{{MessageID: subject + "@" + from, From: model.Address{Name: "Parcel", Email: from},
			To: []model.Address{demoPrincipal}, Subject: subject, Text: body, HasBody: true}}
	}
	for _, tt := range []struct {
		from, subject, body string
		phishing            bool
	}{
		{"service@dhl-zustellung-paket.com", "Ihre Sendung wartet", "Für Ihre Sendung ist eine Zollgebühr von 1,99 € offen. Bitte begleichen Sie den Betrag innerhalb von 48 Stunden.", true},
		{"suivi@laposte-colis-suivi.fr", "Votre colis est en attente", "Des frais de douane de 2,10 € restent à payer. Merci de régler ces frais sous 48 heures.", true},
		{"avisos@correos-entrega-envio.com", "Su paquete está retenido", "Hay tasas de aduana pendientes de 1,79 €. Por favor, pague antes de 48 horas.", true},
		{"track@ups-delivery-notice.com", "Your parcel is on hold", "A customs fee of $1.99 is due. Please pay the customs fee within 48 hours to release your parcel.", true},
		{"orders@pizzeria-roma.example", "Your order receipt", "Margherita $12.00, delivery fee $2.99, total $14.99. Thank you for your order.", false},
	} {
		o := Deterministic(mail(tt.from, tt.subject, tt.body), demoPrincipal)
		if o.Result.IsPhishing != tt.phishing {
			t.Errorf("%s %q: phishing %t, want %t; signals %v", tt.from, tt.subject, o.Result.IsPhishing, tt.phishing, o.Signals)
		}
	}
}

// TestDeliveryAndDueSubjects checks that a shipping notice naming today
// is not urgent (nor its "not home?" an ask), that a subject with a due
// date in parentheses asks, and that a robot's failure notice about
// someone else's work through the organisation's list is low priority.
func TestDeliveryAndDueSubjects(t *testing.T) {
	for _, tt := range []struct {
		msgs []*model.Message
		want string
	}{
		{autoMail("noreply@parcels.example.net", "Your parcel arrives today", "Not at home today? Choose a drop-off point in the app.", nil), contract.CategoryInformational},
		{autoMail("noreply@parcels.example.net", "Ihr Paket kommt heute", "Nicht zu Hause? Wählen Sie eine Packstation.", nil), contract.CategoryInformational},
		{autoMail("security@northwind.example", "Quarterly access review: 41 accounts to certify (due Dec 4)", "Open the review in the portal.", nil), contract.CategoryActionable},
		{autoMail("gitlab@gitlab.northwind.example", "Failed pipeline for tom/spike-retries | gateway | 8f31c2a", "Pipeline #4412 failed on the test stage.",
			map[string][]string{"List-Id": {"gateway <gateway.gitlab.northwind.example>"}}), contract.CategoryLowPriority},
	} {
		o := Deterministic(tt.msgs, demoPrincipal)
		if o.Result.Category != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.msgs[0].Subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestNamedInCcWithADeadlineOfTheDay checks that mail to a team with the
// reader in Cc is urgent when an ask turns to the reader by name (also at
// the end of a sentence) with a deadline within the day, and stays
// informational without the name.
func TestNamedInCcWithADeadlineOfTheDay(t *testing.T) {
	team := model.Address{Name: "Platform Team", Email: "platform@northwind.example"}
	mk := func(body string) []*model.Message {
		return []*model.Message{{MessageID: "cc@northwind.example", From: model.Address{Name: "Deepak Rao", Email: "deepak.rao@northwind.example"},
			To: []model.Address{team}, Cc: []model.Address{demoPrincipal}, Subject: "Re: certificate renewal", Text: body, HasBody: true}}
	}
	for _, tt := range []struct{ body, want string }{
		{"The CNAME was deleted. You're the only admin there, Alex. Could you add it before 03:14?", contract.CategoryUrgent},
		{"Alex, could you add the CNAME before 03:14?", contract.CategoryUrgent},
		{"The CNAME was deleted. Could someone add it before 03:14?", contract.CategoryInformational},
	} {
		if o := Deterministic(mk(tt.body), demoPrincipal); o.Result.Category != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.body, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestMassAsks checks that the questions and requests of bulk mail from
// outside the organisation ask its whole list, not the reader (a
// newsletter's "Want to be featured?"), unless it turns to the reader by
// name or names the reader's task.
func TestMassAsks(t *testing.T) {
	list := func(from, subject, body string) []*model.Message {
		return []*model.Message{{MessageID: subject + "@" + from, From: model.Address{Name: "List", Email: from}, To: []model.Address{demoPrincipal},
			Subject: subject, Text: body, HasBody: true,
			Headers: map[string][]string{"List-Unsubscribe": {"<https://" + domainOf(from) + "/unsub>"}, "List-Id": {"News <news." + domainOf(from) + ">"}}}}
	}
	for _, tt := range []struct {
		msgs []*model.Message
		want string
	}{
		{list("boletin@semanal.example", "Semanal #214", "Novedades de la semana en bases de datos. ¿Quieres aparecer en el próximo número? Escríbenos."), contract.CategoryLowPriority},
		{list("news@weekly.example", "Weekly #98", "This week in observability. Could you fill in our reader survey?"), contract.CategoryLowPriority},
		{list("events@conf.example", "Last chance: early bird ends tonight", "Hi Alex,\n\nThe early bird price ends tonight at midnight. Can we count on you this year?"), contract.CategoryLowPriority},
		{list("evenements@datafleur.example", "Webinaire jeudi", "Bonjour Alex,\n\nVos factures de logs explosent ? Pouvez-vous nous rejoindre jeudi ?"), contract.CategoryLowPriority},
		{list("notifications@code.example.net", "[org/repo] Fix retries (#482)", "Sam requested your review on this pull request. Can you take a look?"), contract.CategoryActionable},
		{list("notifications@code.example.net", "[org/repo] Fix retries (#482)", "Alex, can you take a look at the retry change?"), contract.CategoryActionable},
	} {
		if o := Deterministic(tt.msgs, demoPrincipal); o.Result.Category != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.msgs[0].Text, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestToolActivityIsLowPriority checks that a collaboration tool's notice
// of activity that asks nothing (an issue updated, a recording ready) is
// low priority, while its notices that ask the reader (a review
// requested), that something failed, or about the reader's account (a new
// sign-in) are not.
func TestToolActivityIsLowPriority(t *testing.T) {
	for _, tt := range []struct {
		from, subject, body, want string
	}{
		{"jira@northwind.atlassian.net", "[JIRA] (PLAT-2291) Upgrade Redis clients to 7.x", "Sam Ortiz updated PLAT-2291: Status changed from To Do to In Progress.", "low priority"},
		{"no-reply@zoom.us", "Cloud Recording - Platform guild is now available", "Your cloud recording is now available. Share it with the attendees.", "low priority"},
		{"notifications@github.com", "[northwind/api] Fix retries (#482)", "Sam requested your review on this pull request. Can you take a look?", "actionable"},
		{"noreply@github.com", "[GitHub] A new sign-in to your account", "We noticed a new sign-in to your account from Firefox on Linux.", "informational"},
		{"noreply@trains.example", "Your booking is confirmed", "Your seat is booked for 30 November, coach 7 seat 45.", "informational"},
	} {
		m := autoMail(tt.from, tt.subject, tt.body, nil)
		if o := Deterministic(m, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subject, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestTeamAddressAlertsAndRunningOut checks that a live alert or a failure
// notice sent to a team's address of the principal's organisation (not a
// list) reaches them as one sent to them, and that a failure notice saying
// something runs out within the day ("expires today", "expires in 9h") is
// urgent, while one with days left stays actionable.
func TestTeamAddressAlertsAndRunningOut(t *testing.T) {
	team := []model.Address{{Email: "platform-oncall@northwind.example"}}
	for _, tt := range []struct {
		from, subject string
		to            []model.Address
		want          string
	}{
		{"alert@monitor.example", "[Triggered on host:pg-01] Disk usage above 92%", team, "urgent"},
		{"certwatch@northwind.example", "[CertWatch] api.northwind.example expires in 9h 12m - renewal failed", team, "urgent"},
		{"noreply@registrar.example", "Renewal failed: northwind-status.com expires today", nil, "urgent"},
		{"noreply@registrar.example", "Renewal failed: northwind-status.com expires in 20 days", nil, "actionable"},
		{"alert@monitor.example", "[Triggered on host:pg-01] Disk usage above 92%", []model.Address{{Email: "someone@partner.example"}}, "informational"},
	} {
		m := autoMail(tt.from, tt.subject, "See the console for details.", nil)
		if tt.to != nil {
			m[0].To = tt.to
		}
		if o := Deterministic(m, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q to %v: %s, want %s; signals %v", tt.subject, tt.to, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestServiceNoticesOfTheDay checks more of what services send: a
// certificate running out within hours is urgent (also from the
// organisation's own robot through a list), a task assigned to the
// reader or a comment mentioning their handle is actionable, a subject
// saying approval is awaited asks, a build's "Success:" is low priority,
// and planned maintenance does not press.
func TestServiceNoticesOfTheDay(t *testing.T) {
	list := map[string][]string{"List-Id": {"<ops.northwind.example>"}}
	for _, tt := range []categoryCase{
		{"certwatch@northwind.example", "[certwatch] api.northwind.example certificate expires in 17h 40m", "certwatch daily run", list, false, "urgent"},
		{"certwatch@northwind.example", "[certwatch] api.northwind.example certificate expires in 20 days", "certwatch daily run", list, false, "informational"},
		{"jira@northwind.atlassian.net", "[JIRA] Lena Fischer assigned ROUTE-4412 to you", "Lena Fischer assigned ROUTE-4412 to you.", nil, true, "actionable"},
		{"comments-noreply@docs.example", "2027 Platform Roadmap - draft v3", "Priya Raman: @alex.morgan can you give me a rough size for this?", nil, false, "actionable"},
		{"comments-noreply@docs.example", "2027 Platform Roadmap - draft v3", "Priya Raman: @sam.ortiz can you give me a rough size for this?", nil, false, "informational"},
		{"noreply@hr.example", "Neuer Abwesenheitsantrag von Lena Fischer wartet auf Genehmigung", "Lena Fischer hat einen Abwesenheitsantrag gestellt.", nil, true, "actionable"},
		{"builds@ci.example", "Success: northwind/route-engine #18812 (main)", "Workflow nightly-benchmarks succeeded.", nil, true, "low priority"},
		{"support@mailer.example", "Scheduled maintenance: console unavailable Dec 3, 02:00-04:00", "Since 02:00 the console will be unavailable. We apologise for the inconvenience.",
			map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=mailer.example; dmarc=pass header.from=mailer.example"}}, false, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestBrandsOwnReplyTo checks that a Reply-To at another real domain of
// the sender's brand (amazonaws.com replying to amazon.com) is no
// diversion, while one at an unrelated domain is.
func TestBrandsOwnReplyTo(t *testing.T) {
	for _, tt := range []struct {
		replyTo string
		want    bool
	}{
		{"abuse-reply@amazon.com", false},
		{"abuse-reply@elsewhere.example", true},
	} {
		m := autoMail("abuse@amazonaws.com", "Your AWS Abuse Report [1189204877-1]", "We received a report about your instance.", nil)
		m[0].ReplyTo = []model.Address{{Email: tt.replyTo}}
		o := Deterministic(m, demoPrincipal)
		got := slices.ContainsFunc(o.Signals, func(s Signal) bool { return s.Kind == SigReplyToMismatch })
		if got != tt.want {
			t.Errorf("Reply-To %s: mismatch %t, want %t; signals %v", tt.replyTo, got, tt.want, o.Signals)
		}
	}
}

// TestAsksTakenBackAndDecisionsMade checks that an ask taken back ("Please
// ignore my request above") and a decision already made ("Expense report
// approved", "Tu solicitud de ausencia ha sido aprobada") ask nothing,
// while an approval request of a manager's ("Time Off Request - Mateo
// Ruiz", 【レビュー依頼】) does.
func TestAsksTakenBackAndDecisionsMade(t *testing.T) {
	for _, tt := range []categoryCase{
		{"hannah@northwind.example", "Re: Q4 reforecast", "Please ignore my request above - Priya sent me the consolidated numbers, so I have everything I need.", nil, false, "informational"},
		{"notifications@hr.example", "Tu solicitud de ausencia ha sido aprobada", "Tu solicitud del 21 al 23 de diciembre ha sido aprobada.", nil, true, "informational"},
		{"noreply@expenses.example", "経費精算が承認されました (申請番号: 2026-000784)", "詳細は以下のURLからご確認ください。", nil, true, "informational"},
		{"northwind@hr.example", "Inbox: Time Off Request - Mateo Ruiz (21/12 - 04/01)", "You have a new item in your inbox.", nil, true, "actionable"},
		{"yuki@northwind.example", "【レビュー依頼】パートナー連携 技術仕様書 v0.9", "仕様書を共有します。", nil, false, "actionable"},
		{"notifications@app.terraform.io", "Run applied in northwind/platform-staging", "Resources: 0 added, 2 changed, 0 destroyed.", nil, true, "low priority"},
	} {
		checkCategory(t, tt)
	}
}

// TestExecutiveTitleOnFreeMail checks that an executive's title on a
// free-mail address asking for a confidential payment is phishing, that
// Microsoft's own country domains (outlook.fr) are not lookalikes, and
// that a colleague's own address with the same words is not phishing.
func TestExecutiveTitleOnFreeMail(t *testing.T) {
	body := "Necesito que me ayudes con un asunto confidencial antes de las 17:00. Envíame los datos bancarios del proveedor."
	for _, tt := range []struct {
		from  model.Address
		phish bool
	}{
		{model.Address{Name: "Greg Holm", Email: "greg.holm.ceo@gmail.com"}, true},
		{model.Address{Name: "Greg Holm (CEO)", Email: "gholm1971@gmail.com"}, true},
		{model.Address{Name: "Greg Holm", Email: "greg.holm@northwind.example"}, false},
	} {
		m := &model.Message{From: tt.from, To: []model.Address{demoPrincipal}, Subject: "Tarea confidencial", Text: body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.phish {
			t.Errorf("%s: phishing %t, want %t; signals %v", tt.from, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
	m := &model.Message{From: model.Address{Name: "Me Dubois", Email: "cabinet.dubois@outlook.fr"}, To: []model.Address{demoPrincipal},
		Subject: "Dossier 2026/NT/4471", Text: "Cher Monsieur, merci de me rappeler.", HasBody: true}
	o := Deterministic([]*model.Message{m}, demoPrincipal)
	if slices.ContainsFunc(o.Signals, func(s Signal) bool { return s.Kind == SigLookalikeDomain }) {
		t.Errorf("outlook.fr taken for a lookalike: %v", o.Signals)
	}
}

// TestMoreOfTheDay checks: a service's alert to the reader stays urgent
// through its own list headers; something running out tonight makes an
// ask elsewhere in the message urgent; an imperative with a deadline asks;
// a task assigned to the reader through a tracker's list headers is
// actionable; "out sick today" is no deadline; "I need a yes/no" asks.
func TestMoreOfTheDay(t *testing.T) {
	gh := map[string][]string{"List-Id": {"<route-sdk-js.northwind.github.com>"}}
	jira := map[string][]string{"List-Id": {"<jira.northwind.atlassian.net>"}}
	for _, tt := range []categoryCase{
		{"noreply@github.com", "[northwind/route-sdk-js] Secret scanning alert: Amazon AWS Access Key ID detected", "Revoke it immediately and review access logs.", gh, true, "urgent"},
		{"jira@northwind.atlassian.net", "[JIRA] Rui Santos assigned PLAT-4412 to you", "Rui Santos assigned this issue to you.", jira, true, "actionable"},
		{"kenji@northwind.example", "Re: cert renewal", "The current cert expires tonight 23:59 UTC. The fix touches the prod DNS account, so it needs your approval.", nil, false, "urgent"},
		{"kenji@northwind.example", "Re: cert renewal", "The current cert expires on December 20. The fix touches the prod DNS account, so it needs your approval.", nil, false, "actionable"},
		{"speakers@conf.example", "Your talk has been accepted", "Congratulations! Confirm your participation in the speaker portal by December 10.",
			map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=conf.example; dmarc=pass header.from=conf.example"}}, false, "actionable"},
		{"kevin@northwind.example", "out sick today", "I'm out sick today, stomach bug. Back tomorrow.", nil, false, "informational"},
		{"ruth@northwind.example", "Re: Postgres 17 upgrade - Platform help in Q1?", "Alex, I need a yes/no (or \"yes but March\") before Q1 planning on the 2nd.", nil, false, "actionable"},
	} {
		checkCategory(t, tt)
	}
	m := &model.Message{From: model.Address{Name: "OVHcloud Facturation", Email: "facturation@ovh-renouvellement-client.example"},
		To: []model.Address{demoPrincipal}, Subject: "Échec du renouvellement de votre domaine", HasBody: true,
		Text:    "Le paiement automatique a échoué. Mettez à jour votre carte : https://ovh-renouvellement-client.example/pay",
		Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=ovh-renouvellement-client.example; dmarc=fail header.from=ovh-renouvellement-client.example"}}}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); !o.Result.IsPhishing {
		t.Errorf("an OVH lookalike failing DMARC with a payment link: not phishing; signals %v", o.Signals)
	}
}

// TestRoundFiveCues checks the cues of the last development round, each
// against a case that must not fire: a degraded provider with an ask is
// urgent; a provider's incident notice saying your services are impacted
// is urgent; "within 15 minutes" and "de inmediato" press; subjects saying
// a scorecard or ratings are due ask; a token expiring within days is
// actionable (not within months); a returned report to resubmit is yours;
// an instruction for those it concerns ("if you need access…") asks
// nothing; a reminder address's "please arrive early" is its instruction;
// an event platform's notice is low priority.
func TestRoundFiveCues(t *testing.T) {
	for _, tt := range []categoryCase{
		{"marco@northwind.example", "Twilio degraded - switch driver SMS to backup?", "Your call as owner - flip now or wait for Twilio?", nil, false, "urgent"},
		{"marco@northwind.example", "Twilio pricing - switch driver SMS to backup?", "Your call as owner - flip now or wait for the new contract?", nil, false, "actionable"},
		{"noreply@ovh.example", "[Incident] Perturbation en cours sur le datacenter GRA7 - vos services sont impactés", "Un incident réseau est en cours.", nil, true, "urgent"},
		{"julien@northwind.example", "Export vide", "Peux-tu me dire dans le quart d'heure ce que je peux leur annoncer ?", nil, false, "urgent"},
		{"no-reply@hiring.example", "Reminder: Scorecard due for Dana Whitfield", "Submit your scorecard: https://hiring.example/s/1", nil, true, "actionable"},
		{"noreply@code.example", "Your personal access token expires in 7 days", "Regenerate it before it expires.", nil, true, "actionable"},
		{"noreply@code.example", "Your personal access token expires in 90 days", "Regenerate it before it expires.", nil, true, "informational"},
		{"concierge@expenses.example", "Report returned: Amsterdam offsite (ER-2291)", "Please attach the invoice and resubmit before month-end close on Nov 30.", nil, true, "actionable"},
		{"office@northwind.example", "Office closed 29 December - 3 January", "The office is closed over the holidays. If you need access, contact facilities by December 22.", nil, false, "informational"},
		{"no-reply@connpass.example.com", "New event: SRE Tokyo year-end LT", "A group you follow published a new event.", nil, true, "informational"},
		{"no-reply@connpass.com", "New event: SRE Tokyo year-end LT", "A group you follow published a new event.", nil, true, "low priority"},
	} {
		checkCategory(t, tt)
	}
}

// categoryCase is a one-message thread to the principal and the bucket
// triage must give it: from a service (auto: Auto-Submitted, see
// autoMail) or from a person.
type categoryCase struct {
	from, subject, body string
	hdr                 map[string][]string
	auto                bool
	want                string
}

// checkCategory triages tt's message offline and fails unless it lands in
// tt.want.
func checkCategory(t *testing.T, tt categoryCase) {
	t.Helper()
	var m []*model.Message
	if tt.auto {
		m = autoMail(tt.from, tt.subject, tt.body, tt.hdr)
	} else {
		m = []*model.Message{{MessageID: tt.subject + "@x", From: model.Address{Email: tt.from}, To: []model.Address{demoPrincipal},
			Subject: tt.subject, Text: tt.body, HasBody: true, Headers: tt.hdr}}
	}
	if o := Deterministic(m, demoPrincipal); string(o.Result.Category) != tt.want {
		t.Errorf("%s %q: %s, want %s; signals %v", tt.from, tt.subject, o.Result.Category, tt.want, o.Signals)
	}
}

// TestLastRoundCues checks the cues of the session's last development
// round, each beside a case that must not fire.
func TestLastRoundCues(t *testing.T) {
	auth := map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=vendor.example; dmarc=pass header.from=vendor.example"}}
	for _, tt := range []categoryCase{
		{"grace@northwind.example", "4.18 go/no-go at 17:00 - Platform sign-off still missing", "Can you tick the box in the checklist?", nil, false, "urgent"},
		{"grace@northwind.example", "4.18 go/no-go on Friday at 17:00 - Platform sign-off still missing", "Can you tick the box in the checklist?", nil, false, "actionable"},
		{"leo@northwind.example", "Re: [SEV2] INC-1187 Map tile service p99 latency > 4s (EU)", "You're Platform escalation this week - can you take over the bridge?", nil, false, "urgent"},
		{"servicedesk@northwind.example", "Lost/stolen device - manager approval needed for remote wipe", "Kofi reported his laptop stolen. Can you approve the remote wipe?", nil, false, "urgent"},
		{"status@host.example", "Störung: Netzwerkausfall im Rechenzentrum FRA-3", "Wir arbeiten an der Behebung.", nil, true, "urgent"},
		{"status@host.example", "Geplante Wartung: Netzwerkausfall im Rechenzentrum FRA-3 am 3.12.", "Wir führen Wartungsarbeiten durch.", nil, true, "informational"},
		{"notifications@reviews.example", "Tomás Ibarra has requested your feedback", "What should Tomás continue doing?", nil, true, "actionable"},
		{"kelsey@vendor.example", "Renewal - seat count for 2027", "Before I send the order form, could you let me know whether you'd like to keep 45 seats?", auth, false, "actionable"},
		{"kelsey@vendor.example", "Renewal signed", "The renewal is signed, thanks. Let me know if you have any questions.", auth, false, "informational"},
		{"noreply@md.getsentry.com", "[Sentry] Spike protection activated for checkout-api", "We dropped events above your spike limit.", nil, true, "urgent"},
		{"no-reply@pagerduty.com", "[Resolved] #48190 billing-sync: job duration above threshold", "Incident #48190 has been resolved.", nil, true, "informational"},
		{"status@host.example", "Behoben: Netzwerkausfall im Rechenzentrum FRA-3", "Die Störung ist behoben.", nil, true, "informational"},
		{"notifications@ci.example", "Build passed: main (a81c2f0)", "All 412 tests passed.", nil, true, "low priority"},
		{"feedback@slack.com", "Notifications from the Northwind workspace", "#lunch (6) Sam: poke bowl run at 12:15, who's in?", nil, true, "low priority"},
		{"jonas@northwind.example", "Freeze-Ausnahme für #4821 - brauche dein OK", "Review ist durch, alle Tests grün.", nil, false, "actionable"},
		{"support@tools.example", "How did we do? Ticket #241188", "Your ticket was marked as solved. How did we do?", nil, true, "low priority"},
	} {
		checkCategory(t, tt)
	}
	for _, sentence := range []string{"配送状況は「ご注文履歴」からご確認いただけます。", "会議室は明日からご利用いただけます。"} {
		if hasForeignRequest(sentence) {
			t.Errorf("%q: an ask; it says what the reader can do", sentence)
		}
	}
}
