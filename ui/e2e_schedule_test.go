package ui

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxAcceptInvitation builds mailsift, runs `mailsift --demo` in tmux
// and accepts the demo's Google invitation as a user would: open it, see
// the scheduling panel, i then a, review the answer, s, see the REPLY's
// exact bytes on the confirm screen, y, and find the panel saying the
// answer is queued.
func TestTmuxAcceptInvitation(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildMailsift(t, dir)
	script := "env -u NO_COLOR XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg") + " OLLAMA_HOST=http://127.0.0.1:9 " +
		bin + " --demo --data-dir " + filepath.Join(dir, "data") + "; echo mailsift exited with $?; sleep 60"
	p := newTmuxPane(t, tmux, "mailsift-sched-"+filepath.Base(dir), 120, 60, script)
	waitFor := func(what string, cond func(string) bool) string {
		t.Helper()
		return p.waitFor(what, tmuxWait, cond, nil)
	}
	waitFor("the inbox with the invitation's badge", hasAll("Actionable (", "[meeting: answer]"))
	p.keys("/")
	waitFor("search prompt", hasAll("type to search"))
	p.keys("-l", "roadmap")
	waitFor("search results", hasAll("Priya Shah"))
	p.keys("Enter")
	screen := waitFor("the scheduling panel", hasAll("Scheduling:", "Invitation: Contoso roadmap review", "you: NEEDS-ACTION", "i: scheduling keys"))
	if !strings.Contains(screen, "Jordan Lee (opt)") {
		t.Errorf("panel lacks the optional attendee:\n%s", screen)
	}
	p.keys("i")
	waitFor("the panel's keys", hasAll("a accept · t tentative · d decline"))
	p.keys("a")
	waitFor("the answer's draft review", hasAll("Subject: Accepted: Contoso roadmap review", "To:      Priya Shah <priya.shah@contoso.example>"))
	p.keys("s")
	waitFor("the confirm screen as read", hasAll("Confirm send", "Accepted: Contoso roadmap review", "text/calendar"))
	p.keys("Tab")
	waitFor("the confirm screen's exact bytes with the REPLY", hasAll("method=REPLY", "METHOD:REPLY", "PARTSTAT=ACCEPTED"))
	p.keys("y")
	waitFor("the panel after the answer", hasAll("Scheduling:", "you: ACCEPTED"))
	// One Escape at a time: two sent together read as alt+esc.
	p.keys("Escape")
	waitFor("the search results again", hasAll("results for roadmap"))
	p.keys("Escape")
	waitFor("the inbox without the answer badge", func(s string) bool {
		return strings.Contains(s, "Actionable (") && !strings.Contains(s, "[meeting: answer]")
	})
	p.keys("q")
	waitFor("a clean exit", hasAll("mailsift exited with 0"))
}
