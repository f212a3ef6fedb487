// Package compare runs the same kubectl scenario against a Kubik chapter and
// against real Kubernetes (or against golden outputs recorded from it),
// normalises what legitimately differs between two clusters, and shows what
// is left: a side-by-side diff and a score "N of M outputs identical".
package compare

import (
	"regexp"
	"strings"
)

// What differs between any two clusters, and how it is normalised. Each rule
// replaces a value that is random or time-dependent by a placeholder; none of
// them may hide a difference in columns, statuses, messages or defaults
// (normalize_test.go checks that).
var rules = []struct {
	re   *regexp.Regexp
	repl string
}{
	// Server version: ours says v1.35.4-kubik.
	{regexp.MustCompile(`(Server Version: )v\d+\.\d+\.\d+\S*`), "${1}<VERSION>"},
	{regexp.MustCompile(`("gitVersion": ?")v\d+\.\d+\.\d+[^"]*`), "${1}<VERSION>"},
	{regexp.MustCompile(`(gitVersion: )v\d+\.\d+\.\d+\S*`), "${1}<VERSION>"},
	{regexp.MustCompile(`(GitVersion:")v\d+\.\d+\.\d+[^"]*`), "${1}<VERSION>"}, // kubectl 1.27 prints the struct
	// When, from which commit and with which Go the server was built.
	{regexp.MustCompile(`((?i)"?gitCommit"?: ?")[^"]*`), "${1}<COMMIT>"},
	{regexp.MustCompile(`((?i)"?buildDate"?: ?")[^"]*`), "${1}<TIME>"},
	{regexp.MustCompile(`((?i)"?goVersion"?: ?")go[^"]*`), "${1}<GO>"},
	// UIDs.
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<UID>"},
	// resourceVersions in YAML and JSON, and the watch's list revision.
	{regexp.MustCompile(`(resourceVersion"?: ?")\d+(")`), "${1}<RV>${2}"},
	// Timestamps: RFC 3339 (YAML/JSON) and kubectl describe's format.
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<TIME>"},
	{regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d [+-]\d{4}`), "<TIME>"},
	// Loopback ports of the two apiservers.
	{regexp.MustCompile(`(127\.0\.0\.1|localhost):\d{2,5}`), "${1}:<PORT>"},
	// NodePorts.
	{regexp.MustCompile(`\b(nodePort"?: ?)3\d{4}\b`), "${1}<NODEPORT>"},
	{regexp.MustCompile(`:3\d{4}/(TCP|UDP|SCTP)`), ":<NODEPORT>/${1}"},
	// Random name parts: pod-template-hash (9–10 safe characters) and generateName's 5.
	{regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{9,10}\b`), "-<HASH>"},
	{regexp.MustCompile(`-[bcdfghjklmnpqrstvwxz2456789]{5}\b`), "-<SUFFIX>"},
	// The pod-template-hash label's value where it is not part of a name
	// (a selector, describe's Labels, JSON). Kubik computes it with another
	// hash function than upstream by design (ch04-controllers/controller/hash.go).
	{regexp.MustCompile(`(pod-template-hash"?[=:]"?)[bcdfghjklmnpqrstvwxz2456789]{1,10}\b`), "${1}<HASH>"},
}

// ageColumns are the table columns that hold durations.
var ageColumns = map[string]bool{"AGE": true, "LAST SEEN": true, "FIRST SEEN": true, "DURATION": true, "LAST SCHEDULE": true}

var (
	durationCell = regexp.MustCompile(`^(<invalid>|<unknown>|\d+[smhdy](\d+[smh])?)$`)
	headerLine   = regexp.MustCompile(`^[A-Z][A-Z0-9()/-]*( [A-Z][A-Z0-9()/-]*)*(\s{2,}[A-Z][A-Z0-9()/-]*( [A-Z][A-Z0-9()/-]*)*)+\s*$`)
	columnGap    = regexp.MustCompile(`\s{3,}`)
	columnName   = regexp.MustCompile(`[A-Z][A-Z0-9()/-]*( [A-Z][A-Z0-9()/-]*)*`)
	clusterIP    = regexp.MustCompile(`\b10\.(9[6-9]|10[0-9]|11[01])\.\d{1,3}\.\d{1,3}\b`)
)

// Normalize applies the rules to one command's output. Tables (a header line
// of upper-case column names followed by rows) are re-joined with two spaces
// after their duration columns are replaced by <AGE>, because a duration of
// another width moves every column after it.
func Normalize(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var ageAt, ageIdx []int // byte offsets and cell indexes of the duration columns in the current table
	inTable := false
	for i, line := range lines {
		line = strings.TrimRight(line, " ")
		switch {
		case headerLine.MatchString(line):
			ageAt, ageIdx = ageAt[:0], ageIdx[:0]
			for j, loc := range columnName.FindAllStringIndex(line, -1) {
				if ageColumns[line[loc[0]:loc[1]]] {
					ageAt, ageIdx = append(ageAt, loc[0]), append(ageIdx, j)
				}
			}
			inTable = true
			lines[i] = strings.Join(columnGap.Split(strings.TrimSpace(line), -1), "  ")
		case line == "":
			inTable = false
			lines[i] = line
		case inTable:
			// kubectl pads every row to the header's column offsets, so a
			// duration is found where its header starts — even when an
			// empty cell before it (a PV's CLAIM, STORAGECLASS) makes
			// counting cells useless. Rows not aligned with their header
			// fall back to counting cells.
			aligned := line
			for j := len(ageAt) - 1; j >= 0; j-- {
				aligned = replaceAgeAt(aligned, ageAt[j])
			}
			cells := columnGap.Split(aligned, -1)
			if aligned == line {
				for _, j := range ageIdx {
					if j < len(cells) && durationCell.MatchString(cells[j]) {
						cells[j] = "<AGE>"
					}
				}
			}
			lines[i] = strings.Join(cells, "  ")
		default:
			lines[i] = line
		}
	}
	s := strings.Join(lines, "\n")
	for _, r := range rules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	// Dynamically allocated ClusterIPs; 10.96.0.1 is fixed (the kubernetes Service).
	return clusterIP.ReplaceAllStringFunc(s, func(ip string) string {
		if ip == "10.96.0.1" {
			return ip
		}
		return "<CLUSTER-IP>"
	})
}

// replaceAgeAt replaces the cell starting at byte offset off of a table row
// by <AGE> if it is a duration.
func replaceAgeAt(row string, off int) string {
	if off >= len(row) || row[off] == ' ' || (off > 0 && row[off-1] != ' ') {
		return row
	}
	end := strings.IndexByte(row[off:], ' ')
	if end < 0 {
		end = len(row) - off
	}
	if !durationCell.MatchString(row[off : off+end]) {
		return row
	}
	return row[:off] + "<AGE>" + row[off+end:]
}
