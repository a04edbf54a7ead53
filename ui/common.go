package ui

import (
	"context"
	"log/slog"
	"time"

	"github.com/charmbracelet/bubbles/help"

	"mailsift/internal/termsafe"
)

// common is the one value every screen shares: the program's context,
// the body's size, styles, keys, help, clock, logger, and the status
// line's note and error. The root model owns it; children keep a pointer.
type common struct {
	ctx    context.Context
	width  int // the terminal's width
	height int // the body's height: the rows between the title and status lines
	st     styles
	keys   KeyMap
	help   help.Model
	now    func() time.Time
	logger *slog.Logger

	// manualTicks stops the autosave and undo timers (tests that drive
	// Update synchronously deliver those ticks themselves).
	manualTicks bool

	note    string // the status line's note
	errText string // the status line's error, until dismissed

	// overlay is the modal picker or confirmation shown over the screen
	// (ui/bulk.go), nil when none; hidden lists threads an action just
	// took out of the inbox, for the root to drop from the rows at once.
	overlay overlay
	hidden  []int64
	// acting counts inbox actions whose store write has not reported
	// back; inbox reloads read meanwhile are stale.
	acting int

	// next is the screen a child asked for in its last update (to is
	// stateStay: none). The root applies it before the next message, so a
	// key typed next already reaches the new screen.
	next nav
}

// nav is a screen change a child asks the root for.
type nav struct {
	to     state
	thread int64 // the thread to open (stateThread) or reply to (stateDraft); 0: none
	all    bool  // reply to all (stateDraft)
}

// setError shows err in the status line (until dismissed) and logs it.
func (c *common) setError(err error) {
	c.errText = termsafe.SanitizeLine(err.Error())
	c.logger.Error("ui", "err", err)
}

// show asks the root for another screen.
func (c *common) show(s state) { c.next = nav{to: s} }

// open asks the root to open a thread.
func (c *common) open(id int64) { c.next = nav{to: stateThread, thread: id} }

// reply asks the root for the draft review of a reply to a thread.
func (c *common) reply(id int64, all bool) { c.next = nav{to: stateDraft, thread: id, all: all} }
