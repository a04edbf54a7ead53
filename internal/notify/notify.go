// Package notify shows desktop notifications through the freedesktop
// Notifications service (org.freedesktop.Notifications) on the D-Bus
// session bus, and rings the terminal bell where there is none.
package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"

	"github.com/godbus/dbus/v5"
)

// The freedesktop Notifications service.
const (
	service = "org.freedesktop.Notifications"
	path    = dbus.ObjectPath("/org/freedesktop/Notifications")
	method  = service + ".Notify"
)

// Urgency levels of the spec's "urgency" hint.
const (
	urgencyNormal   byte = 1
	urgencyCritical byte = 2
)

// ErrNoBus says there is no session bus to notify on (no
// DBUS_SESSION_BUS_ADDRESS, as over ssh or on a console).
var ErrNoBus = errors.New("notify: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)")

// DBus sends notifications on a session bus. It connects on first use and
// reconnects after a failure. Safe for concurrent use.
type DBus struct {
	// Address is the bus address; "" means DBUS_SESSION_BUS_ADDRESS.
	Address string
	// AppName is the application name shown (default "mailsift").
	AppName string

	mu   sync.Mutex
	conn *dbus.Conn
}

// Notify shows summary and body; urgent asks for the critical urgency.
func (d *DBus) Notify(ctx context.Context, summary, body string, urgent bool) error {
	conn, err := d.connect()
	if err != nil {
		return err
	}
	app := d.AppName
	if app == "" {
		app = "mailsift"
	}
	urgency := urgencyNormal
	if urgent {
		urgency = urgencyCritical
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(urgency), "category": dbus.MakeVariant("email.arrived")}
	call := conn.Object(service, path).CallWithContext(ctx, method, 0,
		app, uint32(0), "mail-unread", summary, body, []string{}, hints, int32(-1))
	if call.Err != nil {
		d.drop(conn)
		return fmt.Errorf("notify: %w", call.Err)
	}
	return nil
}

func (d *DBus) connect() (*dbus.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn != nil && d.conn.Connected() {
		return d.conn, nil
	}
	addr := d.Address
	if addr == "" {
		addr = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if addr == "" {
		return nil, ErrNoBus
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("notify: connect to the session bus: %w", err)
	}
	d.conn = conn
	return conn, nil
}

func (d *DBus) drop(c *dbus.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == c {
		d.conn.Close()
		d.conn = nil
	}
}

// Close closes the bus connection.
func (d *DBus) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return nil
	}
	err := d.conn.Close()
	d.conn = nil
	return err
}

// Terminal writes the two things mailsift writes to the terminal outside
// the TUI's frames: the bell and the window title. Each is one short
// write that moves nothing on screen, so it can go while the TUI draws
// (Bubble Tea v1's own SetWindowTitle writes without its renderer's lock,
// a data race with the frames it draws).
type Terminal struct {
	mu sync.Mutex
	w  io.Writer
}

// NewTerminal writes to w, the terminal the TUI draws on.
func NewTerminal(w io.Writer) *Terminal { return &Terminal{w: w} }

// Bell rings the terminal bell (BEL).
func (t *Terminal) Bell() { t.write("\a") }

// SetTitle sets the window title (OSC 2). Controls in title are dropped.
func (t *Terminal) SetTitle(title string) {
	title = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, title)
	t.write("\x1b]2;" + title + "\x07")
}

func (t *Terminal) write(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.w, s)
}
