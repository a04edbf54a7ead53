package triage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// TestGatesMatchTheirExpressions checks that each gated expression of the
// summary answers exactly as the expression alone on every sentence of
// the demo, both labeled sets and (when fetched) the SpamAssassin corpus,
// in every language they hold, and on sentences written to hit each
// alternative: a mark missing from a gate would drop matches. It also
// checks the shortcuts scoreSentence takes on ASCII sentences (one pass
// for the four gates' marks and isRequest's inside phrases, expressions
// tried anchored at the marks,
// imperativeRe's opening-word test) against the gates and expressions.
func TestGatesMatchTheirExpressions(t *testing.T) {
	var msgs []*model.Message
	for _, th := range demoThreads(t) {
		msgs = append(msgs, th...)
	}
	for _, dir := range []string{"../testdata/eval/maildir/cur", "../testdata/eval/fresh/maildir/cur"} {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("labeled set %s: %v (%d files)", dir, err, len(files))
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := rfc822.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
	}
	// Every fifth corpus message: the expressions alone are what is slow.
	for i, m := range loadCorpusIfPresent(t) {
		if i%5 == 0 {
			msgs = append(msgs, m)
		}
	}
	sentences := []string{
		"We really need the numbers.", "I would like you to call me.", "Could you check?", "Kannst du das prüfen", "Würden Sie bitte",
		"Wir benötigen die Zahlen", "Merci de confirmer", "S'il vous plaît", "Pourriez-vous répondre", "Il nous faut la liste",
		"Por favor revisa", "¿Puedes revisar?", "Le agradecería", "Necesitamos", "ご確認ください", "ませんか",
		"The window closes on Friday", "within the next two hours", "in the next 3 days", "due by noon", "bis Freitag", "Frist",
		"avant demain", "d'ici lundi", "au plus tard", "antes del lunes", "hasta el viernes", "cuanto antes", "本日中に",
		"by Friday 5pm", "no later than Monday", "Deadline: tomorrow", "ASAP please", "by EOD", "end of day", "right away",
		"KÖNNEN SIE DAS PRÜFEN", "WÄREN SIE SO NETT", "MAÑANA", "ÉCHÉANCE AVANT DEMAIN", "PLEASE RESPOND WITHIN 24 HOURS",
	}
	for _, m := range msgs {
		body := m.Body()
		if len(body) > 1500 {
			body = body[:1500] // what askSentences reads
		}
		for _, rg := range sentenceRanges(body, 60) {
			sentences = append(sentences, normSpace(body[rg[0]:rg[1]]))
		}
	}
	// What the ASCII paths of scoreSentence take a shortcut on: a mark
	// inside a word, in capitals, twice, an inner mark, a form feed (tabs
	// and double spaces are collapsed, as askSentences does).
	for _, s := range []string{"We'd urgently need it BY FRIDAY", "the endpoint ends in 2 days", "Ending soon: ends on Monday",
		"bye by by noon", "CAN YOU", "we\tneed it", "by\ttomorrow", "due  by Friday", "I expect nothing", "the needle",
		"Por favor", "no later than  monday", "within 3 hours", "within the hour", "d'ici lundi", "s'il vous plait",
		"pourriez-vous", "peux-tu", "Il me faut", "les agradeceria", "needless", "Send it", "  send it", "so, send it",
		"_send it", "1 send", "ſend it", "we\fneed it", "Then\fconfirm", "And,  review it",
		"also,approve", "Don't forget", "do not forgetting", "sOsend", "Let me know", "Ich brauche das",
		"nous avons besoin", "J'ai besoin de", "then we really need", "swe need it", "twe need", "if i need", "Le agradeceria"} {
		sentences = append(sentences, normSpace(s))
	}
	n := 0
	gates := []*gatedRe{askGate, deadlineGate, soonGate, dueGate}
	bits := []uint8{gateAsk, gateDeadline, gateSoon, gateDue}
	for _, s := range sentences {
		low := strings.ToLower(s)
		marks := sentenceMarks.scan(low)
		x := newScoring(s)
		if got, want := imperative(s), imperativeRe.MatchString(s); got != want {
			t.Errorf("imperative(%q) = %t, imperativeRe says %t", s, got, want)
		}
		if x.ascii {
			if got, want := marks&gateInside != 0, requestInsideMarks.at(low); got != want {
				t.Errorf("sentenceMarks on %q: requestInside %t, wordMarks says %t", s, got, want)
			}
		}
		for k, g := range gates {
			if got, want := g.MatchString(s, low), g.re.MatchString(s); got != want {
				t.Errorf("gate of %s… on %q: %t, the expression says %t", g.re.String()[:30], s, got, want)
			}
			if got, want := marks&bits[k] != 0, g.marked(low); got != want {
				t.Errorf("sentenceMarks on %q: gate %d %t, marked says %t", s, k, got, want)
			}
			if x.ascii {
				if got, want := x.match(g, bits[k]), g.MatchString(s, low); got != want {
					t.Errorf("scoring.match of %s… on %q (plain %t): %t, the gate says %t", g.re.String()[:30], s, x.plain, got, want)
				}
			}
			if g.re.MatchString(s) {
				n++
			}
		}
	}
	t.Logf("%d sentences, %d matches compared", len(sentences), n)
	if n < 50 {
		t.Errorf("only %d matches: the test no longer exercises the gates", n)
	}
}
