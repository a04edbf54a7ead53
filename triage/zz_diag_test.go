package triage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"mailsift/config"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/store"
	"mailsift/triage"
)

func TestZZDiag(t *testing.T) {
	dir := os.Getenv("DIAG_DIR")
	if dir == "" {
		t.Skip()
	}
	ctx := context.Background()
	cfg := &config.Config{}
	cfg.Principal.Email = os.Getenv("DIAG_EMAIL")
	src, _ := config.ParseSource("maildir://" + dir)
	acct := config.Account{Name: "c", Src: src}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "e.db"), &store.Options{Principal: cfg.Principal.Address()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.EnsureAccount(ctx, acct.Name, src.Redacted())
	ms, _ := mirror.Open(&acct, mirror.Options{})
	if err := mirror.Sync(ctx, st, acct.Name, ms, nil); err != nil {
		t.Fatal(err)
	}
	ms.Close()
	type lab struct {
		Root   string `json:"root_message_id"`
		Bucket string
		Spam   bool `json:"is_spam"`
		Phish  bool `json:"is_phishing"`
	}
	labels := map[string]lab{}
	if lf := os.Getenv("DIAG_LABELS"); lf != "" {
		var l struct{ Threads []lab }
		b, _ := os.ReadFile(lf)
		json.Unmarshal(b, &l)
		for _, x := range l.Threads {
			labels[x.Root] = x
		}
	}
	want := os.Getenv("DIAG_SPAM") == "1"
	an := triage.NewAnalyzer(nil)
	var lines []string
	for _, sec := range store.Sections() {
		for off := 0; ; off += 500 {
			rows, _ := st.ListThreads(ctx, sec, off, 500)
			for _, r := range rows {
				th, err := st.Thread(ctx, r.ID)
				if err != nil || len(th.Messages) == 0 {
					continue
				}
				o := an.Deterministic(th.Messages, model.Address{Email: cfg.Principal.Email})
				exp := "?"
				ok := false
				if l, has := labels[th.Messages[0].MessageID]; has {
					exp = l.Bucket
					if l.Spam {
						exp = "Q"
					}
					got := o.Result.Category
					if o.Result.IsSpam {
						got = "Q"
					}
					ok = got == exp && l.Phish == o.Result.IsPhishing
				} else {
					ok = o.Result.IsSpam == want
				}
				if ok && os.Getenv("DIAG_ALL") == "" {
					continue
				}
				var kinds []string
				for _, s := range o.Signals {
					kinds = append(kinds, string(s.Kind)+"("+s.Value+")")
				}
				last := th.Messages[len(th.Messages)-1]
				lines = append(lines, fmt.Sprintf("%s exp=%s got=%s/spam=%t/ph=%t %q from %s n=%d\n  spam: %s\n  phish: %s\n  sig: %s",
					map[bool]string{true: "OK ", false: "BAD"}[ok], exp, o.Result.Category, o.Result.IsSpam, o.Result.IsPhishing, last.Subject, last.From.Email, len(th.Messages),
					strings.Join(o.SpamReasons, " | "), strings.Join(o.PhishingReasons, " | "), strings.Join(kinds, ",")))
			}
			if len(rows) < 500 {
				break
			}
		}
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
	fmt.Println("BAD:", len(lines))
}
