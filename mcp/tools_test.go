package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/model"
	"mailsift/store"
)

// TestEveryToolAnswers calls each tool through the go-sdk client and
// checks the answers against the output schemas and the mailbox.
func TestEveryToolAnswers(t *testing.T) {
	f := newFixture(t, "")
	var lt listThreadsOut
	f.ok(ToolListThreads, map[string]any{"inbox_id": "work"}, &lt)
	if len(lt.Threads) != 3 || lt.NextCursor != "" {
		t.Fatalf("list_threads = %d threads (cursor %q), want the 3 inbox threads on one page", len(lt.Threads), lt.NextCursor)
	}
	if lt.Threads[0].Subject != "Invoice 4711" || lt.Threads[0].UpdatedAt != "2025-11-06T10:00:00Z" {
		t.Errorf("newest thread = %+v, want Invoice 4711 updated 2025-11-06T10:00:00Z", lt.Threads[0])
	}
	for _, th := range lt.Threads {
		if strings.ContainsAny(th.Subject, "\x1b\x07") {
			t.Errorf("subject %q keeps control characters", th.Subject)
		}
	}
	var closed listThreadsOut
	f.ok(ToolListThreads, map[string]any{"inbox_id": "work", "status": "closed"}, &closed)
	if len(closed.Threads) != 1 || closed.Threads[0].Subject != "Old news" || closed.Threads[0].Status != "closed" {
		t.Errorf("closed threads = %+v, want the archived one", closed.Threads)
	}

	q := f.threadOf("q1@example.com")
	var gt getThreadOut
	f.ok(ToolGetThread, map[string]any{"thread_id": q}, &gt)
	if len(gt.Messages) != 2 || gt.Messages[0].Text == "" || gt.Messages[0].Direction != "inbound" {
		t.Fatalf("get_thread = %+v, want 2 inbound messages with text", gt)
	}
	var noMsgs getThreadOut
	f.ok(ToolGetThread, map[string]any{"thread_id": q, "include_messages": false}, &noMsgs)
	if len(noMsgs.Messages) != 0 {
		t.Errorf("include_messages false returned %d messages", len(noMsgs.Messages))
	}
	evil := f.threadOf("e1@example.net")
	var ge getThreadOut
	f.ok(ToolGetThread, map[string]any{"thread_id": evil}, &ge)
	if b, _ := json.Marshal(ge); strings.Contains(string(b), `\u001b`) || strings.Contains(string(b), `\u0007`) {
		t.Errorf("get_thread JSON keeps terminal escapes: %s", b)
	}

	var so searchOut
	res := f.ok(ToolSearchInbox, map[string]any{"inbox_id": "work", "query": "figures"}, &so)
	if len(so.Results) != 2 || so.Results[0].ThreadID != q {
		t.Fatalf("search figures = %+v, want the 2 messages of the figures thread", so.Results)
	}
	if res.Meta["search_mode"] != "lexical" {
		t.Errorf("search _meta = %v, want search_mode lexical", res.Meta)
	}
	f.ok(ToolSearchInbox, map[string]any{"inbox_id": "work", "query": "figures", "top_k": 1,
		"time_range": map[string]any{"start": "2025-11-04T00:00:00Z", "end": "2025-11-04T23:59:59Z"}}, &so)
	if len(so.Results) != 1 || so.Results[0].MessageID != messageID("q2@example.com") {
		t.Errorf("search in a time range = %+v, want only q2", so.Results)
	}

	var tm triageMessageOut
	f.ok(ToolTriageMessage, map[string]any{"message_id": messageID("q1@example.com"), "taxonomy_id": "mailsift"}, &tm)
	if tm.Intent == "" || tm.Confidence < 0 || tm.Confidence > 1 {
		t.Errorf("triage_message = %+v", tm)
	}

	var dr draftOut
	res = f.ok(ToolDraftReply, map[string]any{"thread_id": q, "policy_id": "default", "goal": "say the figures come Friday"}, &dr)
	if dr.Draft == "" || !dr.NeedsHumanApproval || res.Meta["draft_id"] == nil {
		t.Errorf("draft_reply_with_policy = %+v meta %v", dr, res.Meta)
	}

	var sr sendOut
	f.ok(ToolSendReply, map[string]any{"thread_id": q, "body_or_draft_id": "The figures come Friday.", "idempotency_key": "k1"}, &sr)
	if sr.Status != "queued" {
		t.Errorf("send_reply status = %q, want queued", sr.Status)
	}

	var te struct {
		Result struct{ Category string } `json:"result"`
	}
	f.ok(ToolTriageEmail, json.RawMessage(`{"schema_version":"1.0","payload":{"kind":"single","principal":{"email":"me@example.org"},
		"message":{"message_id":"m1","from":{"email":"bob@example.com"},"subject":"Lunch?","body":"Lunch on Friday?"}}}`), &te)
	if te.Result.Category == "" {
		t.Errorf("triage_email gave no category")
	}
	if f.smtp.count() != 0 {
		t.Errorf("tools sent %d messages; no tool sends", f.smtp.count())
	}
	calls, err := f.st.ToolCalls(context.Background(), 100)
	if err != nil || len(calls) != 11 {
		t.Errorf("tool calls recorded = %d, %v; want 11, one per call", len(calls), err)
	}
}

