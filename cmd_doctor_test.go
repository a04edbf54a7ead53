package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/store"
)

// queueForDoctor stores a draft, its approval and confirms it through the
// store API, as the drafts engine does; it returns the outbox item's id.
func queueForDoctor(t *testing.T, st *store.Store, n int) int64 {
	t.Helper()
	ctx := context.Background()
	d := &store.Draft{From: model.Address{Email: "me@example.com"}, To: []model.Address{{Email: "bob@example.com"}},
		Subject: "Re: x", Body: "hello", NeedsApproval: true, Source: "template"}
	if err := st.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	mid := fmt.Sprintf("doctor-%d@example.com", n)
	a := &store.Approval{DraftID: d.ID, ExpiresAt: time.Now().Add(time.Hour),
		What: store.ApprovalWhat{Action: "send_mail", EnvelopeFrom: "me@example.com", Recipients: []string{"bob@example.com"},
			MessageID: mid, Message: "Message-ID: <" + mid + ">\r\nSubject: x\r\n\r\nhello\r\n"}}
	if err := st.CreateApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	it, err := st.ConfirmAndEnqueue(ctx, store.ConfirmRequest{ApprovalID: a.ID, By: "operator", NotBefore: time.Now(), ToolName: "send_mail"})
	if err != nil {
		t.Fatal(err)
	}
	return it.ID
}

