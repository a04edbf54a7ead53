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

	// next is the screen a child asked for in its last update (stateStay:
	// none). The root applies it before the next message, so a key typed
	// next already reaches the new screen.
	next state
}

// setError shows err in the status line (until dismissed) and logs it.
func (c *common) setError(err error) {
	c.errText = termsafe.SanitizeLine(err.Error())
	c.logger.Error("ui", "err", err)
}

// show asks the root for another screen.
func (c *common) show(s state) { c.next = s }
