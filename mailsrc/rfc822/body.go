package rfc822

import (
	"regexp"
	"strings"

	"mailsift/model"
)

var (
	// attribution lines introducing a quote, in the languages mail
	// clients commonly produce.
	attributionRe = regexp.MustCompile(`(?i)^(on\b.*\bwrote:?|le\b.*\ba écrit\s*:?|am\b.*\bschrieb.*:|el\b.*\bescribió:?|il\b.*\bha scritto:?|op\b.*\bschreef.*:|.*\bwrote:)\s*$`)
	// outlookRe marks the start of an Outlook-style quoted original.
	outlookRe = regexp.MustCompile(`(?i)^\s*-{2,}\s*(original message|message d'origine|ursprüngliche nachricht|mensaje original)\s*-{2,}\s*$`)
	// forwardRe marks a forwarded message block.
	forwardRe = regexp.MustCompile(`(?i)^\s*-{2,}\s*(forwarded message|message transféré|weitergeleitete nachricht|begin forwarded message)\s*-{0,}\s*:?\s*$|^\s*begin forwarded message:\s*$`)
	// mobileSigRe matches one-line mobile signatures.
	mobileSigRe = regexp.MustCompile(`(?i)^\s*(sent from my \w+|sent from (outlook|yahoo mail|mail) for \w+|get outlook for \w+|envoyé de mon \w+|von meinem \w+ gesendet)\b.*$`)
	// outlookHeaderRe matches the "From: X" line of an Outlook quote
	// header block without a separator line.
	outlookHeaderRe = regexp.MustCompile(`(?i)^\s*\*?(from|de|von):\*?\s+\S`)
	outlookSentRe   = regexp.MustCompile(`(?i)^\s*\*?(sent|date|envoyé|gesendet):\*?\s+\S`)
)

// MaxSplitBytes bounds the text SplitBody classifies. A longer body is
// cut at the last line break before the bound; the rest is kept as one
// model.PartText part (so StripQuotes keeps it as the author's text), and
// the parts still join back to the whole input.
const MaxSplitBytes = 1 << 20

// SplitBody splits a plain-text body into the author's text, quoted
// mail, signatures and forwarded messages. Joining the parts' Text with
// "\n" gives the input back (with CRLF normalised to LF). It makes one
// pass over the lines; only the first MaxSplitBytes are classified.
func SplitBody(text string) []model.BodyPart {
	return splitBody(text, nil)
}

// splitBody is SplitBody; steps, when not nil, counts the lines visited
// (tests bound the work with it).
func splitBody(text string, steps *int) []model.BodyPart {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	rest, cut := "", false
	if len(text) > MaxSplitBytes {
		i := strings.LastIndexByte(text[:MaxSplitBytes], '\n')
		if i < 0 {
			// One huge first line: nothing worth classifying.
			return []model.BodyPart{{Kind: model.PartText, Text: text}}
		}
		text, rest, cut = text[:i], text[i+1:], true
	}
	parts := classify(strings.Split(text, "\n"), steps)
	if cut {
		if last := &parts[len(parts)-1]; last.Kind == model.PartText {
			last.Text += "\n" + rest
		} else {
			parts = append(parts, model.BodyPart{Kind: model.PartText, Text: rest})
		}
	}
	return parts
}

// classify gives each line a kind and groups runs of one kind into parts.
func classify(lines []string, steps *int) []model.BodyPart {
	kinds := make([]model.PartKind, len(lines))
	// next[i] is the index of the first non-blank line at or after i
	// (len(lines) if none), filled in one backward pass, so asking "is
	// the next non-blank line quoted?" costs O(1), not a scan per line.
	next := make([]int, len(lines)+1)
	next[len(lines)] = len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		count(steps)
		if strings.TrimSpace(lines[i]) == "" {
			next[i] = next[i+1]
		} else {
			next[i] = i
		}
	}
	quotedFrom := func(i int) bool {
		if i >= len(lines) {
			return false
		}
		j := next[i]
		return j < len(lines) && strings.HasPrefix(lines[j], ">")
	}

	rest := model.PartText // kind applied to lines up to the next marker
	toEnd := false         // an Outlook or forward block runs to the end
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		count(steps)
		if toEnd {
			kinds[i] = rest
			continue
		}
		trimmed := strings.TrimRight(ln, " \t")
		switch {
		case forwardRe.MatchString(ln):
			rest, toEnd = model.PartForward, true
		case outlookRe.MatchString(ln):
			rest, toEnd = model.PartQuote, true
		case outlookHeaderRe.MatchString(ln) && i+1 < len(lines) && outlookSentRe.MatchString(lines[i+1]) && i > 0:
			rest, toEnd = model.PartQuote, true
		case strings.HasPrefix(ln, ">"):
			kinds[i] = model.PartQuote
			// Blank lines inside a quote stay with the quote.
			continue
		case isAttribution(lines, i, quotedFrom):
			kinds[i] = model.PartQuote
			if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], ">") && strings.TrimSpace(lines[i+1]) != "" {
				// Attribution wrapped over two lines.
				i++
				kinds[i] = model.PartQuote
			}
			continue
		case trimmed == "--":
			rest = model.PartSignature
		case mobileSigRe.MatchString(ln) && rest == model.PartText:
			rest = model.PartSignature
		case rest == model.PartSignature:
		default:
			if strings.TrimSpace(ln) == "" && i > 0 && kinds[i-1] == model.PartQuote && quotedFrom(i) {
				kinds[i] = model.PartQuote
				continue
			}
		}
		kinds[i] = rest
	}

	var parts []model.BodyPart
	start := 0
	for i := 1; i <= len(lines); i++ {
		if i == len(lines) || kinds[i] != kinds[start] {
			parts = append(parts, model.BodyPart{Kind: kinds[start], Text: strings.Join(lines[start:i], "\n")})
			start = i
		}
	}
	return parts
}

// isAttribution reports whether lines[i] introduces a quote: it matches
// an attribution pattern and quoted lines follow (possibly after one
// wrapped line and blank lines). quotedFrom(j) reports whether the first
// non-blank line at or after j is quoted.
func isAttribution(lines []string, i int, quotedFrom func(int) bool) bool {
	ln := strings.TrimSpace(lines[i])
	if ln == "" || len(ln) > 300 {
		return false
	}
	if attributionRe.MatchString(ln) {
		return quotedFrom(i+1) || i+1 >= len(lines)
	}
	if i+1 >= len(lines) {
		return false
	}
	lower := strings.ToLower(ln)
	if !strings.HasPrefix(lower, "on ") && !strings.HasPrefix(lower, "le ") {
		return false
	}
	next := strings.TrimSpace(lines[i+1])
	if len(next) > 300 || !attributionRe.MatchString(ln+" "+next) {
		return false
	}
	return quotedFrom(i+2) || i+2 >= len(lines)
}

// StripQuotes returns only the author's own text of a body (PartText
// parts), without quotes, signatures or forwarded messages.
func StripQuotes(text string) string {
	var sb strings.Builder
	for _, p := range SplitBody(text) {
		if p.Kind != model.PartText {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(p.Text)
	}
	return strings.TrimSpace(sb.String())
}

func count(steps *int) {
	if steps != nil {
		*steps++
	}
}