// TestDoctorStoreStates creates each state a fault leaves in a data dir and
// checks that doctor names it, gives its fix, and exits 1 only for a real
// failure (a store newer than this build); the states that wait for the
// user are warnings. Doctor must also leave the store as it found it.
func TestDoctorStoreStates(t *testing.T) {
	ctx := context.Background()
	pid := strconv.Itoa(os.Getpid())
	tests := []struct {
		name string
		// setup prepares the store; it returns a func to call after doctor
		// ran (to release what it holds), or nil.
		setup    func(t *testing.T, st *store.Store) func()
		wantCode int
		want     []string
	}{
		{
			name:  "healthy",
			setup: func(t *testing.T, st *store.Store) func() { return nil },
			want:  []string{"ok   schema      schema version " + strconv.Itoa(store.SchemaVersionWanted()) + " (current)", "ok   outbox      nothing waits for you", "ok   outbox lock free"},
		},
		{
			name: "outbox held by another process",
			setup: func(t *testing.T, st *store.Store) func() {
				id := queueForDoctor(t, st, 1)
				if _, err := st.BeginSend(ctx, id, time.Now()); err != nil {
					t.Fatal(err)
				}
				release, err := st.HoldOutbox()
				if err != nil {
					t.Fatal(err)
				}
				return release
			},
			want: []string{"warn outbox lock process " + pid + " runs the outbox", "fix: nothing to do while that mailsift runs; to send from another process, quit it",
				"ok   outbox      item 1 being sent by process " + pid},
		},
		{
			name: "lock file left by an ended process",
			setup: func(t *testing.T, st *store.Store) func() {
				release, err := st.HoldOutbox()
				if err != nil {
					t.Fatal(err)
				}
				release()
				return nil
			},
			want: []string{"ok   outbox lock free;", "last held by process " + pid, "harmless"},
		},
		{
			name: "send interrupted after the hand-over",
			setup: func(t *testing.T, st *store.Store) func() {
				queueForDoctor(t, st, 1)
				id := queueForDoctor(t, st, 2)
				if _, err := st.BeginSend(ctx, id, time.Now()); err != nil {
					t.Fatal(err)
				}
				if err := st.MarkCommitted(ctx, id); err != nil {
					t.Fatal(err)
				}
				return nil // the store is closed before doctor runs: the sender "crashed"
			},
			want: []string{"warn outbox      item 2: interrupted mid-send", "item 2 had been handed to the server, so its outcome is unknown",
				"fix: run `mailsift outbox send`", "ok   outbox lock free"},
		},
		{
			name: "send outcome unknown",
			setup: func(t *testing.T, st *store.Store) func() {
				for n := 1; n <= 2; n++ {
					id := queueForDoctor(t, st, n)
					if _, err := st.BeginSend(ctx, id, time.Now()); err != nil {
						t.Fatal(err)
					}
					if err := st.MarkUnknown(ctx, id, "connection dropped after DATA", time.Time{}); err != nil {
						t.Fatal(err)
					}
				}
				return nil
			},
			want: []string{"warn outbox      2 items (1, 2): send outcome unknown", "2 items (1, 2) wait for you",
				"`mailsift outbox retry ID`", "`mailsift outbox cancel ID`"},
		},
		{
			name: "send failed for good",
			setup: func(t *testing.T, st *store.Store) func() {
				id := queueForDoctor(t, st, 1)
				if _, err := st.BeginSend(ctx, id, time.Now()); err != nil {
					t.Fatal(err)
				}
				if err := st.MarkFailed(ctx, id, "550 no such user", time.Time{}); err != nil {
					t.Fatal(err)
				}
				queueForDoctor(t, st, 2) // queued: not a finding
				return nil
			},
			want: []string{"warn outbox      item 1 failed with no further attempt", "fix: `mailsift outbox` shows each last error", "`mailsift outbox retry ID`"},
		},
		{
			name: "store newer than this build",
			setup: func(t *testing.T, st *store.Store) func() {
				setUserVersion(t, st.Path(), store.SchemaVersionWanted()+1)
				return nil
			},
			wantCode: 1,
			want: []string{"FAIL schema", fmt.Sprintf("schema version %d, newer than this mailsift's %d", store.SchemaVersionWanted()+1, store.SchemaVersionWanted()),
				"fix: upgrade mailsift"},
		},
		{
			name: "migration pending",
			setup: func(t *testing.T, st *store.Store) func() {
				setUserVersion(t, st.Path(), store.SchemaVersionWanted()-1)
				return nil
			},
			want: []string{"warn schema", fmt.Sprintf("migrations %d to %d are pending and are applied when a command next opens the store", store.SchemaVersionWanted(), store.SchemaVersionWanted()),
				"fix: run `mailsift outbox`"},
		},
	}
	env := map[string]string{"OLLAMA_HOST": fakeOllamaServer(t, []string{"llama3.2:3b"}, "")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := store.Open(ctx, filepath.Join(dir, "demo.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			after := tt.setup(t, st)
			held := after != nil
			if !held {
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := store.Inspect(ctx, filepath.Join(dir, "demo.db"))
			r := runWith(t, env, "", "--data-dir", dir, "--demo", "doctor")
			if held {
				after()
				st.Close()
			}
			t.Logf("doctor:\n%s", r.stdout)
			if r.code != tt.wantCode {
				t.Errorf("doctor exit %d, want %d\n%s", r.code, tt.wantCode, r.stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("doctor output lacks %q:\n%s", w, r.stdout)
				}
			}
			if tt.wantCode == 0 && strings.Contains(r.stdout, "FAIL") {
				t.Errorf("doctor failed a check:\n%s", r.stdout)
			}
			got, _ := store.Inspect(ctx, filepath.Join(dir, "demo.db"))
			if fmt.Sprint(before) != fmt.Sprint(got) {
				t.Errorf("doctor changed the store: before %+v, after %+v", before, got)
			}
		})
	}
}

// setUserVersion sets the store's schema version, as a newer mailsift (or
// an older store) would have left it.
func setUserVersion(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorModelStates checks the two model findings: an unreachable
// Ollama fails and says triage falls back to the deterministic rules, and
// a remote model host is named without the credentials in its URL, with
// the config key that allowed it.
func TestDoctorModelStates(t *testing.T) {
	r := runWith(t, map[string]string{"OLLAMA_HOST": deadHost(t)}, "", "--demo", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL ollama") || !strings.Contains(r.stdout, "triage falls back to deterministic rules") ||
		!strings.Contains(r.stdout, "fix: start it with `ollama serve`") {
		t.Errorf("doctor with Ollama down: exit %d\n%s", r.code, r.stdout)
	}
	home := t.TempDir()
	cfgPath := filepath.Join(home, "config.toml")
	cfgText := "[principal]\nemail = \"me@example.org\"\n[ollama]\nhost = \"https://carol:cred-Q7-secret@gpu-box.example:11434\"\nremote = true\n[triage]\noffline = true\n" +
		"[[account]]\nname = \"local\"\nsource = \"maildir://" + home + "\"\n"
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, map[string]string{"HOME": home}, "", "--config", cfgPath, "--data-dir", filepath.Join(home, "data"), "doctor")
	if !strings.Contains(r.stdout, "model: gpu-box.example:11434 (remote)") || !strings.Contains(r.stdout, "config key ollama.remote = true") {
		t.Errorf("doctor does not name the remote model host and its config key:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, "cred-Q7-secret") || strings.Contains(r.stdout, "carol") {
		t.Errorf("doctor printed the model host's credentials:\n%s", r.stdout)
	}
}
