package triage

import (
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

// conversationThread is a discussion-list thread: a question, and
// someone else's reply that talks money in the words of 2002 spam.
func conversationThread(replyRefs []string) []*model.Message {
	list := map[string][]string{"List-Id": {"<talk.lists.example.net>"}, "Precedence": {"list"}}
	q := &model.Message{MessageID: "q1@mail.example.org", From: model.Address{Email: "sam@example.org"},
		To: []model.Address{{Email: "talk@lists.example.net"}}, Date: time.Date(2002, 9, 1, 10, 0, 0, 0, time.UTC),
		Subject: "[talk] phoning home from abroad?", Text: "Anyone know a good way to phone home from abroad?\n", Headers: list}
	r := &model.Message{MessageID: "r1@mail.example.com", InReplyTo: replyRefs, References: replyRefs,
		From: model.Address{Email: "kim@example.com"}, To: []model.Address{{Email: "talk@lists.example.net"}},
		Date: time.Date(2002, 9, 1, 12, 0, 0, 0, time.UTC), Subject: "Re: [talk] phoning home from abroad?", Headers: list,
		Text: "Save up to 70% on international calls with our FREE offer. Order now, limited time only, " +
			"money back guarantee. Call toll free today. To be removed from our mailing list reply with remove.\n"}
	return []*model.Message{q, r}
}

// A reply to someone else's message the mailbox holds is a
// conversation: the learned score alone does not make it spam, however
// much it reads like an advertisement; the same text citing no message
// of the thread is judged by its score.
func TestConversationVouches(t *testing.T) {
	a := NewAnalyzer(nil)
	me := model.Address{Email: "me@example.net"}
	stranger := a.Deterministic(conversationThread([]string{"unknown@elsewhere.example"}), me)
	if !stranger.Result.IsSpam {
		t.Fatalf("the advertisement citing no message of the thread is not spam (reasons %q): the test text no longer scores as spam", stranger.SpamReasons)
	}
	reply := a.Deterministic(conversationThread([]string{"q1@mail.example.org"}), me)
	if reply.Result.IsSpam {
		t.Errorf("a reply to someone else's message of the thread is spam: %q", reply.SpamReasons)
	}
	// Answering one's own earlier message is no conversation.
	own := conversationThread([]string{"q1@mail.example.org"})
	own[0].From = own[1].From
	if !inConversation(own, 1) {
		return
	}
	t.Errorf("a reply to the sender's own message counts as a conversation")
}

// A signed message (inline PGP, or a PGP/MIME or S/MIME signature part)
// is not condemned by the learned score alone; the same text unsigned is.
func TestSignedVouches(t *testing.T) {
	a := NewAnalyzer(nil)
	me := model.Address{Email: "me@example.net"}
	unsigned := conversationThread(nil)[1:]
	if o := a.Deterministic(unsigned, me); !o.Result.IsSpam {
		t.Fatalf("the unsigned advertisement is not spam (reasons %q): the test text no longer scores as spam", o.SpamReasons)
	}
	inline := conversationThread(nil)[1:]
	inline[0].Text = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA1\n\n" + inline[0].Text +
		"-----BEGIN PGP SIGNATURE-----\nVersion: GnuPG v1.0.7\n\niD8DBQE9\n-----END PGP SIGNATURE-----\n"
	// A long body whose signature block lies beyond what is analyzed.
	block := conversationThread(nil)[1:]
	block[0].Text = strings.Repeat(block[0].Text, 2*maxAnalyzed/len(block[0].Text)) +
		"-----BEGIN PGP SIGNATURE-----\nVersion: GnuPG v1.0.7\n\niD8DBQE9\n-----END PGP SIGNATURE-----\n"
	mime := conversationThread(nil)[1:]
	mime[0].Attachments = []model.Attachment{{Filename: "signature.asc", ContentType: "application/pgp-signature", Part: "2"}}
	smime := conversationThread(nil)[1:]
	smime[0].Attachments = []model.Attachment{{Filename: "smime.p7s", ContentType: "application/pkcs7-signature", Part: "2"}}
	for name, th := range map[string][]*model.Message{"inline PGP": inline, "PGP signature block": block, "PGP/MIME": mime, "S/MIME": smime} {
		if o := a.Deterministic(th, me); o.Result.IsSpam {
			t.Errorf("%s signed: spam (%q)", name, o.SpamReasons)
		}
	}
}

// A request for credentials counts only in the author's own text: quoted
// or forwarded, it is someone else's (a warning passes a scam on).
func TestCredentialRequestOwnTextOnly(t *testing.T) {
	a := NewAnalyzer(nil)
	me := model.Address{Email: "me@example.net"}
	scam := "Dear customer, unusual activity was found. Verify your account within 24 hours or your account will be suspended.\n"
	has := func(body string) bool {
		m := &model.Message{MessageID: "w1@example.org", From: model.Address{Email: "pat@example.org"},
			To: []model.Address{{Email: "me@example.net"}}, Subject: "look at this one", Text: body,
			Date: time.Date(2002, 9, 1, 10, 0, 0, 0, time.UTC)}
		for _, s := range a.Deterministic([]*model.Message{m}, me).Signals {
			if s.Kind == SigCredentialRequest {
				return true
			}
		}
		return false
	}
	if !has(scam) {
		t.Fatal("the scam's own text asks for no credentials: the test text no longer matches the phrases")
	}
	for name, body := range map[string]string{
		"quoted":    "Another one of these arrived today, careful:\n\n> " + scam,
		"forwarded": "FYI, another one.\n\n-----Original Message-----\nFrom: security@bank.example\n\n" + scam,
	} {
		if has(body) {
			t.Errorf("%s scam: a credential request is found in the forwarder's message", name)
		}
	}
}
