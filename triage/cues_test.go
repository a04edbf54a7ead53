package triage

import (
	"strings"
	"testing"

	"mailsift/triage/internal/ascii"
)

// TestCueWithinIsContainsAnyOf checks that a sentence holds a cue of each
// list by the occurrences of the whole text exactly when containsAnyOf
// finds one in the sentence alone, on every sentence range (and every
// range between two sentence starts) of the demo and corpus texts.
func TestCueWithinIsContainsAnyOf(t *testing.T) {
	texts := []string{
		"The window closes Friday. It ends\nat 5. We need it by 10; i need you. Since 9:00 broken. closes",
		"Die Frist endet morgen, bis 10 Uhr. J’ai besoin de vous avant 14h. Nos hace falta. 15時までに",
		"runs outruns out expire expired", "closesclosesby by\nby ", "",
	}
	texts = withSampleBodies(t, texts)
	lists := [][]string{closingVerbs, hourMarkers, needWords, sinceMarkers}
	n := 0
	for _, text := range texts {
		if len(text) > 1500 {
			text = text[:1500]
		}
		low := ascii.LowerString(text)
		hits := sentenceCues.find(low, nil)
		rs := sentenceRanges(text, 60)
		check := func(a, b int) {
			for k, l := range lists {
				_, want := containsAnyOf(low[a:b], l)
				if got := cueWithin(hits, 1<<k, a, b); got != want {
					t.Fatalf("list %d in %q: %t, containsAnyOf says %t", k, low[a:b], got, want)
				}
				if want {
					n++
				}
			}
		}
		for j, rg := range rs {
			check(rg[0], rg[1])
			check(rg[0]+1, rg[1]) // a greeting cut off
			if j+1 < len(rs) {
				check(rg[0], rs[j+1][0])
			}
		}
		check(0, len(low))
	}
	if n < 100 {
		t.Errorf("only %d cues found: the test no longer exercises them", n)
	}
	t.Logf("%d texts, %d cues", len(texts), n)
}

