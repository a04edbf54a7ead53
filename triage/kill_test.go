package triage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mailsift/internal/storecheck"
	"mailsift/internal/testproc"
	"mailsift/model"
	"mailsift/store"
)

const killThreads = 120 // threads of two messages each

var killPrincipal = model.Address{Name: "Alice", Email: "alice@example.com"}

// seedKillStore stores killThreads threads in INBOX and closes the store.
func seedKillStore(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path, &store.Options{Principal: killPrincipal})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var msgs []*model.Message
	for i := range killThreads {
		from := model.Address{Name: fmt.Sprintf("Sender %d", i), Email: fmt.Sprintf("s%d@example.com", i)}
		body := fmt.Sprintf("Hello Alice, could you send me the figures for project %d by Friday?", i)
		if i%3 == 0 {
			body = fmt.Sprintf("Weekly newsletter %d: unsubscribe at any time.", i)
		}
		for j := range 2 {
			id := fmt.Sprintf("t%d-m%d@example.com", i, j)
			h := sha256.Sum256([]byte(id + body))
			m := &model.Message{
				Loc:       model.Location{Account: "acct", Mailbox: "INBOX", Key: id},
				MessageID: id, From: from, To: []model.Address{killPrincipal},
				Date: base.Add(time.Duration(2*i+j) * time.Minute), Subject: fmt.Sprintf("Project %d", i),
				Text: body, HasBody: true, ContentHash: hex.EncodeToString(h[:]),
			}
			if j > 0 {
				m.InReplyTo = []string{fmt.Sprintf("t%d-m0@example.com", i)}
				m.References = m.InReplyTo
			}
			msgs = append(msgs, m)
		}
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
}

// TestTriageKillHelperProcess is not a test: it is the child process of
// TestTriageKill9. It runs the deterministic triage worker over the store
// MAILSIFT_DB, appends the number of records saved so far to the file
// MAILSIFT_REPORT after each saved batch, and kills itself with SIGKILL,
// as MAILSIFT_FAULT says: "saved:K" once K records are saved, or
// "commit:K" while the K-th batch is being written to the WAL.
func TestTriageKillHelperProcess(t *testing.T) {
	mode := os.Getenv("MAILSIFT_FAULT")
	if mode == "" {
		t.Skip("helper process for TestTriageKill9")
	}
	kind, arg, _ := strings.Cut(mode, ":")
	k, _ := strconv.Atoi(arg)
	path := os.Getenv("MAILSIFT_DB")
	st, err := store.Open(context.Background(), path, &store.Options{Principal: killPrincipal})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	report, err := os.OpenFile(os.Getenv("MAILSIFT_REPORT"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ks := &killingTriageStore{Store: st, kind: kind, k: k, wal: path + "-wal", report: report}
	w := NewWorker(ks, WorkerOptions{Principal: killPrincipal, Parallel: 2})
	w.Run(context.Background(), nil)
	os.Exit(3) // never reached when the kill works
}

// killingTriageStore is the store of the helper: it reports and counts
// saved records and kills the process at the chosen point.
type killingTriageStore struct {
	*store.Store
	kind   string
	k      int
	wal    string
	report *os.File
	calls  int
	saved  int
}

func (s *killingTriageStore) SaveTriages(ctx context.Context, recs []store.TriageRecord) error {
	s.calls++
	if s.kind == "commit" && s.calls == s.k {
		before, _ := os.Stat(s.wal)
		go func() {
			for {
				now, err := os.Stat(s.wal)
				if err == nil && (before == nil || now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime())) {
					killSelf()
				}
			}
		}()
		s.Store.SaveTriages(ctx, recs)
		killSelf()
	}
	err := s.Store.SaveTriages(ctx, recs)
	if err == nil {
		s.saved += len(recs)
		fmt.Fprintf(s.report, "%d\n", s.saved)
		if s.kind == "saved" && s.saved >= s.k {
			killSelf()
		}
	}
	return err
}

func (s *killingTriageStore) SaveTriage(ctx context.Context, rec store.TriageRecord) error {
	return s.SaveTriages(ctx, []store.TriageRecord{rec})
}

// killSelf ends the process at once, as kill -9 does.
func killSelf() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// TestTriageKill9 kills the triage worker with SIGKILL after K records
// were saved (the first batch, mid-pass) and while a batch is being
// committed. After each, the reopened store is healthy and has kept every
// record the child saw saved; a second pass triages exactly the threads
// left, and then every thread has exactly one current triage record,
// which its section and triage key reflect.
func TestTriageKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	key := NewOffline(nil).CacheKey()
	for _, mode := range []string{"saved:1", "saved:50", "commit:1", "commit:5"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			path := filepath.Join(dir, "mailsift.db")
			reportPath := filepath.Join(dir, "report")
			seedKillStore(t, path)

			ps, stderr := testproc.Run(t, "TestTriageKillHelperProcess", "MAILSIFT_FAULT="+mode, "MAILSIFT_DB="+path, "MAILSIFT_REPORT="+reportPath)
			if !testproc.KilledBySIGKILL(ps) {
				t.Fatalf("helper ended with %v (%s), want killed by SIGKILL", ps, stderr)
			}
			reported := 0 // records the child saw saved before it died
			if b, err := os.ReadFile(reportPath); err == nil {
				lines := strings.Fields(string(b))
				if len(lines) > 0 {
					reported, _ = strconv.Atoi(lines[len(lines)-1])
				}
			}

			st, err := store.Open(ctx, path, &store.Options{Principal: killPrincipal})
			if err != nil {
				t.Fatalf("reopen after kill: %v", err)
			}
			defer st.Close()
			storecheck.Healthy(t, st)
			kept := countTriage(t, path, "")
			t.Logf("child saw %d records saved; %d kept", reported, kept)
			if kept < reported {
				t.Errorf("%d triage records kept, but the child had saved %d", kept, reported)
			}
			if kept >= killThreads {
				t.Errorf("the kill came after the pass: %d records", kept)
			}

			res, err := NewWorker(st, WorkerOptions{Principal: killPrincipal}).Run(ctx, nil)
			if err != nil {
				t.Fatalf("second pass: %v", err)
			}
			if res.Triaged != killThreads-kept || res.Failed != 0 {
				t.Errorf("second pass triaged %d (failed %d), want the %d threads left", res.Triaged, res.Failed, killThreads-kept)
			}
			storecheck.Healthy(t, st)
			if need, err := st.ThreadsNeedingTriage(ctx, key, 0); err != nil || len(need) != 0 {
				t.Errorf("after the second pass: %d threads still need triage (%v)", len(need), err)
			}
			if n := countTriage(t, path, ""); n != killThreads {
				t.Errorf("%d triage records in all, want one per thread (%d)", n, killThreads)
			}
			// Each thread: one record under the key on its current content,
			// named by the thread's triage key, and a triaged section.
			if n := countTriage(t, path, `SELECT count(*) FROM threads t WHERE t.triage_key IS NOT ? OR t.section = 'untriaged'
				OR (SELECT count(*) FROM triage tr WHERE tr.thread_id = t.id AND tr.cache_key = ? AND tr.content_hash = t.content_hash) <> 1`, key, key); n != 0 {
				t.Errorf("%d threads without exactly one current triage record", n)
			}
		})
	}
}

// countTriage runs a count query on the store file (default: all triage
// records).
func countTriage(t *testing.T, path, q string, args ...any) int {
	t.Helper()
	if q == "" {
		q = `SELECT count(*) FROM triage`
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
