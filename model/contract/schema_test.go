package contract

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileSchema(t *testing.T, name string, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return s
}

// schemaAccepts reports whether data is one JSON value valid against s.
func schemaAccepts(s *jsonschema.Schema, data []byte) bool {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return false
	}
	return s.Validate(inst) == nil
}

func schemas(t *testing.T) map[string]*jsonschema.Schema {
	return map[string]*jsonschema.Schema{
		"request":  compileSchema(t, "request.json", RequestSchema()),
		"response": compileSchema(t, "response.json", ResponseSchema()),
		"result":   compileSchema(t, "result.json", ResultSchema()),
	}
}

func TestSchemasAcceptContractExamples(t *testing.T) {
	s := schemas(t)
	for _, tc := range []struct{ schema, file string }{
		{"request", "request_single.json"}, {"request", "request_thread.json"},
		{"response", "response_single.json"}, {"response", "response_thread.json"},
	} {
		data := readTestdata(t, tc.file)
		if !schemaAccepts(s[tc.schema], data) {
			t.Errorf("%s schema rejects %s", tc.schema, tc.file)
		}
		if err := parseAs(tc.schema, string(data)); err != nil {
			t.Errorf("Parse %s(%s) = %v", tc.schema, tc.file, err)
		}
		if tc.schema == "response" {
			var env struct{ Result json.RawMessage }
			if err := json.Unmarshal(data, &env); err != nil {
				t.Fatal(err)
			}
			if !schemaAccepts(s["result"], env.Result) {
				t.Errorf("result schema rejects the result of %s", tc.file)
			}
		}
	}
	// Defaults the parsers apply are allowed by the schema too.
	if min := []byte(tSingle(tAlice, tMsg(""))); !schemaAccepts(s["request"], bytes.Replace(min, []byte(`"schema_version":"1.0",`), nil, 1)) {
		t.Error("request schema demands schema_version")
	}
}

// TestSchemaVerdictMatchesParser: every off-contract payload the schema can
// see is rejected by it too; the schema-blind ones are exactly those marked.
func TestSchemaVerdictMatchesParser(t *testing.T) {
	s := schemas(t)
	for _, tc := range badPayloads() {
		t.Run(tc.name, func(t *testing.T) {
			parserRejects := parseAs(tc.parser, tc.input) != nil
			schemaRejects := !schemaAccepts(s[tc.parser], []byte(tc.input))
			if !parserRejects {
				t.Fatalf("parser accepts %s", tc.input)
			}
			if schemaRejects == tc.schemaBlind {
				t.Errorf("%s schema rejects = %v, want %v for %s", tc.parser, schemaRejects, !tc.schemaBlind, tc.input)
			}
		})
	}
}

func TestSchemaAndParserAgreeOnAddresses(t *testing.T) {
	s := compileSchema(t, "request.json", RequestSchema())
	for _, email := range []string{
		"alice@example.com", "a@b.co", "a@b@example.com", "ünï@exämple.org",
		"", "alice", "@example.com", "alice@", "alice@localhost", "alice@.com", "alice@example.",
		"alice@example..com", "al ice@example.com", "alice@exa\tmple.com", "alice@example.com\r\nBcc: x@y.z", "a\x7f@b.co",
	} {
		principal, _ := json.Marshal(Address{Email: email})
		doc := tSingle(string(principal), tMsg(""))
		parserOK := parseAs("request", doc) == nil
		schemaOK := schemaAccepts(s, []byte(doc))
		if parserOK != schemaOK {
			t.Errorf("email %q: parser accepts = %v, schema accepts = %v", email, parserOK, schemaOK)
		}
	}
}

// TestResultSchemaOllamaKeywords keeps the schema passed to Ollama within
// the keywords its structured output understands.
func TestResultSchemaOllamaKeywords(t *testing.T) {
	allowed := map[string]bool{"$schema": true, "title": true, "type": true, "properties": true, "required": true,
		"enum": true, "items": true, "additionalProperties": true, "minItems": true, "anyOf": true}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if strings.HasSuffix(path, ".properties") {
					walk(path+"."+k, c) // property names, not keywords
					continue
				}
				if !allowed[k] {
					t.Errorf("%s: keyword %q not in the Ollama-safe set", path, k)
				}
				walk(path+"."+k, c)
			}
		case []any:
			for _, c := range v {
				walk(path+"[]", c)
			}
		}
	}
	var doc any
	if err := json.Unmarshal(ResultSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	walk("$", doc)
}

