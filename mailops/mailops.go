// Package mailops turns a plain-language request ("reply to the latest
// mail from Dana") into one operation of the mail-operations contract
// with its semantic arguments, using the local chat model with Ollama's
// structured output (format = the contract's JSON Schema), and validates
// the answer strictly: an answer off the contract is an error and nothing
// is done.
//
// The model sees the user's request and nothing else: no mail text, no
// list of messages. Targets (a number of the last list, filters) are
// resolved by mailsift against the store, recipients of a reply are
// computed by the drafts engine, those of a new message are checked
// against the typed request and the address book (ui.ResolveRecipients),
// and a send still needs the user's y on the confirm screen, so the model
// can only propose what the user asked for.
package mailops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Operation is one of the contract's operations.
type Operation string

// The contract's operations (args.operation), and Unsupported, mailsift's
// own answer for a request none of them covers (archive, delete, …), so
// the model is never forced to pick a wrong operation.
const (
	ListEmails     Operation = "listEmails"
	GetLatestEmail Operation = "getLatestEmail"
	GetEmailByID   Operation = "getEmailById"
	SendPreview    Operation = "sendPreview"
	SendConfirm    Operation = "sendConfirm"
	ReplyPreview   Operation = "replyPreview"
	ReplyConfirm   Operation = "replyConfirm"
	MarkAsRead     Operation = "markAsRead"
	MarkAsUnread   Operation = "markAsUnread"
	Unsupported    Operation = "unsupported"
)

// Operations lists the contract's operations in its order.
func Operations() []Operation {
	return []Operation{ListEmails, GetLatestEmail, GetEmailByID, SendPreview, SendConfirm, ReplyPreview, ReplyConfirm, MarkAsRead, MarkAsUnread}
}

// NeedsTarget reports whether the operation acts on one concrete message
// (the contract's entity resolution applies).
func (o Operation) NeedsTarget() bool {
	switch o {
	case GetEmailByID, ReplyPreview, ReplyConfirm, MarkAsRead, MarkAsUnread:
		return true
	}
	return false
}

// Filters are the contract's read/list filters.
type Filters struct {
	From            string   `json:"from,omitempty"`
	To              string   `json:"to,omitempty"`
	SubjectContains string   `json:"subjectContains,omitempty"`
	TextContains    string   `json:"textContains,omitempty"`
	LabelIDs        []string `json:"labelIds,omitempty"`
	MaxResults      int      `json:"maxResults,omitempty"`
	IncludeBody     bool     `json:"includeBody,omitempty"`
}

// Empty reports whether no filter narrows the search (maxResults and
// includeBody aside).
func (f Filters) Empty() bool {
	return f.From == "" && f.To == "" && f.SubjectContains == "" && f.TextContains == "" && len(f.LabelIDs) == 0
}

// Args are the contract's semantic args of one operation.
type Args struct {
	Operation Operation `json:"operation"`
	Filters   *Filters  `json:"filters,omitempty"`
	// MessageID targets a message by its Message-ID, when the user gave it.
	MessageID string `json:"messageId,omitempty"`
	// SelectionIndex is the 1-based number of a row of the last list.
	SelectionIndex int      `json:"selectionIndex,omitempty"`
	To             []string `json:"to,omitempty"`
	Cc             []string `json:"cc,omitempty"`
	Bcc            []string `json:"bcc,omitempty"`
	Subject        string   `json:"subject,omitempty"`
	Body           string   `json:"body,omitempty"`
	// Requested names what was asked for when Operation is Unsupported.
	Requested string `json:"requested,omitempty"`
}

