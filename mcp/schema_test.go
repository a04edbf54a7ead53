package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// contractSchemas reads every JSON block of the contract document by $id.
func contractSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	doc, err := os.ReadFile("testdata/mcp-contract-v1.md")
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]map[string]any{}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1) {
		var s map[string]any
		if err := json.Unmarshal(m[1], &s); err != nil {
			t.Fatalf("contract block: %v", err)
		}
		set[s["$id"].(string)] = s
	}
	if len(set) != 20 {
		t.Fatalf("contract has %d schemas, want 20 (types, 4 resources, 7 tools × 2, errors)", len(set))
	}
	return set
}

// diff lists every difference between two JSON values by path.
func diff(path string, want, got any, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: got %T, want an object", path, got))
			return
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			wv, wok := w[k]
			gv, gok := g[k]
			switch {
			case !gok:
				*out = append(*out, fmt.Sprintf("%s/%s: missing", path, k))
			case !wok:
				*out = append(*out, fmt.Sprintf("%s/%s: not in the contract (%v)", path, k, gv))
			default:
				diff(path+"/"+k, wv, gv, out)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, fmt.Sprintf("%s: got %v, want %v", path, got, want))
			return
		}
		for i := range w {
			diff(fmt.Sprintf("%s/%d", path, i), w[i], g[i], out)
		}
	default:
		if !reflect.DeepEqual(want, got) {
			*out = append(*out, fmt.Sprintf("%s: got %v, want %v", path, got, want))
		}
	}
}

// TestToolSchemasMatchContract: every tool's published input and output
// schema is the contract's, field by field (with its $refs inlined and the
// relative $id dropped); the embedded resource schemas are the contract's
// too. A change to either side fails here.
func TestToolSchemasMatchContract(t *testing.T) {
	set := contractSchemas(t)
	f := newFixture(t, "")
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range []string{ToolListThreads, ToolGetThread, ToolSearchInbox, ToolTriageMessage, ToolExtract, ToolDraftReply, ToolSendReply} {
		tl := tools[name]
		if tl == nil {
			t.Errorf("tool %s not listed", name)
			continue
		}
		for _, io := range []struct {
			kind string
			got  any
		}{{"input", tl.InputSchema}, {"output", tl.OutputSchema}} {
			want, err := Inline(set, "neuralmail/tools/"+name+"."+io.kind+".json")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(io.got)
			var got any
			_ = json.Unmarshal(b, &got)
			var d []string
			diff("", any(want), got, &d)
			if len(d) > 0 {
				t.Errorf("%s %s schema drifted from the contract:\n%s", name, io.kind, strings.Join(d, "\n"))
			}
		}
	}
	// The raw embedded schemas are the contract's blocks.
	emb, err := loadSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range set {
		var d []string
		diff("", any(want), any(emb.raw[id]), &d)
		if len(d) > 0 {
			t.Errorf("embedded %s drifted:\n%s", id, strings.Join(d, "\n"))
		}
	}
	if len(tools) != 8 || tools[ToolTriageEmail] == nil {
		t.Errorf("tools = %d, want the contract's 7 and triage_email", len(tools))
	}
}

// TestToolAnnotations: read tools say readOnlyHint; send_reply says
// destructiveHint and openWorldHint.
func TestToolAnnotations(t *testing.T) {
	f := newFixture(t, "")
	res, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		a := tl.Annotations
		if a == nil {
			t.Errorf("%s has no annotations", tl.Name)
			continue
		}
		switch tl.Name {
		case ToolSendReply:
			if a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
				t.Errorf("send_reply annotations = %+v, want destructive and open world", a)
			}
		case ToolDraftReply:
			if a.ReadOnlyHint {
				t.Errorf("draft_reply_with_policy saves a draft; it is not read-only")
			}
		default:
			if !a.ReadOnlyHint {
				t.Errorf("%s: readOnlyHint = false, want true", tl.Name)
			}
		}
	}
}
