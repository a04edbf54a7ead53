package drafts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"mailsift/internal/compose"
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

// AccountFrom is the From address messages of the named account carry
// ("" = the default account): the account's own, else the principal. The
// compose screen shows it for each account the user may choose.
func (e *Engine) AccountFrom(accountName string) model.Address { return e.from(accountName) }

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

// ExpandPath makes a typed path absolute (see compose.ExpandPath).
func ExpandPath(path string) (string, error) { return compose.ExpandPath(path) }

// ParseAddresses reads a typed recipient list (compose.ParseAddresses) and
// checks that mailsift can send to each address; the error names the bad one.
func ParseAddresses(field, s string) ([]model.Address, error) {
	as, err := compose.ParseAddresses(field, s)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if _, err := asciiAddress(a); err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
	}
	return as, nil
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
