package model

// PartKind says what a block of a message body is, so the UI can fold
// quotes and signatures and triage can skip them.
type PartKind int

// Body part kinds.
const (
	// PartText is the author's own text.
	PartText PartKind = iota
	// PartQuote is quoted earlier mail ("> " lines, "On ... wrote:",
	// Outlook "Original Message" blocks).
	PartQuote
	// PartSignature is a signature ("-- " to the end, "Sent from my iPhone").
	PartSignature
	// PartForward is a forwarded message included in the body.
	PartForward
)

// String names the kind for logs and tests.
func (k PartKind) String() string {
	switch k {
	case PartText:
		return "text"
	case PartQuote:
		return "quote"
	case PartSignature:
		return "signature"
	case PartForward:
		return "forward"
	}
	return "unknown"
}

// BodyPart is one block of a message body.
type BodyPart struct {
	Kind PartKind
	Text string
}
