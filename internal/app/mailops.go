package app

import (
	"errors"
	"fmt"

	"mailsift/internal/ollama"
	"mailsift/mailops"
)

// Interpreter returns the reader of plain-language requests on the `:`
// line: the configured chat model with triage's num_ctx and keep_alive,
// each request bounded by ollama.timeout. With triage.offline set the
// model is never used, and there is none.
func (a *App) Interpreter() (*mailops.Interpreter, error) {
	c := a.cfg.Ollama
	if a.cfg.Triage.Offline {
		return nil, errors.New("triage.offline is set: the model is never used")
	}
	if c.Model == "" {
		return nil, errors.New("no model configured (ollama.model)")
	}
	cl, err := ollama.New(c.Host, nil)
	if err != nil {
		return nil, fmt.Errorf("plain language: %w", err)
	}
	return mailops.NewInterpreter(mailops.Options{
		Client: cl, Model: c.Model, ChatOptions: ollama.ChatOptions{NumCtx: c.NumCtx},
		Timeout: c.Timeout, Logger: a.log,
	})
}
