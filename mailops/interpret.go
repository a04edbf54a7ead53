package mailops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"mailsift/internal/ollama"
)

// systemPrompt tells the model the operations and how to fill the args.
// It holds no mail: the model sees only the user's request.
const systemPrompt = `You turn one request of the user about their mail into exactly one operation of a mail assistant. Answer with one JSON object that follows the given schema and nothing else.

Operations:
- listEmails: show the mails matching filters ("show unread mail from Tom", "list the invoices").
- getLatestEmail: open the newest mail, optionally matching filters ("open my latest mail").
- getEmailById: open one mail: selectionIndex when the user names a number of the list on screen ("open 3", "the second one" is 2), messageId only when the user wrote a message id, else filters.
- replyPreview: draft a reply to one mail for the user to review ("reply to Dana's mail").
- replyConfirm: the same, going straight to the confirmation screen ("reply to 2 and send it").
- markAsRead, markAsUnread: mark one mail read or unread ("mark the invoices from Tom read").
- sendPreview: write a new mail (not a reply) for the user to review ("write to Dana about lunch", "mail sam@example.org").
- sendConfirm: the same, going straight to the confirmation screen ("send Dana a mail saying I'm late").
- unsupported: anything else (archive, delete, forward, snooze, star, move, spam, unsubscribe, …); set "requested" to the user's words for it.

Targets: selectionIndex for a number of the list, else filters. Filters: "from" is a sender the user named (a name or an address), "to" a recipient, "subjectContains" and "textContains" the words a mail is about in the singular ("invoice" for "the invoices"); "maxResults": 1 when the user says latest, newest, last or most recent. For a reply, "body" is what the user says it should say, in their words ("reply to Dana saying I'll call at 3" has body "I'll call at 3."); leave it out when they did not say. Never set recipients for a reply: they are computed.

For a new mail, "to", "cc" and "bcc" hold each recipient exactly as the user wrote it: a name ("Sam") or an address ("sam@example.org"), never an address the user did not write; "subject" is the subject the user gave or the topic they named ("about lunch" has subject "Lunch"), and "body" what the user says it should say, in their words.

Use only what the user wrote: never invent names, addresses, ids, numbers or text. Leave out every field the user did not give.`

// Options configure an Interpreter; zero values mean defaults.
type Options struct {
	// Client is the Ollama client. Required.
	Client *ollama.Client
	// Model is the chat model (ollama.model). Required.
	Model string
	// ChatOptions carry num_ctx and keep_alive: the same as triage's, so
	// the model stays loaded.
	ChatOptions ollama.ChatOptions
	// Timeout bounds one request (0: only the context).
	Timeout time.Duration
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Interpreter asks the local model for the operation a request means.
type Interpreter struct {
	opts Options
	log  *slog.Logger
}

// NewInterpreter returns an interpreter; it does not contact the server.
func NewInterpreter(opts Options) (*Interpreter, error) {
	if opts.Client == nil || opts.Model == "" {
		return nil, errors.New("mailops: an interpreter needs an Ollama client and a model")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Interpreter{opts: opts, log: log}, nil
}

// ModelError is a request the model could not answer at all (Ollama not
// reachable, the model not pulled, no answer in time).
type ModelError struct{ Err error }

func (e *ModelError) Error() string { return e.Err.Error() }
func (e *ModelError) Unwrap() error { return e.Err }

// Interpret returns the operation the request means. An answer off the
// contract is retried once with the reason, then returned as an
// *OffContractError; a model that cannot answer is a *ModelError.
func (in *Interpreter) Interpret(ctx context.Context, request string) (Args, error) {
	request = strings.TrimSpace(request)
	if request == "" {
		return Args{}, errors.New("mailops: empty request")
	}
	msgs := []api.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: request}}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		content, err := in.chat(ctx, msgs)
		if err != nil {
			return Args{}, &ModelError{Err: fmt.Errorf("%s: %w", in.opts.Model, err)}
		}
		a, err := Parse([]byte(content))
		if err == nil {
			in.log.Info("mailops: interpreted", "operation", a.Operation)
			return a, nil
		}
		in.log.Warn("mailops: off-contract answer", "attempt", attempt+1, "err", err)
		lastErr = err
		msgs = append(msgs,
			api.Message{Role: "assistant", Content: content},
			api.Message{Role: "user", Content: "That answer is " + err.Error() + ". Answer the same request again with one JSON object that follows the schema."})
	}
	return Args{}, lastErr
}

func (in *Interpreter) chat(ctx context.Context, msgs []api.Message) (string, error) {
	if in.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, in.opts.Timeout)
		defer cancel()
	}
	req := &api.ChatRequest{
		Model:    in.opts.Model,
		Messages: msgs,
		Format:   json.RawMessage(Schema),
		Options:  map[string]any{"temperature": 0},
	}
	in.opts.ChatOptions.Apply(req)
	resp, err := in.opts.Client.Chat(ctx, req)
	if err != nil {
		return "", err
	}
	return resp.Message.Content, nil
}
