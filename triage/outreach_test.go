package triage

import (
	"slices"
	"testing"

	"mailsift/model"
)

// TestColdOutreach checks that a stranger's unsolicited pitch is spam in
// the five languages (an offer with an opener, a call to action, an
// opt-out line or a free-mail sender; a prize or an award that costs a
// fee; a follow-up to mail the thread does not hold), and that the same
// words are not enough from someone the user corresponds with, from a
// recruiter or a customer, in a newsletter or in mail to a group.
func TestColdOutreach(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	stranger := model.Address{Name: "Chris Doyle", Email: "chris@growthworks.example"}
	for _, tt := range []struct {
		name, subject, body string
		from                model.Address
		want                bool
	}{
		// English
		{"seo pitch", "Your site", "Hello,\n\nI was looking at your website and it is not ranking for your main keywords. Our SEO services put clients on the first page of Google. Would you be interested in a free audit?\n\nBest, Chris", stranger, true},
		{"web design from free mail", "Redesign", "Hi,\n\nYour homepage looks dated on phones. We design websites that convert, website redesign in two weeks.\n\nRegards", model.Address{Email: "webpro.designs77@gmail.com"}, true},
		{"lead list", "Conference contacts", "Hi,\n\nWe have the list of attendees of the Cloud Summit with verified contacts (email, phone, title). Let me know if you are interested and I'll share samples.\n\nSara", stranger, true},
		{"business loan", "Funding for Northwind", "Hello,\n\nGood news: your company may qualify for up to $500,000 in working capital, no collateral. Reply YES and an advisor will call you.", stranger, true},
		{"15-minute call", "Quick question", "Hi Alex,\n\nI'm reaching out because we help companies like yours cut cloud costs by 30%. Are you open to a quick 15-minute call next week?\n\nIf you're not interested, just reply no.", stranger, true},
		{"phantom follow-up", "Re: our chat", "Hi Alex,\n\nJust following up on my last email. Would it make sense to find 15 minutes this week?\n\nThanks, Chris", stranger, true},
		{"paid award", "Nomination", "Dear Alex Morgan,\n\nYou have been nominated as one of the 100 most innovative CTOs. To secure your profile in the yearbook a publication fee of EUR 890 applies.", stranger, true},
		// German
		{"de seo", "Ihre Website", "Guten Tag,\n\nich bin auf Ihre Website gestoßen: Sie erscheinen nicht auf der ersten Seite bei Google. Mit unserer Suchmaschinenoptimierung gewinnen Sie mehr Kunden. Hätten Sie Interesse an einem kurzen Telefonat?", stranger, true},
		{"de kredit", "Finanzierung", "Sehr geehrte Damen und Herren,\n\nIhr Unternehmen erhält einen Firmenkredit bis 200.000 EUR ohne Sicherheiten. Wenn Sie kein Interesse haben, antworten Sie einfach mit Nein.", stranger, true},
		{"de gewinn", "Glückwunsch", "Hallo,\n\nSie wurden als Gewinner unserer Verlosung gezogen! Für die Zustellung fällt nur eine Bearbeitungsgebühr von 4,95 EUR an.", stranger, true},
		// French
		{"fr référencement", "Votre site", "Bonjour,\n\nje me permets de vous contacter car votre site n'apparaît pas en première page de Google. Notre offre de référencement naturel vous apporte plus de clients. Seriez-vous intéressé par un audit gratuit ?", stranger, true},
		{"fr relance", "Relance", "Bonjour,\n\nje me permets de vous relancer suite à mon précédent message. Seriez-vous disponible pour un court échange cette semaine ?\n\nSi cela ne vous intéresse pas, dites-le-moi.", stranger, true},
		// Spanish
		{"es posicionamiento", "Su web", "Hola,\n\nhe visto su página web y no aparece en la primera página de Google. Con nuestro posicionamiento web conseguirá más clientes. ¿Le interesaría una auditoría gratuita?", stranger, true},
		{"es préstamo", "Financiación", "Estimado cliente:\n\nsu empresa tiene un préstamo preaprobado de hasta 100.000 € sin aval. Si está interesado, responda sí a este correo.", stranger, true},
		{"es premio", "Premio", "Enhorabuena,\n\nha sido seleccionado como ganador de nuestro sorteo. Solo tiene que pagar los gastos de envío de 3,50 €.", stranger, true},
		// Japanese
		{"ja seo", "ホームページについて", "突然のご連絡失礼いたします。\n\n貴社のホームページを拝見しました。弊社のSEO対策で検索上位を実現します。ご興味がございましたらご返信ください。", stranger, true},
		{"ja 融資", "資金調達のご案内", "初めてご連絡いたします。\n\n最短即日の資金調達をご支援しております。ご興味があれば本メールへの返信でお知らせください。", stranger, true},
		{"ja award", "ノミネートのお知らせ", "おめでとうございます。貴社はアワードにノミネートされました。掲載料は30万円です。", stranger, true},

		{"lead generation", "Meetings with CTOs", "Hi Alex,\n\nwe book qualified appointments with CTOs for SaaS vendors, 20 leads per month guaranteed. When is a good time for a quick demo?", stranger, true},
		{"checking in", "Checking in", "Hi Alex,\n\njust checking in: is improving your search rankings something you'd be interested in?", stranger, true},
		{"shortlisted", "Shortlisted", "Hello,\n\nyou've been shortlisted for the Innovation Awards. To secure your trophy a participation fee of $1,200 is due.", stranger, true},
		{"de leads", "Neue Termine", "Guten Tag,\n\nwir vereinbaren qualifizierte Leads und Termine für IT-Dienstleister. Wäre das interessant für Sie?", stranger, true},
		{"de nachfassen", "Nochmals", "Hallo Herr Morgan,\n\nich melde mich noch einmal wegen meiner letzten Nachricht. Hätten Sie Interesse an einem kurzen Telefonat?", stranger, true},
		{"fr financement", "Financement", "Bonjour,\n\nnotre offre de financement permet d'obtenir jusqu'à 150 000 € en 48 h. Seriez-vous disponible pour un court échange ?", stranger, true},
		{"es leads", "Clientes", "Hola,\n\nayudamos a empresas de software a conseguir leads cualificados cada mes. ¿Tiene 15 minutos esta semana?", stranger, true},
		{"ja アポ", "営業支援のご案内", "初めてご連絡いたします。\n\n決裁者とのアポイント獲得を代行しております。オンライン面談のお時間をいただけますでしょうか。", stranger, true},
		{"ja 再送", "再度のご連絡", "先日お送りしたメールの件で、再度ご連絡いたしました。ご不要の場合はお知らせください。", stranger, true},

		{"reply to nothing", "Re: your website", "Hello,\n\nour SEO agency gets sites like yours to the top of Google in 90 days.", stranger, true},
		{"de antwort auf nichts", "AW: Ihre Webseite", "Guten Tag,\n\nunsere Suchmaschinenoptimierung bringt Sie auf die erste Seite bei Google.", stranger, true},
		{"fr réponse à rien", "RE: votre site", "Bonjour,\n\nnotre audit gratuit montre comment gagner plus de clients.", stranger, true},
		{"es respuesta a nada", "RE: su web", "Hola,\n\nnuestro posicionamiento web le dará más clientes.", stranger, true},
		{"ja 返信偽装", "Re: ホームページについて", "弊社のSEO対策で検索上位を実現します。", stranger, true},
		{"website analysis", "Your site: 31 errors found", "Hello,\n\nI was analyzing your website and found 31 errors that keep you off page 1 of Google. Can I send it over?", stranger, true},
		{"exhibitor booth", "Booths left", "Hi Alex,\n\nWe have a few exhibitor booths left at the Cloud Expo; booth packages start at $6,000. Would you like me to send over the floor plan?", stranger, true},
		// The whole shape of a pitch without a named offer: an opener or a
		// bump, a call asked for, and an offer to go away.
		{"pitch without offer", "quick question, Alex", "Hi Alex,\n\nI'm reaching out because I saw Northwind is hiring SREs. Worth a 20-minute chat next week?\n\nIf you're not the right person, who would you point me to?", stranger, true},
		{"fr pitch sans offre", "Échange", "Bonjour,\n\nje me permets de vous contacter au sujet de vos équipes DevOps. Seriez-vous disponible pour un court échange ? Si cela ne vous intéresse pas, dites-le-moi.", stranger, true},
		{"de pitch ohne angebot", "Kurze Frage", "Guten Tag,\n\nmein Name ist Kowalski. Hätten Sie Interesse an einem kurzen Austausch? Falls kein Interesse besteht, melde ich mich nicht mehr.", stranger, true},
		{"trading offer with an opt-out line", "Your BTC allocation", "Congratulations Alex!\n\nOur AI trading engine reserved a 0.42 BTC allocation in your name. Activate it with a deposit of 250 EUR.\n\nTo stop receiving these emails click here.", stranger, true},
		{"es keynote with a fee", "Ha sido seleccionado como ponente principal", "Estimado Dr. Morgan:\n\nha sido seleccionado como ponente principal del congreso. Para confirmar su participación, formalice la inscripción: la cuota de ponente es de 1.450 €.", stranger, true},
		{"meetup invitation", "Talk at the Go meetup", "Hi Alex,\n\nmy name is Julien, I organise the Paris Gophers. Would you be interested in giving a talk in January?", stranger, false},
		// Not outreach: one cue alone.
		{"customer reviewing the site", "Pricing question", "Hi Alex,\n\nI was reviewing your website and could not find the price of the SSO add-on. Can I send it over, the quote we got last year, so you can compare?", stranger, false},
		{"booth we booked", "Our booth", "Hi Alex,\n\nOur exhibitor booth at the Cloud Expo is confirmed for March. Can you send me the banner files?", model.Address{Name: "Priya", Email: "priya@northwind.example"}, false},
		{"vendor note", "Renewal", "Hi Alex,\n\nYour contract renews next month. Would you be interested in adding the analytics module?", stranger, false},
		{"recruiter", "Staff engineer role", "Hi Alex,\n\nI came across your profile and I'm reaching out about a Staff Engineer role at a fintech in Berlin. Would you be interested in a quick call?\n\nBest, Maria (Talent Partners)", stranger, false},
		{"customer call", "Export issue", "Hi Alex,\n\nmy name is Dana, I run operations at Acme. The export to our payroll fails since Monday. Could we do a quick call of 15 minutes today?", stranger, false},
		{"de kunde", "Rückfrage", "Hallo Herr Morgan,\n\nmein Name ist Weber, wir nutzen Ihre Plattform. Hätten Sie Interesse an einem kurzen Telefonat zu unserem Vertrag?", stranger, false},
		{"fr client", "Question", "Bonjour,\n\nje m'appelle Claire, nous sommes clients chez vous. Puis-je vous envoyer les journaux de l'incident d'hier ?", stranger, false},
		{"es cliente", "Consulta", "Hola Alex:\n\nmi nombre es Lucía, de Grupo Sur. ¿Podemos tener una llamada rápida sobre la factura de octubre?", stranger, false},
		{"ja 顧客", "お問い合わせ", "初めてご連絡いたします。\n\n御社のサービスを利用しております。請求書について15分ほどお時間をいただけますでしょうか。", stranger, false},
		{"customer seo team", "API docs down", "Hi Alex,\n\nmy name is Tom, I lead the SEO team at Acme. Your API docs return 500 since this morning; can you check?", stranger, false},
		{"de kunde entscheider", "Freigabe", "Guten Tag,\n\nmein Name ist Weber. Unsere Entscheider brauchen den Bericht bis Freitag.", stranger, false},
		{"fr recruteur", "Poste", "Bonjour,\n\nje me permets de vous contacter pour un poste de directeur technique à Lyon. Seriez-vous disponible pour un court échange ?", stranger, false},
		{"es reclutador", "Puesto", "Hola Alex:\n\nme pongo en contacto por un puesto de arquitecto en Madrid. ¿Tiene 15 minutos esta semana?", stranger, false},
		{"ja 採用", "ポジションのご案内", "突然のご連絡失礼いたします。\n\nエンジニアリングマネージャーのポジションについて、ご興味があればご返信ください。", stranger, false},
		{"prize without fee", "You've been selected", "Hi Alex,\n\nyou have been selected for the beta of our new dashboard. No action needed.", stranger, false},
		{"colleague", "Marketing idea", "Alex,\n\nI think lead generation is where we should spend next quarter. Would you be interested in a quick call?", model.Address{Name: "Priya", Email: "priya@northwind.example"}, false},
	} {
		m := &model.Message{From: tt.from, To: []model.Address{p}, Subject: tt.subject, Text: tt.body, HasBody: true}
		o := Deterministic([]*model.Message{m}, p)
		got := slices.ContainsFunc(o.Signals, func(s Signal) bool { return s.Kind == SigOutreach })
		if got != tt.want {
			t.Errorf("%s: outreach %t, want %t; signals %v", tt.name, got, tt.want, o.Signals)
		}
		if tt.want && !o.Result.IsSpam {
			t.Errorf("%s: outreach but not spam", tt.name)
		}
	}
}

