package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/internal/app"
	"mailsift/internal/termsafe"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

// The contract's resource shapes.
type participantJSON struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
}

type threadJSON struct {
	ID           string            `json:"id"`
	InboxID      string            `json:"inbox_id"`
	Subject      string            `json:"subject"`
	Status       string            `json:"status"`
	Labels       []string          `json:"labels"`
	Participants []participantJSON `json:"participants"`
	UpdatedAt    string            `json:"updated_at"`
}

type messageJSON struct {
	ID        string            `json:"id"`
	ThreadID  string            `json:"thread_id"`
	Direction string            `json:"direction"`
	From      *participantJSON  `json:"from,omitempty"`
	To        []participantJSON `json:"to"`
	Cc        []participantJSON `json:"cc"`
	Subject   string            `json:"subject"`
	Text      string            `json:"text"`
	CreatedAt string            `json:"created_at"`
}

// maxText bounds a message body in an answer; the rest is cut with a note.
const maxText = 256 << 10

func participant(a model.Address) (participantJSON, bool) {
	email := strings.TrimSpace(a.Email)
	if !validEmail(email) {
		return participantJSON{}, false
	}
	return participantJSON{Name: termsafe.SanitizeLine(a.Name), Email: email}, true
}

func participants(as []model.Address) []participantJSON {
	out := []participantJSON{}
	for _, a := range as {
		if p, ok := participant(a); ok {
			out = append(out, p)
		}
	}
	return out
}

func labels(ts store.ThreadSummary) []string {
	out := []string{string(ts.Section)}
	if ts.Unread > 0 {
		out = append(out, "unread")
	}
	return out
}

// inboxes returns the configured accounts (the contract's inboxes).
func (s *Server) inboxes() []string {
	var out []string
	for _, a := range s.app.Config().Accounts {
		out = append(out, a.Name)
	}
	return out
}

// inbox checks an inbox id and returns the account filter for it (""
// when there is one account: every thread is in it).
func (s *Server) inbox(id, path string) (string, error) {
	names := s.inboxes()
	for _, n := range names {
		if n == id {
			if len(names) == 1 {
				return "", nil
			}
			return n, nil
		}
	}
	return "", &Error{Code: CodeNotFound, Message: fmt.Sprintf("%s: no inbox %s", path, quote(id)),
		Details: map[string]any{"path": path, "inboxes": names}}
}

// threadOut is a thread as the contract shows it; status is the store's
// (store.StatusOpen, StatusClosed or StatusSnoozed).
func (s *Server) threadOut(ts store.ThreadSummary, inbox, status string) threadJSON {
	return threadJSON{ID: threadID(ts.ID), InboxID: inbox, Subject: termsafe.SanitizeLine(ts.Subject), Status: status,
		Labels: labels(ts), Participants: participants([]model.Address{ts.From}), UpdatedAt: rfc3339(ts.Latest)}
}

type listThreadsArgs struct {
	InboxID      string `json:"inbox_id"`
	Status       string `json:"status"`
	Label        string `json:"label"`
	UpdatedAfter string `json:"updated_after"`
	Limit        *int   `json:"limit"`
	Cursor       string `json:"cursor"`
}

type listThreadsOut struct {
	Threads    []threadJSON `json:"threads"`
	NextCursor string       `json:"next_cursor,omitempty"`
}

