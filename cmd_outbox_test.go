package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/drafts"
	"mailsift/model"
	"mailsift/store"
)

// openSeedStore opens, with Alice as the principal, the store the CLI
// opens for --data-dir dir under env. The caller closes it before
// running the CLI.
func openSeedStore(t *testing.T, dir string, env map[string]string) (*store.Store, model.Address) {
	t.Helper()
	g := &globals{DataDir: dir, Env: func(k string) string { return env[k] }}
	cfg, err := g.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	me := model.Address{Name: "Alice", Email: "alice@example.com"}
	st, err := store.Open(context.Background(), storePath(cfg), &store.Options{Principal: me})
	if err != nil {
		t.Fatal(err)
	}
	return st, me
}

// seedOutbox queues one confirmed reply (with a long undo window) in the
// store the CLI opens for --data-dir dir.
func seedOutbox(t *testing.T, dir string) (map[string]string, *store.OutboxItem) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data")}
	ctx := context.Background()
	st, me := openSeedStore(t, dir, env)
	defer st.Close()
	m := &model.Message{Loc: model.Location{Account: "demo", Mailbox: "INBOX", Key: "1"}, MessageID: "1@x", ContentHash: "h1", HasBody: true,
		From: model.Address{Name: "Bob", Email: "bob@example.com"}, To: []model.Address{me}, Subject: "Lunch \x1b[2J\u0085\u202e\u3164", Date: time.Now(), Text: "lunch?"}
	if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	tid, _ := st.ThreadIDForMessage(ctx, "1@x")
	e := drafts.New(st, drafts.Options{Principal: me, UndoWindow: time.Hour, Accounts: []drafts.Account{{Transport: &drafts.Sendmail{Command: "false"}}}})
	d, err := e.NewDraft(ctx, tid, false, "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Approve(ctx, d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	item, err := e.Confirm(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	return env, item
}

func TestOutboxAndAuditCommands(t *testing.T) {
	dir := t.TempDir()
	env, item := seedOutbox(t, dir)

	r := runWith(t, env, "", "--data-dir", dir, "outbox", "--json")
	if r.code != 0 {
		t.Fatalf("outbox --json: %+v", r)
	}
	var got outboxItemJSON
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &got); err != nil {
		t.Fatalf("outbox --json output %q: %v", r.stdout, err)
	}
	if got.ID != item.ID || got.State != "queued" || got.MessageID != item.MessageID || got.Recipients[0] != "bob@example.com" {
		t.Errorf("outbox --json = %+v", got)
	}
	r = runWith(t, env, "", "--data-dir", dir, "outbox")
	if r.code != 0 || !strings.Contains(r.stdout, "queued") || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("outbox list = %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "outbox", "cancel", "x1")
	if r.code != 2 || !strings.Contains(r.stderr, "not an item ID") {
		t.Errorf("cancel with a bad id = %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "outbox", "cancel", "1")
	if r.code != 0 {
		t.Fatalf("outbox cancel: %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "outbox", "cancel", "1")
	if r.code != 1 || !strings.Contains(r.stderr, "cancelled") {
		t.Errorf("second cancel = %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "audit", "--json", "--trace", item.TraceID)
	if r.code != 0 {
		t.Fatalf("audit --json: %+v", r)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev auditEventJSON
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.TraceID != item.TraceID {
			t.Fatalf("audit line %q: %v", line, err)
		}
		types = append(types, ev.Type)
	}
	want := "draft.created,approval.requested,approval.approved,outbox.queued,outbox.cancelled"
	if strings.Join(types, ",") != want {
		t.Errorf("audit trail = %v, want %s", types, want)
	}
	r = runWith(t, env, "", "--data-dir", dir, "audit")
	if r.code != 0 || !strings.Contains(r.stdout, "outbox.cancelled") {
		t.Errorf("audit = %+v", r)
	}
}
