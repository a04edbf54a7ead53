package triage

import (
	"testing"

	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// File names that run when opened, web pages sent as files and names
// hiding their type behind a document's are risky; documents, images
// and calendar files are not.
func TestRiskyFile(t *testing.T) {
	for name, risky := range map[string]bool{
		"invoice.pdf.exe": true, "Statement_Q3.PDF.html": true, "setup.msi": true, "scan.js": true, "Rechnung.lnk": true,
		"order.iso": true, "voicemail.htm": true, "remittance.svg": true,
		"invoice.pdf": false, "report.xlsx": false, "photo.jpg": false, "invite.ics": false, "notes.txt": false, "": false,
	} {
		if why, _ := riskyFile(name); (why != "") != risky {
			t.Errorf("riskyFile(%q) = %q, want risky %v", name, why, risky)
		}
	}
	for text, want := range map[string]string{
		"Please open the attached statement (MDS-88213_statement.pdf.html) and sign in.": "MDS-88213_statement.pdf.html",
		"Factura adjunta: factura-1187.pdf.exe":                                          "factura-1187.pdf.exe",
		"The report is at https://reports.example/q3.pdf and the page at index.html.":    "",
		"See report.pdf. Then call me.":                                                  "",
	} {
		if got, _, _ := fileNames(text); got != want {
			t.Errorf("fileNames(%q) disguised %q, want %q", text, got, want)
		}
	}
}

// A stranger's mail with a program, or a document name hiding a program
// or a page, is phishing; a web page attached with a sign-in ask is too;
// the same page as a colleague's authenticated report, and a plain PDF
// invoice, are not.
func TestRiskyAttachmentIsPhishing(t *testing.T) {
	auth := func(d string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=" + d + "; dkim=pass header.d=" + d + "; dmarc=pass header.from=" + d}}
	}
	stranger := model.Address{Name: "Accounts", Email: "ar@parts-supplier.example"}
	colleague := model.Address{Name: "Sam Okafor", Email: "sam.okafor@northwind.example"}
	for _, tt := range []struct {
		from     model.Address
		text     string
		file     string
		hdr      map[string][]string
		phishing bool
	}{
		{stranger, "Please find the invoice attached.", "invoice_2207.pdf.exe", auth("parts-supplier.example"), true},
		{stranger, "Please find the invoice attached.", "invoice_2207.scr", auth("parts-supplier.example"), true},
		{stranger, "Please open the attached statement and sign in with your company email to view it.", "statement.html", auth("parts-supplier.example"), true},
		{stranger, "Please find the invoice attached.", "invoice_2207.pdf", auth("parts-supplier.example"), false},
		{stranger, "Please open the statement MDS-2207_statement.pdf.html and pay within 48 hours.", "", auth("parts-supplier.example"), true},
		{colleague, "Here is the coverage report from last night's run.", "coverage.html", auth("northwind.example"), false},
	} {
		m := &model.Message{MessageID: "r@x", From: tt.from, To: []model.Address{demoPrincipal}, Subject: "Invoice 2207", Text: tt.text, HasBody: true, Headers: tt.hdr}
		if tt.file != "" {
			m.Attachments = []model.Attachment{{Filename: tt.file, ContentType: "application/octet-stream", Size: 40000}}
		}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.phishing {
			t.Errorf("%s from %s: phishing %v, want %v; signals %v", tt.file, tt.from.Email, o.Result.IsPhishing, tt.phishing, o.Signals)
		}
	}
}

// A real MIME message whose attachment hides a program behind a PDF's
// name is phishing once parsed: the file name comes from the part's
// Content-Disposition.
func TestRiskyAttachmentParsed(t *testing.T) {
	raw := "From: Accounts <ar@parts-supplier.example>\r\nTo: Alex Morgan <alex.morgan@northwind.example>\r\n" +
		"Subject: Invoice 2207\r\nMessage-ID: <inv2207@parts-supplier.example>\r\nDate: Tue, 24 Nov 2026 09:00:00 +0000\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b1\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlease find the invoice attached.\r\n" +
		"--b1\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=\"invoice_2207.pdf.exe\"\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\nTVqQAAMAAAAEAAAA//8AALgAAAAAAAAAQAAAAAAAAAAA\r\n--b1--\r\n"
	m, err := rfc822.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	o := Deterministic([]*model.Message{m}, demoPrincipal)
	if !o.Result.IsPhishing {
		t.Errorf("parsed attachment %v: not phishing; signals %v", m.Attachments, o.Signals)
	}
}
