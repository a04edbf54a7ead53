package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("compact: %v", err)
	}
	return buf.String()
}

func TestRequestExamplesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file string
		kind string
	}{{"request_single.json", KindSingle}, {"request_thread.json", KindThread}} {
		t.Run(tc.file, func(t *testing.T) {
			req, err := ParseRequest(readTestdata(t, tc.file))
			if err != nil {
				t.Fatalf("ParseRequest = %v, want nil", err)
			}
			if got := req.Kind(); got != tc.kind {
				t.Fatalf("Kind() = %q, want %q", got, tc.kind)
			}
			if err := req.Validate(); err != nil {
				t.Fatalf("Validate = %v, want nil", err)
			}
			out, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), `"kind":"`+tc.kind+`"`) {
				t.Errorf("marshal %s lacks kind %q", out, tc.kind)
			}
			again, err := ParseRequest(out)
			if err != nil {
				t.Fatalf("ParseRequest(marshal) = %v", err)
			}
			if !reflect.DeepEqual(req, again) {
				t.Errorf("round trip differs:\n%+v\n%+v", req, again)
			}
			var viaStd Request
			if err := json.Unmarshal(out, &viaStd); err != nil || !reflect.DeepEqual(&viaStd, req) {
				t.Errorf("json.Unmarshal = %v, %+v; want %+v", err, viaStd, req)
			}
		})
	}
}

func TestRequestExampleContents(t *testing.T) {
	req, err := ParseRequest(readTestdata(t, "request_thread.json"))
	if err != nil {
		t.Fatal(err)
	}
	th := req.Thread
	if req.Single != nil || th == nil || th.ThreadID != "thread-42" || len(th.Messages) != 2 {
		t.Fatalf("thread = %+v", req)
	}
	m := th.Messages[1]
	if m.From.Email != "alice@example.com" || *m.From.Name != "Alice" || m.Subject != "Re: Contract renewal" || *m.Date != "2026-05-30T10:00:00Z" {
		t.Errorf("messages[1] = %+v", m)
	}
	// cc and bcc are absent in the example: empty, not nil.
	if m.Cc == nil || len(m.Cc) != 0 || m.Bcc == nil {
		t.Errorf("cc, bcc = %#v, %#v; want empty lists", m.Cc, m.Bcc)
	}
	single, err := ParseRequest(readTestdata(t, "request_single.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s := single.Single; s == nil || s.Principal.Email != "alice@example.com" || *s.Message.ThreadID != "thread-1" || s.Message.Body != "Hi Alice, please review the attached invoice by Friday." {
		t.Errorf("single = %+v", single.Single)
	}
}

func TestRequestSchemaVersionDefault(t *testing.T) {
	req, err := ParseRequest([]byte(`{"payload":{"kind":"single","principal":{"email":"alice@example.com"},"message":{"message_id":"m","from":{"email":"bob@example.com"},"body":"b"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.SchemaVersion != "1.0" {
		t.Errorf("SchemaVersion = %q, want 1.0", req.SchemaVersion)
	}
	if n := req.Single.Principal.Name; n != nil {
		t.Errorf("absent name = %q, want nil", *n)
	}
}

func TestResponseExamplesRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file string
		// want is the example as Marshal must print it: identical modulo
		// white space, except that an absent due_hint is printed as null.
		fix func(string) string
	}{
		{"response_single.json", func(s string) string { return s }},
		{"response_thread.json", func(s string) string {
			return strings.Replace(s, `"Confirm Thursday 2pm call"}`, `"Confirm Thursday 2pm call","due_hint":null}`, 1)
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			raw := readTestdata(t, tc.file)
			resp, err := ParseResponse(raw)
			if err != nil {
				t.Fatalf("ParseResponse = %v, want nil", err)
			}
			if err := resp.Validate(); err != nil {
				t.Fatalf("Validate = %v", err)
			}
			out, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.fix(compact(t, raw)); string(out) != want {
				t.Errorf("Marshal =\n%s\nwant\n%s", out, want)
			}
			again, err := ParseResponse(out)
			if err != nil || !reflect.DeepEqual(resp, again) {
				t.Errorf("round trip = %+v, %v; want %+v", again, err, resp)
			}
			// The bare result parses on its own, as the Ollama triager uses it.
			res, err := json.Marshal(resp.Result)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := ParseResult(res); err != nil || !reflect.DeepEqual(*r, resp.Result) {
				t.Errorf("ParseResult = %+v, %v; want %+v", r, err, resp.Result)
			}
		})
	}
}

func TestResponseMarshalNulls(t *testing.T) {
	r := Response{SchemaVersion: SchemaVersion, RequestKind: KindSingle,
		Result: Result{Category: CategoryUrgent, Summary: "s"}}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema_version":"1.0","request_kind":"single","result":{"category":"urgent","is_spam":false,"is_phishing":false,"summary":"s","action_items":[],"draft":null}}`
	if string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
}

func TestTaxonomy(t *testing.T) {
	// The contract's frozen four-bucket taxonomy, in the contract's order.
	want := []string{"urgent", "actionable", "informational", "low priority"}
	if !reflect.DeepEqual(Categories, want) {
		t.Errorf("Categories = %q, want %q", Categories, want)
	}
	if SchemaVersion != "1.0" {
		t.Errorf("SchemaVersion = %q, want 1.0", SchemaVersion)
	}
}

func TestValidateGoValues(t *testing.T) {
	alice := Address{Email: "alice@example.com"}
	msg := Message{MessageID: "m", From: Address{Email: "bob@example.com"}, Body: "b"}
	for _, tc := range []struct {
		name string
		v    interface{ Validate() error }
		path string // "" means valid
	}{
		{"single ok", &Request{Single: &SingleInput{Principal: alice, Message: msg}}, ""},
		{"no payload", &Request{}, "payload"},
		{"both payloads", &Request{Single: &SingleInput{}, Thread: &ThreadInput{}}, "payload"},
		{"nil messages", &Request{Thread: &ThreadInput{Principal: alice, ThreadID: "t"}}, "payload.messages"},
		{"kind mismatch", &Request{Single: &SingleInput{Kind: KindThread, Principal: alice, Message: msg}}, "payload.kind"},
		{"bad version", &Request{SchemaVersion: "0.9", Single: &SingleInput{Principal: alice, Message: msg}}, "schema_version"},
		{"bad principal", &Request{Single: &SingleInput{Principal: Address{Email: "alice"}, Message: msg}}, "payload.principal.email"},
		{"result ok", &Result{Category: CategoryLowPriority}, ""},
		{"no category", &Result{}, "result.category"},
		{"draft without to", &Result{Category: CategoryUrgent, Draft: &DraftReply{}}, "result.draft.to"},
		{"blank action", &Result{Category: CategoryUrgent, ActionItems: []ActionItem{{Description: " "}}}, "result.action_items[0].description"},
		{"response bad kind", &Response{SchemaVersion: SchemaVersion, RequestKind: "x", Result: Result{Category: CategoryUrgent}}, "request_kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.v.Validate()
			if tc.path == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Path != tc.path {
				t.Fatalf("Validate = %v, want error at %s", err, tc.path)
			}
		})
	}
}

