package triage

import (
	"testing"

	"mailsift/model"
	"mailsift/model/contract"
)

// TestAlertNotice checks the subjects of live alerts in the five
// languages, and that reports of something past or fine are not alerts.
func TestAlertNotice(t *testing.T) {
	for subject, want := range map[string]bool{
		"[PagerDuty] TRIGGERED #4471: orders-db replication lag":        true,
		"[Escalated] Incident #88: checkout 5xx above 5%":               true,
		"[FIRING:1] DiskFull ci-runner-03":                              true,
		"Monitor api.example.net is down":                               true,
		"AWS keys exposed in northwind/tools":                           true,
		"Possible valid secret detected: Slack token":                   true,
		"Alarm ausgelöst: Speicher voll auf db-2":                       true,
		"Alerte déclenchée : latence élevée sur l'API":                  true,
		"Incidente escalado: pagos caídos en eu-west":                   true,
		"【障害】認証基盤がダウンしています":                                             true,
		"[Resolved] Incident #88: checkout 5xx above 5%":                false,
		"[Recovered] Monitor api.example.net is down":                   false,
		"Security alert: new sign-in on Pixel 8":                        false,
		"Your order has shipped":                                        false,
		"Weekly report: 3 alerts triggered last week were all resolved": false,
	} {
		if got := alertNotice(subject); got != want {
			t.Errorf("alertNotice(%q) = %t, want %t", subject, got, want)
		}
	}
}

// TestAutomatedNotices checks what the signals make of automated mail to
// the principal (Auto-Submitted, from a service's notification address):
// a live alert is urgent, a "passed" or "recovered" notice and an
// activity digest are low priority, a provider's resolved incident
// notice and a receipt stay informational, and an alert through a list
// (everyone watching gets it) is not urgent.
func TestAutomatedNotices(t *testing.T) {
	auto := func(from, subject, body string, hdr map[string][]string) []*model.Message {
		h := map[string][]string{"Auto-Submitted": {"auto-generated"}}
		for k, v := range hdr {
			h[k] = v
		}
		return []*model.Message{{MessageID: subject + "@" + from, From: model.Address{Email: from}, To: []model.Address{demoPrincipal},
			Subject: subject, Text: body, HasBody: true, Headers: h}}
	}
	list := map[string][]string{"List-Id": {"Alerts <alerts.example.net>"}}
	cases := []struct {
		name string
		msgs []*model.Message
		want string
	}{
		{"page escalated", auto("no-reply@pager.example.net", "[Escalated] Incident #4471: orders-db replication lag",
			"Incident #4471 was escalated to you after 15 minutes without acknowledgement.", nil), contract.CategoryUrgent},
		{"secret exposed", auto("security@scanner.example.net", "AWS keys exposed in northwind/tools",
			"We found a valid AWS access key in a public commit pushed 6 minutes ago.", nil), contract.CategoryUrgent},
		{"german alarm", auto("monitoring@ops.example.net", "Alarm ausgelöst: Speicher voll auf db-2",
			"Der Alarm Speicher voll wurde um 06:12 ausgelöst.", nil), contract.CategoryUrgent},
		{"alert through a list", auto("alerts@ops.example.net", "[FIRING:1] DiskFull ci-runner-03",
			"Alert DiskFull is firing for ci-runner-03.", list), contract.CategoryLowPriority},
		{"recovered", auto("alert@monitor.example.net", "[Recovered] Disk usage above 85% on ci-runner-03",
			"Disk usage is back to 61%.", nil), contract.CategoryLowPriority},
		{"pipeline passed", auto("builds@ci.example.net", "Passed: platform-infra #2291 (main)",
			"Build #2291 passed in 4m 12s.", nil), contract.CategoryLowPriority},
		{"agenda", auto("calendar-notification@calendar.example.net", "Daily agenda for Alex Morgan - Tue 24 Nov",
			"10:00 Standup\n14:00 Roadmap review", nil), contract.CategoryLowPriority},
		{"missed activities", auto("noreply@chat.example.net", "You have 6 missed activities in Northwind",
			"Dana mentioned you in #platform. Open the app to see more.", nil), contract.CategoryLowPriority},
		{"provider incident resolved", auto("status@provider.example.net", "Incident resolved: increased latency in FSN1",
			"The incident affecting FSN1 is resolved.", nil), contract.CategoryInformational},
		{"receipt", auto("receipts@pay.example.net", "Your receipt from Linear Orbit #2291-4410",
			"Amount paid: $96.00. Thank you for your business.", nil), contract.CategoryInformational},
	}
	an := NewAnalyzer(nil)
	for _, c := range cases {
		o := an.Deterministic(c.msgs, demoPrincipal)
		if o.Result.IsSpam || o.Result.IsPhishing {
			t.Errorf("%s: quarantined (%q %q)", c.name, o.SpamReasons, o.PhishingReasons)
			continue
		}
		if o.Result.Category != c.want {
			t.Errorf("%s: %s, want %s", c.name, o.Result.Category, c.want)
		}
	}
}

// TestShortBrandLookalikes checks short brand names (under five letters)
// as a hyphen-separated word of a domain, the brands of the other
// languages, and the brands' own country domains.
func TestShortBrandLookalikes(t *testing.T) {
	for host, want := range map[string]bool{
		"dhl-zustellung-paket.com":         true,
		"ups-delivery-notice.com":          true,
		"paket-dhl.net":                    true,
		"santander-seguridad-clientes.com": true,
		"laposte-suivi-colis.fr":           true,
		"rakuten-card-login.jp":            true,
		"dhlexpress-blog.com":              false, // a short brand inside another word
		"groups-and-teams.com":             false,
		"dhl.de":                           false,
		"amazon.co.jp":                     false,
		"amazon.es":                        false,
		"google.de":                        false,
		"santander.es":                     false,
	} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %t, want %t", host, got, want)
		}
	}
}