// TestResultSchemaPropertyOrder: Ollama generates fields in schema order;
// keep it the contract's order (category first, draft last).
func TestResultSchemaPropertyOrder(t *testing.T) {
	b := ResultSchema()
	last := -1
	for _, k := range []string{`"category"`, `"is_spam"`, `"is_phishing"`, `"summary"`, `"action_items"`, `"draft"`} {
		i := bytes.Index(b, []byte(k))
		if i < last {
			t.Errorf("property %s out of contract order", k)
		}
		last = i
	}
}

// TestSchemasMatchGoTypes fails when a struct's json fields and the schema
// drift apart: same property names, same JSON types, nullability and
// required lists consistent with the parsers.
func TestSchemasMatchGoTypes(t *testing.T) {
	load := func(b []byte) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	req := load(RequestSchema())
	props := req["properties"].(map[string]any)
	if got := keys(props); !reflect.DeepEqual(got, []string{"payload", "schema_version"}) {
		t.Errorf("request properties = %v", got)
	}
	union := props["payload"].(map[string]any)["oneOf"].([]any)
	if len(union) != 2 {
		t.Fatalf("payload oneOf has %d branches, want 2", len(union))
	}
	checkStruct(t, "payload(single)", reflect.TypeFor[SingleInput](), union[0].(map[string]any))
	checkStruct(t, "payload(thread)", reflect.TypeFor[ThreadInput](), union[1].(map[string]any))
	checkStruct(t, "response", reflect.TypeFor[Response](), load(ResponseSchema()))
	checkStruct(t, "result", reflect.TypeFor[Result](), load(ResultSchema()))
}

func keys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func checkStruct(t *testing.T, path string, typ reflect.Type, schema map[string]any) {
	t.Helper()
	if schema["type"] != "object" || schema["additionalProperties"] != false {
		t.Errorf("%s: want closed object schema, got type %v additionalProperties %v", path, schema["type"], schema["additionalProperties"])
	}
	props, _ := schema["properties"].(map[string]any)
	var names []string
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Errorf("%s.%s: no json name", path, f.Name)
			continue
		}
		names = append(names, name)
		sub, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("%s: field %s (%s) missing from schema", path, name, f.Name)
			continue
		}
		checkType(t, path+"."+name, f.Type, sub)
	}
	slices.Sort(names)
	if got := keys(props); !reflect.DeepEqual(got, names) {
		t.Errorf("%s: schema properties %v, Go json fields %v", path, got, names)
	}
	req, _ := schema["required"].([]any)
	for _, r := range req {
		if _, ok := props[r.(string)]; !ok {
			t.Errorf("%s: required %v is not a property", path, r)
		}
	}
}

func checkType(t *testing.T, path string, typ reflect.Type, schema map[string]any) {
	t.Helper()
	nullable := typ.Kind() == reflect.Pointer
	if nullable {
		typ = typ.Elem()
	}
	if nullable && typ.Kind() == reflect.Struct {
		alts, _ := schema["anyOf"].([]any)
		if len(alts) != 2 || alts[1].(map[string]any)["type"] != "null" {
			t.Errorf("%s: nullable object wants anyOf [object, null], got %v", path, schema)
			return
		}
		checkStruct(t, path, typ, alts[0].(map[string]any))
		return
	}
	var want string
	switch typ.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Bool:
		want = "boolean"
	case reflect.Slice:
		want = "array"
	case reflect.Struct:
		want = "object"
	default:
		t.Errorf("%s: unexpected Go kind %s", path, typ.Kind())
		return
	}
	got := schema["type"]
	if nullable {
		if !reflect.DeepEqual(got, []any{want, "null"}) {
			t.Errorf("%s: type %v, want [%s null]", path, got, want)
		}
		return
	}
	if got != want {
		t.Errorf("%s: type %v, want %s", path, got, want)
	}
	switch want {
	case "array":
		items, _ := schema["items"].(map[string]any)
		checkType(t, path+"[]", typ.Elem(), items)
	case "object":
		checkStruct(t, path, typ, schema)
	}
}
