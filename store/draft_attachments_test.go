package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"mailsift/model"
)

func TestDraftAttachmentsFollowTheDraft(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	d := &Draft{From: model.Address{Email: "me@example.com"}, To: []model.Address{{Email: "bob@example.com"}}, Subject: "files", Body: "see attached", Source: "compose"}
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	a := &DraftAttachment{DraftID: d.ID, Filename: "a.txt", ContentType: "text/plain", Data: []byte("one")}
	b := &DraftAttachment{DraftID: d.ID, Filename: "b.bin", ContentType: "application/octet-stream", Data: []byte{0, 1, 2}}
	for _, x := range []*DraftAttachment{a, b} {
		if err := s.AddDraftAttachment(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	ap := &Approval{DraftID: d.ID, ExpiresAt: time.Now().Add(time.Hour), What: ApprovalWhat{Action: "send_mail", Message: "x"}}
	if err := s.CreateApproval(ctx, ap); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveDraftAttachment(ctx, d.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.DraftAttachments(ctx, d.ID)
	if err != nil || len(got) != 1 || got[0].Filename != "b.bin" || string(got[0].Data) != "\x00\x01\x02" {
		t.Fatalf("attachments = %+v, %v", got, err)
	}
	// The approval described the old attachments: it expired.
	if st, _ := s.Approval(ctx, ap.ID); st.Status != ApprovalExpired {
		t.Fatalf("approval is %s after an attachment was removed, want expired", st.Status)
	}
	if err := s.RemoveDraftAttachment(ctx, d.ID, a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removing twice = %v, want ErrNotFound", err)
	}
	if err := s.DiscardDraft(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.AddDraftAttachment(ctx, &DraftAttachment{DraftID: d.ID, Filename: "c", ContentType: "text/plain", Data: []byte("c")}); !errors.Is(err, ErrNotEditable) {
		t.Fatalf("attaching to a discarded draft = %v, want ErrNotEditable", err)
	}
}