func (s *Server) listThreads(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a listThreadsArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	acct, err := s.inbox(a.InboxID, "/inbox_id")
	if err != nil {
		return nil, nil, err
	}
	limit := 50
	if a.Limit != nil {
		limit = *a.Limit
	}
	f := store.ThreadPageFilter{Account: acct, Limit: limit + 1}
	status := a.Status // the input schema allows open, closed and snoozed only
	if status == "" {
		status = store.StatusOpen
	}
	switch a.Label {
	case "":
	case "unread":
		f.Unread = true
	default:
		known := false
		for _, sec := range store.Sections() {
			if string(sec) == a.Label {
				known = true
			}
		}
		if !known {
			return listThreadsOut{Threads: []threadJSON{}}, nil, nil
		}
		f.Section = store.Section(a.Label)
	}
	if a.UpdatedAfter != "" {
		t, err := time.Parse(time.RFC3339, a.UpdatedAfter)
		if err != nil {
			return nil, nil, invalid("/updated_after", "not an RFC 3339 time: "+err.Error())
		}
		f.UpdatedAfter = t
	}
	qk := queryKey(a.InboxID, status, a.Label, a.UpdatedAfter)
	if a.Cursor != "" {
		c, ok := decodeCursor(a.Cursor)
		if !ok || c.Query != qk {
			return nil, nil, invalid("/cursor", "not a cursor of this query: pass next_cursor back with the same inbox_id, status, label and updated_after")
		}
		f.AfterLatest, f.AfterID = c.Latest, c.ID
	}
	page, err := s.app.Store().ThreadStatusPage(ctx, status, f)
	if err != nil {
		return nil, nil, err
	}
	out := listThreadsOut{Threads: []threadJSON{}}
	if len(page) > limit {
		page = page[:limit]
		last := page[len(page)-1]
		out.NextCursor = cursor{Latest: last.Latest.Unix(), ID: last.ID, Query: qk}.encode()
		if last.Latest.IsZero() {
			out.NextCursor = cursor{Latest: 0, ID: last.ID, Query: qk}.encode()
		}
	}
	for _, ts := range page {
		out.Threads = append(out.Threads, s.threadOut(ts, a.InboxID, status))
	}
	return out, nil, nil
}

// threadDetail reads a thread for get_thread and the resources.
func (s *Server) threadDetail(ctx context.Context, id int64, withMessages bool) (threadJSON, []messageJSON, error) {
	ts, err := s.app.Store().ThreadSummaryByID(ctx, id)
	if err != nil {
		return threadJSON{}, nil, err
	}
	t, err := s.app.Store().Thread(ctx, id)
	if err != nil {
		return threadJSON{}, nil, err
	}
	inbox := ""
	if n := s.inboxes(); len(n) > 0 {
		inbox = n[0]
	}
	if len(t.Messages) > 0 {
		if acct := t.Messages[len(t.Messages)-1].Loc.Account; acct != "" {
			inbox = acct
		}
	}
	st, err := s.app.Store().ThreadStatus(ctx, id)
	if err != nil {
		return threadJSON{}, nil, err
	}
	out := s.threadOut(ts, inbox, st.Status)
	seen := map[string]bool{}
	out.Participants = []participantJSON{}
	var msgs []messageJSON
	for _, m := range t.Messages {
		for _, a := range append(append([]model.Address{m.From}, m.To...), m.Cc...) {
			if p, ok := participant(a); ok && !seen[strings.ToLower(p.Email)] {
				seen[strings.ToLower(p.Email)] = true
				out.Participants = append(out.Participants, p)
			}
		}
		if withMessages {
			msgs = append(msgs, s.messageOut(id, m))
		}
	}
	return out, msgs, nil
}

