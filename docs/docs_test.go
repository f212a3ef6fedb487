// Package docs_test checks the course text itself: that every relative
// link and anchor of the Markdown pages resolves, that docs/README.md links
// every chapter and each chapter's «Дальше» links the next one, and that no
// page or Go comment tells a reader to signal processes by name. The
// Makefile's promises to the reader are checked in makefile_test.go.
package docs_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, seen from this package's directory.
const root = ".."

// page is one Markdown file: its text with code removed (fenced blocks and
// code spans are blanked, so their brackets and '#' lines are not taken for
// links and headings; line numbers stay), its links and its anchors.
type page struct {
	path    string // relative to root, slash-separated
	prose   string
	links   []link
	anchors map[string]bool
}

type link struct {
	line   int
	target string
}

// pages reads README.md and every docs page, English summaries included.
func pages(t *testing.T) map[string]*page {
	t.Helper()
	files := []string{"README.md"}
	for _, glob := range []string{"docs/*.md", "docs/en/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	out := map[string]*page{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = parsePage(f, string(b))
	}
	return out
}

var (
	fence    = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	heading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	// [text](target) and ![alt](target); the text may span lines and hold
	// one level of brackets.
	mdLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// <a name="x"> or id="x": anchors written by hand.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

func parsePage(path, text string) *page {
	lines := strings.Split(text, "\n")
	inFence := false
	for i, l := range lines {
		if fence.MatchString(l) {
			inFence = !inFence
			lines[i] = ""
			continue
		}
		if inFence {
			lines[i] = ""
		}
	}
	p := &page{path: path, anchors: map[string]bool{}}
	seen := map[string]int{}
	for i, l := range lines {
		if m := heading.FindStringSubmatch(l); m != nil {
			slug := Slug(m[2])
			if n := seen[slug]; n > 0 {
				p.anchors[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				p.anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			p.anchors[m[1]] = true
		}
		// Code spans are blanked after the headings are read: a heading's
		// `code` is part of its anchor.
		lines[i] = codeSpan.ReplaceAllStringFunc(l, func(s string) string { return strings.Repeat(" ", len(s)) })
	}
	p.prose = strings.Join(lines, "\n")
	for _, m := range mdLink.FindAllStringSubmatchIndex(p.prose, -1) {
		target := p.prose[m[2]:m[3]]
		p.links = append(p.links, link{line: 1 + strings.Count(p.prose[:m[0]], "\n"), target: target})
	}
	return p
}

// Slug is the anchor GitHub gives a heading: its text in lower case, with
// inline markup and every character that is not a letter, a digit, a
// space, '-' or '_' removed, and each space turned into '-'.
func Slug(h string) string {
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1") // [text](url) → text
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isExternal(target string) bool {
	return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`).MatchString(target)
}

// TestDocLinks: every relative link of README.md and docs/ names a file or
// directory of the repository, and every #anchor a heading of its page.
// A chapter page not written yet but already linked (the course links its
// later chapters ahead) is reported once with everything that links it.
func TestDocLinks(t *testing.T) {
	ps := pages(t)
	missing := map[string][]string{} // target file → where it is linked
	for _, name := range sortedKeys(ps) {
		p := ps[name]
		for _, l := range p.links {
			if isExternal(l.target) {
				continue
			}
			where := fmt.Sprintf("%s:%d", p.path, l.line)
			file, anchor, _ := strings.Cut(l.target, "#")
			target := p.path
			if file != "" {
				target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(p.path), file)))
			}
			if strings.HasPrefix(target, "../") {
				t.Errorf("%s: %s points outside the repository", where, l.target)
				continue
			}
			if _, err := os.Stat(filepath.Join(root, target)); err != nil {
				missing[target] = append(missing[target], where)
				continue
			}
			if anchor == "" {
				continue
			}
			tp, ok := ps[target]
			if !ok {
				if strings.HasSuffix(target, ".md") {
					b, err := os.ReadFile(filepath.Join(root, target))
					if err != nil {
						t.Fatal(err)
					}
					tp = parsePage(target, string(b))
				} else {
					continue // an anchor into a source file: a line, not a heading
				}
			}
			if !tp.anchors[anchor] {
				t.Errorf("%s: %s: %s has no heading with the anchor #%s", where, l.target, target, anchor)
			}
		}
	}
	for _, target := range sortedKeys(missing) {
		t.Errorf("%s does not exist; linked from %s", target, strings.Join(missing[target], ", "))
	}
}

// chapterLink matches a link to a chapter page from docs/README.md.
var chapterLink = regexp.MustCompile(`^(ch\d\d-[a-z0-9-]+\.md)$`)

// courseOrder is the chapters in the order of docs/README.md's table of
// contents: the order in which a reader takes them.
func courseOrder(t *testing.T, ps map[string]*page) []string {
	t.Helper()
	var order []string
	for _, l := range ps["docs/README.md"].links {
		if m := chapterLink.FindStringSubmatch(l.target); m != nil && !slices.Contains(order, "docs/"+m[1]) {
			order = append(order, "docs/"+m[1])
		}
	}
	if len(order) == 0 {
		t.Fatal("docs/README.md links no chapter")
	}
	return order
}

// TestEveryChapterInContents: each chapter page in docs/ is linked from the
// course's table of contents, the README links the course, and each English
// summary is linked from the README and links its Russian chapter.
func TestEveryChapterInContents(t *testing.T) {
	ps := pages(t)
	order := courseOrder(t, ps)
	chapters, _ := filepath.Glob(filepath.Join(root, "docs", "ch[0-9][0-9]-*.md"))
	for _, f := range chapters {
		name := "docs/" + filepath.Base(f)
		if !slices.Contains(order, name) {
			t.Errorf("%s is not linked from docs/README.md", name)
		}
	}
	readme := linkTargets(ps["README.md"])
	if !slices.Contains(readme, "docs/README.md") {
		t.Error("README.md does not link docs/README.md")
	}
	en, _ := filepath.Glob(filepath.Join(root, "docs", "en", "*.md"))
	if len(en) == 0 {
		t.Error("no English summaries in docs/en/")
	}
	for _, f := range en {
		name := "docs/en/" + filepath.Base(f)
		if !slices.Contains(readme, name) {
			t.Errorf("%s is not linked from README.md's English paragraph", name)
		}
		ru := "../" + filepath.Base(f)
		if _, err := os.Stat(filepath.Join(root, "docs", filepath.Base(f))); err == nil && !slices.Contains(linkTargets(ps[name]), ru) {
			t.Errorf("%s does not link the chapter it summarises (%s)", name, ru)
		}
	}
}

func linkTargets(p *page) []string {
	var out []string
	for _, l := range p.links {
		file, _, _ := strings.Cut(l.target, "#")
		out = append(out, file)
	}
	return out
}

// TestNextLinks: every chapter ends its text with a «Дальше» section, and
// that section links the next chapter of the course.
func TestNextLinks(t *testing.T) {
	ps := pages(t)
	order := courseOrder(t, ps)
	for i, name := range order {
		p, ok := ps[name]
		if !ok {
			continue // not written yet: TestDocLinks reports it
		}
		next := ""
		if i+1 < len(order) {
			next = filepath.Base(order[i+1])
		}
		section, ok := sectionOf(p, "Дальше")
		if !ok {
			t.Errorf("%s has no «## Дальше» section", name)
			continue
		}
		if next == "" {
			continue
		}
		found := false
		for _, l := range section.links {
			if file, _, _ := strings.Cut(l.target, "#"); file == next {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: its «Дальше» does not link the next chapter, %s", name, next)
		}
	}
}

// sectionOf is the part of p from the "## title" heading to the next "## ".
func sectionOf(p *page, title string) (*page, bool) {
	lines := strings.Split(p.prose, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "## "+title {
			continue
		}
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "## ") {
				end = j
				break
			}
		}
		var s page
		for _, lk := range p.links {
			if lk.line > i && lk.line <= end {
				s.links = append(s.links, lk)
			}
		}
		return &s, true
	}
	return nil, false
}

// TestNoKillByName: no doc, Go file, script or Makefile tells a reader (or
// does itself) to find or signal processes by their name. On a shared
// machine that hits every student's kubelet; the chapters write a PID file
// (DIR/cluster.pid) to signal the one process that is yours.
func TestNoKillByName(t *testing.T) {
	words := regexp.MustCompile(`\b(` + "p" + `grep|` + "p" + `kill|` + "kill" + `all)\b`)
	skip := map[string]bool{".git": true, ".kubik": true, "bin": true}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".sh") || name == "Makefile") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, l := range strings.Split(string(b), "\n") {
			if m := words.FindString(l); m != "" {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: %q: signal the process by its PID (e.g. kill -HUP $(cat .kubik/ch05/cluster.pid)), never by name:\n\t%s", rel, i+1, m, strings.TrimSpace(l))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Как читать", "как-читать"},
		{"Запись — это новая ревизия", "запись--это-новая-ревизия"},
		{"Эталоны в CI: `make golden`", "эталоны-в-ci-make-golden"},
		{"Deployment → ReplicaSet → Pod", "deployment--replicaset--pod"},
		{"1, часть 2. Аутентификация", "1-часть-2-аутентификация"},
		{"resourceVersion — это mod_revision", "resourceversion--это-mod_revision"},
		{"See [the map](README.md)", "see-the-map"},
	} {
		if got := Slug(c.heading); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
