// Package rfc822 turns raw mail into model types: MIME structure, charsets,
// encoded words, dates and HTML to text (Parse, ParseHeader,
// AttachmentContent), and splits a text body into what was written, quoted
// text and signature (SplitBody, StripQuotes). Sources, triage and the UI use
// it; it knows nothing of where mail comes from or goes.
package rfc822
