package triage

import (
	"strings"
	"testing"
	"time"

	"mailsift/mailsrc/demo"
	"mailsift/model"
)

// oneMessage is a thread of one message to the principal from a colleague
// (the principal's own domain, so that the learned spam score, trained
// mostly on English mail, does not quarantine the foreign-language cases).
func oneMessage(subject, text string) []*model.Message {
	return []*model.Message{{
		MessageID: "m1", From: model.Address{Name: "Robin Vale", Email: "robin@example.com"},
		To: []model.Address{{Email: "alice@example.com"}}, Subject: subject, Text: text,
		Date: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
	}}
}

// TestSummaryCarriesTheAsk checks that the offline summary quotes the
// sentence that asks something of the reader (with its deadline when it
// has one) rather than the message's first sentence, in each language
// the product handles, and keeps the first sentence when nothing is asked.
func TestSummaryCarriesTheAsk(t *testing.T) {
	p := model.Address{Name: "Alice", Email: "alice@example.com"}
	for _, tc := range []struct {
		name, subject, text string
		want, notWant       string
	}{
		{name: "english request with deadline",
			subject: "Quarterly report",
			text:    "Hi Alice,\n\nThe quarterly report went out to the team last week.\nMost of the numbers look fine.\nCould you send me the corrected revenue table by Thursday?\n\nThanks,\nRobin",
			want:    "corrected revenue table by Thursday", notWant: "went out"},
		{name: "english need plus deadline beats a bare request",
			subject: "Export",
			text:    "Alex, the file arrived but one table is missing. We need the complete file within the next two hours or we miss the audit. Please ring me at the office.",
			want:    "complete file within the next two hours", notWant: "ring me"},
		{name: "german",
			subject: "Angebot",
			text:    "Hallo Alice,\n\ndas Angebot vom Lieferanten liegt inzwischen vor. Die Preise sind etwas gestiegen. Kannst du das Angebot bitte bis Freitag freigeben?\n\nGruß\nRobin",
			want:    "bis Freitag freigeben", notWant: "liegt inzwischen vor"},
		{name: "french",
			subject: "Contrat",
			text:    "Bonjour Alice,\n\nLe contrat a été relu par notre service juridique. Quelques clauses ont changé. Merci de me renvoyer la version signée avant vendredi.\n\nCordialement,\nRobin",
			want:    "version signée avant vendredi", notWant: "service juridique"},
		{name: "spanish",
			subject: "Presupuesto",
			text:    "Hola Alice,\n\nEl presupuesto del proyecto ya está listo. El equipo lo revisó ayer. Por favor, confirma el importe antes del viernes.\n\nSaludos,\nRobin",
			want:    "confirma el importe antes del viernes", notWant: "ya está listo"},
		{name: "japanese",
			subject: "見積もりの件",
			text:    "お疲れ様です。見積もりの最新版を共有します。価格は前回と同じです。金曜日までに承認をお願いします。",
			want:    "金曜日までに承認をお願いします", notWant: "共有します"},
		{name: "nothing asked keeps the first sentence",
			subject: "Release",
			text:    "Version 2.1 shipped this morning without incidents. The changelog is on the wiki.",
			want:    "Version 2.1 shipped this morning"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Deterministic(oneMessage(tc.subject, tc.text), p).Result.Summary
			if !strings.Contains(got, tc.want) {
				t.Errorf("summary = %q, want it to contain %q", got, tc.want)
			}
			if tc.notWant != "" && strings.Contains(got, tc.notWant) {
				t.Errorf("summary = %q, should not quote %q", got, tc.notWant)
			}
		})
	}
}

// TestDemoSummariesQuoteTheLatestAsk checks over the whole demo mailbox
// that, when the latest message from others asks something, the summary
// quotes a sentence of that message which asks it.
func TestDemoSummariesQuoteTheLatestAsk(t *testing.T) {
	threads := demoThreads(t)
	a := NewAnalyzer(nil)
	esc := threads["31-contoso-escalation-1"]
	if len(esc) == 0 {
		t.Fatal("demo thread 31-contoso-escalation-1 missing")
	}
	s := a.Deterministic(esc, demo.Principal()).Result.Summary
	if !strings.Contains(s, "complete export within the next two hours") || strings.Contains(s, "555 0199") {
		t.Errorf("escalation summary = %q, want the ask and its deadline", s)
	}
	for k, msgs := range threads {
		o, an := a.deterministic(msgs, demo.Principal(), nil)
		if o.Result.IsSpam || an.latest < 0 || an.questions+an.requests == 0 {
			continue
		}
		_, quote, ok := strings.Cut(o.Result.Summary, ": ")
		if !ok {
			t.Errorf("%s: summary %q quotes nothing", k, o.Result.Summary)
			continue
		}
		if sc := scoreSentence(strings.TrimSuffix(quote, "…")); sc.ask == 0 && sc.deadline == 0 {
			t.Errorf("%s: summary %q quotes no ask although the message asks %d question(s), %d request(s)", k, quote, an.questions, an.requests)
		}
	}
}

// TestAskBecomesActionItem checks that the ask the summary quotes is an
// action item, first, with the deadline it names, when the request forms
// the items come from missed it (a stated need, another language), and
// is not added twice when they caught it.
func TestAskBecomesActionItem(t *testing.T) {
	p := model.Address{Name: "Alice", Email: "alice@example.com"}
	for _, tc := range []struct {
		name, text, want, due string
	}{
		{name: "stated need", text: "The file arrived but one table is missing. We need the complete file within the next two hours or we miss the audit. Please ring me at the office.",
			want: "We need the complete file within the next two hours", due: "within the next two hours"},
		{name: "german", text: "Das Angebot liegt vor. Wir brauchen deine Freigabe bis Freitag.", want: "Wir brauchen deine Freigabe bis Freitag", due: "bis Freitag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := Deterministic(oneMessage("Status", tc.text), p).Result.ActionItems
			if len(items) == 0 || !strings.Contains(items[0].Description, tc.want) {
				t.Fatalf("items %+v, want first %q", items, tc.want)
			}
			if items[0].DueHint == nil || *items[0].DueHint != tc.due {
				t.Errorf("due hint %v, want %q", items[0].DueHint, tc.due)
			}
		})
	}
	items := Deterministic(oneMessage("Report", "The report is done. Could you review it by Friday?"), p).Result.ActionItems
	if len(items) != 1 {
		t.Errorf("a request the items caught was added again: %+v", items)
	}
	esc := demoThreads(t)["31-contoso-escalation-1"]
	items = Deterministic(esc, demo.Principal()).Result.ActionItems
	if len(items) == 0 || !strings.Contains(items[0].Description, "complete export within the next two hours") {
		t.Errorf("escalation items %+v, want the export first", items)
	}
}