// TestFindHourDeadlineIsTheExpression checks findHourDeadline against
// hourDeadlineRe.FindString on every sentence of the demo and the corpus
// and on sentences written for its alternatives.
func TestFindHourDeadlineIsTheExpression(t *testing.T) {
	sentences := []string{
		"Send it by 14:00 please, or BEFORE 3 pm", "bye by 5pm", "abby 5pm by noon", "no later than 9:30 a.m.",
		"bis 10 Uhr", "vor spätestens um 9 Uhr", "avant 14h30", "d'ici 16:00", "d’ici midi", "antes de las 12",
		"para la 1", "a más tardar a las 9", "antes del mediodía", "15時までに", "正午まで", "by by by", "nearby 5pm by 6pm",
		"STANDBY 5PM", "by around 10 am", "x_by 5pm", "2by 5pm", "by\t5pm", "by", "",
	}
	for _, th := range demoThreads(t) {
		for _, m := range th {
			for _, rg := range sentenceRanges(m.Body(), 60) {
				sentences = append(sentences, m.Body()[rg[0]:rg[1]])
			}
		}
	}
	for _, m := range loadCorpusIfPresent(t) {
		body := m.Body()
		if len(body) > 1500 {
			body = body[:1500]
		}
		for _, rg := range sentenceRanges(body, 60) {
			sentences = append(sentences, body[rg[0]:rg[1]])
		}
	}
	n := 0
	for _, s := range sentences {
		want := hourDeadlineRe.FindString(s)
		if got := findHourDeadline(s, ascii.LowerString(s)); got != want {
			t.Errorf("findHourDeadline(%q) = %q, hourDeadlineRe finds %q", s, got, want)
		}
		if want != "" {
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d matches: the test no longer exercises findHourDeadline", n)
	}
	t.Logf("%d sentences, %d matches", len(sentences), n)
}

// TestJoinFieldsIsJoinOfFields checks normSpace's one-pass join against
// strings.Join(strings.Fields(s), " ") on the demo and corpus bodies, cut
// at every sentence, and on white space of every kind.
func TestJoinFieldsIsJoinOfFields(t *testing.T) {
	texts := []string{"", " ", "a", " a  b\t\tc\n\r\v\fd ", "\u00a0x\u2003y\u3000z", "é  è", "a\x85b  c"}
	texts = withSampleBodies(t, texts)
	for _, text := range texts {
		if len(text) > 1500 {
			text = text[:1500]
		}
		for _, s := range append([]string{text}, splitSentences(text)...) {
			if got, want := joinFields(s), strings.Join(strings.Fields(s), " "); got != want {
				t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
			}
		}
	}
}

func splitSentences(text string) []string {
	var out []string
	for _, rg := range sentenceRanges(text, 60) {
		out = append(out, text[rg[0]:rg[1]])
	}
	return out
}

// TestOwnTextIsTheLineCopy checks ownText, which returns a prefix of the
// body without copying it until a line is dropped, against building the
// own text line by line, on the demo and corpus bodies and on bodies
// written for each case.
func TestOwnTextIsTheLineCopy(t *testing.T) {
	bodies := []string{"", "a", "a\n", "a\n> q\nb", "a\nb\n--\nsig", "> q", "> q\n", "x\nOn Mon, A wrote:\n> q\ny\n",
		"a\r\n>q\r\nb\r\n", "a\n\n-----Original Message-----\nold", "a\nSent from my phone", "a\n--", "a\nb", "a\nb\n"}
	bodies = withSampleBodies(t, bodies)
	for _, b := range bodies {
		if got, want := ownText(b), ownTextByLines(b); got != want {
			t.Fatalf("ownText(%q) = %q, want %q", b, got, want)
		}
	}
}

// ownTextByLines is ownText as it was first written: every kept line
// copied.
func ownTextByLines(body string) string {
	if len(body) > maxAnalyzed {
		body = body[:maxAnalyzed]
	}
	if !quoteOrSignatureHint(body) {
		return body
	}
	var sb strings.Builder
	rest := body
	for len(rest) > 0 {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		t := strings.TrimRight(line, " \t\r")
		switch {
		case strings.HasPrefix(t, ">"):
			continue
		case t == "--" || strings.HasPrefix(t, "Sent from my "):
			return sb.String()
		case strings.HasPrefix(t, "-----") && separatesQuoted(t):
			return sb.String()
		case strings.HasSuffix(t, "wrote:") && len(t) < 200:
			continue
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestIsASCII checks isASCII's eight-byte steps: a byte at or above 0x80
// at every position of strings of every length up to 20.
func TestIsASCII(t *testing.T) {
	for n := 0; n <= 20; n++ {
		b := []byte(strings.Repeat("a", n))
		if !isASCII(string(b)) {
			t.Errorf("isASCII(%q) = false", b)
		}
		for i := range b {
			for _, c := range []byte{0x80, 0xc3, 0xff} {
				b[i] = c
				if isASCII(string(b)) {
					t.Errorf("isASCII(%q) = true", b)
				}
				b[i] = 'a'
			}
		}
	}
}

// TestForeignRequestCues checks hasForeignRequest's one-pass search
// against searching each phrase in turn, on every sentence of the demo
// (in the five languages) and the corpus, and on sentences written for
// overlapping cues and asks already met.
func TestForeignRequestCues(t *testing.T) {
	sentences := []string{"si tu pouvaisi tu pouvais", "si pudierasi pudieras", "ご確認いただいた", "ご確認いただいたご確認ください",
		"Bitte nicht antworten", "Könnten Sie bitte", "por favor no responda", "ご確認をお願いします", "ご確認済", "merci de"}
	for _, th := range demoThreads(t) {
		for _, m := range th {
			sentences = append(sentences, splitSentences(m.Body())...)
		}
	}
	for _, m := range loadCorpusIfPresent(t) {
		body := m.Body()
		if len(body) > 1500 {
			body = body[:1500]
		}
		sentences = append(sentences, splitSentences(body)...)
	}
	n := 0
	for _, s := range sentences {
		want := foreignRequestBySearch(s)
		if got := hasForeignRequest(s); got != want {
			t.Errorf("hasForeignRequest(%q) = %t, the search says %t", s, got, want)
		}
		if want {
			n++
		}
	}
	if n < 5 {
		t.Errorf("only %d requests: the test no longer exercises hasForeignRequest", n)
	}
}

// foreignRequestBySearch is hasForeignRequest as first written: one
// search per phrase.
func foreignRequestBySearch(sentence string) bool {
	low := strings.ToLower(sentence)
	if _, ok := containsAnyOf(low, notAsked); ok {
		return false
	}
	for _, r := range foreignRequests {
		for i := 0; ; {
			j := strings.Index(low[i:], r)
			if j < 0 {
				break
			}
			i += j + len(r)
			if _, done := hasAnyPrefix(low[i:], askMet); !done {
				return true
			}
		}
	}
	return false
}

// withSampleBodies returns texts followed by the body of every demo
// message and, when the corpus is fetched, of every corpus message.
func withSampleBodies(t *testing.T, texts []string) []string {
	t.Helper()
	for _, th := range demoThreads(t) {
		for _, m := range th {
			texts = append(texts, m.Body())
		}
	}
	for _, m := range loadCorpusIfPresent(t) {
		texts = append(texts, m.Body())
	}
	return texts
}
