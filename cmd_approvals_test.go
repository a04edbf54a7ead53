package main

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"mailsift/drafts"
	"mailsift/store"
)

// seedApproval stores one pending approval an agent asked for in the
// store the CLI opens for --data-dir dir.
func seedApproval(t *testing.T, dir string) (map[string]string, *store.Approval) {
	t.Helper()
	env, _ := seedOutbox(t, dir) // a queued item too, so the audit log has a send's trail
	ctx := context.Background()
	st, me := openSeedStore(t, dir, env)
	defer st.Close()
	tid, _ := st.ThreadIDForMessage(ctx, "1@x")
	e := drafts.New(st, drafts.Options{Principal: me, Accounts: []drafts.Account{{Transport: &drafts.Sendmail{Command: "false"}}}})
	d, err := e.NewDraft(ctx, tid, false, "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Approve(ctx, d.ID, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return env, a
}

// TestApprovalsCommand: list and show print the pending approval and its
// exact bytes; approve refuses without a terminal and leaves it pending;
// deny records the refusal.
func TestApprovalsCommand(t *testing.T) {
	dir := t.TempDir()
	env, a := seedApproval(t, dir)
	r := runWith(t, env, "", "--data-dir", dir, "approvals", "list", "--json")
	if r.code != 0 {
		t.Fatalf("approvals list: %+v", r)
	}
	var got approvalJSON
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &got); err != nil || got.ApprovalID != a.ID || got.Status != "pending" || got.What.Message != a.What.Message {
		t.Fatalf("approvals list --json = %q (%v), want the pending approval %s", r.stdout, err, a.ID)
	}
	r = runWith(t, env, "", "--data-dir", dir, "approvals", "show", a.ID[:8])
	if r.code != 0 || !strings.Contains(r.stdout, "Message-ID: <"+a.What.MessageID+">") || strings.Contains(r.stdout, "\x1b") ||
		!strings.Contains(r.stdout, "sha256     "+a.WhatHash) {
		t.Errorf("approvals show (by prefix) = %+v; want the exact message and its hash", r)
	}
	r = runWith(t, env, "y\n", "--data-dir", dir, "approvals", "approve", a.ID)
	if r.code != 1 || !strings.Contains(r.stderr, "needs a terminal") {
		t.Errorf("approve without a terminal = %+v, want refused", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "approvals", "list")
	if r.code != 0 || !strings.Contains(r.stdout, a.ID) || !strings.Contains(r.stdout, "pending") {
		t.Errorf("after the refused approve the approval must stay pending: %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "approvals", "deny", a.ID, "--reason", "not mine")
	if r.code != 0 {
		t.Fatalf("deny: %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "approvals", "show", a.ID, "--json")
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &got); err != nil || got.Status != "denied" || got.Decision.Reason == nil || *got.Decision.Reason != "not mine" {
		t.Errorf("after deny: %q %v", r.stdout, err)
	}
	r = runWith(t, env, "", "--data-dir", dir, "approvals", "approve")
	if r.code != 2 {
		t.Errorf("approve without an id = %+v, want usage error", r)
	}
}

// TestAuditJSONIsContractAuditEvent: every line has exactly the contract's
// AuditEvent fields, with refs and enums as the contract says.
func TestAuditJSONIsContractAuditEvent(t *testing.T) {
	dir := t.TempDir()
	env, _ := seedApproval(t, dir)
	r := runWith(t, env, "", "--data-dir", dir, "audit", "--json")
	if r.code != 0 {
		t.Fatalf("audit --json: %+v", r)
	}
	want := "audit_id autonomy_level connector_id latency_ms outcome payload_ref refs risk_level stage summary timestamp tool_name trace_id type"
	stages := "normalize route execute tool_call gate operator scheduler watcher rule"
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	sawTool := false
	for _, line := range lines {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if strings.Join(keys, " ") != want {
			t.Fatalf("audit event keys = %v, want %s", keys, want)
		}
		var ev auditEventJSON
		_ = json.Unmarshal([]byte(line), &ev)
		if !strings.Contains(" "+stages+" ", " "+ev.Stage+" ") || !strings.Contains(" success failure suppressed info ", " "+ev.Outcome+" ") {
			t.Errorf("stage %q / outcome %q outside the contract's enums", ev.Stage, ev.Outcome)
		}
		if _, err := time.Parse(time.RFC3339Nano, ev.Timestamp); err != nil {
			t.Errorf("timestamp %q: %v", ev.Timestamp, err)
		}
		if ev.Type == "outbox.queued" {
			sawTool = ev.Refs.ToolCallID != nil && ev.ToolName != nil && ev.RiskLevel != nil
		}
	}
	if !sawTool {
		t.Errorf("outbox.queued has no tool_call_id/tool_name/risk_level from its tool call:\n%s", r.stdout)
	}
}
