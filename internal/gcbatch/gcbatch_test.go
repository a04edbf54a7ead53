package gcbatch

import (
	"runtime/debug"
	"testing"
)

// current reads the GC percent and memory limit without changing them.
func current() (int, int64) {
	pct := debug.SetGCPercent(100)
	debug.SetGCPercent(pct)
	return pct, debug.SetMemoryLimit(-1)
}

func withEnv(t *testing.T, env map[string]string) {
	t.Helper()
	old := getenvFor
	getenvFor = func(k string) string { return env[k] }
	t.Cleanup(func() { getenvFor = old })
}

func TestEnterNestsAndRestores(t *testing.T) {
	withEnv(t, nil)
	pct0, lim0 := current()
	leave1 := Enter()
	if pct, lim := current(); pct != Percent || lim != Limit {
		t.Fatalf("inside a sync: GOGC %d, limit %d; want %d, %d", pct, lim, Percent, Limit)
	}
	leave2 := Enter()
	leave1()
	leave1() // a second call is harmless
	if pct, _ := current(); pct != Percent {
		t.Fatalf("one sync still running: GOGC %d, want %d", pct, Percent)
	}
	leave2()
	if pct, lim := current(); pct != pct0 || lim != lim0 {
		t.Fatalf("after the last sync: GOGC %d, limit %d; want %d, %d back", pct, lim, pct0, lim0)
	}
}

func TestEnvironmentWins(t *testing.T) {
	withEnv(t, map[string]string{"GOGC": "150"})
	pct0, lim0 := current()
	leave := Enter()
	if pct, lim := current(); pct != pct0 || lim != lim0 {
		t.Errorf("with GOGC set: GOGC %d, limit %d changed from %d, %d", pct, lim, pct0, lim0)
	}
	leave()

	withEnv(t, map[string]string{"GOMEMLIMIT": "1GiB"})
	leave = Enter()
	if pct, lim := current(); pct != Percent || lim != lim0 {
		t.Errorf("with GOMEMLIMIT set: GOGC %d (want %d), limit %d (want %d, untouched)", pct, Percent, lim, lim0)
	}
	leave()
}
