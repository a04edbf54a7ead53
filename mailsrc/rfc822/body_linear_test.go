package rfc822

import (
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

// hostileBodies are bodies that made SplitBody quadratic or could: long
// blank runs inside and after quotes, attributions followed by blank
// runs, and many quote/blank alternations.
func hostileBodies(n int) map[string]string {
	return map[string]string{
		"blank run after quote":       ">q\n" + strings.Repeat("\n", n) + ">x",
		"blank run then text":         ">q\n" + strings.Repeat("\n", n) + "x",
		"attributions over blank run": strings.Repeat("On Mon, A wrote:\n", n/4) + strings.Repeat("\n", n) + ">x",
		"spaces run after quote":      ">q\n" + strings.Repeat(" \n", n) + ">x",
		"alternating":                 strings.Repeat(">q\n\n", n/2),
	}
}

// TestSplitBodyLinearWork counts the lines SplitBody visits: at 8 times
// the input it must do at most about 8 times the work (with room for
// constant factors), never 64 times.
func TestSplitBodyLinearWork(t *testing.T) {
	const n = 2000
	small, large := hostileBodies(n), hostileBodies(8*n)
	for name := range small {
		t.Run(name, func(t *testing.T) {
			var a, b int
			splitBody(small[name], &a)
			splitBody(large[name], &b)
			lines := strings.Count(large[name], "\n") + 1
			if b > 4*lines {
				t.Errorf("splitBody visited %d lines for a %d-line body, want at most %d", b, lines, 4*lines)
			}
			if a > 0 && b > 12*a {
				t.Errorf("splitBody work grew %d -> %d for 8x input, want linear", a, b)
			}
		})
	}
}

// TestSplitBodyLargeBounded runs the hostile bodies at 256 KiB lines and
// catches a gross regression the work count cannot see (a scan inside a
// regexp or strings call): at 8 times the input, SplitBody+StripQuotes
// must take at most 24 times as long (linear work takes 8, quadratic
// 64). A ratio of two timings on the same machine does not depend on its
// speed; each is the fastest of three runs, so a pause of the machine
// does not count.
func TestSplitBodyLargeBounded(t *testing.T) {
	const n = 1 << 15
	small, large := hostileBodies(n), hostileBodies(8*n)
	for name, body := range large {
		parts := SplitBody(body)
		if got := joinParts(parts); got != body {
			t.Errorf("%s: joined parts differ from input (len %d, want %d)", name, len(got), len(body))
		}
		ts, tl := fastestOf3(small[name]), fastestOf3(body)
		t.Logf("%s: %d bytes %v, %d bytes %v", name, len(small[name]), ts, len(body), tl)
		// (a floor keeps a timing of a few milliseconds from making the
		// ratio noise)
		if tl > 24*max(ts, 20*time.Millisecond) {
			t.Errorf("%s: SplitBody+StripQuotes took %v for %d bytes and %v for %d bytes, want at most 24 times as long for 8 times the input",
				name, ts, len(small[name]), tl, len(body))
		}
	}
}

// fastestOf3 is the shortest of three runs of SplitBody+StripQuotes.
func fastestOf3(body string) time.Duration {
	var best time.Duration
	for i := range 3 {
		start := time.Now()
		SplitBody(body)
		StripQuotes(body)
		if d := time.Since(start); i == 0 || d < best {
			best = d
		}
	}
	return best
}

func joinParts(parts []model.BodyPart) string {
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n")
}

// TestSplitBodyCap: past MaxSplitBytes the rest of the body is one plain
// part (quotes there are not recognised), and nothing is lost.
func TestSplitBodyCap(t *testing.T) {
	head := "Hi\n> quoted\n"
	filler := strings.Repeat("filler line\n", MaxSplitBytes/12+10)
	tail := "> late quote\nbye"
	body := head + filler + tail
	parts := SplitBody(body)
	if got := joinParts(parts); got != body {
		t.Fatalf("SplitBody(capped) joined = %d bytes, want %d", len(got), len(body))
	}
	if k := kinds(parts); k != "text,quote,text" {
		t.Errorf("SplitBody(capped) kinds = %s, want text,quote,text", k)
	}
	if last := parts[len(parts)-1]; !strings.HasSuffix(last.Text, tail) {
		t.Errorf("SplitBody(capped) last part ends %q, want the tail kept as text", last.Text[max(0, len(last.Text)-30):])
	}
	if s := StripQuotes(body); !strings.HasSuffix(s, "bye") || strings.Contains(s, "> quoted") {
		t.Errorf("StripQuotes(capped) = ...%q, want the quote before the cap gone and the tail kept", s[max(0, len(s)-30):])
	}
}