// Schema is the JSON Schema of Args, built from the contract: it is sent
// to the model as the format of its answer, and every answer is validated
// against it.
const Schema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["operation"],
  "properties": {
    "operation": {"type": "string", "enum": ["listEmails", "getLatestEmail", "getEmailById", "sendPreview", "sendConfirm", "replyPreview", "replyConfirm", "markAsRead", "markAsUnread", "unsupported"]},
    "filters": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "from": {"type": "string"},
        "to": {"type": "string"},
        "subjectContains": {"type": "string"},
        "textContains": {"type": "string"},
        "labelIds": {"type": "array", "items": {"type": "string"}},
        "maxResults": {"type": "integer", "minimum": 1, "maximum": 200},
        "includeBody": {"type": "boolean"}
      }
    },
    "messageId": {"type": "string"},
    "selectionIndex": {"type": "integer", "minimum": 1},
    "to": {"type": "array", "items": {"type": "string"}},
    "cc": {"type": "array", "items": {"type": "string"}},
    "bcc": {"type": "array", "items": {"type": "string"}},
    "subject": {"type": "string"},
    "body": {"type": "string"},
    "requested": {"type": "string"}
  }
}`

// schemaURL names Schema for the validator; it is never fetched.
const schemaURL = "https://mailsift.invalid/mailops.json"

var (
	schemaOnce sync.Once
	compiled   *jsonschema.Schema
	schemaErr  error
)

// compiledSchema compiles Schema once; it is a constant, so the result
// never changes.
func compiledSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(Schema))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err = c.AddResource(schemaURL, doc); err != nil {
			schemaErr = err
			return
		}
		compiled, schemaErr = c.Compile(schemaURL)
	})
	return compiled, schemaErr
}

// OffContractError is an answer that does not follow the contract.
type OffContractError struct {
	// Reason says what is wrong, naming the field.
	Reason string
}

func (e *OffContractError) Error() string { return "off-contract answer: " + e.Reason }

// Parse decodes and validates a model's answer: it must match Schema
// (no unknown fields, known operation, right types) and make sense for its
// operation (a target for operations on one message, a recipient for a
// send). The error is an *OffContractError naming what is wrong.
func Parse(answer []byte) (Args, error) {
	sch, err := compiledSchema()
	if err != nil {
		return Args{}, fmt.Errorf("mailops: schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(answer))
	if err != nil {
		return Args{}, &OffContractError{Reason: fmt.Sprintf("not one JSON object: %v", err)}
	}
	if err := sch.Validate(inst); err != nil {
		reason := strings.Join(strings.Fields(err.Error()), " ")
		if _, after, ok := strings.Cut(reason, schemaURL+"#' - "); ok {
			reason = after
		}
		return Args{}, &OffContractError{Reason: reason}
	}
	var a Args
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Args{}, &OffContractError{Reason: err.Error()}
	}
	if err := a.check(); err != nil {
		return Args{}, err
	}
	return a, nil
}

// check applies the rules the schema cannot say.
func (a Args) check() error {
	f := Filters{}
	if a.Filters != nil {
		f = *a.Filters
	}
	switch {
	case a.Operation == Unsupported:
		return nil
	case a.Operation.NeedsTarget() && a.MessageID == "" && a.SelectionIndex == 0 && f.Empty() && f.MaxResults == 0:
		return &OffContractError{Reason: fmt.Sprintf("%s needs a target: messageId, selectionIndex or filters", a.Operation)}
	case a.Operation != GetEmailByID && !a.Operation.NeedsTarget() && (a.MessageID != "" || a.SelectionIndex != 0):
		return &OffContractError{Reason: fmt.Sprintf("%s takes no messageId or selectionIndex", a.Operation)}
	case a.Operation.IsSend() && len(a.To) == 0:
		return &OffContractError{Reason: fmt.Sprintf("%s needs to[]", a.Operation)}
	}
	if a.Operation.IsSend() {
		for _, l := range []struct {
			name string
			list []string
		}{{"to", a.To}, {"cc", a.Cc}, {"bcc", a.Bcc}} {
			for i, r := range l.list {
				if strings.TrimSpace(r) == "" {
					return &OffContractError{Reason: fmt.Sprintf("%s[%d] is empty: each recipient is a name or an address", l.name, i)}
				}
			}
		}
	}
	return nil
}

// IsSend reports whether the operation writes a new message (sendPreview,
// sendConfirm), whose recipients are the args' to, cc and bcc.
func (o Operation) IsSend() bool { return o == SendPreview || o == SendConfirm }

// Describe renders args for the user: the operation and its target, as
// the TUI shows what it understood.
func (a Args) Describe() string {
	parts := []string{string(a.Operation)}
	if a.Operation == Unsupported && a.Requested != "" {
		parts = append(parts, fmt.Sprintf("%q", a.Requested))
	}
	if a.Operation.IsSend() {
		for _, l := range []struct {
			name string
			list []string
		}{{"to", a.To}, {"cc", a.Cc}, {"bcc", a.Bcc}} {
			if len(l.list) > 0 {
				parts = append(parts, l.name+":"+quote(strings.Join(l.list, ",")))
			}
		}
		if a.Subject != "" {
			parts = append(parts, "subject:"+quote(a.Subject))
		}
	}
	if a.SelectionIndex > 0 {
		parts = append(parts, fmt.Sprintf("#%d", a.SelectionIndex))
	}
	if a.MessageID != "" {
		parts = append(parts, "<"+a.MessageID+">")
	}
	if f := a.Filters; f != nil {
		add := func(k, v string) {
			if v != "" {
				parts = append(parts, k+":"+quote(v))
			}
		}
		add("from", f.From)
		add("to", f.To)
		add("subject", f.SubjectContains)
		add("text", f.TextContains)
		for _, l := range f.LabelIDs {
			add("label", l)
		}
		if f.MaxResults > 0 {
			parts = append(parts, fmt.Sprintf("max:%d", f.MaxResults))
		}
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		return fmt.Sprintf("%q", s)
	}
	return s
}
