package triage

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mailsift/internal/testproc"
	"mailsift/model"
)

// giantThread is a thread of n messages between several senders, each
// with links, a question and a request, the principal writing early on.
func giantThread(n int) []*model.Message {
	me := model.Address{Name: "Me", Email: "me@example.com"}
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	msgs := make([]*model.Message, n)
	for i := range msgs {
		from := model.Address{Name: "Sender", Email: fmt.Sprintf("s%d@corp%d.example", i%7, i%5)}
		if i == 1 {
			from = me
		}
		msgs[i] = &model.Message{
			MessageID: fmt.Sprintf("m%d@x", i), From: from, To: []model.Address{me}, Date: base.Add(time.Duration(i) * time.Minute),
			Subject: "Re: the plan", HasBody: true,
			Text: fmt.Sprintf("Point %d: see https://docs%d.example/plan and http://10.0.0.%d/x. Can you review it by Friday? Please send the numbers.\n", i, i%11, i%200) +
				strings.Repeat("More words about the plan and the numbers. ", 40),
		}
	}
	return msgs
}

// TestDeterministicBoundedOnGiantThread: the work of deterministic triage
// per thread is bounded: a 10,000-message thread costs about what a
// thread of MaxAnalyzedMessages does, and a 5 MB body what a small one
// does.
func TestDeterministicBoundedOnGiantThread(t *testing.T) {
	a := NewAnalyzer(nil)
	me := model.Address{Name: "Me", Email: "me@example.com"}
	small := giantThread(MaxAnalyzedMessages)
	giant := giantThread(10_000)
	base := testproc.AllocatedBytes(func() { a.Deterministic(small, me) })
	var out *Outcome
	got := testproc.AllocatedBytes(func() { out = a.Deterministic(giant, me) })
	if got > 2*base+64<<10 {
		t.Errorf("deterministic triage of 10,000 messages allocated %d bytes, of %d messages %d: want at most about the same", got, len(small), base)
	}
	// The principal's early reply still counts, and the summary counts
	// every message.
	if !strings.Contains(out.Result.Summary, "(10000 messages)") {
		t.Errorf("summary = %q", out.Result.Summary)
	}
	replied := false
	for _, s := range out.Signals {
		replied = replied || s.Kind == SigPrincipalReplied
		if s.Message >= len(giant) {
			t.Errorf("signal %+v points past the thread", s)
		}
	}
	if !replied {
		t.Error("the principal's reply (message 2) was missed")
	}

	huge := giantThread(1)
	huge[0].Text = strings.Repeat("A long line of words about money and a wire transfer. ", 5<<20/56)
	one := giantThread(1)
	base = testproc.AllocatedBytes(func() { a.Deterministic(one, me) })
	got = testproc.AllocatedBytes(func() { a.Deterministic(huge, me) })
	if got > 2*base+256<<10 {
		t.Errorf("deterministic triage of a 5 MB body allocated %d bytes, of a small one %d", got, base)
	}
}
