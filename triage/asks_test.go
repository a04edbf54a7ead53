package triage

import (
	"testing"

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
