package triage

import (
	"fmt"
	"path"
	"strings"

	"mailsift/model"
)

// runsWhenOpened are the file types that execute when opened on a
// desktop (programs, scripts, shortcuts, installers) or mount as a drive
// whose files do (disk images): what malware is sent as.
var runsWhenOpened = map[string]bool{
	".exe": true, ".scr": true, ".pif": true, ".com": true, ".bat": true, ".cmd": true, ".js": true, ".jse": true,
	".vbs": true, ".vbe": true, ".wsf": true, ".wsh": true, ".hta": true, ".lnk": true, ".msi": true, ".jar": true,
	".ps1": true, ".iso": true, ".img": true, ".vhd": true, ".vhdx": true, ".cpl": true, ".reg": true, ".appx": true,
	".msix": true, ".one": true,
}

// pageFiles are web pages sent as files: a sign-in form that opens
// locally, posting the password elsewhere, is how credential phishing
// passes link scanners.
var pageFiles = map[string]bool{".html": true, ".htm": true, ".shtml": true, ".xhtml": true, ".svg": true, ".mht": true}

// documentTypes are the types a disguised name shows before its real one.
var documentTypes = []string{".pdf.", ".doc.", ".docx.", ".xls.", ".xlsx.", ".txt.", ".jpg.", ".png.", ".zip.", ".csv."}

// riskyFile says why a file name is risky ("" when it is not): a type
// that runs when opened, a web page, or a document's type in front of
// either ("invoice.pdf.exe").
func riskyFile(name string) string {
	low := strings.ToLower(strings.TrimSpace(name))
	ext := path.Ext(low)
	if !runsWhenOpened[ext] && !pageFiles[ext] {
		return ""
	}
	stem := low[:len(low)-len(ext)]
	for _, d := range documentTypes {
		if strings.HasSuffix(stem+".", d) {
			return fmt.Sprintf("%q hides a %s behind %s", name, ext, strings.TrimSuffix(d, "."))
		}
	}
	if runsWhenOpened[ext] {
		return fmt.Sprintf("%q runs when opened", name)
	}
	return fmt.Sprintf("%q is a web page sent as a file", name)
}

// disguisedName finds in text a file name showing a document's type in
// front of one that runs or opens as a page ("statement.pdf.html"): the
// name a message points its reader to when the file itself travels
// elsewhere. It returns the name, "" for none.
func disguisedName(text string) string {
	for _, d := range documentTypes {
		for off := 0; ; {
			k := strings.Index(text[off:], d)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(d)
			end := off
			for end < len(text) && isAlnumByte(text[end]) {
				end++
			}
			ext := "." + strings.ToLower(text[off:end])
			if !runsWhenOpened[ext] && !pageFiles[ext] {
				continue
			}
			start := at
			for start > 0 && (isAlnumByte(text[start-1]) || text[start-1] == '_' || text[start-1] == '-') {
				start--
			}
			return text[start:end]
		}
	}
	return ""
}

func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// riskyAttachment flags the latest message's attachments that run when
// opened, web pages sent as files, and file names disguising their type,
// attached or named in the author's own text. A program or a disguised
// name is as much as phishing needs; a page weighs less (some tools
// export reports as HTML). A colleague's authenticated mail is theirs to
// send.
func riskyAttachment(an *analysis, m *model.Message, add func(Signal)) {
	if an.internal && an.authAligned {
		return
	}
	for _, at := range m.Attachments {
		if at.Inline {
			continue
		}
		if why := riskyFile(at.Filename); why != "" {
			w := 3.5
			if pageFiles[path.Ext(strings.ToLower(at.Filename))] && !strings.Contains(why, "hides") {
				w = 2
			}
			add(Signal{Kind: SigRiskyAttachment, Reason: "an attachment " + why, Message: an.latest, Value: at.Filename, Weight: w})
			return
		}
	}
	if name := disguisedName(an.latestOwn); name != "" {
		add(Signal{Kind: SigRiskyAttachment, Reason: fmt.Sprintf("names a file hiding its type (%q)", name), Message: an.latest, Value: name, Weight: 3.5})
		return
	}
	if an.list || an.bulk {
		// (a software newsletter links to installers and names them)
		return
	}
	if an.fileLink != "" {
		add(Signal{Kind: SigRiskyAttachment, Reason: fmt.Sprintf("a link downloads a file that runs when opened (%q)", an.fileLink), Message: an.latest, Value: an.fileLink, Weight: 3.5})
		return
	}
	if name := programNamed(an.latestOwn); name != "" {
		// "Open CV_candidate.exe in the archive": the reader is told to
		// run a program (a vendor's release notes name installers too,
		// so alone it is not enough).
		add(Signal{Kind: SigRiskyAttachment, Reason: fmt.Sprintf("tells you to open a program (%q)", name), Message: an.latest, Value: name, Weight: 2})
	}
}

// programTypes are the file types that run when opened and, unlike
// ".com" or ".js", do not end ordinary words of a text.
var programTypes = []string{".exe", ".scr", ".iso", ".img", ".lnk", ".msi", ".hta", ".vbs", ".bat", ".jar", ".ps1", ".vhd"}

// programNamed finds in text a file name of one of programTypes, ""
// for none.
func programNamed(text string) string {
	for _, ext := range programTypes {
		for off := 0; ; {
			k := strings.Index(text[off:], ext)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(ext)
			if off < len(text) && isAlnumByte(text[off]) || at == 0 || !isAlnumByte(text[at-1]) {
				continue
			}
			start := at
			for start > 0 && (isAlnumByte(text[start-1]) || text[start-1] == '_' || text[start-1] == '-') {
				start--
			}
			return text[start:off]
		}
	}
	return ""
}

// runsFromLink returns the file name a link downloads when its path ends
// in a type that runs when opened ("…/Portfolio.iso"), "" otherwise.
func runsFromLink(u string) string {
	p := u
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if i := strings.Index(p, "://"); i >= 0 {
		p = p[i+3:]
	}
	slash := strings.IndexByte(p, '/')
	if slash < 0 {
		return ""
	}
	name := path.Base(p[slash:])
	if runsWhenOpened[strings.ToLower(path.Ext(name))] && !strings.EqualFold(path.Ext(name), ".com") {
		return name
	}
	return ""
}
