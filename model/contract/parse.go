package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ValidationError reports an off-contract triage payload. Path is the JSON
// path of the offending field ("payload.messages[1].from.email"; "$" is the
// document root of a request or response, "result" the root of a bare
// result) and Msg says what is wrong with it.
type ValidationError struct {
	Path string
	Msg  string
}

// Error returns "path: msg".
func (e *ValidationError) Error() string { return e.Path + ": " + e.Msg }

func verr(path, format string, args ...any) *ValidationError {
	return &ValidationError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// maxDepth bounds JSON nesting; the contract itself nests five levels deep.
const maxDepth = 32

const (
	rootPath   = "$"
	resultRoot = "result"
)

type jkind int

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jObject
	jArray
)

// String names the JSON type as error messages spell it.
func (k jkind) String() string {
	switch k {
	case jNull:
		return "null"
	case jBool:
		return "boolean"
	case jNumber:
		return "number"
	case jString:
		return "string"
	case jObject:
		return "object"
	}
	return "array"
}

// jnode is one JSON value with object member order preserved.
type jnode struct {
	kind  jkind
	str   string
	b     bool
	keys  []string // object member names, in document order
	vals  []*jnode // object member values, parallel to keys
	items []*jnode // array elements
}

func (n *jnode) get(key string) (*jnode, bool) {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i], true
		}
	}
	return nil, false
}

// childPath appends an object member name to path, quoting names that are
// not plain identifiers so hostile keys cannot smuggle control characters
// into error messages.
func childPath(path, key string) string {
	plain := key != ""
	for i, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return fmt.Sprintf("%s[%q]", path, key)
	case path == rootPath:
		return key
	default:
		return path + "." + key
	}
}

func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// parseTree decodes exactly one JSON value, rejecting duplicate keys,
// excessive nesting and anything after the value.
func parseTree(data []byte, root string) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readValue(dec, root, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, verr(root, "trailing data after the JSON value")
	}
	return n, nil
}

func tokenErr(path string, err error) error {
	if errors.Is(err, io.EOF) {
		return verr(path, "unexpected end of JSON input")
	}
	return verr(path, "invalid JSON: %v", err)
}

