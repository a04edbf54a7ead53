package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"mailsift/drafts"
	"mailsift/store"
)

// AgentApprovalTTL is how long a send an agent asked for waits for the
// person: longer than the confirm screen's approval, since nobody may be
// at the terminal when the agent asks.
const AgentApprovalTTL = 24 * time.Hour

// Errors of the approval service; test with errors.Is.
var (
	// ErrIdempotencyConflict: the idempotency key was used for another request.
	ErrIdempotencyConflict = errors.New("idempotency key already used for a different request")
	// ErrApprovalDenied: the person denied the send this key asked for.
	ErrApprovalDenied = errors.New("the person denied this send")
	// ErrApprovalExpired: nobody approved the send in time.
	ErrApprovalExpired = errors.New("the approval for this send expired before anyone approved it")
	// ErrInProgress: another process is handling the same key right now.
	ErrInProgress = errors.New("a request with this idempotency key is still being handled")
	// ErrBadRequest: the request itself is wrong (an empty body, a draft of another thread).
	ErrBadRequest = errors.New("bad request")
)

// Approvals is the approval service: agents ask for sends (QueueReply),
// the person lists, approves or denies them. A send an agent asked for
// never leaves before a person approved its exact bytes.
type Approvals struct {
	a   *App
	eng *drafts.Engine
	// mu serialises QueueReply in this process, so two calls with one key
	// cannot both create an approval.
	mu sync.Mutex
}

// Approvals returns the approval service over the send engine eng.
func (a *App) Approvals(eng *drafts.Engine) *Approvals { return &Approvals{a: a, eng: eng} }

// ReplyRequest is an agent's request to send a reply.
type ReplyRequest struct {
	// Surface is the caller: "mcp" or "rest".
	Surface  string
	ThreadID int64
	// BodyOrDraftID is the id of an open draft of the thread, or the body
	// of a new reply (recipients, subject and threading are computed).
	BodyOrDraftID string
	// IdempotencyKey makes a repeated request return the first answer.
	IdempotencyKey string
}

// ReplyQueued is the answer to a ReplyRequest.
type ReplyQueued struct {
	ApprovalID string `json:"approval_id"`
	// MessageID is the Message-ID (no brackets) the reply goes out with.
	MessageID string    `json:"message_id"`
	ThreadID  int64     `json:"thread_id"`
	DraftID   string    `json:"draft_id"`
	ExpiresAt time.Time `json:"expires_at"`
	// Status is "queued" until the message was sent, then "sent".
	Status string `json:"status"`
}

// HowToApprove is what an approval an agent asked for tells the person.
func HowToApprove(id string) string {
	return "on a terminal: mailsift approvals approve " + id + " (shows the exact message and asks); " +
		"or in the TUI: P opens the approvals, enter shows the confirm screen, y sends"
}

// fixedBody is a drafts.Generator that returns the agent's text as the
// body; recipients, subject and threading stay computed by drafts.
type fixedBody string

func (f fixedBody) GenerateReply(context.Context, drafts.GenerateRequest) (*drafts.GeneratedReply, error) {
	return &drafts.GeneratedReply{Body: string(f), NeedsHumanApproval: true}, nil
}

func (fixedBody) Name() string { return "agent" }