func TestUnmarshalJSONIsStrict(t *testing.T) {
	var req Request
	err := json.Unmarshal([]byte(`{"payload":{"kind":"single"},"x":1}`), &req)
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Path != "x" {
		t.Errorf("json.Unmarshal request = %v, want ValidationError at x", err)
	}
	var res Result
	err = json.Unmarshal([]byte(`{"category":"spam","is_spam":false,"is_phishing":false,"summary":"","action_items":[],"draft":null}`), &res)
	if !errors.As(err, &ve) || ve.Path != "result.category" {
		t.Errorf("json.Unmarshal result = %v, want ValidationError at result.category", err)
	}
}

// TestDependencies keeps package contract importable by every surface
// without dragging in anything beyond the standard library.
func TestDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found; cannot list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "mailsift/model/contract" {
			t.Errorf("package contract depends on non-standard package %s", p)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add(readTestdata(f, "request_single.json"))
	f.Add(readTestdata(f, "request_thread.json"))
	for _, tc := range badPayloads() {
		if tc.parser == "request" {
			f.Add([]byte(tc.input))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := ParseRequest(data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			return
		}
		out, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("marshal accepted request: %v", err)
		}
		again, err := ParseRequest(out)
		if err != nil {
			t.Fatalf("re-marshalled request %s does not parse: %v", out, err)
		}
		if !reflect.DeepEqual(req, again) {
			t.Fatalf("round trip differs: %+v vs %+v", req, again)
		}
	})
}

func FuzzParseResult(f *testing.F) {
	f.Add([]byte(`{"category":"urgent","is_spam":true,"is_phishing":false,"summary":"s","action_items":[{"description":"d","due_hint":null}],"draft":{"to":[{"name":null,"email":"a@b.co"}],"subject":"","body":""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResult(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseResult(out); err != nil {
			t.Fatalf("re-marshalled result %s does not parse: %v", out, err)
		}
	})
}

func BenchmarkParseRequestThread(b *testing.B) {
	data := readTestdata(b, "request_thread.json")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseRequest(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseResult(b *testing.B) {
	data := []byte(tResult())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseResult(data); err != nil {
			b.Fatal(err)
		}
	}
}
