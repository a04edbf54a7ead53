package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/mail"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/internal/termsafe"
	"mailsift/model"
	"mailsift/store"
	"mailsift/triage"
)

// Resource URI templates of the contract.
const (
	URIInbox         = "email://inboxes/{inbox_id}"
	URIInboxThreads  = "email://inboxes/{inbox_id}/threads{?status,label}"
	URIThread        = "email://threads/{thread_id}"
	URIMessage       = "email://messages/{message_id}"
	URIThreadSummary = "email://threads/{thread_id}/summary"
)

type inboxJSON struct {
	ID      string   `json:"id"`
	Address string   `json:"address"`
	Labels  []string `json:"labels"`
	Status  string   `json:"status"`
}

type summaryJSON struct {
	ThreadID  string `json:"thread_id"`
	Summary   string `json:"summary"`
	UpdatedAt string `json:"updated_at"`
}

func (s *Server) addResources() {
	for _, t := range []struct{ uri, name, desc string }{
		{URIInbox, "inbox", "An inbox (a configured account): address, labels, status."},
		{URIInboxThreads, "inbox threads", "The newest 50 threads of an inbox (status open|closed|snoozed, label a bucket or unread); list_threads pages further."},
		{URIThread, "thread", "A thread: subject, status, labels, participants, updated_at."},
		{URIMessage, "message", "A message: from, to, cc, subject, text (untrusted), created_at."},
		{URIThreadSummary, "thread summary", "The triage summary of a thread."},
	} {
		s.srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: t.uri, Name: t.name, Description: t.desc, MIMEType: "application/json"}, s.readResource)
	}
	for _, n := range s.inboxes() {
		uri := "email://inboxes/" + url.PathEscape(n)
		s.srv.AddResource(&sdk.Resource{URI: uri, Name: "inbox " + n, MIMEType: "application/json"}, s.readResource)
	}
}

func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	v, err := s.resource(ctx, uri)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && (e.Code == CodeNotFound || e.Code == CodeInvalidArgument) || errors.Is(err, store.ErrNotFound) {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// resource answers one email:// URI.
func (s *Server) resource(ctx context.Context, uri string) (any, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "email" {
		return nil, invalid("uri", "not an email:// URI")
	}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	for i, sg := range segs {
		if segs[i], err = url.PathUnescape(sg); err != nil {
			return nil, invalid("uri", "bad escape")
		}
	}
	switch {
	case u.Host == "inboxes" && len(segs) == 1:
		return s.inboxResource(segs[0])
	case u.Host == "inboxes" && len(segs) == 2 && segs[1] == "threads":
		args := map[string]any{"inbox_id": segs[0]}
		for _, k := range []string{"status", "label"} {
			if v := u.Query().Get(k); v != "" {
				args[k] = v
			}
		}
		raw, _ := json.Marshal(args)
		if e := s.schemas.validate("neuralmail/tools/list_threads.input.json", raw); e != nil {
			return nil, e
		}
		out, _, err := s.listThreads(ctx, raw)
		return out, err
	case u.Host == "threads" && len(segs) == 1:
		id, err := s.threadArg(ctx, segs[0], "uri")
		if err != nil {
			return nil, err
		}
		t, _, err := s.threadDetail(ctx, id, false)
		return t, err
	case u.Host == "threads" && len(segs) == 2 && segs[1] == "summary":
		id, err := s.threadArg(ctx, segs[0], "uri")
		if err != nil {
			return nil, err
		}
		return s.summaryResource(ctx, id)
	case u.Host == "messages" && len(segs) == 1:
		mid, tid, err := s.messageArg(ctx, segs[0], "uri")
		if err != nil {
			return nil, err
		}
		m, err := s.app.Store().MessageByID(ctx, mid)
		if err != nil {
			return nil, err
		}
		return s.messageOut(tid, m.Message), nil
	}
	return nil, notFound("resource", uri)
}

func (s *Server) inboxResource(id string) (any, error) {
	if _, err := s.inbox(id, "uri"); err != nil {
		return nil, err
	}
	addr := s.app.Principal().Email
	if a, ok := s.app.Config().Account(id); ok {
		if a.From != "" {
			if p, ok := participant(parseFrom(a.From)); ok {
				addr = p.Email
			}
		}
	}
	out := inboxJSON{ID: id, Address: addr, Status: "active", Labels: []string{}}
	for _, sec := range store.Sections() {
		out.Labels = append(out.Labels, string(sec))
	}
	out.Labels = append(out.Labels, "unread")
	return out, nil
}

func (s *Server) summaryResource(ctx context.Context, id int64) (any, error) {
	ts, err := s.app.Store().ThreadSummaryByID(ctx, id)
	if err != nil {
		return nil, err
	}
	out := summaryJSON{ThreadID: threadID(id), UpdatedAt: rfc3339(ts.Latest)}
	if ts.Triage != nil && ts.Triage.Result.Summary != "" {
		out.Summary = ts.Triage.Result.Summary
		if !ts.Triage.CreatedAt.IsZero() {
			out.UpdatedAt = rfc3339(ts.Triage.CreatedAt)
		}
	} else {
		t, err := s.app.Store().Thread(ctx, id)
		if err != nil {
			return nil, err
		}
		out.Summary = triage.Deterministic(t.Messages, s.app.Principal()).Result.Summary
	}
	out.Summary = termsafe.Sanitize(out.Summary)
	return out, nil
}

// parseFrom reads a configured From ("Name <addr>" or "addr").
func parseFrom(s string) model.Address {
	if a, err := mail.ParseAddress(s); err == nil {
		return model.Address{Name: a.Name, Email: a.Address}
	}
	return model.Address{Email: strings.TrimSpace(s)}
}
