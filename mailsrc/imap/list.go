package imap

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/model"
)

// mailboxInfo is one mailbox to sync.
type mailboxInfo struct {
	name  string
	delim rune
	role  model.Role
	// view: the folder shows messages that live in other folders too
	// (\All, \Flagged, \Important: Gmail's All Mail, Starred and
	// Important labels, or a virtual folder). Its new messages come as
	// envelopes first, so that copies stored already are linked
	// instead of fetched again.
	view bool
}

// listMailboxes lists the selectable mailboxes to sync, INBOX first, and
// every name LIST returned (selectable or not, INBOX spelled "INBOX").
func (s *Source) listMailboxes(c *conn) ([]mailboxInfo, map[string]bool, error) {
	opts := &imap.ListOptions{}
	rev2 := c.has(imap.CapIMAP4rev2)
	if c.has(imap.CapSpecialUse) || rev2 {
		opts.ReturnSpecialUse = true
	}
	if c.has(imap.CapListExtended) || rev2 {
		opts.ReturnSubscribed = true
	}
	list, err := c.c.List("", "*", opts).Collect()
	if err != nil {
		return nil, nil, fmt.Errorf("imap: list mailboxes: %w", err)
	}
	listed := make(map[string]bool, len(list))
	var all, subscribed []mailboxInfo
	for _, l := range list {
		if strings.EqualFold(l.Mailbox, "INBOX") {
			listed["INBOX"] = true
		} else {
			listed[l.Mailbox] = true
		}
		noSelect, sub := false, false
		for _, a := range l.Attrs {
			switch strings.ToLower(string(a)) {
			case `\noselect`, `\nonexistent`:
				noSelect = true
			case `\subscribed`:
				sub = true
			}
		}
		if noSelect {
			continue
		}
		mb := mailboxInfo{name: l.Mailbox, delim: l.Delim, role: roleFromList(l.Mailbox, l.Delim, l.Attrs)}
		mb.view = mb.role == model.RoleAll || hasAttr(l.Attrs, imap.MailboxAttrFlagged) || hasAttr(l.Attrs, imap.MailboxAttrImportant)
		all = append(all, mb)
		if sub || mb.role == model.RoleInbox {
			subscribed = append(subscribed, mb)
		}
	}
	chosen := all
	switch {
	case len(s.cfg.Folders) > 0:
		chosen = nil
		for _, want := range s.cfg.Folders {
			found := false
			for _, mb := range all {
				if mb.name == want || (strings.EqualFold(want, "INBOX") && mb.role == model.RoleInbox) {
					chosen = append(chosen, mb)
					found = true
					break
				}
			}
			if !found {
				s.log.Warn("configured folder not on server", "mailbox", want)
			}
		}
	case len(subscribed) > 1 || (len(subscribed) == 1 && subscribed[0].role != model.RoleInbox):
		chosen = subscribed
	}
	sort.SliceStable(chosen, func(i, j int) bool {
		ii, jj := chosen[i].role == model.RoleInbox, chosen[j].role == model.RoleInbox
		if ii != jj {
			return ii
		}
		return chosen[i].name < chosen[j].name
	})
	return chosen, listed, nil
}

// unselect leaves the selected mailbox: servers (Dovecot) answer STATUS
// for the selected mailbox from the session's possibly stale view.
func (s *Source) unselect(c *conn) error {
	if c.selected == "" {
		return nil
	}
	var err error
	if c.has(imap.CapUnselect) || c.has(imap.CapIMAP4rev2) {
		err = c.c.Unselect().Wait()
	} else {
		err = c.c.Noop().Wait()
	}
	c.selected = ""
	if err != nil && !isServerError(err) {
		return fmt.Errorf("imap: unselect: %w", err)
	}
	return nil
}

// statuses asks STATUS for every mailbox, pipelined, when the server has
// CONDSTORE (without it STATUS cannot tell that nothing changed). Errors
// just leave a mailbox out: it is then fully checked.
func (s *Source) statuses(c *conn, boxes []mailboxInfo) map[string]*imap.StatusData {
	if !c.hasCondStore() {
		return nil
	}
	opts := &imap.StatusOptions{NumMessages: true, UIDNext: true, UIDValidity: true, HighestModSeq: true}
	cmds := make([]*imapclient.StatusCommand, len(boxes))
	for i, mb := range boxes {
		cmds[i] = c.c.Status(mb.name, opts)
	}
	out := make(map[string]*imap.StatusData, len(boxes))
	for i, cmd := range cmds {
		if data, err := cmd.Wait(); err == nil {
			out[boxes[i].name] = data
		}
	}
	return out
}

// allUIDs is the UID set 1:*.
var allUIDs = imap.UIDSet{{Start: 1, Stop: 0}}

func (s *Source) searchAll(c *conn, name string) ([]imap.UID, error) {
	data, err := c.c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
	if err != nil {
		return nil, fmt.Errorf("imap: search %q: %w", name, err)
	}
	uids := data.AllUIDs()
	slices.Sort(uids)
	return uids, nil
}
