package drafts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"mailsift/internal/testproc"
	"mailsift/model"
)

// seedGiantThread stores a thread of n messages with bodies of size bytes:
// the first message Cc's dave (a participant only there), the latest asks
// for a wire transfer. It returns the thread id.
func seedGiantThread(t testing.TB, e *Engine, n, size int) int64 {
	t.Helper()
	ctx := context.Background()
	dave := model.Address{Name: "Dave", Email: "dave@example.com"}
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", size/27+1)[:size]
	var msgs []*model.Message
	prev := ""
	for i := range n {
		id := fmt.Sprintf("g%d@example.com", i)
		body := filler
		var cc []model.Address
		if i == 0 {
			cc = []model.Address{dave}
		}
		if i == n-1 {
			body = "Please send the wire transfer today.\n" + filler
		}
		var refs []string
		if prev != "" {
			refs = []string{prev}
		}
		msgs = append(msgs, msg(id, "Giant", bob, []model.Address{alice}, cc, base.Add(time.Duration(i)*time.Minute), body, refs...))
		prev = id
	}
	if err := e.st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	tid, err := e.st.ThreadIDForMessage(ctx, prev)
	if err != nil {
		t.Fatal(err)
	}
	return tid
}

// TestSaveDraftReadsNoOldBodies: autosave recomputes the risk flags from
// the participants' addresses and the latest message only; it must not
// read every body of a giant thread on each keystroke.
func TestSaveDraftReadsNoOldBodies(t *testing.T) {
	ctx := context.Background()
	st, _ := newStore(t)
	e := newEngine(st, nil, nil, nil)
	const n, size = 60, 100 << 10 // 6 MB of bodies
	tid := seedGiantThread(t, e, n, size)
	d, err := e.NewDraft(ctx, tid, false, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Cc = []model.Address{{Email: "dave@example.com"}}
	d.Body = "Sure, I will look into it this afternoon and get back to you."
	got := testproc.AllocatedBytes(func() {
		if err := e.SaveDraft(ctx, d); err != nil {
			t.Fatal(err)
		}
	})
	// The latest body (100 KB) is needed for the money/credentials flags;
	// the other 59 are not.
	if limit := uint64(8 * size); got > limit {
		t.Errorf("SaveDraft allocated %d bytes for a %d-message thread of %d-byte bodies, want <= %d", got, n, size, limit)
	}
	// The flags are those of the whole thread: dave (Cc of the first
	// message) is a participant, the latest message mentions money.
	if !slices.Contains(d.RiskFlags, RiskMoney) || slices.Contains(d.RiskFlags, RiskRecipientOutsideThread) {
		t.Errorf("risk flags = %v, want %s and not %s", d.RiskFlags, RiskMoney, RiskRecipientOutsideThread)
	}
	d.Cc = []model.Address{{Email: "mallory@example.net"}}
	if err := e.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.RiskFlags, RiskRecipientOutsideThread) {
		t.Errorf("risk flags = %v, want %s", d.RiskFlags, RiskRecipientOutsideThread)
	}
}

// TestDraftPromptBounded: the draft prompt of a giant thread holds only
// the newest messages, within a byte budget, without their quoted text,
// and says inside the fence how many earlier messages were left out.
func TestDraftPromptBounded(t *testing.T) {
	const n = 10_000
	th := &model.Thread{ID: 1, Subject: "Giant"}
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	quote := strings.Repeat("> an old line that was already said\n", 40)
	for i := range n {
		th.Messages = append(th.Messages, msg(fmt.Sprintf("g%d@example.com", i), "Giant", bob, []model.Address{alice}, nil,
			base.Add(time.Duration(i)*time.Minute), fmt.Sprintf("New point number %d.\n\nOn Monday, Bob wrote:\n%s", i, quote)))
	}
	_, user := BuildPrompt(GenerateRequest{Thread: th, Principal: alice, ReplyTo: th.Messages[n-1]})
	if len(user) > MaxPromptBytes+8<<10 {
		t.Errorf("prompt of a %d-message thread is %d bytes, want <= %d", n, len(user), MaxPromptBytes+8<<10)
	}
	if strings.Contains(user, "already said") {
		t.Error("quoted text reached the prompt")
	}
	if !strings.Contains(user, fmt.Sprintf("New point number %d.", n-1)) {
		t.Error("the latest message is missing from the prompt")
	}
	end := strings.Index(user, "\nEND UNTRUSTED-MAIL-")
	left := strings.Index(user, "earlier messages of this thread are left out")
	if left < 0 || end < 0 || left > end {
		t.Errorf("the prompt does not say inside the fence how many messages were left out:\n%.600s", user)
	}
	if !strings.Contains(user, fmt.Sprintf("Write the reply to message %d of %d.", n, n)) {
		t.Errorf("reply target lost:\n%s", user[len(user)-200:])
	}
}
