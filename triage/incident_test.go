package triage

import (
	"testing"

	"mailsift/model"
)

// TestWrappedPhrases checks that a phrase wrapped onto the next line of a
// plain-text message reads as written on one: an ask, a time of the day
// and "as soon as you see this" across a line break.
func TestWrappedPhrases(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body, want string
	}{
		{"Alex - this is a large account. Can you take a slot with her this\nafternoon? I'll join.", "urgent"},
		{"Alex - this is a large account. Can you take a slot with her next\nweek? I'll join.", "actionable"},
		{"We have not seen the tokens used, but we ask you\nto rotate every token of your workspace by Friday.", "actionable"},
		{"Can you do it as soon as\nyou see this?", "urgent"},
		{"Thanks for the notes from the\nworkshop, they read well.", "informational"},
		{"For the new VPN you'll need\nto install the client from the portal before December 7.", "actionable"},
	} {
		m := &model.Message{From: model.Address{Name: "Marcus", Email: "marcus@partner.example"}, To: []model.Address{p},
			Subject: "follow-up", Text: tt.body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.body, o.Result.Category, tt.want, o.Signals)
		}
	}
}

// TestAskAboutALiveIncident checks that a person asking the principal
// something about a live problem (an alert that fired, an outage, a
// suspended account, a suspicious sign-in; five languages) is urgent,
// while the same ask about a resolved incident, a postmortem, or a
// problem named by no subject is not, nor a service's own notice.
func TestAskAboutALiveIncident(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	colleague := model.Address{Name: "Kofi Mensah", Email: "kofi@northwind.example"}
	for _, tt := range []struct {
		subjects []string // the thread's messages, oldest first; the last is the colleague's
		body     string
		want     string
	}{
		{[]string{"[Triggered] #4821 api-gateway: 5xx rate above 5%", "Re: api-gateway 5xx"}, "Do you want me to roll back the release, or wait for the fix?", "urgent"},
		{[]string{"Your Acme Cloud account has been suspended", "Re: Your Acme Cloud account has been suspended"}, "Can you approve the plan upgrade so they lift it?", "urgent"},
		{[]string{"Abuse report for instance i-0abc12"}, "Do you know what runs on that instance? Should I stop it?", "urgent"},
		{[]string{"Checkout caído para clientes de Chile"}, "¿Nos das el visto bueno para desactivar el nuevo proveedor de pagos?", "urgent"},
		{[]string{"Störung im Rechenzentrum Frankfurt"}, "Sollen wir auf Amsterdam umschalten? Bitte gib kurz Bescheid.", "urgent"},
		{[]string{"Connexion suspecte sur le compte admin"}, "Peux-tu confirmer que ce n'était pas toi ?", "urgent"},
		{[]string{"管理画面への不審なログイン"}, "APIキーを失効させてよいか、ご判断をお願いします。", "urgent"},
		{[]string{"Réplica de eu-south sin espacio en disco"}, "¿Me das el visto bueno para ampliar el volumen?", "urgent"},
		{[]string{"Drivers unable to sign in to the app"}, "Can you check what changed in last night's release?", "urgent"},
		{[]string{"Replica lag on eu-db-3 climbing"}, "Should I fail over the read traffic or wait?", "urgent"},
		{[]string{"Deploy der Telematik-API hängt"}, "Sollen wir zurückrollen? Gib mir kurz Bescheid.", "urgent"},
		{[]string{"40 réclamations dans la dernière heure"}, "Peux-tu regarder ce qui a changé dans la release ?", "urgent"},
		{[]string{"Export bloqueado para los clientes de Valencia"}, "¿Puedes mirar qué pasa?", "urgent"},
		{[]string{"Deploy failed in eu-west - roll back?"}, "Should I roll back to 4.2.1 or wait for the hotfix?", "urgent"},
		{[]string{"大阪リージョン デプロイ失敗"}, "ロールバックしてよいか、ご判断をお願いします。", "urgent"},
		{[]string{"Publicly readable bucket with your customers' exports"}, "Can you make it private today and tell us since when it was open?", "urgent"},
		{[]string{"Bucket S3 accessible publiquement"}, "Peux-tu vérifier qui l'a ouvert ?", "urgent"},
		{[]string{"Search indexing delayed for EU tenants"}, "Can you check whether the consumers are stuck?", "urgent"},
		{[]string{"Release delayed to Monday"}, "Can you update the customer notes?", "actionable"},
		{[]string{"Thoughts on the new dashboard layout"}, "Should I move the latency panel to the top?", "actionable"},
		{[]string{"Scheduled maintenance: admin console unavailable on Dec 3"}, "Can you tell your team to plan around it?", "actionable"},
		{[]string{"[Resolved] api-gateway: 5xx rate above 5%", "Re: api-gateway 5xx"}, "Do you want a write-up for the customers?", "actionable"},
		{[]string{"Postmortem: checkout outage of November 12"}, "Can you review the timeline before the meeting next week?", "actionable"},
		{[]string{"Quarterly planning"}, "Can you send me your headcount numbers for next quarter?", "actionable"},
		{[]string{"Notes from the outage review"}, "Thanks for joining, the notes are in the wiki.", "informational"},
	} {
		var msgs []*model.Message
		for i, s := range tt.subjects {
			m := &model.Message{From: colleague, To: []model.Address{p}, Subject: s, HasBody: true, Text: tt.body}
			if i < len(tt.subjects)-1 {
				m.From = model.Address{Name: "Monitor", Email: "alerts@monitor.example"}
				m.Text = "An incident was raised. Acknowledge it in the console."
				m.Headers = map[string][]string{"Auto-Submitted": {"auto-generated"}}
			}
			msgs = append(msgs, m)
		}
		if o := Deterministic(msgs, p); string(o.Result.Category) != tt.want {
			t.Errorf("%q: %s, want %s; signals %v", tt.subjects, o.Result.Category, tt.want, o.Signals)
		}
	}
	// A service's own notice of a suspension is its instructions, not a
	// person's ask: the alert rule decides the services' alerts, and a
	// suspension of the reader's account is a live problem (every labeled
	// set files such notices urgent).
	m := autoMail("billing@acmecloud.example", "Your account has been suspended",
		"Your account was suspended because an invoice is overdue. Please update your payment method to restore service.", nil)
	m[0].To = []model.Address{p}
	if o := Deterministic(m, p); o.Result.Category != "urgent" {
		t.Errorf("a service's suspension notice: %s, want urgent; signals %v", o.Result.Category, o.Signals)
	}
}

