package triage

import (
	"testing"

	"mailsift/model"
)

// A sender imitating a brand or the reader's organisation that links to
// its own domain is phishing whatever words its button uses (no "please",
// no "verify your account"); the same sender through a mailing list is
// left to the other evidence.
func TestImitationLinkingHomeIsLure(t *testing.T) {
	checkPhishing(t, model.Address{Name: "Hacienda", Email: "avisos@agenciatributaria-reembolsos.com"}, "Reembolso disponible: 212,40 €",
		"Su reembolso de 212,40 € está disponible.\n\nAcceso al reembolso: https://agenciatributaria-reembolsos.com/acceso?r=7731", nil, true)
	checkPhishing(t, model.Address{Name: "Voice Mail", Email: "vm@northwind-voicebox.com"}, "New voice message (0:32)",
		"You have a new voice message from +1 555 0134.\n\nListen: https://northwind-voicebox.com/play?id=8812", nil, true)
	checkPhishing(t, model.Address{Name: "Hacienda", Email: "avisos@agenciatributaria-reembolsos.com"}, "Boletín de noviembre",
		"Novedades del mes en https://agenciatributaria-reembolsos.com/boletin",
		map[string][]string{"List-Unsubscribe": {"<https://agenciatributaria-reembolsos.com/baja>"}, "List-Id": {"<boletin.agenciatributaria-reembolsos.com>"}}, false)
}
