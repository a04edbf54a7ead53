// Package compose reads what a user types on the compose screen: recipient
// lists ("Dana <dana@example.com>, bob@example.org") and file paths to
// attach (with ~ and shell-like completion). It checks syntax only; the
// drafts package checks that an address can be sent to.
package compose

import (
	"errors"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"mailsift/model"
)

// ExpandPath makes a typed path absolute: ~ and ~/ name the home
// directory, a relative path is taken from the working directory.
func ExpandPath(path string) (string, error) {
	p := strings.TrimSpace(path)
	if p == "" {
		return "", errors.New("attach: type the path of a file")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("attach %s: no home directory: %w", p, err)
		}
		p = filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("attach %s: %w", p, err)
	}
	return abs, nil
}

// CompletePath completes a typed path like a shell: the longest common
// extension of the names that start with it, and the matches (directories
// end in /). Hidden files are offered only when the typed name starts with
// a dot.
func CompletePath(typed string) (completed string, matches []string) {
	dir, prefix := filepath.Split(typed)
	lookIn := dir
	if lookIn == "" {
		lookIn = "."
	}
	if exp, err := ExpandPath(lookIn); err == nil {
		lookIn = exp
	}
	entries, err := os.ReadDir(lookIn)
	if err != nil {
		return typed, nil
	}
	for _, en := range entries {
		n := en.Name()
		if !strings.HasPrefix(n, prefix) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		if en.IsDir() {
			n += "/"
		} else if en.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(lookIn, n)); err == nil && fi.IsDir() {
				n += "/"
			}
		}
		matches = append(matches, n)
	}
	if len(matches) == 0 {
		return typed, nil
	}
	common := matches[0]
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m, common) {
			common = common[:len(common)-1]
		}
	}
	return dir + common, matches
}

// ParseAddresses reads a typed recipient list ("Dana <dana@example.com>,
// bob@example.org"). An empty list is no addresses. Each address must be
// a mail address mailsift can send to; the error names the bad one.
func ParseAddresses(field, s string) ([]model.Address, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ","))
	if s == "" {
		return nil, nil
	}
	list, err := mail.ParseAddressList(s)
	if err != nil {
		// Name the first part that does not parse alone.
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			if _, perr := mail.ParseAddress(part); perr != nil {
				return nil, fmt.Errorf("%s: %q is not a mail address; write it as name@example.com or Name <name@example.com>, separated by commas", field, cleanLine(truncateRunes(part, 60)))
			}
		}
		return nil, fmt.Errorf("%s: %q is not a list of mail addresses (%v); separate addresses with commas", field, cleanLine(truncateRunes(s, 60)), err)
	}
	out := make([]model.Address, 0, len(list))
	for _, a := range list {
		out = append(out, model.Address{Name: oneLine(a.Name), Email: a.Address})
	}
	return out, nil
}

// FormatAddresses writes addresses back as ParseAddresses reads them.
func FormatAddresses(as []model.Address) string {
	parts := make([]string, 0, len(as))
	for _, a := range as {
		if a.Name == "" {
			parts = append(parts, a.Email)
			continue
		}
		name := a.Name
		if strings.ContainsAny(name, ",<>\"@;:()[]\\") {
			name = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(name) + `"`
		}
		parts = append(parts, name+" <"+a.Email+">")
	}
	return strings.Join(parts, ", ")
}

// cleanLine removes control and format characters from a one-line string.
func cleanLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}

// oneLine makes a display name one line: line breaks and tabs become
// spaces, controls are dropped, runs of spaces become one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(cleanLine(strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(s))), " ")
}

// truncateRunes cuts s after n runes, for quoting in error messages.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
