package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/store"
)

// giantThread is a thread of n short messages; message i's body holds
// the line "body of message i".
func giantThread(n int) *model.Thread {
	th := &model.Thread{ID: 4242, Subject: "Giant thread"}
	bob := model.Address{Name: "Bob", Email: "bob@example.com"}
	for i := range n {
		th.Messages = append(th.Messages, &model.Message{
			MessageID: fmt.Sprintf("g%d@x", i), From: bob, To: []model.Address{me},
			Date: fixedNow.Add(time.Duration(i-n) * time.Minute), Subject: "Re: Giant thread",
			Text: fmt.Sprintf("body of message %d\nsecond line\n", i), HasBody: true,
		})
	}
	return th
}

// openLoaded opens th in the thread view as if the store had loaded it.
func openLoaded(t testing.TB, th *model.Thread, w, h int) *driver {
	t.Helper()
	d := newDriver(t, Options{Store: newFixtureStore(t, nil, nil)}, w, h)
	d.m.thread, _ = d.m.thread.open(th.ID, stateInbox)
	d.m.screen = stateThread
	d.send(threadLoadedMsg{id: th.ID, summary: store.ThreadSummary{ID: th.ID, Subject: th.Subject}, thread: th})
	return d
}

// TestThreadViewRendersWindow: a 10,000-message thread renders the
// messages on screen plus a margin, not all of them.
func TestThreadViewRendersWindow(t *testing.T) {
	d := openLoaded(t, giantThread(10_000), 100, 30)
	const limit = 400
	if n := d.m.thread.vp.TotalLineCount(); n > limit {
		t.Errorf("opening a 10,000-message thread rendered %d lines, want <= %d", n, limit)
	}
	if v := d.view(); !strings.Contains(v, "body of message 0") {
		t.Fatalf("first message not shown:\n%s", v)
	}
	d.keys("G")
	if v := d.view(); !strings.Contains(v, "body of message 9999") || !d.m.thread.vp.AtBottom() {
		t.Fatalf("G does not show the last message:\n%s", v)
	}
	if n := d.m.thread.vp.TotalLineCount(); n > limit {
		t.Errorf("G rendered %d lines, want <= %d", n, limit)
	}
	d.keys("g")
	if v := d.view(); !strings.Contains(v, "Giant thread") || d.m.thread.vp.YOffset != 0 {
		t.Fatalf("g does not go back to the top:\n%s", v)
	}
}

// TestThreadViewScrollsAcrossWindows: scrolling line by line through a
// paged thread meets every message once, in order, and never shows the
// paging markers at the top of the screen; scrolling back up does too.
func TestThreadViewScrollsAcrossWindows(t *testing.T) {
	const n = 300
	d := openLoaded(t, giantThread(n), 80, 12)
	next := 0
	for steps := 0; !d.m.thread.vp.AtBottom(); steps++ {
		if steps > n*10 {
			t.Fatal("scrolling down never reached the bottom")
		}
		top := strings.TrimRight(strings.SplitN(d.m.thread.vp.View(), "\n", 2)[0], " ")
		if strings.Contains(top, "more messages") || strings.Contains(top, "earlier messages") {
			t.Fatalf("a paging marker scrolled into view: %q", top)
		}
		if strings.HasPrefix(top, "body of message ") {
			if want := fmt.Sprintf("body of message %d", next); top != want {
				t.Fatalf("scrolling down: top line %q, want %q", top, want)
			}
			next++
		}
		d.keys("j")
	}
	// The last messages are on the final screen.
	if v := d.view(); !strings.Contains(v, fmt.Sprintf("body of message %d", n-1)) || next < n-3 {
		t.Fatalf("scrolled through %d of %d messages; last screen:\n%s", next, n, v)
	}
	var seen []int
	for steps := 0; d.m.thread.vp.YOffset > 0 || d.m.thread.lo > 0; steps++ {
		if steps > n*10 {
			t.Fatal("scrolling up never reached the top")
		}
		top := strings.TrimRight(strings.SplitN(d.m.thread.vp.View(), "\n", 2)[0], " ")
		if strings.Contains(top, "more messages") || strings.Contains(top, "earlier messages") {
			t.Fatalf("a paging marker scrolled into view: %q", top)
		}
		var i int
		if _, err := fmt.Sscanf(top, "body of message %d", &i); err == nil {
			if len(seen) > 0 && i != seen[len(seen)-1]-1 {
				t.Fatalf("scrolling up: message %d at the top after %d", i, seen[len(seen)-1])
			}
			seen = append(seen, i)
		}
		d.keys("k")
	}
	if len(seen) == 0 || seen[len(seen)-1] != 0 {
		t.Errorf("scrolling up did not reach message 0: %v", seen)
	}
}

