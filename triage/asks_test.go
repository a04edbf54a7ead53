package triage

import (
	"testing"

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