// QueueReply turns an agent's reply into a pending approval holding the
// exact message and returns it with status "queued"; nothing is sent. The
// same idempotency key returns the same answer (the status moves to
// "sent" once the person approved and it went out) and never a second
// message; a key reused for a different request fails with
// ErrIdempotencyConflict. Every call is a tool call in the audit log.
func (s *Approvals) QueueReply(ctx context.Context, req ReplyRequest) (*ReplyQueued, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.a.st
	start := s.a.now()
	canon, _ := json.Marshal([]any{req.ThreadID, req.BodyOrDraftID})
	hash := store.RequestHash(canon)
	key := "send_reply:" + req.IdempotencyKey
	if strings.TrimSpace(req.IdempotencyKey) == "" {
		return nil, fmt.Errorf("%w: idempotency_key is empty", ErrBadRequest)
	}
	tc, err := st.ToolCallByKey(ctx, key)
	switch {
	case err == nil:
		if tc.RequestHash != hash {
			return nil, fmt.Errorf("%w (key %q)", ErrIdempotencyConflict, req.IdempotencyKey)
		}
		if tc.Status == store.ToolCallSucceeded {
			var res ReplyQueued
			if err := json.Unmarshal(tc.Result, &res); err != nil {
				return nil, fmt.Errorf("send_reply: stored answer of key %q: %w", req.IdempotencyKey, err)
			}
			return s.refresh(ctx, &res)
		}
		if tc.Status != store.ToolCallAttempted {
			return nil, fmt.Errorf("send_reply: key %q failed earlier (%s); use a new key", req.IdempotencyKey, tc.Status)
		}
		// Attempted: a crash between claiming the key and settling it.
		if ap, err := st.PendingApprovalByTrace(ctx, tc.TraceID); err == nil {
			return s.settle(ctx, tc, start, ap)
		}
	case errors.Is(err, store.ErrNotFound):
		tc = &store.ToolCall{ConnectorID: req.Surface, ToolName: "send_reply", Action: "queue_reply_for_approval",
			RequestHash: hash, IdempotencyKey: key, Status: store.ToolCallAttempted, RiskLevel: "medium"}
		if err := st.RecordToolCall(ctx, tc, fmt.Sprintf("%s asked to send a reply to thread %d", req.Surface, req.ThreadID)); err != nil {
			if errors.Is(err, store.ErrDuplicateKey) {
				return nil, ErrInProgress
			}
			return nil, err
		}
	default:
		return nil, err
	}
	d, err := s.replyDraft(ctx, req, tc.TraceID)
	if err != nil {
		s.fail(ctx, tc, start, err)
		return nil, err
	}
	ap, err := s.eng.Approve(ctx, d.ID, AgentApprovalTTL)
	if err != nil {
		s.fail(ctx, tc, start, err)
		return nil, err
	}
	why := fmt.Sprintf("An agent (%s) asked to send this reply; mailsift sends nothing an agent asks for until you approve these exact bytes. %s", req.Surface, ap.Why)
	if err := st.SetApprovalRequest(ctx, ap.ID, why, HowToApprove(ap.ID)); err != nil {
		return nil, err
	}
	ap.Why, ap.HowToApprove = why, HowToApprove(ap.ID)
	return s.settle(ctx, tc, start, ap)
}

func (s *Approvals) settle(ctx context.Context, tc *store.ToolCall, start time.Time, ap *store.Approval) (*ReplyQueued, error) {
	d, err := s.a.st.Draft(ctx, ap.DraftID)
	if err != nil {
		return nil, err
	}
	res := &ReplyQueued{ApprovalID: ap.ID, MessageID: ap.What.MessageID, ThreadID: d.ThreadID, DraftID: d.ID,
		ExpiresAt: ap.ExpiresAt.UTC(), Status: "queued"}
	b, _ := json.Marshal(res)
	lat := s.a.now().Sub(start).Milliseconds()
	tc.Status, tc.ApprovalID, tc.Result, tc.LatencyMS = store.ToolCallSucceeded, ap.ID, b, &lat
	if err := s.a.st.FinishToolCall(ctx, tc, "reply queued for the person's approval "+ap.ID+"; nothing sent"); err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Approvals) fail(ctx context.Context, tc *store.ToolCall, start time.Time, cause error) {
	lat := s.a.now().Sub(start).Milliseconds()
	tc.Status, tc.LatencyMS = store.ToolCallFailed, &lat
	if err := s.a.st.FinishToolCall(ctx, tc, "send_reply failed: "+cause.Error()); err != nil {
		s.a.log.Warn("approvals: record failed tool call", "err", err)
	}
}

// refresh reports the current state of an earlier answer.
func (s *Approvals) refresh(ctx context.Context, res *ReplyQueued) (*ReplyQueued, error) {
	ap, err := s.a.st.Approval(ctx, res.ApprovalID)
	if err != nil {
		return nil, err
	}
	switch ap.Status {
	case store.ApprovalDenied:
		return nil, fmt.Errorf("approval %s: %w", ap.ID, ErrApprovalDenied)
	case store.ApprovalExpired:
		return nil, fmt.Errorf("approval %s: %w", ap.ID, ErrApprovalExpired)
	case store.ApprovalApproved:
		if it, err := s.a.st.OutboxByApproval(ctx, ap.ID); err == nil && it.State == store.OutboxSent {
			res.Status = "sent"
		}
	}
	return res, nil
}