func (s *Server) messageOut(threadIDn int64, m *model.Message) messageJSON {
	dir := "inbound"
	if strings.EqualFold(m.From.Email, s.app.Principal().Email) {
		dir = "outbound"
	}
	text := m.Text
	if strings.TrimSpace(text) == "" {
		text = m.HTMLText
	}
	if len(text) > maxText {
		cut := maxText
		for cut > 0 && (text[cut]&0xC0) == 0x80 {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("\n[… %d more bytes not shown]", len(text)-cut)
	}
	out := messageJSON{ID: messageID(m.MessageID), ThreadID: threadID(threadIDn), Direction: dir,
		To: participants(m.To), Cc: participants(m.Cc), Subject: termsafe.SanitizeLine(m.Subject),
		Text: termsafe.Sanitize(text), CreatedAt: rfc3339(m.Date)}
	if p, ok := participant(m.From); ok {
		out.From = &p
	}
	return out
}

type getThreadArgs struct {
	ThreadID        string `json:"thread_id"`
	IncludeMessages *bool  `json:"include_messages"`
}

type getThreadOut struct {
	Thread   threadJSON    `json:"thread"`
	Messages []messageJSON `json:"messages,omitempty"`
}

func (s *Server) threadArg(ctx context.Context, id, path string) (int64, error) {
	n, ok := parseThreadID(id)
	if !ok {
		return 0, invalid(path, "not a thread id (ids look like thr-123; take them from list_threads or search_inbox)")
	}
	if _, err := s.app.Store().ThreadSummaryByID(ctx, n); errors.Is(err, store.ErrNotFound) {
		return 0, notFound("thread", id)
	}
	return n, nil
}

func (s *Server) getThread(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a getThreadArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	id, err := s.threadArg(ctx, a.ThreadID, "/thread_id")
	if err != nil {
		return nil, nil, err
	}
	with := a.IncludeMessages == nil || *a.IncludeMessages
	t, msgs, err := s.threadDetail(ctx, id, with)
	if err != nil {
		return nil, nil, err
	}
	out := getThreadOut{Thread: t}
	if with {
		out.Messages = msgs
		if out.Messages == nil {
			out.Messages = []messageJSON{}
		}
	}
	return out, nil, nil
}

type searchArgs struct {
	InboxID   string `json:"inbox_id"`
	Query     string `json:"query"`
	TopK      *int   `json:"top_k"`
	TimeRange *struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"time_range"`
}

type searchResultJSON struct {
	MessageID string  `json:"message_id"`
	ThreadID  string  `json:"thread_id"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet,omitempty"`
}

type searchOut struct {
	Results []searchResultJSON `json:"results"`
}

func (s *Server) searchInbox(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	acct, err := s.inbox(a.InboxID, "/inbox_id")
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return nil, nil, invalid("/query", "empty query: give words, \"a phrase\", or operators like from:alice")
	}
	q := SearchQuery{Inbox: acct, Text: a.Query, Limit: 10, Cursor: requestCursor(ctx)}
	if a.TopK != nil {
		q.Limit = *a.TopK
	}
	if a.TimeRange != nil {
		for _, f := range []struct {
			v, path string
			dst     *time.Time
		}{{a.TimeRange.Start, "/time_range/start", &q.Start}, {a.TimeRange.End, "/time_range/end", &q.End}} {
			if f.v == "" {
				continue
			}
			t, err := time.Parse(time.RFC3339, f.v)
			if err != nil {
				return nil, nil, invalid(f.path, "not an RFC 3339 time: "+err.Error())
			}
			*f.dst = t
		}
		if !q.Start.IsZero() && !q.End.IsZero() && q.End.Before(q.Start) {
			return nil, nil, invalid("/time_range", "end is before start")
		}
	}
	page, err := s.opt.Searcher.Search(ctx, q)
	if err != nil {
		if strings.HasPrefix(err.Error(), "search:") {
			return nil, nil, invalid("/query", err.Error())
		}
		return nil, nil, err
	}
	out := searchOut{Results: []searchResultJSON{}}
	for _, h := range page.Hits {
		out.Results = append(out.Results, searchResultJSON{MessageID: messageID(h.MessageID), ThreadID: threadID(h.ThreadID),
			Score: h.Score, Snippet: termsafe.SanitizeLine(h.Snippet)})
	}
	meta := sdk.Meta{"search_mode": page.Mode}
	if page.Mode == string(app.SearchLexical) && page.Reason != "" {
		meta["lexical_reason"] = page.Reason
	}
	if page.NextCursor != "" {
		meta["next_cursor"] = page.NextCursor
	}
	return out, meta, nil
}

// Taxonomies triage_message answers for: mailsift's own (intent,
// urgency, sentiment and route as triage stores them).
var Taxonomies = []string{"mailsift", "default"}

