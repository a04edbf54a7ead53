package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"
)

// embeddingsSchema holds one embedding vector per message for semantic
// search. A row belongs to the model that made it and the content hash of
// the message it was made from: a message whose body changed, or a
// configured embed model that differs, needs a new vector (the row is
// replaced, so a message never has two). Rows go with their message.
const embeddingsSchema = `
CREATE TABLE embeddings (
	message  INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
	model    TEXT NOT NULL,
	src_hash TEXT NOT NULL,
	vec      BLOB NOT NULL
);
CREATE INDEX embeddings_model ON embeddings(model);
`

// embedTextBytes bounds how much of a message's body is embedded: the
// start of a mail says what it is about, and embedding models read a few
// thousand tokens at most.
const embedTextBytes = 2000

// EmbedSource is a message that needs an embedding, with the text to embed.
type EmbedSource struct {
	// ID is the store's message row id.
	ID       int64
	ThreadID int64
	Date     time.Time
	// Hash is the message's content hash the vector will belong to.
	Hash string
	// Text is the subject, the sender and the start of the body.
	Text string
}

// Embedding is one message's vector.
type Embedding struct {
	ID       int64
	ThreadID int64
	Date     time.Time
	Hash     string
	Vec      []float32
}

// MessagesToEmbed returns up to limit messages with a body and no current
// embedding by model (none, another model's, or one made from older
// content), newest first.
func (s *Store) MessagesToEmbed(ctx context.Context, model string, limit int) ([]EmbedSource, error) {
	rows, err := s.r.QueryContext(ctx, `
SELECT m.id, COALESCE(m.thread_id, 0), m.date, COALESCE(m.content_hash, ''),
       m.subject, m.from_name, m.from_email,
       substr(CASE WHEN trim(m.text) <> '' THEN m.text ELSE m.html_text END, 1, ?)
FROM messages m LEFT JOIN embeddings e ON e.message = m.id
WHERE m.has_body = 1 AND (e.message IS NULL OR e.model <> ? OR e.src_hash <> COALESCE(m.content_hash, ''))
ORDER BY m.date DESC, m.id DESC LIMIT ?`, embedTextBytes, model, limit)
	if err != nil {
		return nil, fmt.Errorf("store: messages to embed: %w", err)
	}
	defer rows.Close()
	var out []EmbedSource
	for rows.Next() {
		var e EmbedSource
		var date int64
		var subj, name, email, body string
		if err := rows.Scan(&e.ID, &e.ThreadID, &date, &e.Hash, &subj, &name, &email, &body); err != nil {
			return nil, fmt.Errorf("store: messages to embed: %w", err)
		}
		e.Date = embedUnix(date)
		e.Text = embedText(subj, name, email, body)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: messages to embed: %w", err)
	}
	return out, nil
}

// embedText is what a message's vector is made from.
func embedText(subject, name, email, body string) string {
	var b strings.Builder
	b.WriteString("Subject: ")
	b.WriteString(subject)
	b.WriteString("\nFrom: ")
	if name != "" {
		b.WriteString(name)
		b.WriteString(" ")
	}
	b.WriteString(email)
	b.WriteString("\n\n")
	b.WriteString(strings.Join(strings.Fields(body), " "))
	return b.String()
}

// SaveEmbeddings stores vectors made by model, replacing any earlier
// vector of the same messages, in one transaction. A message deleted
// meanwhile is skipped.
func (s *Store) SaveEmbeddings(ctx context.Context, model string, embs []Embedding) error {
	if len(embs) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT INTO embeddings(message, model, src_hash, vec)
SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?)
ON CONFLICT(message) DO UPDATE SET model = excluded.model, src_hash = excluded.src_hash, vec = excluded.vec`)
		if err != nil {
			return fmt.Errorf("store: save embeddings: %w", err)
		}
		defer st.Close()
		for _, e := range embs {
			if _, err := st.ExecContext(ctx, e.ID, model, e.Hash, encodeVec(e.Vec), e.ID); err != nil {
				return fmt.Errorf("store: save embedding of message %d: %w", e.ID, err)
			}
		}
		return nil
	})
}

// Embeddings calls fn with every current vector made by model (the message
// still has the content it was made from), newest first; the slice passed
// is fn's to keep. An error from fn stops the walk and is returned.
func (s *Store) Embeddings(ctx context.Context, model string, fn func(Embedding) error) error {
	rows, err := s.r.QueryContext(ctx, `
SELECT m.id, COALESCE(m.thread_id, 0), m.date, e.src_hash, e.vec
FROM embeddings e JOIN messages m ON m.id = e.message
WHERE e.model = ? AND e.src_hash = COALESCE(m.content_hash, '')
ORDER BY m.date DESC, m.id DESC`, model)
	if err != nil {
		return fmt.Errorf("store: embeddings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e Embedding
		var date int64
		var blob []byte
		if err := rows.Scan(&e.ID, &e.ThreadID, &date, &e.Hash, &blob); err != nil {
			return fmt.Errorf("store: embeddings: %w", err)
		}
		e.Date = embedUnix(date)
		if e.Vec, err = decodeVec(blob); err != nil {
			return fmt.Errorf("store: embedding of message %d: %w", e.ID, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: embeddings: %w", err)
	}
	return nil
}

// EmbeddingCounts returns how many messages with a body have a current
// vector by model and how many wait for one.
func (s *Store) EmbeddingCounts(ctx context.Context, model string) (done, pending int, err error) {
	err = s.r.QueryRowContext(ctx, `
SELECT COALESCE(SUM(e.message IS NOT NULL AND e.model = ? AND e.src_hash = COALESCE(m.content_hash, '')), 0),
       COALESCE(SUM(NOT (e.message IS NOT NULL AND e.model = ? AND e.src_hash = COALESCE(m.content_hash, ''))), 0)
FROM messages m LEFT JOIN embeddings e ON e.message = m.id WHERE m.has_body = 1`, model, model).Scan(&done, &pending)
	if err != nil {
		return 0, 0, fmt.Errorf("store: embedding counts: %w", err)
	}
	return done, pending, nil
}

// encodeVec stores a vector as little-endian float32s.
func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVec(b []byte) ([]float32, error) {
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, fmt.Errorf("vector of %d bytes is not float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

func embedUnix(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}
