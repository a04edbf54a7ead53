package contract

import (
	"bytes"
	"encoding/json"
)

// The schemas are JSON Schema 2020-12, built from ordered objects so that
// properties appear in contract order (Ollama's grammar follows that order).
//
// RequestSchema and ResponseSchema are full-fidelity: they also carry the
// address pattern and the non-blank action description rule that
// ParseRequest and ParseResponse enforce. ResultSchema is what the Ollama
// triager passes as "format", so it sticks to the keywords Ollama's
// structured output handles (type, properties, required, enum, items,
// additionalProperties, minItems, anyOf, type arrays) and leaves the address
// and description checks to ParseResult. Neither schema can see duplicate
// keys or trailing data; the parsers reject those too.

const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// emailPattern mirrors emailProblem: non-empty local part, last "@", a
// dotted domain of non-empty labels, no spaces or control characters.
const emailPattern = `^[^\x00-\x20\x7f]+@[^\x00-\x20\x7f@.]+(\.[^\x00-\x20\x7f@.]+)+$`

// nonBlankPattern mirrors the "non-empty description" rule (see blank).
const nonBlankPattern = `[^\t\n\v\f\r ]`

type member struct {
	key string
	val any
}

// ordered is a JSON object that marshals its members in order.
type ordered []member

// MarshalJSON writes the members in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func str() ordered { return ordered{{"type", "string"}} }

func nullableStr() ordered { return ordered{{"type", []string{"string", "null"}}} }

func pattern(p string, full bool) ordered {
	s := str()
	if full {
		s = append(s, member{"pattern", p})
	}
	return s
}

func obj(props ordered, required ...string) ordered {
	if required == nil {
		required = []string{}
	}
	return ordered{
		{"type", "object"},
		{"properties", props},
		{"required", required},
		{"additionalProperties", false},
	}
}

func array(items ordered, minItems int) ordered {
	a := ordered{{"type", "array"}, {"items", items}}
	if minItems > 0 {
		a = append(a, member{"minItems", minItems})
	}
	return a
}

func addressSchema(full bool) ordered {
	return obj(ordered{
		{"name", nullableStr()},
		{"email", pattern(emailPattern, full)},
	}, "email")
}

func messageSchema() ordered {
	return obj(ordered{
		{"message_id", str()},
		{"thread_id", nullableStr()},
		{"from", addressSchema(true)},
		{"to", array(addressSchema(true), 0)},
		{"cc", array(addressSchema(true), 0)},
		{"bcc", array(addressSchema(true), 0)},
		{"date", nullableStr()},
		{"subject", str()},
		{"body", str()},
	}, "message_id", "from", "body")
}

func kindSchema(kind string) ordered { return ordered{{"type", "string"}, {"enum", []string{kind}}} }

func versionSchema() ordered { return ordered{{"type", "string"}, {"enum", []string{SchemaVersion}}} }

func requestSchema() ordered {
	single := obj(ordered{
		{"kind", kindSchema(KindSingle)},
		{"principal", addressSchema(true)},
		{"message", messageSchema()},
	}, "kind", "principal", "message")
	thread := obj(ordered{
		{"kind", kindSchema(KindThread)},
		{"principal", addressSchema(true)},
		{"thread_id", str()},
		{"messages", array(messageSchema(), 1)},
	}, "kind", "principal", "thread_id", "messages")
	return append(ordered{
		{"$schema", draft202012},
		{"title", "Request v" + SchemaVersion},
	}, obj(ordered{
		{"schema_version", versionSchema()},
		{"payload", ordered{{"oneOf", []ordered{single, thread}}}},
	}, "payload")...)
}

func resultSchema(full bool) ordered {
	desc := pattern(nonBlankPattern, full)
	draft := obj(ordered{
		{"to", array(addressSchema(full), 1)},
		{"subject", str()},
		{"body", str()},
	}, "to", "subject", "body")
	return obj(ordered{
		{"category", ordered{{"type", "string"}, {"enum", Categories}}},
		{"is_spam", ordered{{"type", "boolean"}}},
		{"is_phishing", ordered{{"type", "boolean"}}},
		{"summary", str()},
		{"action_items", array(obj(ordered{
			{"description", desc},
			{"due_hint", nullableStr()},
		}, "description"), 0)},
		{"draft", ordered{{"anyOf", []ordered{draft, {{"type", "null"}}}}}},
	}, "category", "is_spam", "is_phishing", "summary", "action_items", "draft")
}

func responseSchema() ordered {
	return append(ordered{
		{"$schema", draft202012},
		{"title", "Response v" + SchemaVersion},
	}, obj(ordered{
		{"schema_version", versionSchema()},
		{"request_kind", ordered{{"type", "string"}, {"enum", []string{KindSingle, KindThread}}}},
		{"result", resultSchema(true)},
	}, "schema_version", "request_kind", "result")...)
}

func render(o ordered) []byte {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		// Only strings, bools, ints and ordered values are marshalled.
		panic("model: render schema: " + err.Error())
	}
	return b
}

// RequestSchema returns the JSON Schema (2020-12) of Request.
// Each call returns a fresh slice.
func RequestSchema() []byte { return render(requestSchema()) }

// ResponseSchema returns the JSON Schema (2020-12) of Response.
func ResponseSchema() []byte { return render(responseSchema()) }

// ResultSchema returns the JSON Schema (2020-12) of a bare
// Result, restricted to keywords Ollama's structured output
// supports; pass it as the chat request's format and check the reply with
// ParseResult.
func ResultSchema() []byte {
	return render(append(ordered{
		{"$schema", draft202012},
		{"title", "Result v" + SchemaVersion},
	}, resultSchema(false)...))
}