type triageMessageArgs struct {
	MessageID  string `json:"message_id"`
	TaxonomyID string `json:"taxonomy_id"`
}

type triageMessageOut struct {
	Intent         string  `json:"intent"`
	Urgency        string  `json:"urgency"`
	Sentiment      string  `json:"sentiment"`
	Confidence     float64 `json:"confidence"`
	SuggestedRoute string  `json:"suggested_route,omitempty"`
}

func (s *Server) messageArg(ctx context.Context, id, path string) (string, int64, error) {
	mid, ok := parseMessageID(id)
	if !ok {
		return "", 0, invalid(path, "not a message id (ids look like msg-…; take them from get_thread or search_inbox)")
	}
	tid, err := s.app.Store().ThreadIDForMessage(ctx, mid)
	if errors.Is(err, store.ErrNotFound) {
		return "", 0, notFound("message", id)
	}
	return mid, tid, err
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

func (s *Server) triageMessage(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a triageMessageArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	if !oneOf(a.TaxonomyID, Taxonomies...) {
		return nil, nil, &Error{Code: CodeNotFound, Message: "/taxonomy_id: no taxonomy " + quote(a.TaxonomyID),
			Details: map[string]any{"path": "/taxonomy_id", "taxonomies": Taxonomies}}
	}
	_, tid, err := s.messageArg(ctx, a.MessageID, "/message_id")
	if err != nil {
		return nil, nil, err
	}
	ts, err := s.app.Store().ThreadSummaryByID(ctx, tid)
	if err != nil {
		return nil, nil, err
	}
	var ex triage.Extras
	source := "stored"
	if ts.Triage != nil {
		r := ts.Triage
		ex = triage.Extras{Intent: r.Intent, Urgency: r.Urgency, Sentiment: r.Sentiment, Confidence: r.Confidence, Route: r.Route}
	}
	if ex.Intent == "" || !oneOf(ex.Urgency, "low", "medium", "high") || !oneOf(ex.Sentiment, "negative", "neutral", "positive") {
		t, err := s.app.Store().Thread(ctx, tid)
		if err != nil {
			return nil, nil, err
		}
		ex = triage.Deterministic(t.Messages, s.app.Principal()).Extras
		source = "deterministic"
	}
	conf := min(max(ex.Confidence, 0), 1)
	return triageMessageOut{Intent: ex.Intent, Urgency: ex.Urgency, Sentiment: ex.Sentiment, Confidence: conf,
		SuggestedRoute: ex.Route}, sdk.Meta{"triage_source": source}, nil
}

type extractArgs struct {
	MessageID string `json:"message_id"`
	SchemaID  string `json:"schema_id"`
}

type extractOut struct {
	Data             map[string]any `json:"data"`
	Confidence       float64        `json:"confidence"`
	MissingFields    []string       `json:"missing_fields"`
	ValidationErrors []string       `json:"validation_errors"`
}

func (s *Server) extract(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a extractArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	mid, _, err := s.messageArg(ctx, a.MessageID, "/message_id")
	if err != nil {
		return nil, nil, err
	}
	if s.opt.Extract == nil {
		return nil, nil, &Error{Code: CodeUnavailable, Message: "extraction needs the local model; it is not configured"}
	}
	res, err := s.opt.Extract(ctx, mid, a.SchemaID)
	if err != nil {
		return nil, nil, err
	}
	out := extractOut{Data: res.Data, Confidence: min(max(res.Confidence, 0), 1), MissingFields: res.MissingFields,
		ValidationErrors: res.ValidationErrors}
	if out.Data == nil {
		out.Data = map[string]any{}
	}
	if out.MissingFields == nil {
		out.MissingFields = []string{}
	}
	if out.ValidationErrors == nil {
		out.ValidationErrors = []string{}
	}
	return out, sdk.Meta{"schema_id": res.SchemaID}, nil
}

type draftArgs struct {
	ThreadID string `json:"thread_id"`
	PolicyID string `json:"policy_id"`
	Goal     string `json:"goal"`
}

type draftOut struct {
	Draft              string   `json:"draft"`
	RiskFlags          []string `json:"risk_flags"`
	CitedMessageIDs    []string `json:"cited_message_ids"`
	NeedsHumanApproval bool     `json:"needs_human_approval"`
}

func (s *Server) draftReply(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a draftArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	id, err := s.threadArg(ctx, a.ThreadID, "/thread_id")
	if err != nil {
		return nil, nil, err
	}
	d, err := s.opt.Approvals.DraftReply(ctx, id, a.PolicyID, a.Goal)
	if err != nil {
		return nil, nil, err
	}
	out := draftOut{Draft: termsafe.Sanitize(d.Body), RiskFlags: d.RiskFlags, CitedMessageIDs: []string{}, NeedsHumanApproval: true}
	if out.RiskFlags == nil {
		out.RiskFlags = []string{}
	}
	for _, c := range d.CitedMessageIDs {
		if c != "" {
			out.CitedMessageIDs = append(out.CitedMessageIDs, messageID(c))
		}
	}
	return out, sdk.Meta{"draft_id": d.ID, "to": addrList(d.To), "subject": termsafe.SanitizeLine(d.Subject)}, nil
}

func addrList(as []model.Address) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, termsafe.SanitizeLine(a.Email))
	}
	return out
}

