package mcp

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"mailsift/model/contract"
)

// The contract's schemas, copied byte for byte from mcp-contract-v1.md
// (one file per $id: "neuralmail/tools/list_threads.input.json" is
// schemas/tools.list_threads.input.json). The drift test compares what the
// server publishes with the contract document field by field.
//
//go:embed schemas/*.json
var schemaFS embed.FS

// schemaSet holds the contract's schemas by $id, their published (inlined)
// forms and compiled validators.
type schemaSet struct {
	raw       map[string]map[string]any // by $id
	published map[string]json.RawMessage
	compiled  map[string]*jsonschema.Schema
}

// Triage contract ids: triage_email's schemas come from model/contract.
const (
	triageRequestID  = "mailsift/triage/request.json"
	triageResponseID = "mailsift/triage/response.json"
)

func loadSchemas() (*schemaSet, error) {
	s := &schemaSet{raw: map[string]map[string]any{}, published: map[string]json.RawMessage{}, compiled: map[string]*jsonschema.Schema{}}
	ents, err := schemaFS.ReadDir("schemas")
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		b, err := schemaFS.ReadFile(path.Join("schemas", e.Name()))
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("mcp: schema %s: %w", e.Name(), err)
		}
		id, _ := m["$id"].(string)
		if id == "" {
			return nil, fmt.Errorf("mcp: schema %s has no $id", e.Name())
		}
		s.raw[id] = m
	}
	for _, t := range []struct {
		id  string
		src []byte
	}{{triageRequestID, contract.RequestSchema()}, {triageResponseID, contract.ResponseSchema()}} {
		var m map[string]any
		if err := json.Unmarshal(t.src, &m); err != nil {
			return nil, fmt.Errorf("mcp: triage schema: %w", err)
		}
		s.raw[t.id] = m
	}
	ids := make([]string, 0, len(s.raw))
	for id := range s.raw {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		in, err := Inline(s.raw, id)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		s.published[id] = b
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "urn:mailsift:" + id
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("mcp: schema %s: %w", id, err)
		}
		if s.compiled[id], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("mcp: schema %s: %w", id, err)
		}
	}
	return s, nil
}

// Inline returns the schema with the given $id from set with every "$ref"
// replaced by the schema it names (a "#/definitions/x" fragment picks a
// definition) and the relative "$id"s removed: a client receives one
// self-contained schema per tool. Other keywords are kept as written.
func Inline(set map[string]map[string]any, id string) (map[string]any, error) {
	root, ok := set[id]
	if !ok {
		return nil, fmt.Errorf("mcp: no schema %q", id)
	}
	out, err := inlineValue(set, root, 0)
	if err != nil {
		return nil, fmt.Errorf("mcp: schema %s: %w", id, err)
	}
	m := out.(map[string]any)
	delete(m, "$id")
	return m, nil
}

func inlineValue(set map[string]map[string]any, v any, depth int) (any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("$ref nesting too deep")
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && len(x) == 1 {
			target, err := resolveRef(set, ref)
			if err != nil {
				return nil, err
			}
			r, err := inlineValue(set, target, depth+1)
			if err != nil {
				return nil, err
			}
			if m, ok := r.(map[string]any); ok {
				delete(m, "$id")
				delete(m, "$schema")
			}
			return r, nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := inlineValue(set, e, depth)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := inlineValue(set, e, depth)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	default:
		return v, nil
	}
}

func resolveRef(set map[string]map[string]any, ref string) (any, error) {
	doc, frag, _ := strings.Cut(ref, "#")
	root, ok := set[doc]
	if !ok {
		return nil, fmt.Errorf("$ref %q: unknown schema", ref)
	}
	var cur any = root
	for _, p := range strings.Split(strings.Trim(frag, "/"), "/") {
		if p == "" {
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: no %s", ref, p)
		}
		if cur, ok = m[p]; !ok {
			return nil, fmt.Errorf("$ref %q: no %s", ref, p)
		}
	}
	return cur, nil
}

// validate checks v (JSON) against the schema id; the error names the
// JSON path of the first problem.
func (s *schemaSet) validate(id string, data []byte) *Error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &Error{Code: CodeInvalidArgument, Message: "arguments are not JSON: " + err.Error()}
	}
	err = s.compiled[id].Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Error{Code: CodeInvalidArgument, Message: err.Error()}
	}
	path, msg := firstLeaf(ve.BasicOutput())
	if path == "" {
		path = "/"
	}
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: %s", path, msg),
		Details: map[string]any{"path": path, "schema": strings.TrimPrefix(id, "neuralmail/")}}
}

// firstLeaf returns the instance location and message of the deepest,
// first error of a basic output.
func firstLeaf(u *jsonschema.OutputUnit) (string, string) {
	path, msg := u.InstanceLocation, ""
	if u.Error != nil {
		msg = u.Error.String()
	}
	for _, e := range u.Errors {
		if e.Error != nil {
			p, m := e.InstanceLocation, e.Error.String()
			if len(p) >= len(path) || msg == "" {
				path, msg = p, m
			}
		}
	}
	return path, msg
}