func readValue(dec *json.Decoder, path string, depth int) (*jnode, error) {
	if depth > maxDepth {
		return nil, verr(path, "nesting deeper than %d levels", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, tokenErr(path, err)
	}
	switch t := tok.(type) {
	case nil:
		return &jnode{kind: jNull}, nil
	case bool:
		return &jnode{kind: jBool, b: t}, nil
	case json.Number:
		return &jnode{kind: jNumber, str: t.String()}, nil
	case string:
		return &jnode{kind: jString, str: t}, nil
	case json.Delim:
		switch t {
		case '{':
			n := &jnode{kind: jObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, tokenErr(path, err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, verr(path, "invalid JSON: object key is not a string")
				}
				cp := childPath(path, key)
				if _, dup := n.get(key); dup {
					return nil, verr(cp, "duplicate key")
				}
				v, err := readValue(dec, cp, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, tokenErr(path, err)
			}
			return n, nil
		case '[':
			n := &jnode{kind: jArray}
			for dec.More() {
				v, err := readValue(dec, indexPath(path, len(n.items)), depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, tokenErr(path, err)
			}
			return n, nil
		}
	}
	return nil, verr(path, "invalid JSON: unexpected %v", tok)
}

// object checks that n is an object whose members are all in allowed.
func object(n *jnode, path string, allowed ...string) error {
	if n.kind != jObject {
		return typeErr(n, path, jObject)
	}
	for _, k := range n.keys {
		known := false
		for _, a := range allowed {
			if k == a {
				known = true
				break
			}
		}
		if !known {
			return verr(childPath(path, k), "unknown field (not in triage contract v%s)", SchemaVersion)
		}
	}
	return nil
}

func typeErr(n *jnode, path string, want jkind) error {
	return verr(path, "want %s, got %s", want, n.kind)
}

// required returns member key of object n or a "missing" error.
func required(n *jnode, path, key string) (*jnode, error) {
	v, ok := n.get(key)
	if !ok {
		return nil, verr(childPath(path, key), "required field is missing")
	}
	return v, nil
}

func asString(n *jnode, path string) (string, error) {
	if n.kind != jString {
		return "", typeErr(n, path, jString)
	}
	return n.str, nil
}

func asNullableString(n *jnode, path string) (*string, error) {
	if n.kind == jNull {
		return nil, nil
	}
	s, err := asString(n, path)
	if err != nil {
		return nil, verr(path, "want string or null, got %s", n.kind)
	}
	return &s, nil
}

func asBool(n *jnode, path string) (bool, error) {
	if n.kind != jBool {
		return false, typeErr(n, path, jBool)
	}
	return n.b, nil
}

func asArray(n *jnode, path string) ([]*jnode, error) {
	if n.kind != jArray {
		return nil, typeErr(n, path, jArray)
	}
	return n.items, nil
}

// reqString reads a required string member.
func reqString(n *jnode, path, key string) (string, error) {
	v, err := required(n, path, key)
	if err != nil {
		return "", err
	}
	return asString(v, childPath(path, key))
}

// optNullableString reads an optional member that may be a string or null.
func optNullableString(n *jnode, path, key string) (*string, error) {
	v, ok := n.get(key)
	if !ok {
		return nil, nil
	}
	return asNullableString(v, childPath(path, key))
}

// emailProblem returns why s is not an acceptable address, or "".
// The contract demands an "@" and a dotted domain; in addition spaces and
// control characters are refused because addresses end up in mail headers.
func emailProblem(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return `no "@"`
	}
	for _, c := range []byte(s) {
		if c <= 0x20 || c == 0x7f {
			return "contains a space or control character"
		}
	}
	if at == 0 {
		return `nothing before "@"`
	}
	domain := s[at+1:]
	labels := strings.Split(domain, ".")
	ok := len(labels) >= 2
	for _, l := range labels {
		if l == "" {
			ok = false
		}
	}
	if !ok {
		return fmt.Sprintf("domain %q is not dotted (want e.g. example.com)", domain)
	}
	return ""
}

func parseAddress(n *jnode, path string) (Address, error) {
	var a Address
	if err := object(n, path, "name", "email"); err != nil {
		return a, err
	}
	var err error
	if a.Name, err = optNullableString(n, path, "name"); err != nil {
		return a, err
	}
	if a.Email, err = reqString(n, path, "email"); err != nil {
		return a, err
	}
	if p := emailProblem(a.Email); p != "" {
		return a, verr(childPath(path, "email"), "%s", p)
	}
	return a, nil
}

func parseAddressList(n *jnode, path string) ([]Address, error) {
	items, err := asArray(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]Address, 0, len(items))
	for i, it := range items {
		a, err := parseAddress(it, indexPath(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// optAddressList reads an optional address list; absent means empty.
func optAddressList(n *jnode, path, key string) ([]Address, error) {
	v, ok := n.get(key)
	if !ok {
		return []Address{}, nil
	}
	return parseAddressList(v, childPath(path, key))
}

func parseMessage(n *jnode, path string) (Message, error) {
	var m Message
	if err := object(n, path, "message_id", "thread_id", "from", "to", "cc", "bcc", "date", "subject", "body"); err != nil {
		return m, err
	}
	var err error
	if m.MessageID, err = reqString(n, path, "message_id"); err != nil {
		return m, err
	}
	if m.ThreadID, err = optNullableString(n, path, "thread_id"); err != nil {
		return m, err
	}
	from, err := required(n, path, "from")
	if err != nil {
		return m, err
	}
	if m.From, err = parseAddress(from, childPath(path, "from")); err != nil {
		return m, err
	}
	if m.To, err = optAddressList(n, path, "to"); err != nil {
		return m, err
	}
	if m.Cc, err = optAddressList(n, path, "cc"); err != nil {
		return m, err
	}
	if m.Bcc, err = optAddressList(n, path, "bcc"); err != nil {
		return m, err
	}
	if m.Date, err = optNullableString(n, path, "date"); err != nil {
		return m, err
	}
	if v, ok := n.get("subject"); ok {
		if m.Subject, err = asString(v, childPath(path, "subject")); err != nil {
			return m, err
		}
	}
	if m.Body, err = reqString(n, path, "body"); err != nil {
		return m, err
	}
	return m, nil
}

func parsePrincipal(n *jnode, path string) (Address, error) {
	p, err := required(n, path, "principal")
	if err != nil {
		return Address{}, err
	}
	return parseAddress(p, childPath(path, "principal"))
}

func parsePayload(n *jnode, path string, req *Request) error {
	if n.kind != jObject {
		return typeErr(n, path, jObject)
	}
	kind, err := reqString(n, path, "kind")
	if err != nil {
		return err
	}
	switch kind {
	case KindSingle:
		if err := object(n, path, "kind", "principal", "message"); err != nil {
			return err
		}
		in := &SingleInput{Kind: KindSingle}
		if in.Principal, err = parsePrincipal(n, path); err != nil {
			return err
		}
		msg, err := required(n, path, "message")
		if err != nil {
			return err
		}
		if in.Message, err = parseMessage(msg, childPath(path, "message")); err != nil {
			return err
		}
		req.Single = in
	case KindThread:
		if err := object(n, path, "kind", "principal", "thread_id", "messages"); err != nil {
			return err
		}
		in := &ThreadInput{Kind: KindThread}
		if in.Principal, err = parsePrincipal(n, path); err != nil {
			return err
		}
		if in.ThreadID, err = reqString(n, path, "thread_id"); err != nil {
			return err
		}
		msgs, err := required(n, path, "messages")
		if err != nil {
			return err
		}
		mp := childPath(path, "messages")
		items, err := asArray(msgs, mp)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return verr(mp, "empty thread")
		}
		in.Messages = make([]Message, 0, len(items))
		for i, it := range items {
			m, err := parseMessage(it, indexPath(mp, i))
			if err != nil {
				return err
			}
			in.Messages = append(in.Messages, m)
		}
		req.Thread = in
	default:
		return verr(childPath(path, "kind"), "unknown kind %q", kind)
	}
	return nil
}

func checkVersion(n *jnode, path string) error {
	v, err := asString(n, path)
	if err != nil {
		return err
	}
	if v != SchemaVersion {
		return verr(path, "unsupported version %q (this build speaks %q)", v, SchemaVersion)
	}
	return nil
}

// ParseRequest strictly decodes a triage request. An absent schema_version
// defaults to SchemaVersion; any other version, unknown field, wrong type,
// missing required field, bad address or empty thread is an error of type
// *ValidationError naming the offending JSON path.
func ParseRequest(data []byte) (*Request, error) {
	root, err := parseTree(data, rootPath)
	if err != nil {
		return nil, err
	}
	if err := object(root, rootPath, "schema_version", "payload"); err != nil {
		return nil, err
	}
	req := &Request{SchemaVersion: SchemaVersion}
	if v, ok := root.get("schema_version"); ok {
		if err := checkVersion(v, "schema_version"); err != nil {
			return nil, err
		}
	}
	p, err := required(root, rootPath, "payload")
	if err != nil {
		return nil, err
	}
	if err := parsePayload(p, "payload", req); err != nil {
		return nil, err
	}
	return req, nil
}

func parseActionItem(n *jnode, path string) (ActionItem, error) {
	var a ActionItem
	if err := object(n, path, "description", "due_hint"); err != nil {
		return a, err
	}
	var err error
	if a.Description, err = reqString(n, path, "description"); err != nil {
		return a, err
	}
	if strings.Trim(a.Description, blank) == "" {
		return a, verr(childPath(path, "description"), "empty description")
	}
	if a.DueHint, err = optNullableString(n, path, "due_hint"); err != nil {
		return a, err
	}
	return a, nil
}

// blank is what counts as white space for "non-empty" text fields; the
// schemas express the same rule as a pattern.
const blank = "\t\n\v\f\r "

func parseDraft(n *jnode, path string) (*DraftReply, error) {
	if n.kind == jNull {
		return nil, nil
	}
	if n.kind != jObject {
		return nil, verr(path, "want object or null, got %s", n.kind)
	}
	if err := object(n, path, "to", "subject", "body"); err != nil {
		return nil, err
	}
	d := &DraftReply{}
	to, err := required(n, path, "to")
	if err != nil {
		return nil, err
	}
	tp := childPath(path, "to")
	if d.To, err = parseAddressList(to, tp); err != nil {
		return nil, err
	}
	if len(d.To) == 0 {
		return nil, verr(tp, "empty recipient list")
	}
	if d.Subject, err = reqString(n, path, "subject"); err != nil {
		return nil, err
	}
	if d.Body, err = reqString(n, path, "body"); err != nil {
		return nil, err
	}
	return d, nil
}

func parseResultNode(n *jnode, path string) (*Result, error) {
	if err := object(n, path, "category", "is_spam", "is_phishing", "summary", "action_items", "draft"); err != nil {
		return nil, err
	}
	r := &Result{}
	var err error
	if r.Category, err = reqString(n, path, "category"); err != nil {
		return nil, err
	}
	if !isCategory(r.Category) {
		return nil, verr(childPath(path, "category"), "%q is not one of %s", r.Category, strings.Join(Categories, ", "))
	}
	for _, f := range []struct {
		key string
		dst *bool
	}{{"is_spam", &r.IsSpam}, {"is_phishing", &r.IsPhishing}} {
		v, err := required(n, path, f.key)
		if err != nil {
			return nil, err
		}
		if *f.dst, err = asBool(v, childPath(path, f.key)); err != nil {
			return nil, err
		}
	}
	if r.Summary, err = reqString(n, path, "summary"); err != nil {
		return nil, err
	}
	ai, err := required(n, path, "action_items")
	if err != nil {
		return nil, err
	}
	ap := childPath(path, "action_items")
	items, err := asArray(ai, ap)
	if err != nil {
		return nil, err
	}
	r.ActionItems = make([]ActionItem, 0, len(items))
	for i, it := range items {
		a, err := parseActionItem(it, indexPath(ap, i))
		if err != nil {
			return nil, err
		}
		r.ActionItems = append(r.ActionItems, a)
	}
	d, err := required(n, path, "draft")
	if err != nil {
		return nil, err
	}
	if r.Draft, err = parseDraft(d, childPath(path, "draft")); err != nil {
		return nil, err
	}
	return r, nil
}

func isCategory(c string) bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// ParseResult strictly decodes a bare Result, such as the JSON the
// Ollama model returns for ResultSchema. All six fields are required (draft
// may be null, action_items may be empty). Error paths start at "result".
func ParseResult(data []byte) (*Result, error) {
	root, err := parseTree(data, resultRoot)
	if err != nil {
		return nil, err
	}
	return parseResultNode(root, resultRoot)
}

// ParseResponse strictly decodes a triage response envelope; schema_version
// is required and must equal SchemaVersion.
func ParseResponse(data []byte) (*Response, error) {
	root, err := parseTree(data, rootPath)
	if err != nil {
		return nil, err
	}
	if err := object(root, rootPath, "schema_version", "request_kind", "result"); err != nil {
		return nil, err
	}
	resp := &Response{}
	v, err := required(root, rootPath, "schema_version")
	if err != nil {
		return nil, err
	}
	if err := checkVersion(v, "schema_version"); err != nil {
		return nil, err
	}
	resp.SchemaVersion = SchemaVersion
	if resp.RequestKind, err = reqString(root, rootPath, "request_kind"); err != nil {
		return nil, err
	}
	if resp.RequestKind != KindSingle && resp.RequestKind != KindThread {
		return nil, verr("request_kind", "unknown kind %q", resp.RequestKind)
	}
	rn, err := required(root, rootPath, "result")
	if err != nil {
		return nil, err
	}
	r, err := parseResultNode(rn, resultRoot)
	if err != nil {
		return nil, err
	}
	resp.Result = *r
	return resp, nil
}
