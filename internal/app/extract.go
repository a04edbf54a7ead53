package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"mailsift/extract"
	"mailsift/internal/ollama"
)

// ErrModelUnavailable: the service needs the local model and triage is
// offline (or the host is not configured).
var ErrModelUnavailable = errors.New("the local model is not available (triage is offline)")

// Extract fills the schema schemaID (a file <schemaID>.json in
// schemasDir, else a built-in: invoice, meeting, shipment) from the
// stored message with this Message-ID, with the configured Ollama model.
func (a *App) Extract(ctx context.Context, schemasDir, messageID, schemaID string) (*extract.Result, error) {
	s, err := extract.Load(schemasDir, schemaID)
	if err != nil {
		return nil, err
	}
	m, err := a.st.MessageByID(ctx, messageID)
	if err != nil {
		return nil, err
	}
	if a.cfg.Triage.Offline {
		return nil, ErrModelUnavailable
	}
	c, err := ollama.New(a.cfg.Ollama.Host, &ollama.Options{Timeout: a.cfg.Ollama.Timeout})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModelUnavailable, err)
	}
	body := m.Message.Text
	if strings.TrimSpace(body) == "" {
		body = m.Message.HTMLText
	}
	mail := extract.Mail{From: m.Message.From.String(), Subject: m.Message.Subject, Body: body}
	if !m.Message.Date.IsZero() {
		mail.Date = m.Message.Date.UTC().Format(time.RFC3339)
	}
	opts := ollama.ChatOptions{NumCtx: a.cfg.Ollama.NumCtx}
	return extract.Extract(ctx, c, a.cfg.Ollama.Model, s, mail, func(r *api.ChatRequest) { opts.Apply(r) })
}
