package drafts

// Drafts in the user's voice: a few of the principal's own sent replies
// most like the thread (by the search index) go into the prompt, inside
// the fence, as style examples.

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"mailsift/model"
)

// MaxStyleExamples is how many of the principal's sent replies a draft
// prompt shows; maxStyleExampleBytes bounds each.
const (
	MaxStyleExamples     = 3
	maxStyleExampleBytes = 800
)

// styleBlock renders the principal's earlier replies for the fenced data
// ("" for none): own text only (quoted mail removed), each bounded.
func styleBlock(examples []string, fence string) string {
	var b strings.Builder
	n := 0
	for _, ex := range examples {
		text := strings.TrimSpace(truncate(ownText(ex), maxStyleExampleBytes))
		if text == "" || n == MaxStyleExamples {
			continue
		}
		n++
		fmt.Fprintf(&b, "--- the principal's earlier reply %d (another thread; style only) ---\n%s\n", n, fenceSafe(text, fence))
	}
	return b.String()
}

// styleWords are the words of the latest message from others (subject
// and own text) that find the principal's similar replies: the longer,
// less common ones first, at most 16.
func styleWords(t *model.Thread, principal model.Address) []string {
	var m *model.Message
	for i := len(t.Messages) - 1; i >= 0; i-- {
		if !strings.EqualFold(t.Messages[i].From.Email, principal.Email) {
			m = t.Messages[i]
			break
		}
	}
	if m == nil {
		return nil
	}
	text := m.Subject + " " + truncate(ownText(m.Body()), 4000)
	seen := map[string]bool{}
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) < 5 || seen[w] || strings.IndexFunc(w, unicode.IsLetter) < 0 {
			continue // short words say little about the topic
		}
		seen[w] = true
		words = append(words, w)
	}
	// Longer words are rarer: they pick replies on the same topic.
	for i := 1; i < len(words); i++ {
		for j := i; j > 0 && len(words[j]) > len(words[j-1]); j-- {
			words[j], words[j-1] = words[j-1], words[j]
		}
	}
	return words[:min(len(words), 16)]
}

// styleExamples returns the bodies of the principal's sent replies most
// like thread t (none without a generator: only a model uses them).
func (e *Engine) styleExamples(ctx context.Context, t *model.Thread) []string {
	if e.opt.Generator == nil || t == nil {
		return nil
	}
	words := styleWords(t, e.opt.Principal)
	replies, err := e.st.SentReplies(ctx, e.opt.Principal.Email, words, t.ID, MaxStyleExamples)
	if err != nil {
		e.log.Warn("drafts: style examples not found", "err", err)
		return nil
	}
	out := make([]string, 0, len(replies))
	for _, r := range replies {
		out = append(out, r.Text)
	}
	return out
}
