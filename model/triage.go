package model

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

// EmailAddress is the contract's address: email required, name optional.
type EmailAddress struct {
	Name  *string `json:"name,omitempty"`
	Email string  `json:"email"`
}

// EmailMessage is one message of a triage request.
type EmailMessage struct {
	MessageID string         `json:"message_id"`
	ThreadID  *string        `json:"thread_id,omitempty"`
	From      EmailAddress   `json:"from"`
	To        []EmailAddress `json:"to"`
	Cc        []EmailAddress `json:"cc"`
	Bcc       []EmailAddress `json:"bcc"`
	Date      *string        `json:"date,omitempty"`
	Subject   string         `json:"subject"`
	Body      string         `json:"body"`
}

// SingleEmailInput is the payload of kind "single".
type SingleEmailInput struct {
	Kind      string       `json:"kind"`
	Principal EmailAddress `json:"principal"`
	Message   EmailMessage `json:"message"`
}

// ThreadInput is the payload of kind "thread"; messages oldest first.
type ThreadInput struct {
	Kind      string         `json:"kind"`
	Principal EmailAddress   `json:"principal"`
	ThreadID  string         `json:"thread_id"`
	Messages  []EmailMessage `json:"messages"`
}

// EmailTriageRequest is the request envelope. Exactly one of Single and
// Thread is set, according to the payload's kind.
type EmailTriageRequest struct {
	SchemaVersion string
	Single        *SingleEmailInput
	Thread        *ThreadInput
}

// ActionItem is one extracted action; DueHint is free text as written.
type ActionItem struct {
	Description string  `json:"description"`
	DueHint     *string `json:"due_hint"`
}

// DraftReply is a proposed reply, never sent without explicit confirmation.
type DraftReply struct {
	To      []EmailAddress `json:"to"`
	Subject string         `json:"subject"`
	Body    string         `json:"body"`
}

// EmailTriageResult is the structured analysis of one email or thread.
type EmailTriageResult struct {
	Category    string       `json:"category"`
	IsSpam      bool         `json:"is_spam"`
	IsPhishing  bool         `json:"is_phishing"`
	Summary     string       `json:"summary"`
	ActionItems []ActionItem `json:"action_items"`
	Draft       *DraftReply  `json:"draft"`
}

// EmailTriageResponse is the response envelope.
type EmailTriageResponse struct {
	SchemaVersion string            `json:"schema_version"`
	RequestKind   string            `json:"request_kind"`
	Result        EmailTriageResult `json:"result"`
}
