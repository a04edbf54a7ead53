/*
Package store is mailsift's local mirror: one SQLite database (pure Go,
WAL) that every surface reads and that sync, triage and the send path write.

It holds:
  - messages and their locations (account, mailbox, key, flags): one row per
    message however many folders hold it, an envelope until its body arrives;
  - threads, grouped by Message-ID links (and by subject for messages
    without references), with cached aggregates and the section they show in;
  - the FTS5 search index over sender, recipients, subject and body;
  - triage records and the user's overrides;
  - drafts, approvals, the outbox and the append-only audit log;
  - flag changes made in mailsift, queued until the source applies them;
  - its schema, as versioned migrations (PRAGMA user_version).

The store depends on model/ alone: sources, the sync engine and the app
layer talk to it through model types and the methods of *Store.

Writes are serialised by one writer connection: every write runs in one
transaction on it (Store.tx), and writes that touch messages, locations or
threads go through a writer (writer.go), whose finish recomputes the touched
threads and flushes the search index once per transaction. PutMessages
loads what a batch needs up front (batch_preload.go) so that storing and
threading a message needs no lookup of its own. Reads go through a pool.

To add a table, put its SQL in a const in the file that owns the feature
and append that const to migrations (migrations.go) as the new last
element; never edit or reorder an applied migration. A change to threads'
rows, section or in_inbox goes through the writer (storeThread,
updateSection) so the trigger-kept section counts stay right.
*/
package store
