//go:build deps

// Package main pins dependencies while packages are being written.
package main

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/charmbracelet/bubbles/viewport"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/charmbracelet/x/exp/teatest"
	_ "github.com/emersion/go-imap/v2/imapclient"
	_ "github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	_ "github.com/emersion/go-message/charset"
	_ "github.com/emersion/go-message/mail"
	_ "github.com/emersion/go-sasl"
	_ "github.com/emersion/go-smtp"
	_ "github.com/ollama/ollama/api"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "golang.org/x/net/html"
	_ "golang.org/x/net/idna"
	_ "modernc.org/sqlite"
)
