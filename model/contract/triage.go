package contract

import (
	"encoding/json"
	"errors"
	"fmt"
)

// SchemaVersion is the triage contract version, echoed in requests and responses.
const SchemaVersion = "1.0"

// The four triage categories of the contract's taxonomy.
const (
	CategoryUrgent        = "urgent"
	CategoryActionable    = "actionable"
	CategoryInformational = "informational"
	CategoryLowPriority   = "low priority"
)

// Categories is the frozen four-bucket taxonomy, in the contract's order.
var Categories = []string{CategoryUrgent, CategoryActionable, CategoryInformational, CategoryLowPriority}

// Request kinds (the payload discriminator).
const (
	KindSingle = "single"
	KindThread = "thread"
)

// Address is the contract's address: email required, name optional.
type Address struct {
	Name  *string `json:"name"`
	Email string  `json:"email"`
}

// Message is one message of a triage request.
type Message struct {
	MessageID string    `json:"message_id"`
	ThreadID  *string   `json:"thread_id"`
	From      Address   `json:"from"`
	To        []Address `json:"to"`
	Cc        []Address `json:"cc"`
	Bcc       []Address `json:"bcc"`
	Date      *string   `json:"date"`
	Subject   string    `json:"subject"`
	Body      string    `json:"body"`
}

// SingleInput is the payload of kind "single".
type SingleInput struct {
	Kind      string  `json:"kind"`
	Principal Address `json:"principal"`
	Message   Message `json:"message"`
}

// ThreadInput is the payload of kind "thread"; messages oldest first.
type ThreadInput struct {
	Kind      string    `json:"kind"`
	Principal Address   `json:"principal"`
	ThreadID  string    `json:"thread_id"`
	Messages  []Message `json:"messages"`
}

// Request is the request envelope. Exactly one of Single and
// Thread is set, according to the payload's kind. On the wire the payload
// is one object discriminated by "kind"; MarshalJSON and UnmarshalJSON
// translate.
type Request struct {
	SchemaVersion string
	Single        *SingleInput
	Thread        *ThreadInput
}

// ActionItem is one extracted action; DueHint is free text as written.
type ActionItem struct {
	Description string  `json:"description"`
	DueHint     *string `json:"due_hint"`
}

// DraftReply is a proposed reply, never sent without explicit confirmation.
type DraftReply struct {
	To      []Address `json:"to"`
	Subject string    `json:"subject"`
	Body    string    `json:"body"`
}

// Result is the structured analysis of one email or thread.
type Result struct {
	Category    string       `json:"category"`
	IsSpam      bool         `json:"is_spam"`
	IsPhishing  bool         `json:"is_phishing"`
	Summary     string       `json:"summary"`
	ActionItems []ActionItem `json:"action_items"`
	Draft       *DraftReply  `json:"draft"`
}

// Response is the response envelope.
type Response struct {
	SchemaVersion string `json:"schema_version"`
	RequestKind   string `json:"request_kind"`
	Result        Result `json:"result"`
}

func nonNilAddrs(a []Address) []Address {
	if a == nil {
		return []Address{}
	}
	return a
}

// MarshalJSON emits every contract field; absent lists become [] and absent
// nullable values null.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	p := plain(m)
	p.To, p.Cc, p.Bcc = nonNilAddrs(p.To), nonNilAddrs(p.Cc), nonNilAddrs(p.Bcc)
	return json.Marshal(p)
}

// MarshalJSON emits to as [] rather than null when empty.
func (d DraftReply) MarshalJSON() ([]byte, error) {
	type plain DraftReply
	p := plain(d)
	p.To = nonNilAddrs(p.To)
	return json.Marshal(p)
}

// MarshalJSON emits action_items as [] rather than null when empty.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	p := plain(r)
	if p.ActionItems == nil {
		p.ActionItems = []ActionItem{}
	}
	return json.Marshal(p)
}

// UnmarshalJSON decodes strictly, as ParseResult does.
func (r *Result) UnmarshalJSON(data []byte) error {
	v, err := ParseResult(data)
	if err != nil {
		return err
	}
	*r = *v
	return nil
}

// UnmarshalJSON decodes strictly, as ParseResponse does.
func (r *Response) UnmarshalJSON(data []byte) error {
	v, err := ParseResponse(data)
	if err != nil {
		return err
	}
	*r = *v
	return nil
}

// errPayload is returned when a request has neither or both payload shapes.
var errPayload = errors.New("model: triage request needs exactly one of Single and Thread")

// MarshalJSON emits {"schema_version", "payload"} with the payload's kind
// set from whichever of Single and Thread is present. An empty
// SchemaVersion is written as SchemaVersion.
func (r Request) MarshalJSON() ([]byte, error) {
	var payload any
	switch {
	case r.Single != nil && r.Thread == nil:
		p := *r.Single
		p.Kind = KindSingle
		payload = p
	case r.Thread != nil && r.Single == nil:
		p := *r.Thread
		p.Kind = KindThread
		if p.Messages == nil {
			p.Messages = []Message{}
		}
		payload = p
	default:
		return nil, errPayload
	}
	v := r.SchemaVersion
	if v == "" {
		v = SchemaVersion
	}
	return json.Marshal(struct {
		SchemaVersion string `json:"schema_version"`
		Payload       any    `json:"payload"`
	}{v, payload})
}

// UnmarshalJSON decodes strictly, as ParseRequest does.
func (r *Request) UnmarshalJSON(data []byte) error {
	v, err := ParseRequest(data)
	if err != nil {
		return err
	}
	*r = *v
	return nil
}

// Kind returns the payload's discriminator, KindSingle or KindThread, or ""
// when no payload is set.
func (r *Request) Kind() string {
	switch {
	case r.Single != nil:
		return KindSingle
	case r.Thread != nil:
		return KindThread
	}
	return ""
}

// Validate checks a request built in Go against the contract, with the same
// rules and error paths as ParseRequest. Kind fields may be left empty; a
// Kind that contradicts the payload shape is an error.
func (r *Request) Validate() error {
	if r.Single != nil && r.Single.Kind != "" && r.Single.Kind != KindSingle {
		return verr("payload.kind", "%q set on a single-message payload", r.Single.Kind)
	}
	if r.Thread != nil && r.Thread.Kind != "" && r.Thread.Kind != KindThread {
		return verr("payload.kind", "%q set on a thread payload", r.Thread.Kind)
	}
	data, err := json.Marshal(r)
	if err != nil {
		if errors.Is(err, errPayload) {
			return verr("payload", "set exactly one of Single and Thread")
		}
		return fmt.Errorf("model: encode triage request: %w", err)
	}
	_, err = ParseRequest(data)
	return err
}

// Validate checks a result built in Go against the contract, with the same
// rules and error paths as ParseResult (paths start at "result"). Nil
// ActionItems counts as empty.
func (r *Result) Validate() error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("model: encode triage result: %w", err)
	}
	_, err = ParseResult(data)
	return err
}

// Validate checks a response built in Go, as ParseResponse does.
func (r *Response) Validate() error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("model: encode triage response: %w", err)
	}
	_, err = ParseResponse(data)
	return err
}