// TestColdOutreachNeedsAStranger checks that a pitch is not outreach from
// a sender the user corresponds with (an account manager the user wrote
// to or whose mail they read, a thread the user wrote in), through a
// list (a newsletter with an unsubscribe link), or to a group.
func TestColdOutreachNeedsAStranger(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	am := model.Address{Name: "Jordan Lee", Email: "jordan.lee@cloudvendor.example"}
	pitch := "Hi Alex,\n\nwe help companies like yours cut their cloud bill. Are you open to a quick call next week?\n\nJordan"
	newMsg := func() *model.Message {
		return &model.Message{From: am, To: []model.Address{p}, Subject: "Cost review", Text: pitch, HasBody: true}
	}
	a := NewAnalyzer(nil)
	has := func(o *Outcome) bool {
		return slices.ContainsFunc(o.Signals, func(s Signal) bool { return s.Kind == SigOutreach })
	}
	triage := func(msgs []*model.Message, s Senders) *Outcome {
		o, _ := NewOffline(a).Triage(t.Context(), Input{Messages: msgs, Principal: p, Senders: s})
		return o
	}
	if o := triage([]*model.Message{newMsg()}, nil); !has(o) || !o.Result.IsSpam {
		t.Fatalf("the pitch from a stranger is not outreach spam; the test no longer shows the rule (%v)", o.Signals)
	}
	from := am.Email
	if o := triage([]*model.Message{newMsg()}, fakeSenders{from: {3, 0}}); has(o) || o.Result.IsSpam {
		t.Errorf("account manager the user wrote to: outreach %t, spam %t", has(o), o.Result.IsSpam)
	}
	if o := triage([]*model.Message{newMsg()}, fakeSenders{from: {0, 4}}); has(o) || o.Result.IsSpam {
		t.Errorf("account manager the user reads: outreach %t, spam %t", has(o), o.Result.IsSpam)
	}
	mine := &model.Message{From: p, To: []model.Address{am}, Subject: "Cost review", Text: "Jordan, can you send me your offer?", HasBody: true}
	if o := triage([]*model.Message{mine, newMsg()}, nil); has(o) || o.Result.IsSpam {
		t.Errorf("reply in a thread the user wrote in: outreach %t, spam %t", has(o), o.Result.IsSpam)
	}
	news := newMsg()
	news.Headers = map[string][]string{"List-Unsubscribe": {"<https://news.cloudvendor.example/u/1>"}}
	news.Text += "\n\nUnsubscribe: https://news.cloudvendor.example/u/1"
	if o := triage([]*model.Message{news}, nil); has(o) {
		t.Errorf("newsletter with an unsubscribe link: outreach (%v)", o.Signals)
	}
	reply := &model.Message{From: am, To: []model.Address{p}, Subject: "Re: pricing", InReplyTo: []string{"<ask@northwind.example>"},
		Text: "Hi Alex,\n\nthanks for asking: our packages start at $99 a month.", HasBody: true}
	if o := triage([]*model.Message{reply}, nil); has(o) {
		t.Errorf("a vendor's answer to the user's question (In-Reply-To): outreach (%v)", o.Signals)
	}
	noref := *reply
	noref.InReplyTo = nil
	if o := triage([]*model.Message{&noref}, nil); !has(o) {
		t.Errorf("the same answer with no In-Reply-To or References: not outreach (%v)", o.Signals)
	}
	info := newMsg()
	info.To = []model.Address{{Email: "info@northwind.example"}}
	if o := triage([]*model.Message{info}, nil); !has(o) {
		t.Errorf("pitch to the organisation's info@ address: not outreach (%v)", o.Signals)
	}
	elsewhere := newMsg()
	elsewhere.To = []model.Address{{Email: "pat@partner.example"}}
	if o := triage([]*model.Message{elsewhere}, nil); has(o) {
		t.Errorf("pitch to someone outside the organisation (a Bcc): outreach (%v)", o.Signals)
	}
	group := newMsg()
	group.To = append(group.To, model.Address{Email: "sam@northwind.example"}, model.Address{Email: "kim@northwind.example"})
	if o := triage([]*model.Message{group}, nil); has(o) {
		t.Errorf("mail to a group: outreach (%v)", o.Signals)
	}
}

