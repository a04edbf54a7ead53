package main

import (
	"errors"
	"fmt"
	"strings"

	"mailsift/internal/termsafe"
)

// exitError is a command's failure with an exit status other than 1, or one
// whose message was already printed (err nil). Commands return errors; run
// prints them and maps them to exit codes in one place (exitCode).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitWith ends a command with code, printing nothing more: what went wrong
// (usage after a bad flag, a report with its failures) is on screen already.
func exitWith(code int) error { return &exitError{code: code} }

// usageErrorf is a usage error: printed, exit status 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// exitCode prints err, if any, as "mailsift NAME: err" (one line per joined
// error) and returns the exit status: 0 success, 1 failure, 2 usage error or a
// command that is not built yet.
func (g *globals) exitCode(name string, err error) int {
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	prefix := "mailsift: "
	if name != "" {
		prefix = "mailsift " + name + ": "
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			fmt.Fprintf(g.Stderr, "%s%s\n", prefix, errorText(e))
		}
		return code
	}
	fmt.Fprintf(g.Stderr, "%s%s\n", prefix, errorText(err))
	return code
}

// errorText is err's message made safe for the terminal: errors carry text
// from servers and mail (a STARTTLS refusal, a mailbox name), so escape
// sequences, controls and bidi overrides are removed (termsafe), and the
// lines after the first are indented so that none passes for a line of
// mailsift's own.
func errorText(err error) string {
	s := strings.TrimRight(termsafe.Sanitize(err.Error()), "\n")
	return strings.ReplaceAll(s, "\n", "\n  ")
}
