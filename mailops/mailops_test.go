package mailops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"mailsift/internal/ollama"
	"mailsift/internal/ollama/ollamatest"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		want         string // Describe() of the args, or the error's text
		off          bool
	}{
		{"reply latest from dana", `{"operation":"replyPreview","filters":{"from":"Dana","maxResults":1}}`, "replyPreview from:Dana max:1", false},
		{"mark by filters", `{"operation":"markAsRead","filters":{"from":"Tom","subjectContains":"invoice"}}`, "markAsRead from:Tom subject:invoice", false},
		{"open a row", `{"operation":"getEmailById","selectionIndex":3}`, "getEmailById #3", false},
		{"list", `{"operation":"listEmails","filters":{"labelIds":["UNREAD"]}}`, "listEmails label:UNREAD", false},
		{"unsupported", `{"operation":"unsupported","requested":"archive the newsletters"}`, `unsupported "archive the newsletters"`, false},
		{"unknown operation", `{"operation":"deleteAll"}`, "/operation", true},
		{"unknown field", `{"operation":"listEmails","confirm":true}`, "confirm", true},
		{"unknown filter", `{"operation":"listEmails","filters":{"sender":"x"}}`, "sender", true},
		{"wrong type", `{"operation":"getEmailById","selectionIndex":"3"}`, "/selectionIndex", true},
		{"index below one", `{"operation":"getEmailById","selectionIndex":0}`, "/selectionIndex", true},
		{"no operation", `{"filters":{"from":"x"}}`, "operation", true},
		{"no target", `{"operation":"markAsRead"}`, "markAsRead needs a target", true},
		{"send without recipient", `{"operation":"sendPreview","body":"hi"}`, "sendPreview needs to[]", true},
		{"send", `{"operation":"sendConfirm","to":["Dana","bob@example.com"],"cc":["Carol"],"subject":"Lunch plans","body":"12:30?"}`, `sendConfirm to:Dana,bob@example.com cc:Carol subject:"Lunch plans"`, false},
		{"send with a blank recipient", `{"operation":"sendPreview","to":["Dana"],"bcc":[" "]}`, "bcc[0] is empty", true},
		{"send with a row", `{"operation":"sendPreview","to":["Dana"],"selectionIndex":1}`, "sendPreview takes no messageId", true},
		{"list with a row", `{"operation":"listEmails","selectionIndex":2}`, "listEmails takes no messageId", true},
		{"not json", `reply to dana`, "not one JSON object", true},
		{"two objects", `{"operation":"listEmails"} {"operation":"listEmails"}`, "not one JSON object", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse([]byte(tt.answer))
			if !tt.off {
				if err != nil || a.Describe() != tt.want {
					t.Fatalf("Parse = %q, %v; want %q", a.Describe(), err, tt.want)
				}
				return
			}
			var oce *OffContractError
			if !errors.As(err, &oce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse err = %v, want an off-contract error mentioning %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "mailsift.invalid") || strings.Contains(err.Error(), "file://") {
				t.Errorf("the reason names the schema's location: %v", err)
			}
		})
	}
}

// TestSchemaNamesEveryContractOperation fails when the schema and the
// contract's operation list drift apart.
func TestSchemaNamesEveryContractOperation(t *testing.T) {
	var s struct {
		Properties struct {
			Operation struct {
				Enum []string `json:"enum"`
			} `json:"operation"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(Schema), &s); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, o := range Operations() {
		want = append(want, string(o))
	}
	want = append(want, string(Unsupported))
	if strings.Join(s.Properties.Operation.Enum, ",") != strings.Join(want, ",") {
		t.Errorf("schema operations = %v, want %v", s.Properties.Operation.Enum, want)
	}
}

func newInterpreter(t *testing.T, srv *ollamatest.Server) *Interpreter {
	t.Helper()
	c, err := ollama.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInterpreter(Options{Client: c, Model: "llama3.2:3b", ChatOptions: ollama.ChatOptions{NumCtx: 8192}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestInterpret(t *testing.T) {
	srv := ollamatest.New(t, nil, []string{"llama3.2:3b"})
	srv.Chat = func(c ollamatest.ChatCall) string {
		return `{"operation":"replyPreview","filters":{"from":"Dana","maxResults":1}}`
	}
	a, err := newInterpreter(t, srv).Interpret(context.Background(), "reply to the latest mail from Dana")
	if err != nil || a.Operation != ReplyPreview || a.Filters.From != "Dana" || a.Filters.MaxResults != 1 {
		t.Fatalf("Interpret = %+v, %v", a, err)
	}
	calls := srv.ChatCalls()
	if len(calls) != 1 {
		t.Fatalf("%d chat calls, want 1", len(calls))
	}
	c := calls[0]
	if c.User != "reply to the latest mail from Dana" {
		t.Errorf("user message = %q, want the request alone", c.User)
	}
	var want bytes.Buffer
	json.Compact(&want, []byte(Schema))
	if string(c.Format) != want.String() {
		t.Errorf("format is not the contract schema: %s", c.Format)
	}
	if string(c.KeepAlive) != `"10m0s"` || c.Options["num_ctx"] != float64(8192) || c.Options["temperature"] != float64(0) {
		t.Errorf("keep_alive %s options %v, want triage's num_ctx and keep_alive, temperature 0", c.KeepAlive, c.Options)
	}
}

// TestInterpretOffContract: an answer off the contract is retried once
// with the reason, then reported; nothing is returned to act on.
func TestInterpretOffContract(t *testing.T) {
	srv := ollamatest.New(t, nil, []string{"llama3.2:3b"})
	srv.Chat = func(ollamatest.ChatCall) string { return `{"operation":"archiveAll","confirm":true}` }
	a, err := newInterpreter(t, srv).Interpret(context.Background(), "archive everything")
	var oce *OffContractError
	if !errors.As(err, &oce) || a.Operation != "" {
		t.Fatalf("Interpret = %+v, %v; want an off-contract error and no args", a, err)
	}
	calls := srv.ChatCalls()
	if len(calls) != 2 || !strings.Contains(calls[1].User, "off-contract answer") {
		t.Fatalf("%d calls; want a retry telling the model what was wrong", len(calls))
	}

	// A retry that follows the contract is used.
	n := 0
	srv.Chat = func(ollamatest.ChatCall) string {
		n++
		if n == 1 {
			return `not json`
		}
		return `{"operation":"listEmails"}`
	}
	if a, err := newInterpreter(t, srv).Interpret(context.Background(), "show my mail"); err != nil || a.Operation != ListEmails {
		t.Fatalf("after a good retry: %+v, %v", a, err)
	}
}

func TestInterpretModelDown(t *testing.T) {
	srv := ollamatest.New(t, nil, []string{"other"})
	_, err := newInterpreter(t, srv).Interpret(context.Background(), "show my mail")
	var me *ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err = %v, want a ModelError saying the model is not found", err)
	}
	srv.Close()
	_, err = newInterpreter(t, srv).Interpret(context.Background(), "show my mail")
	if !errors.As(err, &me) {
		t.Fatalf("with the server gone, err = %v, want a ModelError", err)
	}
}
