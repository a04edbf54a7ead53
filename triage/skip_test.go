package triage

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

// demoPrincipal is the demo mailbox's owner.
var demoPrincipal = model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}

// sortedDemo returns the demo threads in a fixed order.
func sortedDemo(t *testing.T) ([]string, map[string][]*model.Message) {
	threads := demoThreads(t)
	keys := make([]string, 0, len(threads))
	for k := range threads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, threads
}

// TestDecidedThreadsSkipTheModel triages every demo thread with a model
// triager that does not ask always: the threads the signals decide are
// answered without a model call (deterministic, marked ModelSkipped), the
// others go to the model, and a forced triage (the user pressed t) of a
// decided thread asks the model too.
func TestDecidedThreadsSkipTheModel(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	o := f.triager(t, func(opts *OllamaOptions) { opts.AskAlways = false })
	keys, threads := sortedDemo(t)
	decided, asked := 0, 0
	var decidedKey string
	for _, k := range keys {
		before := f.calls.Load()
		out, err := o.Triage(context.Background(), Input{Messages: threads[k], Principal: demoPrincipal})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		called := f.calls.Load() - before
		det := Deterministic(threads[k], demoPrincipal)
		switch {
		case det.Decided != "":
			decided++
			decidedKey = k
			if called != 0 || !out.ModelSkipped || out.Source != SourceDeterministic || out.Attempts != 0 {
				t.Errorf("%s decided (%s): %d calls, skipped %t, source %s", k, det.Decided, called, out.ModelSkipped, out.Source)
			}
		default:
			asked++
			if called != 1 || out.ModelSkipped || out.Source != SourceOllama {
				t.Errorf("%s not decided: %d calls, skipped %t, source %s", k, called, out.ModelSkipped, out.Source)
			}
		}
	}
	if decided == 0 || asked == 0 {
		t.Fatalf("decided %d, asked %d: the demo should hold both kinds", decided, asked)
	}
	t.Logf("demo: %d of %d threads decided by the signals (model calls saved)", decided, decided+asked)
	before := f.calls.Load()
	out, err := o.Triage(context.Background(), Input{Messages: threads[decidedKey], Principal: demoPrincipal, Force: true})
	if err != nil || f.calls.Load() != before+1 || out.ModelSkipped {
		t.Errorf("forced triage of %s: err %v, %d calls, skipped %t; want the model asked", decidedKey, err, f.calls.Load()-before, out.ModelSkipped)
	}
}

// TestPromptPrefixFixedAcrossThreads sends two different threads with the
// same examples to the fake: the system prompts are byte for byte the
// same and the user prompts start with the same examples block, so the
// server's KV cache serves that prefix; a second triager has its own
// fence.
func TestPromptPrefixFixedAcrossThreads(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	f.cache = true
	o := f.triager(t, nil)
	examples := []Example{{Subject: "Weekly digest", From: "news@example.net", Category: "low priority"},
		{Subject: "Board numbers", From: "cfo@example.com", Category: "urgent"}}
	keys, threads := sortedDemo(t)
	var outs []*Outcome
	for _, k := range keys[:2] {
		out, err := o.Triage(context.Background(), Input{Messages: threads[k], Principal: demoPrincipal, Examples: examples})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	a, b := f.reqs[0].Messages, f.reqs[1].Messages
	if a[0].Content != b[0].Content {
		t.Errorf("system prompts differ between threads:\n%s\n---\n%s", a[0].Content, b[0].Content)
	}
	end := strings.Index(a[1].Content, "<<<END-EXAMPLES-")
	if end < 0 || !strings.Contains(a[1].Content[:end], `"Weekly digest"`) {
		t.Fatalf("no examples block at the start of the user prompt:\n%s", a[1].Content)
	}
	end += strings.Index(a[1].Content[end:], "\n") + 1
	if !strings.HasPrefix(a[1].Content, "<<<EXAMPLES-") || !strings.HasPrefix(b[1].Content, a[1].Content[:end]) {
		t.Errorf("user prompts do not share the examples block as their prefix:\n%s\n---\n%s", a[1].Content[:end], b[1].Content)
	}
	// The fake's cache: the second call evaluates only what follows the
	// shared prefix, and says so in prompt_eval_count and its duration.
	full := fakeTokens(f.reqs[1])
	prefix := len([]rune(a[0].Content + "\x00" + a[1].Content[:end]))
	if outs[0].PromptTokens != fakeTokens(f.reqs[0]) || outs[1].PromptTokens > full-prefix || outs[1].PromptTokens <= 0 {
		t.Errorf("prompt_eval_count %d then %d; want the whole first prompt (%d), then at most %d of %d",
			outs[0].PromptTokens, outs[1].PromptTokens, fakeTokens(f.reqs[0]), full-prefix, full)
	}
	if outs[1].PromptEvalDuration != fakeTokenTime*timeDuration(outs[1].PromptTokens) {
		t.Errorf("prompt_eval_duration %v for %d tokens", outs[1].PromptEvalDuration, outs[1].PromptTokens)
	}
	t.Logf("prompt_eval_count: first thread %d, second %d of %d (prefix of %d cached)", outs[0].PromptTokens, outs[1].PromptTokens, full, full-outs[1].PromptTokens)
	// The tokenizer ratio is learned from the evaluated part only: the
	// cached prefix does not make the model's tokenizer look denser.
	if s0 := o.Scale(); s0 < 2 {
		t.Errorf("Scale() = %.2f after a cached call; the fake's tokenizer is about 4 per estimated token", s0)
	}
	o2 := f.triager(t, nil)
	if o2.fence == o.fence {
		t.Error("two triagers share a fence")
	}
}

func timeDuration(n int) time.Duration { return time.Duration(n) }

// TestKVCacheSavesPromptTokens triages every demo thread against the
// fake's KV cache twice: with one triager (one fence: the system prompt
// and the examples are a fixed prefix) and with a new triager per thread
// (a new fence each time, as when every prompt had its own), and logs
// prompt_eval_count and prompt_eval_duration per call. The fixed prefix
// must evaluate fewer tokens.
func TestKVCacheSavesPromptTokens(t *testing.T) {
	examples := []Example{{Subject: "Weekly digest", From: "news@example.net", Category: "low priority"},
		{Subject: "Board numbers", From: "cfo@example.com", Category: "urgent"}}
	keys, threads := sortedDemo(t)
	run := func(perThread bool) (tokens int, dur time.Duration) {
		f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
		f.cache = true
		f.numCtx = 1 << 20 // no truncation: the comparison is about the cache
		o := f.triager(t, nil)
		for _, k := range keys {
			if perThread {
				o = f.triager(t, nil)
			}
			out, err := o.Triage(context.Background(), Input{Messages: threads[k], Principal: demoPrincipal, Examples: examples})
			if err != nil {
				t.Fatal(err)
			}
			tokens += out.PromptTokens
			dur += out.PromptEvalDuration
		}
		return tokens, dur
	}
	fixed, fixedDur := run(false)
	fresh, freshDur := run(true)
	n := len(keys)
	t.Logf("demo, %d threads, fake KV cache: prompt_eval_count per call %d with the fixed prefix, %d with a fence per thread (%.0f %% fewer); prompt_eval_duration per call %v vs %v",
		n, fixed/n, fresh/n, 100*(1-float64(fixed)/float64(fresh)), fixedDur/timeDuration(n), freshDur/timeDuration(n))
	if fixed >= fresh {
		t.Errorf("fixed prefix evaluated %d tokens, a fence per thread %d: the cache saved nothing", fixed, fresh)
	}
}