// TestThreadViewCapsHugeMessage: a 5 MB body, a 1 MB subject and 10,000
// recipients render a bounded number of lines, with a marker saying how
// many lines are left out; z shows more of the body, still bounded.
func TestThreadViewCapsHugeMessage(t *testing.T) {
	var rcpts []model.Address
	for i := range 10_000 {
		rcpts = append(rcpts, model.Address{Name: fmt.Sprintf("R%d", i), Email: fmt.Sprintf("r%d@example.com", i)})
	}
	line := strings.Repeat("word ", 15) + "\n" // 76 bytes
	th := &model.Thread{ID: 7, Subject: strings.Repeat("S", 1<<20), Messages: []*model.Message{{
		MessageID: "huge@x", From: model.Address{Name: strings.Repeat("N", 1<<20), Email: "n@example.com"},
		To: rcpts, Cc: rcpts, Date: fixedNow, Subject: "huge", HasBody: true,
		Text: "first line\n" + strings.Repeat(line, 5<<20/len(line)),
	}}}
	d := openLoaded(t, th, 100, 30)
	folded := d.m.thread.vp.TotalLineCount()
	if folded > 500 {
		t.Errorf("a 5 MB body, 1 MB subject and 10,000 recipients rendered %d lines, want <= 500", folded)
	}
	v := d.m.thread.vp.View()
	for steps := 0; !d.m.thread.vp.AtBottom() && steps < 100; steps++ {
		d.keys("ctrl+d")
		v += d.m.thread.vp.View()
	}
	if !strings.Contains(v, "more lines") || !strings.Contains(v, "more recipients") {
		t.Errorf("no marker for the lines or recipients left out:\n%.2000s", v)
	}
	d.keys("g", "z")
	if n := d.m.thread.vp.TotalLineCount(); n <= folded || n > unfoldedBodyLines+1000 {
		t.Errorf("unfolded: %d lines, want more than %d and at most %d", n, folded, unfoldedBodyLines+1000)
	}
}

// TestThreadReloadKeepsScroll: a reload of the open thread (after m, an
// override) keeps the scroll position, paged or not.
func TestThreadReloadKeepsScroll(t *testing.T) {
	var body strings.Builder
	for i := range 60 {
		fmt.Fprintf(&body, "line %d\n", i)
	}
	msgs := []fx{
		{id: "r1@x", subject: "Reload", body: body.String(), from: me, ago: 3 * time.Hour},
		{id: "r2@x", subject: "Re: Reload", body: body.String(), from: me, ago: 2 * time.Hour, replyTo: "r1@x"},
	}
	s := newFixtureStore(t, msgs, nil)
	d := newDriver(t, Options{Store: s}, 80, 20)
	d.keys("g", "enter")
	for range 25 {
		d.keys("j")
	}
	before := d.m.thread.vp.View()
	if d.m.thread.vp.YOffset != 25 {
		t.Fatalf("offset %d after 25 j, want 25", d.m.thread.vp.YOffset)
	}
	d.keys("m") // marks unread and reloads the thread
	if got := d.m.thread.vp.View(); got != before {
		t.Errorf("reload moved the view:\n%s\nwant:\n%s", got, before)
	}
}