// TestGreetingByTitle checks that a greeting by title and surname is as
// personal as one by first name, in the five languages, and that the
// surname alone, another person's title or a later line is not.
func TestGreetingByTitle(t *testing.T) {
	for _, tt := range []struct {
		p    model.Address
		want string
	}{
		{model.Address{Name: "Alex Morgan", Email: "a@x.example"}, "Morgan"},
		{model.Address{Name: "Alex", Email: "alex.morgan@x.example"}, ""},
		{model.Address{Email: "alex.morgan@x.example"}, "morgan"},
		{model.Address{Email: "alex@x.example"}, ""},
		{model.Address{Email: "me@example.org"}, ""},
	} {
		if got := surname(tt.p); got != tt.want {
			t.Errorf("surname(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"Dear Mr Morgan,\n\nplease find…", true},
		{"Dear Mr. Morgan,", true},
		{"Dear Dr Morgan", true},
		{"Sehr geehrter Herr Morgan,", true},
		{"Sehr geehrte Frau Morgan,", true},
		{"Bonjour Monsieur Morgan,", true},
		{"Madame Morgan,", true},
		{"Estimado Sr. Morgan:", true},
		{"Estimada Sra. Morgan:", true},
		{"Morgan様\n\nいつもお世話になっております。", true},
		{"Morgan さん、", true},
		{"Morganさんの件で", true},
		{"Dear Morgan,", false},
		{"Dear Mr Morganson,", false},
		{"Dear Mr Smith,", false},
		{"Dear Customer,\n\nMr Morgan asked us to write to you.", false},
		{"Morgan Stanley is hiring", false},
	} {
		if got := greetsByTitle(tt.text, "morgan"); got != tt.want {
			t.Errorf("greetsByTitle(%q) = %t, want %t", tt.text, got, tt.want)
		}
	}
}

// TestReplyToOwnDomain checks that a Reply-To in the principal's own
// domain (a signing or form service writing on a colleague's behalf) is
// no reply diversion, in the five languages, while one to a third domain
// still is.
func TestReplyToOwnDomain(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	colleague := model.Address{Name: "Sam Ortiz", Email: "sam.ortiz@northwind.example"}
	other := model.Address{Name: "Sam Ortiz", Email: "sam.ortiz@signing-help.example"}
	for _, body := range []string{
		"Sam Ortiz sent you a document to review and sign.\n\nAlex, the contract with the two changes you asked for.",
		"Sam Ortiz hat Ihnen ein Dokument zur Unterschrift gesendet.\n\nAlex, hier der Vertrag mit deinen Änderungen.",
		"Sam Ortiz vous a envoyé un document à signer.\n\nAlex, voici le contrat avec tes modifications.",
		"Sam Ortiz le ha enviado un documento para firmar.\n\nAlex, aquí está el contrato con tus cambios.",
		"Sam Ortizさんから署名依頼の文書が届いています。\n\nAlexさん、修正版の契約書です。",
	} {
		for _, tt := range []struct {
			replyTo model.Address
			want    bool
		}{{colleague, false}, {other, true}} {
			m := &model.Message{From: model.Address{Name: "Sam Ortiz via Sign", Email: "dse@sign.example"}, ReplyTo: []model.Address{tt.replyTo},
				To: []model.Address{p}, Subject: "Please sign: contract.pdf", Text: body, HasBody: true}
			o := Deterministic([]*model.Message{m}, p)
			got := slices.ContainsFunc(o.Signals, func(s Signal) bool { return s.Kind == SigReplyToMismatch })
			if got != tt.want {
				t.Errorf("Reply-To %s, %q: reply-to mismatch %t, want %t", tt.replyTo.Email, body, got, tt.want)
			}
		}
	}
}

// TestNotifierAddress checks that mail from a service's notification
// address is not condemned by the learned score alone (a receipt or a
// shipping notice reads like a 2002 advertisement to it), while spam
// wording or an indicator still condemns it, and that a person's or a
// sales address is no notifier.
func TestNotifierAddress(t *testing.T) {
	for _, tt := range []struct {
		email string
		want  bool
	}{
		{"noreply@shop.example", true},
		{"no-reply@accounts.example", true},
		{"DoNotReply@bank.example", true},
		{"notifications@expenses.example", true},
		{"notifications+approvals@expenses.example", true},
		{"orderstatus@hardware.example", true},
		{"benachrichtigung@bank.example", false},
		{"sales@shop.example", false},
		{"offers@quickcapital.example", false},
		{"jane.noreply@example.org", false},
		{"account-security-noreply@accountprotection.example", true},
		{"billing_no-reply@cloud.example", true},
		{"noreplyhelper@tools.example", false},
		{"noreply", false},
	} {
		if got := notifierAddress(tt.email); got != tt.want {
			t.Errorf("notifierAddress(%q) = %t, want %t", tt.email, got, tt.want)
		}
	}
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	receipt := *demoReceipt(t)
	receipt.Headers = nil
	receipt.From = model.Address{Name: "Shop", Email: "orders@shop-mail.example"}
	if o := Deterministic([]*model.Message{&receipt}, p); !o.Result.IsSpam {
		t.Fatalf("the receipt from a sales address is not spam; the test no longer shows the learned score deciding (%v)", o.Signals)
	}
	receipt.From.Email = "noreply@shop-mail.example"
	if o := Deterministic([]*model.Message{&receipt}, p); o.Result.IsSpam {
		t.Errorf("the receipt from a notification address is spam by the learned score alone (%v)", o.Signals)
	}
	receipt.Text += "\n\nYou have won! Claim your prize: click here."
	if o := Deterministic([]*model.Message{&receipt}, p); !o.Result.IsSpam {
		t.Errorf("spam wording from a notification address is not spam (%v)", o.Signals)
	}
}

// TestRecruiterPitch checks that a stranger's search for another company
// asking whether the principal is open to it is low priority (not spam),
// in three languages, while a stranger's other mail and a recruiter the
// principal has written to are not taken for one.
func TestRecruiterPitch(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body     string
		pitch    bool
		familiar bool
	}{
		{"Hi Alex,\n\nI'm partnering with a Series B logistics company on a Head of Engineering search. Would you be open to a short call next week?", true, false},
		{"Hallo Alex,\n\nmein Mandant, ein Softwarehaus in München, sucht eine Leitung Plattform. Wären Sie offen für ein kurzes Gespräch?", true, false},
		{"Bonjour Alex,\n\nmon client, une scale-up lyonnaise, recrute un directeur technique. Seriez-vous ouvert à un échange de 20 minutes ?", true, false},
		{"Sehr geehrter Herr Morgan,\n\nim Auftrag eines Logistikdienstleisters suche ich einen CTO. Hätten Sie Interesse an einem vertraulichen Gespräch?", true, false},
		{"Hi Alex,\n\nMy client has reviewed your proposal. Would you be able to send the signed copy by Friday?", false, false},
		{"Hi Alex,\n\nI'm partnering with a Series B logistics company on a Head of Engineering search. Would you be open to a short call next week?", false, true},
	} {
		m := &model.Message{From: model.Address{Name: "Megan", Email: "megan@search-partners.example"}, To: []model.Address{p},
			Subject: "A role you may like", Text: tt.body, HasBody: true}
		a := NewAnalyzer(nil)
		var senders Senders
		if tt.familiar {
			senders = fakeSenders{"megan@search-partners.example": {3, 0}}
		}
		o, _ := a.deterministic([]*model.Message{m}, p, senders)
		got := o.Result.Category == "low priority" && !o.Result.IsSpam
		if got != tt.pitch {
			t.Errorf("%q: %s spam=%t, want a pitch %t; signals %v", tt.body, o.Result.Category, o.Result.IsSpam, tt.pitch, o.Signals)
		}
	}
}

// TestShopSaleFromAStranger checks that a shop's sale sent to the
// principal alone by a shop they never dealt with, with an opt-out line or
// a call to action, is a stranger's pitch (spam), in three languages; the
// same sale from a shop the principal reads is not.
func TestShopSaleFromAStranger(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		subject, body string
		familiar      bool
		spam          bool
	}{
		{"【本日限定】人気のサプリが半額", "人気のサプリメントが本日限定で半額です。\n※配信停止をご希望の方はその旨ご返信ください。", false, true},
		{"Nur heute: versandkostenfrei", "Alle Bürostühle heute versandkostenfrei. Wenn Sie keine weiteren E-Mails wünschen, antworten Sie mit STOP.", false, true},
		{"Half price on standing desks", "Our standing desks are half price this week. If you're not interested, just reply no.", false, true},
		{"Half price on standing desks", "Our standing desks are half price this week. If you're not interested, just reply no.", true, false},
	} {
		m := &model.Message{From: model.Address{Name: "Shop", Email: "deals@desk-shop.example"}, To: []model.Address{p},
			Subject: tt.subject, Text: tt.body, HasBody: true}
		var senders Senders
		if tt.familiar {
			senders = fakeSenders{"deals@desk-shop.example": {0, 3}}
		}
		o, _ := NewAnalyzer(nil).deterministic([]*model.Message{m}, p, senders)
		if o.Result.IsSpam != tt.spam {
			t.Errorf("%q: spam %t, want %t; signals %v", tt.subject, o.Result.IsSpam, tt.spam, o.Signals)
		}
	}
}

