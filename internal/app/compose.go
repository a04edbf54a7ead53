package app

import (
	"mailsift/internal/notify"
)

// This file holds what the TUI's compose, links, unsubscribe and new-mail
// features need from the app layer beyond the send engine (which serves
// new messages and forwards as it serves replies).

// NewMail is the configured new-mail setting: "off", "urgent" or "all".
func (a *App) NewMail() string { return a.cfg.Notify.NewMail }

// Notifier returns the desktop notifier for new mail: the freedesktop
// Notifications service on the session bus (DBUS_SESSION_BUS_ADDRESS).
// It connects on first use; close it when the surface ends.
func (a *App) Notifier() *notify.DBus { return &notify.DBus{AppName: "mailsift"} }
