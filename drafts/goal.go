package drafts

import (
	"strings"

	"mailsift/internal/termsafe"
)

// MaxGoalBytes bounds a requester's goal in the draft prompt: a goal says
// what the reply should do in a sentence or two, not a document.
const MaxGoalBytes = 500

// CleanGoal is a requester's goal (an agent's words, e.g. MCP
// draft_reply_with_policy's goal) as the draft prompt shows it: on one
// line, escape sequences and other control and format characters
// stripped (termsafe, then the controls it makes visible dropped too),
// fence-like text neutralised, at most MaxGoalBytes (cut at a character
// boundary, marked with "…").
func CleanGoal(goal string) string {
	g := termsafe.SanitizeLine(goal)
	g = strings.Map(func(r rune) rune {
		if r >= 0x2400 && r <= 0x2421 { // the control pictures termsafe shows for C0 controls and DEL
			return -1
		}
		return r
	}, cleanLine(g))
	g = strings.TrimSpace(fenceLike.ReplaceAllString(g, "[fence removed]"))
	if len(g) <= MaxGoalBytes {
		return g
	}
	n := MaxGoalBytes
	for n > 0 && !utf8Start(g[n]) {
		n--
	}
	return strings.TrimSpace(g[:n]) + "…"
}