// TestBadArgumentsGetTheErrorShape: each tool, given arguments that break
// its schema or name nothing, answers the contract's error with a path.
func TestBadArgumentsGetTheErrorShape(t *testing.T) {
	f := newFixture(t, "")
	q := f.threadOf("q1@example.com")
	mid := messageID("q1@example.com")
	cases := []struct {
		tool string
		args any
		code string
		path string
	}{
		{ToolListThreads, map[string]any{}, CodeInvalidArgument, "/"},
		{ToolListThreads, map[string]any{"inbox_id": "work", "limit": 0}, CodeInvalidArgument, "/limit"},
		{ToolListThreads, map[string]any{"inbox_id": "work", "limit": 201}, CodeInvalidArgument, "/limit"},
		{ToolListThreads, map[string]any{"inbox_id": "work", "status": "deleted"}, CodeInvalidArgument, "/status"},
		{ToolListThreads, map[string]any{"inbox_id": "work", "updated_after": "yesterday"}, CodeInvalidArgument, "/updated_after"},
		{ToolListThreads, map[string]any{"inbox_id": "work", "color": "red"}, CodeInvalidArgument, "/"},
		{ToolListThreads, map[string]any{"inbox_id": "work", "cursor": "bogus"}, CodeInvalidArgument, "/cursor"},
		{ToolListThreads, map[string]any{"inbox_id": "home"}, CodeNotFound, "/inbox_id"},
		{ToolGetThread, map[string]any{"thread_id": ""}, CodeInvalidArgument, "/thread_id"},
		{ToolGetThread, map[string]any{"thread_id": "42"}, CodeInvalidArgument, "/thread_id"},
		{ToolGetThread, map[string]any{"thread_id": "thr-999999"}, CodeNotFound, ""},
		{ToolGetThread, map[string]any{"thread_id": q, "include_messages": "yes"}, CodeInvalidArgument, "/include_messages"},
		{ToolSearchInbox, map[string]any{"inbox_id": "work"}, CodeInvalidArgument, "/"},
		{ToolSearchInbox, map[string]any{"inbox_id": "work", "query": "x", "top_k": 51}, CodeInvalidArgument, "/top_k"},
		{ToolSearchInbox, map[string]any{"inbox_id": "work", "query": "x", "time_range": map[string]any{"start": "monday"}}, CodeInvalidArgument, "/time_range/start"},
		{ToolSearchInbox, map[string]any{"inbox_id": "work", "query": "\"unbalanced"}, CodeInvalidArgument, "/query"},
		{ToolTriageMessage, map[string]any{"message_id": mid}, CodeInvalidArgument, "/"},
		{ToolTriageMessage, map[string]any{"message_id": mid, "taxonomy_id": "sentiment140"}, CodeNotFound, "/taxonomy_id"},
		{ToolTriageMessage, map[string]any{"message_id": "msg-!!", "taxonomy_id": "mailsift"}, CodeInvalidArgument, "/message_id"},
		{ToolExtract, map[string]any{"message_id": mid}, CodeInvalidArgument, "/"},
		{ToolExtract, map[string]any{"message_id": messageID("nope@x"), "schema_id": "invoice"}, CodeNotFound, ""},
		{ToolDraftReply, map[string]any{"thread_id": q, "policy_id": "default"}, CodeInvalidArgument, "/"},
		{ToolDraftReply, map[string]any{"thread_id": q, "policy_id": "pushy", "goal": "x"}, CodeNotFound, ""},
		{ToolSendReply, map[string]any{"thread_id": q, "body_or_draft_id": "hi"}, CodeInvalidArgument, "/"},
		{ToolSendReply, map[string]any{"thread_id": q, "body_or_draft_id": "hi", "idempotency_key": "k", "confirm": true}, CodeInvalidArgument, "/"},
		{ToolSendReply, map[string]any{"thread_id": q, "body_or_draft_id": " ", "idempotency_key": "k"}, CodeInvalidArgument, "/body_or_draft_id"},
		{ToolTriageEmail, map[string]any{"payload": map[string]any{"kind": "single"}}, CodeInvalidArgument, ""},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.tool, c.args), func(t *testing.T) {
			e := f.fail(c.tool, c.args)
			if e.Code != c.code {
				t.Errorf("code = %q (%s), want %q", e.Code, e.Message, c.code)
			}
			if c.path != "" {
				if p, _ := e.Details["path"].(string); p != c.path {
					t.Errorf("details.path = %q (%s), want %q", p, e.Message, c.path)
				}
			}
		})
	}
	if f.smtp.count() != 0 {
		t.Errorf("bad calls sent %d messages", f.smtp.count())
	}
}

