package triage

import (
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// TestSubjectHandsTask checks that a subject handing the reader a task or
// a decision ("23 questions for you", "your go/no-go", "Entscheidung
// nötig") makes the thread actionable in each language, beside subjects
// that only report.
func TestSubjectHandsTask(t *testing.T) {
	for _, tt := range []categoryCase{
		{"rachel@northwind.example", "GLF security questionnaire - 23 questions for you", "Hi Alex, the customer's questionnaire is attached; the technical section is yours.", nil, false, "actionable"},
		{"oskar@vizion.example", "Dashcam PoC - results and your go/no-go", "Hi Alex, the results of the four weeks are below. Detection rate 94 %, false alarms 2 per 1000 km.", nil, false, "actionable"},
		{"jonas@northwind.example", "Entscheidung nötig: Versionierung der Partner-API", "Hallo Alex, es gibt zwei Varianten, v3.x weiterführen oder v4 einführen. Details im Anhang.", nil, false, "actionable"},
		{"chloe@northwind.example", "Décision requise : migration du cluster Kafka", "Bonjour Alex, les deux options sont décrites dans le document joint.", nil, false, "actionable"},
		{"diego@northwind.example", "Decisión necesaria: proveedor de mapas 2027", "Hola Alex, adjunto la comparación de los tres proveedores.", nil, false, "actionable"},
		{"notifications@reviews.example", "Year-end reviews: 6 tasks are waiting for you", "You have 6 open tasks in the year-end review cycle. The cycle closes on Dec 4.", nil, true, "actionable"},
		// reports: nothing handed to the reader
		{"oskar@vizion.example", "Dashcam PoC - results of week 3", "Hi Alex, the results of week 3 are below. Detection rate 94 %, false alarms 2 per 1000 km.", nil, false, "informational"},
		{"jonas@northwind.example", "Entscheidung getroffen: Versionierung der Partner-API", "Hallo Alex, wir bleiben bei v3.x, Details im Anhang.", nil, false, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestToolMentionWithQuestion checks that a tool's notice that the reader
// was mentioned is actionable when the mention asks them something, and
// not when it only points them to notes.
func TestToolMentionWithQuestion(t *testing.T) {
	for _, tt := range []categoryCase{
		{"confluence@northwind.atlassian.net", `Ravi Menon mentioned you on "Migration runbook v4"`,
			"Ravi Menon mentioned you:\n\n\"@Alex Morgan can you confirm the rollback step for the ETA cache is still valid?\"\n\nView page: https://northwind.atlassian.net/wiki/x/8812", nil, true, "actionable"},
		{"notify@makenotion.com", `Diego Morales te ha mencionado en "Notas reunión plataforma"`,
			"Diego Morales te mencionó en Notas reunión plataforma:\n\n\"...@Alex Morgan ¿puedes revisar la sección de certificados antes del jueves?\"\n\nAbrir en Notion: https://www.notion.so/x", nil, true, "actionable"},
		{"notify@makenotion.com", `Diego Morales te ha mencionado en "Notas reunión plataforma"`,
			"Diego Morales te mencionó en Notas reunión plataforma:\n\n\"...@Alex Morgan para que lo veas, ya está cerrado el tema de los certificados push.\"\n\nAbrir en Notion: https://www.notion.so/x", nil, true, "low priority"},
	} {
		checkCategory(t, tt)
	}
}

// TestAskByThen checks that an ask due "before then" is due at the time
// an earlier sentence set within the day (urgent), in each language, and
// that a need stated "just" with an hour is an ask; the same asks
// pointing back to another day are not urgent.
func TestAskByThen(t *testing.T) {
	for _, tt := range []categoryCase{
		{"priya@northwind.example", "numbers for the check-in", "Hi Alex,\n\nMaggie moved our integration check-in to 18:00 today. Could you send me three numbers before then?\n\nThanks", nil, false, "urgent"},
		{"jonas@northwind.example", "Zahlen für das Meeting", "Hallo Alex,\n\ndas Meeting ist heute um 18 Uhr. Kannst du mir bis dahin die drei Zahlen schicken?", nil, false, "urgent"},
		{"lea@northwind.example", "Chiffres pour le point", "Bonjour Alex,\n\nLe point est avancé à 18h aujourd'hui. Peux-tu m'envoyer les trois chiffres d'ici là ?", nil, false, "urgent"},
		{"diego@northwind.example", "Cifras para la reunión", "Hola Alex:\n\nLa reunión es hoy a las 18:00. ¿Puedes enviarme las tres cifras antes de eso?", nil, false, "urgent"},
		{"priya@northwind.example", "numbers for the check-in", "Hi Alex,\n\nRobert moved our check-in to 16:00 today. Could you send me beforehand the registrations to date?\n\nThanks", nil, false, "urgent"},
		{"jonas@northwind.example", "Zahlen für das Meeting", "Hallo Alex,\n\ndas Meeting ist heute um 18 Uhr. Kannst du mir vorher die drei Zahlen schicken?", nil, false, "urgent"},
		{"mark@northwind.example", "PO-88213 in your approval queue", "Hi Alex,\n\nPO-88213 has been waiting in your approval queue since Thursday. If you don't want it, reject it. Either is fine, I just need it decided before 17:00.", nil, false, "urgent"},
		// another day
		{"priya@northwind.example", "numbers for the check-in", "Hi Alex,\n\nMaggie moved our integration check-in to next Tuesday. Could you send me three numbers before then?\n\nThanks", nil, false, "actionable"},
	} {
		checkCategory(t, tt)
	}
}

// TestAlertToCc checks that a monitor's live alert is urgent when the
// reader is copied on it as well as when it is sent to them, and that a
// recovery copied to them is not.
func TestAlertToCc(t *testing.T) {
	for subject, urgent := range map[string]bool{
		"[Triggered on {host:kafka-broker-3}] Kafka broker disk usage above 90%":      true,
		"[Triggered on {host:route-db-prod-eu-1}] PostgreSQL data volume 92% full":    true,
		"[Recovered on {host:kafka-broker-3}] Kafka broker disk usage back below 80%": false,
	} {
		m := &model.Message{MessageID: subject + "@x", From: model.Address{Name: "Datadog Alerting", Email: "alert@dtdg.example"},
			To: []model.Address{{Email: "oncall-platform@northwind.example"}}, Cc: []model.Address{demoPrincipal}, Subject: subject,
			Text: "Disk usage is 91.4 % on /var/lib/kafka. Notified: @oncall-platform @alex.morgan", HasBody: true,
			Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); (o.Result.Category == contract.CategoryUrgent) != urgent {
			t.Errorf("%q copied to the reader: %s, urgent should be %v; signals %v", subject, o.Result.Category, urgent, o.Signals)
		}
	}
}

// TestUrgencyWordNotMeant checks that an urgency word used for something
// else does not press: a severity label, someone's availability, "right
// now" for "currently", an outage of the past (also named by its date in
// the subject, or a credit claimed for it); beside the same words
// pressing.
func TestUrgencyWordNotMeant(t *testing.T) {
	for _, tt := range []categoryCase{
		{"tom@talent.example", "SRE shortlist (3 profiles)", "Hi Alex, three profiles: Lukas, 6 yrs SRE at a fintech. Available immediately. Could you tell me by Friday whom you want to meet?", nil, false, "actionable"},
		{"jordan@saas.example", "Your renewal on Dec 15 - seat count?", "Hi Alex, your plan renews on December 15. Right now you're on 60 seats. How many seats do you want for next year?", nil, false, "actionable"},
		{"lena@pentest.example", "Pentest report (final)", "Hi Alex, the final report is in the shared folder. Summary: Critical: 0, High: 0, Medium: 2. Could you confirm the retest window by 4 December?", nil, false, "actionable"},
		{"ravi@northwind.example", "Fwd: SLA credit claim - November 17 outage", "Alex, can you sanity-check their numbers for the credit by Friday?", nil, false, "actionable"},
		{"s.krueger@nordfracht.example", "Fragenkatalog zur Störung vom 17.11. – Rückmeldung bis 04.12.", "Hallo Herr Morgan, anbei unsere Fragen. Können Sie uns bis 04.12. antworten?", nil, false, "actionable"},
		{"l.gil@logistica.example", "Preguntas sobre la caída del 17 de noviembre", "Hola Alex, ¿puedes respondernos a estas preguntas antes del viernes?", nil, false, "actionable"},
		{"noreply@github.com", "[northwind/driver-gateway] Critical severity Dependabot alert: jsonwebtoken", "A vulnerability was found in one of your dependencies. Review the alert.", nil, true, "actionable"},
		// pressing
		{"noreply@github.com", "[northwind/driver-gateway] Critical severity Dependabot alert: jsonwebtoken", "A critical severity vulnerability, actively exploited. Review the alert.", nil, true, "urgent"},
		{"k.weber@spedition.example", "Störung seit 14:00 – keine Touren", "Hallo Alex, seit 14:00 sehen wir keine Touren. Können Sie helfen?", nil, false, "urgent"},
		{"tom@talent.example", "Offer for Lukas", "Hi Alex, Lukas has a competing offer. Please call me immediately.", nil, false, "urgent"},
		{"ops@carrier.example", "Dispatch board", "Hi Alex, the dispatch board is down right now. Can you look at it?", nil, false, "urgent"},
		{"ops@carrier.example", "Routes", "Hi Alex, we have an outage of the route planner since 14:00. Can you look at it?", nil, false, "urgent"},
	} {
		checkCategory(t, tt)
	}
}

// TestSubjectHourOfToday checks subjects that set an hour of today for
// something the reader must do (a version number is no date; a cutoff
// is a deadline; "still needs you" asks), beside one that names another
// day.
func TestSubjectHourOfToday(t *testing.T) {
	for _, tt := range []categoryCase{
		{"lea@northwind.example", "Validation du hotfix 4.12.3 avant 18h (gel des déploiements)", "Alex,\n\nSam a un correctif. Il faut ton GO écrit pour passer en prod hors fenêtre.", nil, false, "urgent"},
		{"aisha@northwind.example", "2026.48 release train - cutoff 18:00, #2188 still needs you", "Hi Alex,\n\nEverything is merged except #2188, which needs a code-owner approval.", nil, false, "urgent"},
		{"lea@northwind.example", "Validation du hotfix 4.12.3 avant jeudi 18h", "Alex,\n\nSam a un correctif. Peux-tu donner ton GO pour passer en prod ?", nil, false, "actionable"},
		{"jonas@northwind.example", "Release am 4.12. um 18 Uhr", "Hallo Alex,\n\ndas Release ist geplant. Kannst du den Plan prüfen?", nil, false, "actionable"},
	} {
		checkCategory(t, tt)
	}
}

// TestRegressionSinceChange checks that a colleague's report of
// something broken since a change went out (a deploy, a release, the
// reader's change) is urgent, in each language, beside a report of a
// change that went fine.
func TestRegressionSinceChange(t *testing.T) {
	for _, tt := range []categoryCase{
		{"tomasz@northwind.example", "route-sync errors since your retry change - revert or fix forward?", "Alex, error rate on route-sync is at 4 % and climbing. Revert or fix forward?", nil, false, "urgent"},
		{"lucia@northwind.example", "Meseta: paradas duplicadas desde la release de las 14:00", "Alex, Meseta ve paradas duplicadas en 40 rutas. ¿Lo miras?", nil, false, "urgent"},
		{"jonas@northwind.example", "Tourenliste doppelt seit dem Release von heute", "Alex, Spedition Krüger sieht jede Tour doppelt. Kannst du draufschauen?", nil, false, "urgent"},
		{"hana@northwind.example", "東京リージョン リリース後に配車APIの5xxが増加しています", "モーガンさん、配車APIの5xxが増加しています。ご確認いただけますか。", nil, false, "urgent"},
		{"tomasz@northwind.example", "route-sync since your retry change - numbers look good", "Alex, error rate on route-sync is down to 0.1 %. Want me to write it up?", nil, false, "actionable"},
	} {
		checkCategory(t, tt)
	}
}

// TestOwnBranchPassed checks that a passing or fixed run of the reader's
// own branch is worth knowing, while someone else's is read later.
func TestOwnBranchPassed(t *testing.T) {
	list := map[string][]string{"List-Id": {"northwind/dispatch-api <dispatch-api.northwind.github.com>"}}
	for _, tt := range []categoryCase{
		{"notifications@github.com", "[northwind/dispatch-api] Run succeeded: CI - alex/eta-cache-ttl (4be91d0)", "All jobs have passed.", list, false, "informational"},
		{"builds@buildkite.com", "Fixed: northwind/geofence-service #2214 (alex/geofence-bulk-import)", "The build is green again.", nil, true, "informational"},
		{"notifications@github.com", "[northwind/dispatch-api] Run succeeded: CI - jonas/eta-cache-ttl (4be91d0)", "All jobs have passed.", list, false, "low priority"},
	} {
		checkCategory(t, tt)
	}
}

// TestWeekdayOfSending checks that a deadline naming the weekday the
// message was sent on is today: "avant mardi 19h" written on a Tuesday
// is urgent, written on the Monday before it is not; the same in a
// sentence ("by Tuesday 5pm").
func TestWeekdayOfSending(t *testing.T) {
	tuesday := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		subject, body string
		sent          time.Time
		urgent        bool
	}{
		{"Bascule flotte Rousseau - GO écrit avant mardi 19h", "Bonjour Alex, nous attendons votre GO écrit.", tuesday, true},
		{"Bascule flotte Rousseau - GO écrit avant mardi 19h", "Bonjour Alex, nous attendons votre GO écrit.", tuesday.AddDate(0, 0, -1), false},
		{"Rollout plan", "Hi Alex, can you sign off the rollout plan by Tuesday 5pm?", tuesday, true},
		{"Rollout plan", "Hi Alex, can you sign off the rollout plan by Tuesday 5pm?", tuesday.AddDate(0, 0, -1), false},
	} {
		m := &model.Message{MessageID: tt.subject + "@x", From: model.Address{Email: "g.leroy@cartolis.example"}, To: []model.Address{demoPrincipal},
			Subject: tt.subject, Text: tt.body, HasBody: true, Date: tt.sent}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); (o.Result.Category == contract.CategoryUrgent) != tt.urgent {
			t.Errorf("%q sent %s: %s, urgent should be %v; signals %v", tt.subject, tt.sent.Weekday(), o.Result.Category, tt.urgent, o.Signals)
		}
	}
}

// TestInvitationForToday checks that an invitation to a meeting later the
// day it was sent (its date in the subject, in each format) is urgent,
// and the same invitation sent days before is not.
func TestInvitationForToday(t *testing.T) {
	tuesday := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, subject := range []string{
		"Invitation: Great Lakes x Northwind - INC-2291 follow-up @ Tue 24 Nov 2026 17:30 - 18:15 (CET)",
		"Invitation: Spedition Hansen - call with the CTO @ Tue Nov 24, 17:30 - 18:00 (CET)",
		"Einladung: Eskalation Bergmann Logistik @ Di 24.11.2026 17:30 - 18:00",
		"Invitation : point client @ mar. 24 nov. 2026 17:30",
		"招待: 関東物流様 定例 @ 11月24日(火) 17:30",
	} {
		for _, sent := range []time.Time{tuesday, tuesday.AddDate(0, 0, -6)} {
			m := &model.Message{MessageID: subject + "@x", From: model.Address{Email: "ravi@northwind.example"}, To: []model.Address{demoPrincipal},
				Subject: subject, Text: "Ravi has invited you. Please respond.", HasBody: true, Date: sent,
				Attachments: []model.Attachment{{Filename: "invite.ics", ContentType: "text/calendar; method=REQUEST"}}}
			o := Deterministic([]*model.Message{m}, demoPrincipal)
			if urgent := o.Result.Category == contract.CategoryUrgent; urgent != sent.Equal(tuesday) {
				t.Errorf("%q sent %s: %s; signals %v", subject, sent.Format("Jan 2"), o.Result.Category, o.Signals)
			}
		}
	}
}

// TestIncidentAssigned checks that an incident tool assigning the reader
// to a live incident is urgent, and the same tool's resolved notice is
// not.
func TestIncidentAssigned(t *testing.T) {
	for _, tt := range []categoryCase{
		{"notifications@incident.example", "INC-2291: You've been assigned as Incident Lead - Dispatch API p99 latency degraded", "You are now the incident lead. Join the channel #inc-2291.", nil, true, "urgent"},
		{"notifications@pager.example", "You've been paged: route-db replication lag", "Acknowledge in the app.", nil, true, "urgent"},
		{"notifications@incident.example", "INC-2291 resolved: Dispatch API p99 latency degraded", "The incident was resolved by Priya.", nil, true, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// TestOnlyPrincipalWrote checks that a thread holding only the
// principal's own messages (a sent message waiting for its answer, also
// one that reads like a monitor's alert) is triaged, not a crash: nobody
// asks the reader anything in it.
func TestOnlyPrincipalWrote(t *testing.T) {
	for _, subject := range []string{"[Triggered on {host:db-1}] disk above 90%", "Quote request: 2,000 eSIM profiles", "Re: Run failed: CI - alex/fix"} {
		m := &model.Message{MessageID: subject + "@x", From: demoPrincipal, To: []model.Address{{Email: "alert@monitor.example"}},
			Subject: subject, Text: "Hi, could you send us a quote by Friday?", HasBody: true}
		o := Deterministic([]*model.Message{m}, demoPrincipal)
		if o.Result.Category != contract.CategoryInformational || o.Result.IsSpam {
			t.Errorf("%q written only by the principal: %s (spam %v)", subject, o.Result.Category, o.Result.IsSpam)
		}
	}
}

// TestBrokenSinceAndBracketedCancel checks a problem since an hour
// written without "Uhr" ("seit 11:40") or with 以降 ("15時以降…更新されて
// いません") as live, and a cancellation in brackets ("【キャンセル】",
// "[Cancelled]") as a calendar notice.
func TestBrokenSinceAndBracketedCancel(t *testing.T) {
	for _, tt := range []categoryCase{
		{"stefan@northwind.example", "Rhein-Logistik – keine Aufträge aus SAP seit 11:40", "Alex, seit 11:40 kommen keine Aufträge aus SAP an.", nil, false, "urgent"},
		{"takuya@northwind.example", "関東物流様：15時以降、一部車両の位置情報が更新されていません", "モーガンさん、15時以降、一部車両の位置情報が更新されていません。", nil, false, "urgent"},
		{"stefan@northwind.example", "Rhein-Logistik – Aufträge aus SAP seit 11:40 wieder da", "Alex, seit 11:40 kommen die Aufträge wieder an. Danke!", nil, false, "informational"},
	} {
		checkCategory(t, tt)
	}
	for subject, want := range map[string]bool{"【キャンセル】北辰運輸・API仕様確認打ち合わせ": true, "[Cancelled] Weekly sync": true, "Cancel culture in ops": false} {
		if got := isCalendarNotice(subject); got != want {
			t.Errorf("isCalendarNotice(%q) = %v, want %v", subject, got, want)
		}
	}
}
