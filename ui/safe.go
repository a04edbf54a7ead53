package ui

import "mailsift/internal/termsafe"

// Sanitize makes a string taken from mail safe to draw on a terminal; see
// termsafe.Sanitize. Every string from mail (names, subjects, bodies,
// filenames, snippets) passes through Sanitize or SanitizeLine before the UI
// draws it.
func Sanitize(s string) string { return termsafe.Sanitize(s) }

// SanitizeLine is Sanitize for single-line fields (names, subjects,
// filenames): line breaks and runs of blanks become one space.
func SanitizeLine(s string) string { return termsafe.SanitizeLine(s) }