// replyDraft returns the open draft named by req, or a new draft of the
// thread with req's text as body, under the trace id of the tool call.
func (s *Approvals) replyDraft(ctx context.Context, req ReplyRequest, traceID string) (*drafts.Draft, error) {
	st := s.a.st
	if d, err := st.Draft(ctx, strings.TrimSpace(req.BodyOrDraftID)); err == nil {
		if d.ThreadID != req.ThreadID {
			return nil, fmt.Errorf("%w: draft %s belongs to another thread", ErrBadRequest, d.ID)
		}
		if d.State != store.DraftOpen {
			return nil, fmt.Errorf("%w: draft %s is %s, not open", ErrBadRequest, d.ID, d.State)
		}
		return d, nil
	}
	body := strings.TrimSpace(req.BodyOrDraftID)
	if body == "" {
		return nil, fmt.Errorf("%w: body_or_draft_id is empty", ErrBadRequest)
	}
	t, err := st.Thread(ctx, req.ThreadID)
	if err != nil {
		return nil, err
	}
	var opts drafts.GenerateOptions
	opts.Generator = fixedBody(body)
	if sum, err := st.ThreadSummaryByID(ctx, req.ThreadID); err == nil && sum.Triage != nil {
		opts.Triage = &sum.Triage.Result
	}
	d, err := drafts.Generate(ctx, t, s.a.Principal(), drafts.Policy{Signature: s.a.cfg.Drafts.Signature}, &opts)
	if err != nil {
		return nil, err
	}
	d.TraceID = traceID
	if err := s.eng.SaveDraft(ctx, d); err != nil {
		return nil, err
	}
	return d, nil
}

// List returns approvals newest first in the given states (all when none).
func (s *Approvals) List(ctx context.Context, states ...store.ApprovalStatus) ([]store.Approval, error) {
	return s.a.st.Approvals(ctx, 200, states...)
}

// Get returns one approval; a pending one past its expiry reads expired.
func (s *Approvals) Get(ctx context.Context, id string) (*store.Approval, error) {
	return s.a.st.Approval(ctx, id)
}

// Approve is the person's approval of a pending approval: its exact
// message is queued (it leaves after the undo window). Only the TUI's
// confirm screen and `mailsift approvals approve` on a terminal call it;
// no agent surface does.
func (s *Approvals) Approve(ctx context.Context, id string) (*store.OutboxItem, error) {
	return s.eng.Confirm(ctx, id)
}

// Deny records the person's refusal; nothing is sent.
func (s *Approvals) Deny(ctx context.Context, id, reason string) error {
	return s.eng.Deny(ctx, id, reason)
}

// RecordCall records one finished call of an agent surface as a tool call
// (the contract's ToolCall: request hash, idempotency key, status) with its
// audit event. key "" gets a fresh one: read calls have no key of their own.
func (a *App) RecordCall(ctx context.Context, surface, tool string, request []byte, key string, failed bool, latency time.Duration, summary string) error {
	if key == "" {
		key = surface + ":" + tool + ":" + store.NewID()
	}
	lat := latency.Milliseconds()
	tc := &store.ToolCall{ConnectorID: surface, ToolName: tool, Action: tool, RequestHash: store.RequestHash(request),
		IdempotencyKey: key, Status: store.ToolCallSucceeded, LatencyMS: &lat, RiskLevel: "low", AutonomyLevel: "read_only"}
	if failed {
		tc.Status = store.ToolCallFailed
	}
	return a.st.RecordToolCall(ctx, tc, summary)
}

// Policies draft_reply_with_policy knows: "default" is the configured
// [drafts] policy.
var Policies = []string{"default"}

// DraftReply drafts and saves a reply to a thread under the configured
// policy (policyID "default"), as `r` in the TUI does: recipients, subject
// and threading computed, the body from the model or the template. goal
// is the agent's instruction for the reply: the model is given it as the
// requester's goal, outside the mail's fence, cleaned and bounded
// (drafts.CleanGoal); it never changes the recipients.
func (s *Approvals) DraftReply(ctx context.Context, threadID int64, policyID, goal string) (*drafts.Draft, error) {
	known := false
	for _, p := range Policies {
		known = known || p == policyID
	}
	if !known {
		return nil, fmt.Errorf("%w: no policy %q (known: %s)", store.ErrNotFound, policyID, strings.Join(Policies, ", "))
	}
	d, err := s.eng.NewDraftWithGoal(ctx, threadID, false, "", goal)
	if err != nil {
		return nil, err
	}
	s.a.log.Info("approvals: draft for an agent", "draft", d.ID, "thread", threadID, "goal_chars", len(goal))
	return d, nil
}
