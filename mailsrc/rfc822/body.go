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

// SplitBody splits a plain-text body into the author's text, quoted
// mail, signatures and forwarded messages. Joining the parts' Text with
// "\n" gives the input back (with CRLF normalised to LF).
func SplitBody(text string) []model.BodyPart {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	kinds := make([]model.PartKind, len(lines))

	rest := model.PartText // kind applied to lines up to the next marker
	toEnd := false         // an Outlook or forward block runs to the end
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
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
		case isAttribution(lines, i):
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
			if strings.TrimSpace(ln) == "" && i > 0 && kinds[i-1] == model.PartQuote && nextNonBlankQuoted(lines, i) {
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
// wrapped line and blank lines).
func isAttribution(lines []string, i int) bool {
	ln := strings.TrimSpace(lines[i])
	if ln == "" || len(ln) > 300 {
		return false
	}
	joined := ln
	if !attributionRe.MatchString(joined) {
		if i+1 >= len(lines) {
			return false
		}
		joined = ln + " " + strings.TrimSpace(lines[i+1])
		if !attributionRe.MatchString(joined) || !strings.HasPrefix(strings.ToLower(ln), "on ") && !strings.HasPrefix(strings.ToLower(ln), "le ") {
			return false
		}
		return nextNonBlankQuoted(lines, i+2) || i+2 >= len(lines)
	}
	return nextNonBlankQuoted(lines, i+1) || i+1 >= len(lines)
}

func nextNonBlankQuoted(lines []string, i int) bool {
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			continue
		}
		return strings.HasPrefix(lines[i], ">")
	}
	return false
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
