package triage

import (
	"fmt"
	"path"
	"slices"
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

// riskyFile says why a file name is risky ("" when it is not) and how
// much that weighs: a type that runs when opened, or a document's type in
// front of one that runs or opens as a page ("invoice.pdf.exe"), as much
// as phishing needs; a web page alone less (some tools export reports as
// HTML).
func riskyFile(name string) (string, float64) {
	low := strings.ToLower(strings.TrimSpace(name))
	ext := path.Ext(low)
	if !runsWhenOpened[ext] && !pageFiles[ext] {
		return "", 0
	}
	stem := low[:len(low)-len(ext)]
	for _, d := range documentTypes {
		if strings.HasSuffix(stem+".", d) {
			return fmt.Sprintf("%q hides a %s behind %s", name, ext, strings.TrimSuffix(d, ".")), 3.5
		}
	}
	if runsWhenOpened[ext] {
		return fmt.Sprintf("%q runs when opened", name), 3.5
	}
	return fmt.Sprintf("%q is a web page sent as a file", name), 2
}

// fileNames finds, in one pass over the dots of text, the first file name
// showing a document's type in front of one that runs or opens as a page
// ("statement.pdf.html", the name a message points its reader to when
// the file itself travels elsewhere), the first name of one of
// programTypes ("CV_candidat.exe") and the first of archiveTypes
// ("Factura_1187.zip", also at the end of a link); "" for none.
func fileNames(text string) (disguised, program, archive string) {
	for off := 0; off < len(text); {
		k := strings.IndexByte(text[off:], '.')
		if k < 0 {
			break
		}
		dot := off + k
		off = dot + 1
		if dot == 0 || !isAlnumByte(text[dot-1]) {
			continue
		}
		ext, end := extAt(text, dot)
		if ext == "" {
			continue
		}
		if disguised == "" && end < len(text) && text[end] == '.' && slices.Contains(documentTypes, "."+ext+".") {
			if next, e2 := extAt(text, end); runsWhenOpened["."+next] || pageFiles["."+next] {
				disguised = text[nameStart(text, dot):e2]
			}
		}
		wordEnd := end == len(text) || !isAlnumByte(text[end])
		if program == "" && slices.Contains(programTypes, "."+ext) && wordEnd {
			program = text[nameStart(text, dot):end]
		}
		if archive == "" && slices.Contains(archiveTypes, "."+ext) && wordEnd {
			archive = text[nameStart(text, dot):end]
		}
		if disguised != "" && program != "" && archive != "" {
			break
		}
	}
	return disguised, program, archive
}

// extAt returns the lower-cased letters and digits after the dot at
// text[dot] (up to six) and where they end; "" when there are none or
// more than six.
func extAt(text string, dot int) (string, int) {
	end := dot + 1
	for end < len(text) && isAlnumByte(text[end]) && end-dot <= 6 {
		end++
	}
	if end == dot+1 || end-dot > 6 {
		return "", end
	}
	return strings.ToLower(text[dot+1 : end]), end
}

// nameStart returns where the file name ending before text[dot] starts.
func nameStart(text string, dot int) int {
	start := dot
	for start > 0 && (isAlnumByte(text[start-1]) || text[start-1] == '_' || text[start-1] == '-' || text[start-1] == '.') {
		start--
	}
	return start
}

// isAlnumByte reports whether c is an ASCII letter or digit.
func isAlnumByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// riskyAttachment flags the latest message's attachments that run when
// opened, web pages sent as files, and file names disguising their type,
// attached or named in the author's own text. A program or a disguised
// name is as much as phishing needs; a page weighs less (see riskyFile).
// A colleague's authenticated mail is theirs to send.
func riskyAttachment(an *analysis, m *model.Message, add func(Signal)) {
	if an.internal && an.authAligned {
		return
	}
	for _, at := range m.Attachments {
		if at.Inline {
			continue
		}
		if why, w := riskyFile(at.Filename); why != "" {
			add(Signal{Kind: SigRiskyAttachment, Reason: "an attachment " + why, Message: an.latest, Value: at.Filename, Weight: w})
			return
		}
	}
	disguised, program, archive := fileNames(an.latestOwn)
	if disguised != "" {
		add(Signal{Kind: SigRiskyAttachment, Reason: fmt.Sprintf("names a file hiding its type (%q)", disguised), Message: an.latest, Value: disguised, Weight: 3.5})
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
	if name := lockedArchive(an, m, archive); name != "" {
		add(Signal{Kind: SigRiskyAttachment, Reason: fmt.Sprintf("an archive locked with the password given beside it (%q): the lock keeps mail scanners out", name),
			Message: an.latest, Value: name, Weight: 3.5})
		return
	}
	if program != "" {
		// "Open CV_candidate.exe in the archive": the reader is told to
		// run a program (a vendor's release notes name installers too,
		// so alone it is not enough).
		why, w := "tells you to open a program (%q)", 2.0
		if _, locked := containsAnyOf(an.ownLower(), lockedWords); locked && !an.internal && !an.familiar {
			// … from an archive a stranger locked with a password, which
			// keeps the mail scanners out: the malware's delivery.
			why, w = "tells you to open a program from a password-locked archive (%q)", 3.5
		}
		add(Signal{Kind: SigRiskyAttachment, Reason: fmt.Sprintf(why, program), Message: an.latest, Value: program, Weight: w})
	}
}

// programTypes are the file types that run when opened and, unlike
// ".com" or ".js", do not end ordinary words of a text.
var programTypes = []string{".exe", ".scr", ".iso", ".img", ".lnk", ".msi", ".hta", ".vbs", ".bat", ".jar", ".ps1", ".vhd"}

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

// archiveTypes are the archive formats that take a password.
var archiveTypes = []string{".zip", ".rar", ".7z"}

// separatelyWords say a password travels in another message (lower
// case): the practice of businesses that lock archives, unlike the
// password printed beside the archive, which only locks out scanners.
var separatelyWords = []string{"separately", "separate email", "separate e-mail", "separate message", "getrennt", "gesondert",
	"séparément", "par un autre", "por separado", "en otro correo", "別途", "別メール"}

// lockedArchive returns the name of an archive the latest message
// attaches, or named names in its author's own text (see fileNames), when
// that text also gives the archive's password, from a stranger ("" for
// none).
func lockedArchive(an *analysis, m *model.Message, named string) string {
	if an.internal || an.familiar || an.conversation {
		return ""
	}
	name := named
	for _, at := range m.Attachments {
		if slices.Contains(archiveTypes, path.Ext(strings.ToLower(at.Filename))) {
			name = at.Filename
			break
		}
	}
	if name == "" {
		return ""
	}
	low := an.ownLower()
	if _, locked := containsAnyOf(low, lockedWords); !locked {
		return ""
	}
	if _, apart := containsAnyOf(low, separatelyWords); apart {
		return ""
	}
	return name
}
