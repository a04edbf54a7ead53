package triage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"mailsift/config"
	"mailsift/mirror"
	"mailsift/store"
	"mailsift/triage/bayes"
)

func TestZZCov(t *testing.T) {
	dir := os.Getenv("DIAG_DIR")
	if dir == "" {
		t.Skip()
	}
	ctx := context.Background()
	src, _ := config.ParseSource("maildir://" + dir)
	acct := config.Account{Name: "c", Src: src}
	st, _ := store.Open(ctx, filepath.Join(t.TempDir(), "e.db"), &store.Options{})
	defer st.Close()
	st.EnsureAccount(ctx, acct.Name, src.Redacted())
	ms, _ := mirror.Open(&acct, mirror.Options{})
	mirror.Sync(ctx, st, acct.Name, ms, nil)
	ms.Close()
	m, _ := bayes.Default()
	c := bayes.NewClassifier(m, nil)
	_, tab := c.Table()
	var covs []float64
	hist := map[int][2]int{}
	for _, sec := range store.Sections() {
		for off := 0; ; off += 500 {
			rows, _ := st.ListThreads(ctx, sec, off, 500)
			for _, r := range rows {
				th, _ := st.Thread(ctx, r.ID)
				if len(th.Messages) == 0 {
					continue
				}
				msg := th.Messages[len(th.Messages)-1]
				toks := bayes.Tokenize(msg.Subject, msg.Body(), "")
				known := 0
				for _, tk := range toks {
					if tab.WeightOf(tk) != 0 {
						known++
					}
				}
				cov := 0.0
				if len(toks) > 0 {
					cov = float64(known) / float64(len(toks))
				}
				covs = append(covs, cov)
				p := c.SpamProbability(toks)
				b := int(cov * 10)
				h := hist[b]
				h[0]++
				if p >= c.Threshold() {
					h[1]++
				}
				hist[b] = h
			}
			if len(rows) < 500 {
				break
			}
		}
	}
	sort.Float64s(covs)
	n := len(covs)
	fmt.Printf("n=%d p5=%.2f p10=%.2f p25=%.2f p50=%.2f p75=%.2f\n", n, covs[n/20], covs[n/10], covs[n/4], covs[n/2], covs[3*n/4])
	for b := 0; b <= 10; b++ {
		fmt.Printf("cov %.1f: %v\n", float64(b)/10, hist[b])
	}
}