// TestListThreadsCursorStableWhileMailArrives: paging one thread at a
// time visits every thread once, even though new mail arrives between
// pages (it lands before the first page, not inside the walk).
func TestListThreadsCursorStableWhileMailArrives(t *testing.T) {
	f := newFixture(t, "")
	var seen []string
	cur := ""
	for i := 0; i < 10; i++ {
		args := map[string]any{"inbox_id": "work", "limit": 1}
		if cur != "" {
			args["cursor"] = cur
		}
		var out listThreadsOut
		f.ok(ToolListThreads, args, &out)
		for _, th := range out.Threads {
			seen = append(seen, th.Subject)
		}
		if i == 0 { // new mail arrives after the first page
			m := &model.Message{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: "new1"}, MessageID: "new1@example.com",
				From: model.Address{Email: "dana@example.com"}, To: []model.Address{{Email: principal}}, Subject: "Brand new",
				Text: "new", HasBody: true, Date: time.Date(2025, 11, 10, 0, 0, 0, 0, time.UTC), ContentHash: "new1", Size: 10}
			if err := f.st.PutMessages(context.Background(), []*model.Message{m}); err != nil {
				t.Fatal(err)
			}
		}
		if out.NextCursor == "" {
			break
		}
		cur = out.NextCursor
	}
	want := "Invoice 4711|hithere|Quarterly figures"
	if got := strings.Join(seen, "|"); got != want {
		t.Errorf("paged subjects = %s, want %s", got, want)
	}
	// A cursor of one query is refused for another.
	var first listThreadsOut
	f.ok(ToolListThreads, map[string]any{"inbox_id": "work", "limit": 1}, &first)
	e := f.fail(ToolListThreads, map[string]any{"inbox_id": "work", "limit": 1, "label": "unread", "cursor": first.NextCursor})
	if e.Code != CodeInvalidArgument {
		t.Errorf("foreign cursor: %+v", e)
	}
}

