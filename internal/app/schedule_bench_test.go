package app

import (
	"context"
	"testing"

	"mailsift/mailsrc/demo"
	"mailsift/mirror"
)

// BenchmarkSchedulerAnalyzeDemo measures one deterministic scheduling
// analysis of the demo's capacity-planning thread (4 messages, an
// invitation, 2 attendees): reading the thread and its calendar part,
// the inputs, each attendee's analysis, the aggregation, and storing the
// result with its invitations.
func BenchmarkSchedulerAnalyzeDemo(b *testing.B) {
	ctx := context.Background()
	f := newSchedFixture(b)
	if err := mirror.Sync(ctx, f.st, "demo", demo.New("demo", f.clk.Now), nil); err != nil {
		b.Fatal(err)
	}
	id, err := f.st.ThreadIDForMessage(ctx, "09-capacity-meeting-1.1777@northwind.example")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := f.sched.Analyze(ctx, id, false); err != nil {
			b.Fatal(err)
		}
	}
}
