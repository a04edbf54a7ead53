package triage

import (
	"fmt"
	"strings"

	"mailsift/model"
)

// takenBack are the ways a follow-up says an earlier ask of its own is
// settled ("never mind, found it", "hat sich erledigt", "c'est réglé",
// "ya lo resolví", "解決しました") (lower case).
var takenBack = []string{"never mind", "nevermind", "found it", "figured it out", "sorted it out", "no longer need",
	"ignore my", "disregard my", "all sorted", "hat sich erledigt", "erledigt sich", "habe es gefunden", "c'est réglé",
	"c’est réglé", "j'ai trouvé", "j’ai trouvé", "laisse tomber", "ya lo resolví", "ya está resuelto", "ya lo encontré",
	"olvídalo", "解決しました", "不要になりました", "見つかりました"}

// openAskMessage returns the index of the message before the latest one
// from others, when it is not the principal's (whose reply would have
// answered it), or -1. Its asks are the reader's still open (see
// carryOpenAsks) when it comes from the same sender, or was addressed to
// the reader (in To), or names them in its ask. A follow-up that asks
// nothing itself ("Kleiner Nachtrag: Jana hat schon kommentiert", "Same
// deadline.", "I'll push it to next week, so your comments are fine until
// Wednesday") leaves its sender's question unanswered; so does a
// colleague's note on a customer's questions to the reader ("context:
// they are in renewal talks. Whenever you get to it."), or a reply to a
// list under a proposal that asked the reader by name.
func openAskMessage(msgs []*model.Message, latest int, principal model.Address) int {
	if latest < 1 || sameAddr(msgs[latest-1].From.Email, principal.Email) {
		return -1
	}
	return latest - 1
}

// carryOpenAsks adds the asks of message j (see openAskMessage) to an,
// whose latest message asks nothing, unless that message takes them back
// or thanks for what was done: the questions and requests, their action
// items, and whether they turn to the reader by name. Its deadlines and
// urgency are not carried: "today" in an earlier message may be past.
func (a *Analyzer) carryOpenAsks(an *analysis, j int, m *model.Message, latestFrom string, principal model.Address, add func(Signal)) {
	low := strings.ToLower(flatSpace(an.latestOwn))
	if _, ok := containsAnyOf(low, takenBack); ok || thankedClosure(an.latestOwn) {
		return
	}
	body := m.Body()
	if len(body) > maxAnalyzed {
		body = body[:maxAnalyzed]
	}
	scratch := *an
	scratch.signals, scratch.items = nil, nil
	scratch.questions, scratch.requests = 0, 0
	scratch.named, scratch.taskNamed = false, false
	a.sentenceSignals(&scratch, j, m, ownText(body), func(Signal) {})
	if scratch.questions+scratch.requests == 0 {
		return
	}
	if !sameAddr(m.From.Email, latestFrom) && !addrIn(m.To, principal.Email) && !scratch.named {
		// Someone else's ask of someone else.
		return
	}
	an.openAsk = j
	an.questions, an.requests = scratch.questions, scratch.requests
	an.items = scratch.items
	an.named = an.named || scratch.named
	an.taskNamed = an.taskNamed || scratch.taskNamed
	an.otherNamed = an.otherNamed || scratch.otherNamed
	who := m.From.Name
	if who == "" {
		who = m.From.Email
	}
	add(Signal{Kind: SigRequest, Reason: fmt.Sprintf("%s's earlier message asks %d thing(s) still unanswered", who, scratch.questions+scratch.requests), Message: j})
}