// TestWithinTheHour checks that a need due in an hour ("ich brauche die
// Angaben in einer Stunde", "in an hour") is urgent, in three languages.
func TestWithinTheHour(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, body := range []string{
		"Alex, kurze Erinnerung: ich brauche die Angaben in einer Stunde, sonst wird es knapp.",
		"Alex, I need the figures in an hour for the board pack.",
		"Alex, j'ai besoin des chiffres dans une heure pour le comité.",
	} {
		m := &model.Message{From: model.Address{Name: "Sabine", Email: "sabine@northwind.example"}, To: []model.Address{p},
			Subject: "Angaben", Text: body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); o.Result.Category != "urgent" {
			t.Errorf("%q: %s, want urgent; signals %v", body, o.Result.Category, o.Signals)
		}
	}
}

// TestAskAtAnHour checks that an ask for something at an hour that names
// no other day is of today (urgent), in four languages, and that the
// same ask on another day is not; so is a need stated without its
// subject ("Still need it by 9").
func TestAskAtAnHour(t *testing.T) {
	for _, tt := range []categoryCase{
		{"marco@northwind.example", "Customer call", "Can you get on a call with her at 3:30pm?", nil, false, "urgent"},
		{"marco@northwind.example", "Customer call", "Can you get on a call with her on Thursday at 3:30pm?", nil, false, "actionable"},
		{"raj@northwind.example", "globex", "You on the 2pm with Globex?", nil, false, "urgent"},
		{"raj@northwind.example", "globex", "You on the 2pm with Globex on Dec 3?", nil, false, "actionable"},
		{"jana@northwind.example", "Abstimmung", "Kannst du um 15 Uhr dazukommen?", nil, false, "urgent"},
		{"jana@northwind.example", "Abstimmung", "Kannst du am Donnerstag um 15 Uhr dazukommen?", nil, false, "actionable"},
		{"rachel@northwind.example", "uptime numbers", "SLO-based, with a footnote on October. Still need it by 9.", nil, false, "urgent"},
		{"rachel@northwind.example", "uptime numbers", "SLO-based, with a footnote on October. Still need it by Friday.", nil, false, "actionable"},
		{"claire@northwind.example", "Point client", "Peux-tu te joindre à l'appel à 15h ?", nil, false, "urgent"},
		{"claire@northwind.example", "Point client", "Peux-tu te joindre à l'appel de mardi à 15h ?", nil, false, "actionable"},
	} {
		checkCategory(t, tt)
	}
}
