package drafts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"mailsift/model"
	"mailsift/store"
)

// This file holds new messages (compose) and the attachments of drafts;
// forward.go builds forwards. Both go through the same SaveDraft → Approve
// → Confirm → outbox path as replies.

// Draft sources of new messages (Draft.Source).
const (
	SourceCompose = "compose"
	SourceForward = "forward"
)

// MaxAttachmentBytes bounds one attached file and the attachments of one
// draft together: most mail servers refuse messages over 25 MB, and a
// base64 attachment grows by a third on the wire.
const MaxAttachmentBytes = 18 << 20

// Attachment is a file attached to a draft (stored by the store package).
type Attachment = store.DraftAttachment

// NewMessage creates and saves an empty new message (no thread) from the
// account's identity ("" = the default account).
func (e *Engine) NewMessage(ctx context.Context, accountName string) (*Draft, error) {
	d := &Draft{Account: accountName, From: e.from(accountName), Source: SourceCompose, NeedsApproval: true}
	if err := e.st.SaveDraft(ctx, d); err != nil {
		return nil, fmt.Errorf("drafts: new message: %w", err)
	}
	return d, nil
}

// ResumeNewMessage returns the most recently updated open new message
// (compose or forward, resumed = true), so pressing c again continues an
// unsent one, or creates an empty one.
func (e *Engine) ResumeNewMessage(ctx context.Context, accountName string) (d *Draft, resumed bool, err error) {
	open, err := e.st.Drafts(ctx, 0, store.DraftOpen)
	if err != nil {
		return nil, false, fmt.Errorf("drafts: %w", err)
	}
	for i := range open {
		if open[i].ThreadID == 0 && (open[i].Source == SourceCompose || open[i].Source == SourceForward) {
			return &open[i], true, nil
		}
	}
	d, err = e.NewMessage(ctx, accountName)
	return d, false, err
}

// from is the sender identity of an account (default: the principal).
func (e *Engine) from(accountName string) model.Address {
	if a, err := e.account(accountName); err == nil && a.From.Email != "" {
		return a.From
	}
	return e.opt.Principal
}

// SaveNewMessage stores an edited new message (autosave), recomputing its
// risk flags: a new message has no thread, so only its own text and
// attachments count.
func (e *Engine) SaveNewMessage(ctx context.Context, d *Draft) error {
	atts, err := e.st.DraftAttachments(ctx, d.ID)
	if err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	var flags []string
	for _, f := range RiskFlags(d, nil, nil) {
		if f == RiskAttachmentMissing && len(atts) > 0 {
			continue
		}
		flags = append(flags, f)
	}
	d.RiskFlags = flags
	if err := e.st.SaveDraft(ctx, d); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	return nil
}

// Attachments lists a draft's attachments.
func (e *Engine) Attachments(ctx context.Context, draftID string) ([]Attachment, error) {
	atts, err := e.st.DraftAttachments(ctx, draftID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	return atts, nil
}

// RemoveAttachment removes one attachment of an open draft.
func (e *Engine) RemoveAttachment(ctx context.Context, draftID string, id int64) error {
	if err := e.st.RemoveDraftAttachment(ctx, draftID, id); err != nil {
		return fmt.Errorf("drafts: %w", err)
	}
	return nil
}

// AttachFile copies the file at path into the draft. The path may start
// with ~/ (the home directory). A path that does not exist, a directory, a
// device, a file name that is not UTF-8 or a file that would make the
// attachments larger than MaxAttachmentBytes is refused with an error
// saying what to do; the draft is then unchanged.
func (e *Engine) AttachFile(ctx context.Context, draftID, path string) (*Attachment, error) {
	p, err := ExpandPath(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(p)
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("attach %q: the file name is not valid UTF-8, so it cannot be named in the message; rename the file (e.g. mv it to an ASCII name) and attach it again", strings.ToValidUTF8(p, "?"))
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("attach %s: no such file; check the path (tab completes it)", p)
	case err != nil:
		return nil, fmt.Errorf("attach %s: %w", p, err)
	case fi.IsDir():
		return nil, fmt.Errorf("attach %s: is a directory; attach the files in it one by one (or an archive of it)", p)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("attach %s: not a regular file (%s); only files can be attached", p, fi.Mode().Type())
	}
	have, err := e.st.DraftAttachments(ctx, draftID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	var used int64
	for _, a := range have {
		used += int64(len(a.Data))
	}
	if fi.Size()+used > MaxAttachmentBytes {
		return nil, fmt.Errorf("attach %s: %s would make the attachments %s; mailsift sends at most %s of attachments (servers refuse larger mail): share a link to it instead",
			p, humanBytes(fi.Size()), humanBytes(fi.Size()+used), humanBytes(MaxAttachmentBytes))
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", p, err)
	}
	defer f.Close()
	// Read at most one byte past the limit: a file that grew since the
	// Stat is refused rather than read whole.
	data, err := io.ReadAll(io.LimitReader(f, MaxAttachmentBytes-used+1))
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", p, err)
	}
	if int64(len(data))+used > MaxAttachmentBytes {
		return nil, fmt.Errorf("attach %s: the file grew past %s while it was read; attach a smaller file", p, humanBytes(MaxAttachmentBytes))
	}
	a := &Attachment{DraftID: draftID, Filename: cleanFilename(name), ContentType: contentTypeOf(name, data), Data: data}
	if err := e.st.AddDraftAttachment(ctx, a); err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	return a, nil
}

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
		m := model.Address{Name: oneLine(a.Name), Email: a.Address}
		if _, err := asciiAddress(m); err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		out = append(out, m)
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

// humanBytes writes a size for messages: 512 B, 3.4 KB, 18.0 MB.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}
