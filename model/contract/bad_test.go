package contract

import (
	"errors"
	"strings"
	"testing"
)

const (
	tAlice = `{"name":"Alice","email":"alice@example.com"}`
	tBob   = `{"name":null,"email":"bob@example.com"}`
)

// tMsg is a minimal valid message with extra members appended.
func tMsg(extra string) string {
	return `{"message_id":"m1","from":` + tBob + `,"body":"hi"` + extra + `}`
}

func tSingle(principal, msg string) string {
	return `{"schema_version":"1.0","payload":{"kind":"single","principal":` + principal + `,"message":` + msg + `}}`
}

func tThread(msgs string) string {
	return `{"schema_version":"1.0","payload":{"kind":"thread","principal":` + tAlice + `,"thread_id":"t1","messages":[` + msgs + `]}}`
}

// tResult renders a valid result with members replaced by over (key, raw
// JSON value; an empty value drops the member, unknown keys are appended).
func tResult(over ...string) string {
	keys := []string{"category", "is_spam", "is_phishing", "summary", "action_items", "draft"}
	vals := map[string]string{"category": `"urgent"`, "is_spam": "false", "is_phishing": "false", "summary": `"s"`,
		"action_items": `[{"description":"Pay","due_hint":"Friday"}]`,
		"draft":        `{"to":[` + tBob + `],"subject":"Re","body":"ok"}`}
	for i := 0; i+1 < len(over); i += 2 {
		if _, ok := vals[over[i]]; !ok {
			keys = append(keys, over[i])
		}
		vals[over[i]] = over[i+1]
	}
	var parts []string
	for _, k := range keys {
		if v := vals[k]; v != "" {
			parts = append(parts, `"`+k+`":`+v)
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func tResponse(result string) string {
	return `{"schema_version":"1.0","request_kind":"single","result":` + result + `}`
}

type badCase struct {
	name   string
	parser string // request, response or result
	input  string
	path   string
	msg    string // substring of the message
	// schemaBlind marks violations the JSON Schema cannot see: duplicate
	// keys, and for the Ollama-safe ResultSchema the address and
	// description checks.
	schemaBlind bool
}

func badPayloads() []badCase {
	okSingle := tSingle(tAlice, tMsg(""))
	return []badCase{
		{"unknown top-level field", "request", strings.TrimSuffix(okSingle, "}") + `,"extra":1}`, "extra", "unknown field", false},
		{"other schema version", "request", strings.Replace(okSingle, `"1.0"`, `"2.0"`, 1), "schema_version", `unsupported version "2.0"`, false},
		{"schema version number", "request", strings.Replace(okSingle, `"1.0"`, `1.0`, 1), "schema_version", "want string, got number", false},
		{"missing payload", "request", `{"schema_version":"1.0"}`, "payload", "required field is missing", false},
		{"null payload", "request", `{"payload":null}`, "payload", "want object, got null", false},
		{"missing kind", "request", `{"payload":{"principal":` + tAlice + `,"message":` + tMsg("") + `}}`, "payload.kind", "required field is missing", false},
		{"unknown kind", "request", strings.Replace(okSingle, `"single"`, `"digest"`, 1), "payload.kind", `unknown kind "digest"`, false},
		{"kind number", "request", strings.Replace(okSingle, `"single"`, `1`, 1), "payload.kind", "want string, got number", false},
		{"thread field on single", "request", strings.Replace(okSingle, `"principal"`, `"messages":[],"principal"`, 1), "payload.messages", "unknown field", false},
		{"missing principal", "request", `{"payload":{"kind":"single","message":` + tMsg("") + `}}`, "payload.principal", "required field is missing", false},
		{"principal without @", "request", tSingle(`{"email":"alice.example.com"}`, tMsg("")), "payload.principal.email", `no "@"`, false},
		{"principal undotted domain", "request", tSingle(`{"email":"alice@localhost"}`, tMsg("")), "payload.principal.email", "not dotted", false},
		{"principal empty label", "request", tSingle(`{"email":"alice@example..com"}`, tMsg("")), "payload.principal.email", "not dotted", false},
		{"principal unknown field", "request", tSingle(`{"email":"alice@example.com","phone":"1"}`, tMsg("")), "payload.principal.phone", "unknown field", false},
		{"name number", "request", tSingle(`{"name":7,"email":"alice@example.com"}`, tMsg("")), "payload.principal.name", "want string or null, got number", false},
		{"missing body", "request", tSingle(tAlice, `{"message_id":"m1","from":`+tBob+`}`), "payload.message.body", "required field is missing", false},
		{"null message_id", "request", tSingle(tAlice, `{"message_id":null,"from":`+tBob+`,"body":"b"}`), "payload.message.message_id", "want string, got null", false},
		{"missing from", "request", tSingle(tAlice, `{"message_id":"m1","body":"b"}`), "payload.message.from", "required field is missing", false},
		{"null to", "request", tSingle(tAlice, tMsg(`,"to":null`)), "payload.message.to", "want array, got null", false},
		{"bcc as string", "request", tSingle(tAlice, tMsg(`,"bcc":"bob@example.com"`)), "payload.message.bcc", "want array, got string", false},
		{"bad cc address", "request", tSingle(tAlice, tMsg(`,"cc":[`+tBob+`,{"email":"carol@"}]`)), "payload.message.cc[1].email", "not dotted", false},
		{"null subject", "request", tSingle(tAlice, tMsg(`,"subject":null`)), "payload.message.subject", "want string, got null", false},
		{"date number", "request", tSingle(tAlice, tMsg(`,"date":20260530`)), "payload.message.date", "want string or null, got number", false},
		{"from with space", "request", tSingle(tAlice, `{"message_id":"m1","from":{"email":"bob @example.com"},"body":"b"}`), "payload.message.from.email", "space", false},
		{"from empty local part", "request", tSingle(tAlice, `{"message_id":"m1","from":{"email":"@example.com"},"body":"b"}`), "payload.message.from.email", `nothing before "@"`, false},
		{"unknown message field", "request", tSingle(tAlice, tMsg(`,"attachments":[]`)), "payload.message.attachments", "unknown field", false},
		{"empty thread", "request", tThread(""), "payload.messages", "empty thread", false},
		{"thread message without @", "request", tThread(tMsg("") + `,{"message_id":"m2","from":{"email":"bob.example.com"},"body":"b"}`), "payload.messages[1].from.email", `no "@"`, false},
		{"thread missing thread_id", "request", strings.Replace(tThread(tMsg("")), `"thread_id":"t1",`, "", 1), "payload.thread_id", "required field is missing", false},
		{"single field on thread", "request", strings.Replace(tThread(tMsg("")), `"thread_id":"t1"`, `"thread_id":"t1","message":{}`, 1), "payload.message", "unknown field", false},
		{"duplicate key", "request", tSingle(tAlice, tMsg(`,"body":"again"`)), "payload.message.body", "duplicate key", true},
		{"trailing data", "request", okSingle + ` {}`, "$", "trailing data", false},
		{"root array", "request", `[]`, "$", "want object, got array", false},
		{"truncated", "request", `{"payload":{"kind":"single"`, "payload", "unexpected end of JSON input", false},
		{"hostile key is quoted", "request", `{"a\u001b[31m":1}`, `$["a\x1b[31m"]`, "unknown field", false},

		{"category outside taxonomy", "response", tResponse(tResult("category", `"spam"`)), "result.category", `"spam" is not one of urgent, actionable, informational, low priority`, false},
		{"is_spam string", "response", tResponse(tResult("is_spam", `"yes"`)), "result.is_spam", "want boolean, got string", false},
		{"missing summary", "response", tResponse(tResult("summary", "")), "result.summary", "required field is missing", false},
		{"null action_items", "response", tResponse(tResult("action_items", "null")), "result.action_items", "want array, got null", false},
		{"empty description", "response", tResponse(tResult("action_items", `[{"description":""}]`)), "result.action_items[0].description", "empty description", false},
		{"blank description", "response", tResponse(tResult("action_items", `[{"description":"x"},{"description":" \t"}]`)), "result.action_items[1].description", "empty description", false},
		{"missing description", "response", tResponse(tResult("action_items", `[{"due_hint":"Friday"}]`)), "result.action_items[0].description", "required field is missing", false},
		{"action item unknown field", "response", tResponse(tResult("action_items", `[{"description":"d","owner":"me"}]`)), "result.action_items[0].owner", "unknown field", false},
		{"due_hint number", "response", tResponse(tResult("action_items", `[{"description":"d","due_hint":5}]`)), "result.action_items[0].due_hint", "want string or null, got number", false},
		{"empty draft to", "response", tResponse(tResult("draft", `{"to":[],"subject":"s","body":"b"}`)), "result.draft.to", "empty recipient list", false},
		{"bad draft address", "response", tResponse(tResult("draft", `{"to":[{"email":"bob"}],"subject":"s","body":"b"}`)), "result.draft.to[0].email", `no "@"`, false},
		{"draft string", "response", tResponse(tResult("draft", `"none"`)), "result.draft", "want object or null, got string", false},
		{"missing draft", "response", tResponse(tResult("draft", "")), "result.draft", "required field is missing", false},
		{"unknown result field", "response", tResponse(tResult("confidence", "0.9")), "result.confidence", "unknown field", false},
		{"unknown request_kind", "response", `{"schema_version":"1.0","request_kind":"digest","result":` + tResult() + `}`, "request_kind", `unknown kind "digest"`, false},
		{"response without version", "response", `{"request_kind":"single","result":` + tResult() + `}`, "schema_version", "required field is missing", false},
		{"duplicate result key", "response", tResponse(tResult("category", `"urgent","category":"urgent"`)), "result.category", "duplicate key", true},

		{"bare is_spam string", "result", tResult("is_spam", `"yes"`), "result.is_spam", "want boolean, got string", false},
		{"bare category case", "result", tResult("category", `"Urgent"`), "result.category", "is not one of", false},
		{"bare trailing data", "result", tResult() + `x`, "result", "trailing data", false},
		{"bare array", "result", `[` + tResult() + `]`, "result", "want object, got array", false},
		{"bare empty description", "result", tResult("action_items", `[{"description":""}]`), "result.action_items[0].description", "empty description", true},
		{"bare bad draft address", "result", tResult("draft", `{"to":[{"email":"bob@x"}],"subject":"s","body":"b"}`), "result.draft.to[0].email", "not dotted", true},
	}
}

func parseAs(parser, input string) error {
	var err error
	switch parser {
	case "request":
		_, err = ParseRequest([]byte(input))
	case "response":
		_, err = ParseResponse([]byte(input))
	case "result":
		_, err = ParseResult([]byte(input))
	default:
		panic(parser)
	}
	return err
}

func TestBadPayloads(t *testing.T) {
	cases := badPayloads()
	if len(cases) < 30 {
		t.Fatalf("only %d bad payloads", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := parseAs(tc.parser, tc.input)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse %s(%s) = %v, want *ValidationError", tc.parser, tc.input, err)
			}
			if ve.Path != tc.path || !strings.Contains(ve.Msg, tc.msg) {
				t.Errorf("Parse %s(%s) = %q, want path %q and message containing %q", tc.parser, tc.input, err, tc.path, tc.msg)
			}
			if err.Error() != ve.Path+": "+ve.Msg {
				t.Errorf("Error() = %q, want path: msg", err.Error())
			}
		})
	}
}

// TestBadPayloadsAreBuiltFromValidOnes guards the table's helpers: the
// unmodified templates must parse, or every case would pass trivially.
func TestBadPayloadsAreBuiltFromValidOnes(t *testing.T) {
	for _, tc := range []struct{ parser, input string }{
		{"request", tSingle(tAlice, tMsg(""))},
		{"request", tThread(tMsg("") + "," + tMsg(`,"to":[`+tAlice+`],"cc":[],"bcc":[],"date":null,"thread_id":null,"subject":""`))},
		{"response", tResponse(tResult())},
		{"response", tResponse(tResult("draft", "null", "action_items", "[]"))},
		{"result", tResult()},
	} {
		if err := parseAs(tc.parser, tc.input); err != nil {
			t.Errorf("Parse %s(%s) = %v, want nil", tc.parser, tc.input, err)
		}
	}
}
