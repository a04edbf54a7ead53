/*
Package store is the SQLite mirror of mailsift (modernc.org/sqlite): mail,
threads, FTS5 search, triage results, overrides and the flag-change queue.

The text below is the same as /work/store-api.md (the API contract).

# store API (package mailsift/store) — implemented

Implemented by the store engineer; UI, triage, CLI and drafts code against it. This file and
store/doc.go carry the same text. Types from model are used throughout. Changes from the
plan: Sections is a function (no package-level mutable state); ErrNotFound;
ThreadSummary.HasBody and .ContentHash; Store.Path, Store.SchemaVersion;
search also has body: and is:read; SetOverride also accepts "quarantine";
CleanText (wraps internal/termsafe.SanitizeLine) for one-line display of mail text.

	// Open opens (creating if needed) the SQLite store at path (parent dirs created, 0700):
	// WAL, foreign keys, busy_timeout 10s, synchronous=NORMAL, versioned migrations
	// (PRAGMA user_version). One writer connection (MaxOpenConns 1, BEGIN IMMEDIATE), a read pool.
	func Open(ctx context.Context, path string, opts *Options) (*Store, error)
	type Options struct { Logger *slog.Logger; Principal model.Address }  // nil opts = defaults
	func (s *Store) Close() error
	func (s *Store) Path() string
	func (s *Store) SchemaVersion(ctx context.Context) (int, error)
	var ErrNotFound = errors.New("store: not found")   // test with errors.Is

	// *Store implements mailsrc.Sink (var _ mailsrc.Sink = (*Store)(nil)):
	func (s *Store) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error)
	func (s *Store) SetMailbox(ctx context.Context, mb model.Mailbox) error
	func (s *Store) ResetMailbox(ctx context.Context, account, mailbox string) error // drops locations and queued flags; zeroes state
	func (s *Store) PutMessages(ctx context.Context, msgs []*model.Message) error
	func (s *Store) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error // pending local changes win until acked
	func (s *Store) RemoveLocations(ctx context.Context, locs []model.Location) error         // message deleted with its last location
	func (s *Store) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error)
	func (s *Store) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) // newest first
	// *Store also implements mailsrc.MailboxForgetter (a folder gone from the source):
	func (s *Store) ForgetMailbox(ctx context.Context, account, mailbox string) error // its locations, queued flags, the mailbox row
	// *Store also implements mailsrc.OrphanCollector: a message whose last location goes
	// (RemoveLocations, ResetMailbox, ForgetMailbox) waits in orphans until the source's sync ends:
	func (s *Store) CollectOrphans(ctx context.Context) error // deletes those no location points at again

Semantics of PutMessages: the same message (Message-ID + ContentHash) in two folders is one
message row with two locations. An envelope-only put (HasBody false, ContentHash "") is keyed by
its location; when the body arrives at that location (HasBody true + ContentHash) the same row is
updated, or, if that exact message is already stored from another folder, the location moves to
it and the envelope row is dropped. An envelope put never wipes a stored body. A location's key
is Loc.Key (if a source leaves it empty, the decimal UID is used). Threads (JWZ grouping):
messages linked by Message-ID through References/In-Reply-To share a thread in both directions
(child before parent, siblings of a missing parent), a message linking two threads merges them
(the lower thread id survives, with its override; the absorbed thread's triage is dropped); a
message with no references at all joins the most recent thread with the same
NormalizeSubject subject whose latest message is within 60 days of its date. Across folders
and accounts. A message is unread when none of its locations has \Seen. An envelope is not in
the search index; it is indexed when its body arrives (migration 8).

How a batch is written (store/put.go): PutMessages loads what it needs about the batch in a few
queries (its locations with their stored rows, the messages with its Message-IDs, the messages
referring to them, the mailbox roles) and keeps that index current while it writes, so storing
and threading a message needs no lookup of its own. Threads created by the batch are written by
finish, once, with aggregates computed from the batch (foreign keys are deferred to the commit);
search index deletes and inserts are one statement each per batch.

	func NormalizeSubject(s string) string  // strips Re:/Fwd:/AW:/SV:/Re[2]:/[list] tags, collapses space, lower-case
	func (s *Store) EnsureAccount(ctx context.Context, name, sourceURL string) error
	func (s *Store) Mailboxes(ctx context.Context, account string) ([]model.Mailbox, error)

	type Section string
	const (
	    SectionUrgent Section = "urgent"; SectionActionable Section = "actionable"
	    SectionInformational Section = "informational"; SectionLowPriority Section = "low priority"
	    SectionQuarantine Section = "quarantine"; SectionUntriaged Section = "untriaged" // quarantine: spam or phishing
	)
	func Sections() []Section   // display order: urgent, actionable, informational, low priority, quarantine, untriaged

	type ThreadSummary struct {
	    ID int64; Subject string     // subject of the oldest message
	    From model.Address           // sender of the latest message not from the principal (else latest)
	    Participants []string        // senders' display names (or emails), first appearance order, max 20
	    Latest time.Time; Count int; Unread int; HasAttachment bool
	    HasBody bool                 // at least one body fetched
	    Section Section              // override > latest triage (spam/phishing → quarantine) > untriaged
	    Triage *TriageRecord         // latest triage (any cache key), nil if none
	    Override string              // user's override ("" if none)
	    ContentHash string           // thread content hash
	}
	// The sections hold only in-inbox threads: at least one message has a location in a
	// mailbox with role inbox (SetMailbox), or in a mailbox named INBOX (any case) with no
	// role recorded. Other threads (Sent-only, archived, Junk, Trash) stay stored,
	// searchable and openable by ID (Search, Thread, ThreadSummaryByID), but are neither
	// listed, counted nor queued for triage. Kept in threads.in_inbox by the write path
	// (PutMessages, RemoveLocations, ResetMailbox, thread merges, SetMailbox role changes).
	func (s *Store) SectionCounts(ctx context.Context) (map[Section]int, error)  // every section present; in-inbox threads
	func (s *Store) ListThreads(ctx context.Context, sec Section, offset, limit int) ([]ThreadSummary, error) // in-inbox threads, newest first; limit<=0 → 100
	func (s *Store) ThreadSummaryByID(ctx context.Context, id int64) (ThreadSummary, error)   // ErrNotFound
	func (s *Store) Thread(ctx context.Context, id int64) (*model.Thread, error)  // messages oldest first, bodies, flags, one location each (inbox copy preferred)
	func (s *Store) ThreadIDForMessage(ctx context.Context, messageID string) (int64, error)  // ErrNotFound
	func (s *Store) RawMessage(ctx context.Context, messageID string) ([]byte, error)           // ErrNotFound if not stored (Maildir messages, IMAP messages without attachments: mailsrc.RawReader)
	func (s *Store) MessageLocations(ctx context.Context, messageID string) ([]model.Location, error) // where a message with a body is

	// Flags changed in mailsift: set locally at once and queued (offline-safe).
	func (s *Store) MarkThreadSeen(ctx context.Context, threadID int64, seen bool) error
	func (s *Store) QueueFlagChange(ctx context.Context, loc model.Location, flag model.Flag, set bool) error // newer change of same flag+loc replaces older
	type PendingFlag struct { ID int64; Change model.FlagChange }
	func (s *Store) PendingFlagChanges(ctx context.Context, account string, limit int) ([]PendingFlag, error) // oldest first; limit<=0 all
	func (s *Store) AckFlagChanges(ctx context.Context, ids []int64) error

	// Search: FTS5 syntax (words, "phrases", AND/OR/NOT, prefix*, parentheses) plus
	// from: to: (To, Cc and Bcc) subject: body: (value may be quoted: from:"bob smith"), after:YYYY-MM-DD (inclusive),
	// before:YYYY-MM-DD (exclusive), is:unread, is:read. Words with punctuation are quoted for you.
	// Errors are clear ("search: unbalanced quote in query …"), never raw SQL errors.
	// Without any text term (only after:/before:/is:) the snippet is the start of the body.
	type SearchHit struct { ThreadID int64; MessageID string; From model.Address; Subject string; Date time.Time; Snippet string; Unread bool }
	func (s *Store) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) // newest first; limit<=0 → 50; snippet has no control chars
	func CleanText(s string) string // terminal-safe single line (escapes removed, whitespace collapsed)

	// Triage.
	type TriageRecord struct {
	    ThreadID int64
	    Result contract.Result
	    Source string            // "ollama" or "deterministic"
	    Model string             // e.g. "llama3.2:3b", "" for deterministic
	    CacheKey string          // schema version + model + prompt version; one record per (thread, cache key)
	    ContentHash string       // thread content hash it was computed on
	    Intent, Urgency, Sentiment, Route string; Confidence float64
	    SpamReasons, PhishingReasons, Signals []string
	    CreatedAt time.Time      // zero → now
	}
	func (s *Store) ThreadContentHash(ctx context.Context, threadID int64) (string, error) // sha256 over (Message-ID, content hash) oldest first; changes when a message arrives/leaves/gets its body
	// ThreadsNeedingTriage: in-inbox threads with ≥1 fetched body and no record for cacheKey
	// on their current content hash; unread first, then newest first.
	func (s *Store) ThreadsNeedingTriage(ctx context.Context, cacheKey string, limit int) ([]int64, error)
	func (s *Store) SaveTriage(ctx context.Context, rec TriageRecord) error   // never clears an override
	func (s *Store) SaveTriages(ctx context.Context, recs []TriageRecord) error // one transaction; *TriageErrors lists per-record failures
	func (s *Store) SetOverride(ctx context.Context, threadID int64, category string) error // contract.Categories or "quarantine"; "" clears
	type Override struct { ThreadID int64; Subject string; From model.Address; Category string; At time.Time }
	func (s *Store) RecentOverrides(ctx context.Context, n int) ([]Override, error) // newest first

# Adding tables (drafts, approvals, outbox, audit)
Migrations are the ordered migrations slice in store/migrations.go; migration i brings
PRAGMA user_version from i to i+1, each in its own transaction. Taken: 1 mail mirror
(store), 2 draftsSchema (drafts engineer, store/drafts.go), 3 speedSchema (store:
date-ordered search rowids, trigger-kept section_counts), 4 (store: triage-queue index), 5 outboxFixedSchema
(store/outbox.go), 6 ftsBulkSchema (store: search index merge settings), 7 inboxSchema (store: threads.in_inbox,
partial section and triage-queue indexes on in_inbox = 1, section_counts count in-inbox threads). To add tables, put the SQL in a
const in your own file in store/ and append it as a new last element of the slice; never
edit or reorder an applied migration. Write inside s.tx(ctx, func(tx *sql.Tx) error {...})
(the single writer); read with s.r. If you add or delete rows of threads or change
threads.section or threads.in_inbox, the triggers keep section_counts right; go through
updateSection and storeThread (writer.finish).
*/
package store