type sendArgs struct {
	ThreadID       string `json:"thread_id"`
	BodyOrDraftID  string `json:"body_or_draft_id"`
	IdempotencyKey string `json:"idempotency_key"`
}

type sendOut struct {
	MessageID string `json:"message_id"`
	Status    string `json:"status"`
}

func (s *Server) sendReply(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	var a sendArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, invalid("/", err.Error())
	}
	id, err := s.threadArg(ctx, a.ThreadID, "/thread_id")
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(a.IdempotencyKey) == "" {
		return nil, nil, invalid("/idempotency_key", "empty: give a key unique to this reply")
	}
	if strings.TrimSpace(a.BodyOrDraftID) == "" {
		return nil, nil, invalid("/body_or_draft_id", "empty: give the reply text or a draft id")
	}
	res, err := s.opt.Approvals.QueueReply(ctx, appReply(id, a))
	if err != nil {
		return nil, nil, err
	}
	return sendOut{MessageID: messageID(res.MessageID), Status: res.Status}, sdk.Meta{
		"approval_id": res.ApprovalID, "expires_at": rfc3339(res.ExpiresAt), "draft_id": res.DraftID,
		"how_to_approve": "the person approves in mailsift: `mailsift approvals approve " + res.ApprovalID + "` or the TUI's approvals screen (P)",
	}, nil
}

type triageEmailOut = contract.Response

func appReply(thread int64, a sendArgs) app.ReplyRequest {
	return app.ReplyRequest{Surface: "mcp", ThreadID: thread, BodyOrDraftID: a.BodyOrDraftID, IdempotencyKey: a.IdempotencyKey}
}

func (s *Server) triageEmail(ctx context.Context, raw json.RawMessage) (any, sdk.Meta, error) {
	req, err := contract.ParseRequest(raw)
	if err != nil {
		var ve *contract.ValidationError
		if errors.As(err, &ve) {
			return nil, nil, &Error{Code: CodeInvalidArgument, Message: ve.Error(), Details: map[string]any{"path": ve.Path}}
		}
		return nil, nil, invalid("/", err.Error())
	}
	in, kind := triage.FromRequest(req)
	out, terr := s.opt.Triager.Triage(ctx, in)
	if out == nil {
		if terr == nil {
			terr = fmt.Errorf("triage gave no answer")
		}
		return nil, nil, terr
	}
	meta := sdk.Meta{"source": out.Source}
	if terr != nil {
		meta["fallback_reason"] = terr.Error()
	}
	resp := triage.Response(kind, out)
	return triageEmailOut(resp), meta, nil
}