// TestSendReplyQueuesApprovalOnly: send_reply creates a pending approval
// with the exact message, sends nothing, and a repeated key gives the same
// answer and no second approval; a reused key with other text conflicts.
// After the person approves, the message goes out once and the same key
// reports sent.
func TestSendReplyQueuesApprovalOnly(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	q := f.threadOf("q1@example.com")
	args := map[string]any{"thread_id": q, "body_or_draft_id": "Figures on Friday.", "idempotency_key": "reply-1"}
	var a1, a2 sendOut
	r1 := f.ok(ToolSendReply, args, &a1)
	r2 := f.ok(ToolSendReply, args, &a2)
	if a1 != a2 || r1.Meta["approval_id"] != r2.Meta["approval_id"] || a1.Status != "queued" {
		t.Fatalf("repeated key: %+v %v vs %+v %v, want the same queued answer", a1, r1.Meta, a2, r2.Meta)
	}
	pend, err := f.st.Approvals(ctx, 0, store.ApprovalPending)
	if err != nil || len(pend) != 1 {
		t.Fatalf("pending approvals = %d, %v; want 1", len(pend), err)
	}
	ap := pend[0]
	if ap.ID != r1.Meta["approval_id"] || !strings.Contains(ap.What.Message, "Figures on Friday.") ||
		!strings.Contains(ap.What.Message, "To: \"Bob Builder\" <bob@example.com>") || ap.Why == "" ||
		!strings.Contains(ap.HowToApprove, "mailsift approvals approve "+ap.ID) {
		t.Errorf("approval = %+v", ap)
	}
	if messageID(ap.What.MessageID) != a1.MessageID {
		t.Errorf("message_id %s is not the queued message's %s", a1.MessageID, ap.What.MessageID)
	}
	e := f.fail(ToolSendReply, map[string]any{"thread_id": q, "body_or_draft_id": "Other text", "idempotency_key": "reply-1"})
	if e.Code != CodeConflict {
		t.Errorf("reused key with other text: %+v, want conflict", e)
	}
	if n, _ := f.eng.ProcessDue(ctx); n != 0 || f.smtp.count() != 0 {
		t.Fatalf("before approval the outbox handled %d and sent %d", n, f.smtp.count())
	}
	// The person approves (the CLI and the TUI call this).
	if _, err := f.appr.Approve(ctx, ap.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.ProcessDue(ctx); err != nil {
		t.Fatal(err)
	}
	var a3 sendOut
	f.ok(ToolSendReply, args, &a3)
	if f.smtp.count() != 1 || a3.Status != "sent" || a3.MessageID != a1.MessageID {
		t.Errorf("after approval: sent %d, answer %+v; want 1 sent and status sent for the same message", f.smtp.count(), a3)
	}
	if _, err := f.eng.ProcessDue(ctx); err != nil {
		t.Fatal(err)
	}
	if f.smtp.count() != 1 {
		t.Errorf("sent %d times, want once", f.smtp.count())
	}
	// The audit log has the tool call and the approval under one trace.
	evs, err := f.st.AuditEvents(ctx, ap.TraceID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	got := strings.Join(types, " ")
	if !strings.HasSuffix(got, "tool_call.succeeded") {
		t.Errorf("trace %q does not end with the send's tool_call.succeeded", got)
	}
	for _, w := range []string{"tool_call.attempted", "draft.created", "approval.requested", "tool_call.succeeded", "approval.approved", "outbox.queued"} {
		if !strings.Contains(got, w) {
			t.Errorf("trace events %q lack %s", got, w)
		}
	}
}

// TestSendReplyDeniedOrEdited: a denied approval answers approval_denied
// for the same key; editing the draft voids its pending approval.
func TestSendReplyDeniedOrEdited(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, "")
	q := f.threadOf("q1@example.com")
	args := map[string]any{"thread_id": q, "body_or_draft_id": "No.", "idempotency_key": "deny-me"}
	r := f.ok(ToolSendReply, args, nil)
	id := r.Meta["approval_id"].(string)
	if err := f.appr.Deny(ctx, id, "not now"); err != nil {
		t.Fatal(err)
	}
	if e := f.fail(ToolSendReply, args); e.Code != CodeApprovalDenied {
		t.Errorf("after deny: %+v", e)
	}
	r = f.ok(ToolSendReply, map[string]any{"thread_id": q, "body_or_draft_id": "Yes.", "idempotency_key": "edit-me"}, nil)
	ap, err := f.st.Approval(ctx, r.Meta["approval_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.st.Draft(ctx, ap.DraftID)
	if err != nil {
		t.Fatal(err)
	}
	d.Body = "Yes, and more."
	if err := f.eng.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := f.appr.Approve(ctx, ap.ID); err == nil {
		t.Errorf("approving after the draft changed succeeded; the change must void it")
	}
	if _, err := f.eng.ProcessDue(ctx); err != nil {
		t.Fatal(err)
	}
	if f.smtp.count() != 0 {
		t.Errorf("sent %d", f.smtp.count())
	}
}

// TestResourcesMatchContract reads every resource kind and checks it
// against the contract's resource schema.
func TestResourcesMatchContract(t *testing.T) {
	f := newFixture(t, "")
	q := f.threadOf("q1@example.com")
	for _, c := range []struct{ uri, schema string }{
		{"email://inboxes/work", "neuralmail/resources/inbox.json"},
		{"email://threads/" + q, "neuralmail/resources/thread.json"},
		{"email://threads/" + q + "/summary", "neuralmail/resources/thread_summary.json"},
		{"email://messages/" + messageID("q1@example.com"), "neuralmail/resources/message.json"},
		{"email://inboxes/work/threads?status=open&label=unread", "neuralmail/tools/list_threads.output.json"},
	} {
		res, err := f.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: c.uri})
		if err != nil {
			t.Errorf("read %s: %v", c.uri, err)
			continue
		}
		if len(res.Contents) != 1 {
			t.Fatalf("%s: %d contents", c.uri, len(res.Contents))
		}
		if e := f.srv.schemas.validate(c.schema, []byte(res.Contents[0].Text)); e != nil {
			t.Errorf("%s breaks %s: %v\n%s", c.uri, c.schema, e, res.Contents[0].Text)
		}
	}
	if _, err := f.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "email://threads/thr-99999"}); err == nil {
		t.Errorf("reading a missing thread succeeded")
	}
	rs, err := f.cs.ListResources(context.Background(), nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "email://inboxes/work" {
		t.Errorf("resources = %+v, %v", rs, err)
	}
	tp, err := f.cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tp.ResourceTemplates) != 5 {
		t.Errorf("templates = %+v, %v", tp, err)
	}
}
