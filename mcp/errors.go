package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"mailsift/extract"
	"mailsift/internal/app"
	"mailsift/store"
)

// Error is the contract's error shape, returned as the text of a tool
// result marked isError (never as structured content, which must match
// the tool's output schema).
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Error codes.
const (
	// CodeInvalidArgument: the arguments break the input schema or name
	// something malformed (details.path is the JSON pointer).
	CodeInvalidArgument = "invalid_argument"
	// CodeNotFound: the inbox, thread, message, schema or policy does not exist.
	CodeNotFound = "not_found"
	// CodeConflict: the idempotency key was used for a different request,
	// or is being handled right now.
	CodeConflict = "conflict"
	// CodeApprovalDenied, CodeApprovalExpired: the person denied the send,
	// or nobody approved it in time; use a new idempotency key to ask again.
	CodeApprovalDenied  = "approval_denied"
	CodeApprovalExpired = "approval_expired"
	// CodeUnavailable: the model or a sending account is not available.
	CodeUnavailable = "unavailable"
	// CodeInternal: anything else (the log has the cause).
	CodeInternal = "internal"
)

func invalid(path, msg string) *Error {
	return &Error{Code: CodeInvalidArgument, Message: path + ": " + msg, Details: map[string]any{"path": path}}
}

func notFound(kind, id string) *Error {
	return &Error{Code: CodeNotFound, Message: "no " + kind + " " + quote(id), Details: map[string]any{"kind": kind, "id": id}}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// toError maps a service error to the contract's shape.
func toError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, store.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, app.ErrIdempotencyConflict), errors.Is(err, app.ErrInProgress):
		return &Error{Code: CodeConflict, Message: err.Error()}
	case errors.Is(err, app.ErrApprovalDenied):
		return &Error{Code: CodeApprovalDenied, Message: err.Error()}
	case errors.Is(err, app.ErrApprovalExpired):
		return &Error{Code: CodeApprovalExpired, Message: err.Error()}
	case errors.Is(err, app.ErrBadRequest):
		return &Error{Code: CodeInvalidArgument, Message: err.Error()}
	case errors.Is(err, extract.ErrUnknownSchema):
		return &Error{Code: CodeNotFound, Message: err.Error(), Details: map[string]any{"path": "/schema_id", "builtin": extract.Builtin}}
	case errors.Is(err, extract.ErrBadSchema):
		return &Error{Code: CodeInvalidArgument, Message: err.Error(), Details: map[string]any{"path": "/schema_id"}}
	case errors.Is(err, app.ErrModelUnavailable), errors.Is(err, extract.ErrModel), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeUnavailable, Message: err.Error()}
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}
