// Package httpapi is mailsift's REST surface (`mailsift serve`): the
// triage contract v1.0 over HTTP (POST /v1/triage), the pending approvals
// (GET /v1/approvals, read-only: approving needs the person at mailsift)
// and GET /healthz. Errors are the MCP contract's {code, message,
// details}. With a token set, /v1/ needs "Authorization: Bearer TOKEN".
package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"mailsift/internal/app"
	"mailsift/internal/termsafe"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

// DefaultMaxBody bounds a request body (413 above it).
const DefaultMaxBody = 1 << 20

// Options configure the handler; App and Triager are required.
type Options struct {
	App     *app.App
	Triager triage.Triager
	// Token, when set, is required as a bearer token on /v1/ (compared in
	// constant time, never logged).
	Token string
	// MaxBody bounds request bodies (0: DefaultMaxBody).
	MaxBody int64
	Logger  *slog.Logger
}

type api struct {
	opt   Options
	log   *slog.Logger
	token [32]byte
}

// Handler returns the HTTP handler.
func Handler(opt Options) http.Handler {
	if opt.MaxBody <= 0 {
		opt.MaxBody = DefaultMaxBody
	}
	a := &api{opt: opt, log: opt.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if opt.Token != "" {
		a.token = sha256.Sum256([]byte(opt.Token))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("POST /v1/triage", a.auth(http.HandlerFunc(a.triage)))
	mux.Handle("GET /v1/approvals", a.auth(http.HandlerFunc(a.approvals)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/triage", "/v1/approvals", "/healthz":
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST /v1/triage, GET /v1/approvals, GET /healthz", nil)
			return
		}
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: POST /v1/triage, GET /v1/approvals, GET /healthz", nil)
	})
	return mux
}

// Error is the error body.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"code":"internal","message":"encode answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, code, msg string, details map[string]any) {
	writeJSON(w, status, Error{Code: code, Message: msg, Details: details})
}

func (a *api) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.opt.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			sum := sha256.Sum256([]byte(got))
			if !ok || subtle.ConstantTimeCompare(sum[:], a.token[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mailsift"`)
				writeError(w, http.StatusUnauthorized, "unauthorized", "send Authorization: Bearer <the token in the data directory's serve.token>", nil)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (a *api) triage(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the request as Content-Type: application/json", nil)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, a.opt.MaxBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_argument", "read body: "+err.Error(), nil)
		return
	}
	if int64(len(body)) > a.opt.MaxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request is over %d bytes", a.opt.MaxBody),
			map[string]any{"max_bytes": a.opt.MaxBody})
		return
	}
	req, err := contract.ParseRequest(body)
	if err != nil {
		var ve *contract.ValidationError
		details := map[string]any{"path": ""}
		if errors.As(err, &ve) {
			details["path"] = ve.Path
		}
		a.record(r.Context(), body, true, start, "triage request refused: "+err.Error())
		writeError(w, http.StatusBadRequest, "invalid_argument", err.Error(), details)
		return
	}
	in, kind := triage.FromRequest(req)
	out, terr := a.opt.Triager.Triage(r.Context(), in)
	if out == nil {
		if terr == nil {
			terr = errors.New("triage gave no answer")
		}
		a.record(r.Context(), body, true, start, "triage failed: "+terr.Error())
		writeError(w, http.StatusServiceUnavailable, "unavailable", terr.Error(), nil)
		return
	}
	if terr != nil {
		w.Header().Set("X-Mailsift-Fallback", termsafe.SanitizeLine(terr.Error()))
	}
	a.record(r.Context(), body, false, start, "triage answered ("+out.Source+")")
	writeJSON(w, http.StatusOK, triage.Response(kind, out))
}

func (a *api) record(ctx context.Context, body []byte, failed bool, start time.Time, summary string) {
	if a.opt.App == nil || a.opt.App.Store() == nil {
		return
	}
	if err := a.opt.App.RecordCall(context.WithoutCancel(ctx), "rest", "triage", body, "", failed, time.Since(start), summary); err != nil {
		a.log.Warn("httpapi: record tool call", "err", err)
	}
}

// approvalJSON is the contract's Approval, as GET /v1/approvals lists it.
type approvalJSON struct {
	ApprovalID    string             `json:"approval_id"`
	CreatedAt     string             `json:"created_at"`
	ExpiresAt     string             `json:"expires_at"`
	Status        string             `json:"status"`
	TraceID       string             `json:"trace_id"`
	RiskLevel     string             `json:"risk_level"`
	AutonomyLevel string             `json:"autonomy_level"`
	What          store.ApprovalWhat `json:"what"`
	Why           string             `json:"why"`
	HowToApprove  string             `json:"how_to_approve"`
}

func (a *api) approvals(w http.ResponseWriter, r *http.Request) {
	states := []store.ApprovalStatus{store.ApprovalPending}
	switch s := r.URL.Query().Get("status"); s {
	case "", "pending":
	case "all":
		states = nil
	case "approved", "denied", "expired":
		states = []store.ApprovalStatus{store.ApprovalStatus(s)}
	default:
		writeError(w, http.StatusBadRequest, "invalid_argument", "status: one of pending, approved, denied, expired, all",
			map[string]any{"path": "status"})
		return
	}
	list, err := a.opt.App.Store().Approvals(r.Context(), 200, states...)
	if err != nil {
		a.log.Error("httpapi: list approvals", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "could not read the approvals", nil)
		return
	}
	out := struct {
		Approvals []approvalJSON `json:"approvals"`
	}{Approvals: []approvalJSON{}}
	for _, ap := range list {
		out.Approvals = append(out.Approvals, approvalJSON{ApprovalID: ap.ID, CreatedAt: ap.CreatedAt.UTC().Format(time.RFC3339),
			ExpiresAt: ap.ExpiresAt.UTC().Format(time.RFC3339), Status: string(ap.Status), TraceID: ap.TraceID,
			RiskLevel: ap.RiskLevel, AutonomyLevel: ap.AutonomyLevel, What: ap.What,
			Why: termsafe.SanitizeLine(ap.Why), HowToApprove: termsafe.SanitizeLine(ap.HowToApprove)})
	}
	writeJSON(w, http.StatusOK, out)
}