// TestOutsourcingPitch checks that an outsourcing firm's pitch from a
// stranger ("scale your engineering team at 1/3 the cost") with a call to
// action is cold outreach, while a partner's plain mention of scaling is
// not.
func TestOutsourcingPitch(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		body string
		spam bool
	}{
		{"Hi Alex,\n\nWe help logistics companies scale your engineering team at 1/3 the cost with vetted engineers. Do you have 15 minutes Thursday or Friday?", true},
		{"Hola Alex,\n\nEn NovaWeb diseñamos webs modernas desde 499 €. Si no deseas recibir más comunicaciones, responde BAJA.", true},
		{"Hi Alex,\n\nOur team grew to 40 engineers this year; can we move the integration review to Thursday?", false},
	} {
		m := &model.Message{From: model.Address{Name: "Rahul", Email: "rahul@offshore-devs.example"}, To: []model.Address{p},
			Subject: "Scaling in 2027", Text: tt.body, HasBody: true}
		if o := Deterministic([]*model.Message{m}, p); o.Result.IsSpam != tt.spam {
			t.Errorf("%q: spam %t, want %t; signals %v", tt.body, o.Result.IsSpam, tt.spam, o.Signals)
		}
	}
}

// TestStrangersBumpOfTheirOwnPitch checks that a stranger's bump of their
// own unanswered mail is judged with the pitch of the first message
// (spam when it was one), while a customer's follow-up of their own
// unanswered question is not spam.
func TestStrangersBumpOfTheirOwnPitch(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	for _, tt := range []struct {
		first string
		spam  bool
	}{
		{"Hi Alex,\n\nWe help logistics companies scale your engineering team at 1/3 the cost with vetted engineers.", true},
		{"Hi Alex,\n\nOur dispatchers see duplicate stops in the route export since the last release. Is this known?", false},
	} {
		from := model.Address{Name: "Rohan", Email: "rohan@sender.example"}
		first := &model.Message{MessageID: "a@sender.example", From: from, To: []model.Address{p}, Subject: "Quick question", Text: tt.first, HasBody: true}
		bump := &model.Message{MessageID: "b@sender.example", From: from, To: []model.Address{p}, Subject: "Re: Quick question", HasBody: true,
			InReplyTo: []string{"a@sender.example"}, Text: "Just following up on my last email. Would Thursday or Friday work for a quick call?"}
		if o := Deterministic([]*model.Message{first, bump}, p); o.Result.IsSpam != tt.spam {
			t.Errorf("%q: spam %t, want %t; signals %v", tt.first, o.Result.IsSpam, tt.spam, o.Signals)
		}
	}
}
