package triage

import (
	"regexp"
	"strings"
)

// thanksForRe finds thanks for something done, in the five languages:
// "thank you for yesterday", "Thanks Alex for taking my shift", "merci à
// vous et à Camille pour la réactivité", "vielen Dank für die schnelle
// Hilfe", "gracias por todo", "迅速にご対応いただき、誠にありがとうござい
// ました" (the past form thanks for what was done).
var thanksForRe = regexp.MustCompile(`(?i)\b(?:thanks|thank you|many thanks)\b[^.!?\n]{0,30}\bfor\b|\bthank you (?:again|so much|very much)\b|` +
	`\bthanks (?:again|a lot|so much)\b|\bmerci\b[^.!?\n]{0,40}\bpour\b|\bmerci (?:beaucoup|encore|infiniment|à vous|à toi)\b|` +
	`\b(?:danke|dank)\b[^.!?\n]{0,40}\bfür\b|\b(?:vielen|herzlichen|besten) dank\b|\bgracias\b[^.!?\n]{0,40}\bpor\b|` +
	`\bmuchas gracias\b|ありがとうございました|感謝(?:いたします|申し上げます|しております)`)

// thanksStems are the parts of thanksForRe's thanks words that keep their
// case ("Thank", "thanks", "Merci", "Danke", "Gracias").
var thanksStems = []string{"hank", "HANK", "erci", "ERCI", "Dank", "dank", "DANK", "racias", "RACIAS", "ありがとう", "感謝"}

// stillWords say a problem goes on ("it still fails", "toujours pas",
// "immer noch", "todavía", "まだ"): thanks for a first fix is no closure
// then (lower case).
var stillWords = []string{"still", "again fail", "fails again", "down again", "toujours pas", "n'est toujours", "immer noch",
	"noch immer", "weiterhin", "todavía", "sigue sin", "siguen sin", "まだ", "再発"}

// thankedClosure reports whether own, the latest message's own text,
// thanks for something done without saying a problem goes on: a
// customer confirming that the fix works, a colleague thanking the reader
// for covering. With nothing asked, such a message closes its thread: the
// urgent words of the subject it answers are the first message's, not
// the thread's state.
func thankedClosure(own string) bool {
	// Most text thanks no one: look for the words before lower-casing it.
	if _, ok := containsAnyOf(own, thanksStems); !ok {
		return false
	}
	low := strings.ToLower(flatSpace(own))
	if _, ok := containsAnyOf(low, stillWords); ok {
		return false
	}
	return thanksForRe.MatchString(low)
}
