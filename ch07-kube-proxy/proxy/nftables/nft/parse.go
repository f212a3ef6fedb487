package nft

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	addRegexp      = regexp.MustCompile(`^add (table|chain|rule|set|map|element) (\S+) (\S+)(?: (.*))?$`)
	commentGroup   = `"([^"]*)"`
	tableRegexp    = regexp.MustCompile(`^(?:\{ comment ` + commentGroup + ` ; \})?$`)
	chainRegexp    = regexp.MustCompile(`^(\S+)(?: \{(?: type (\S+) hook (\S+) priority (\S+) ;)?(?: comment ` + commentGroup + ` ;)? \})?$`)
	ruleRegexp     = regexp.MustCompile(`^(\S+) ([^"]*?)(?: comment ` + commentGroup + `)?$`)
	setRegexp      = regexp.MustCompile(`^(\S+) \{ type ([^;]*) ;(?: flags (\S+) ;)?(?: timeout (\d+)s ;)?(?: comment ` + commentGroup + ` ;)? \}$`)
	elementRegexp  = regexp.MustCompile(`^(\S+) \{ ([^":]*?)(?: comment ` + commentGroup + `)?(?: : (.*))? \}$`)
	errParseFormat = "could not parse line %d: %q"
)

// ParseDump loads a dump (Dump's format: "add" lines; blank lines and
// "#" comments are skipped) into the fake, as one transaction.
func (f *Fake) ParseDump(data string) error {
	tx := f.NewTransaction()
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		m := addRegexp.FindStringSubmatch(line)
		if m == nil || Family(m[2]) != f.family || m[3] != f.table {
			return fmt.Errorf(errParseFormat, i+1, line)
		}
		rest := m[4]
		optional := func(s string) *string {
			if s == "" {
				return nil
			}
			return &s
		}
		switch m[1] {
		case "table":
			t := tableRegexp.FindStringSubmatch(rest)
			if t == nil {
				return fmt.Errorf(errParseFormat, i+1, line)
			}
			tx.Add(&Table{Comment: optional(t[1])})
		case "chain":
			c := chainRegexp.FindStringSubmatch(rest)
			if c == nil {
				return fmt.Errorf(errParseFormat, i+1, line)
			}
			tx.Add(&Chain{Name: c[1], Type: optional(c[2]), Hook: optional(c[3]), Priority: optional(c[4]), Comment: optional(c[5])})
		case "rule":
			r := ruleRegexp.FindStringSubmatch(rest)
			if r == nil {
				return fmt.Errorf(errParseFormat, i+1, line)
			}
			tx.Add(&Rule{Chain: r[1], Rule: r[2], Comment: optional(r[3])})
		case "set", "map":
			s := setRegexp.FindStringSubmatch(rest)
			if s == nil {
				return fmt.Errorf(errParseFormat, i+1, line)
			}
			if m[1] == "map" {
				tx.Add(&Map{Name: s[1], Type: s[2], Comment: optional(s[5])})
				continue
			}
			set := &Set{Name: s[1], Type: s[2], Comment: optional(s[5])}
			if s[3] != "" {
				set.Flags = strings.Split(s[3], ",")
			}
			if s[4] != "" {
				secs, _ := strconv.Atoi(s[4])
				d := time.Duration(secs) * time.Second
				set.Timeout = &d
			}
			tx.Add(set)
		case "element":
			e := elementRegexp.FindStringSubmatch(rest)
			if e == nil {
				return fmt.Errorf(errParseFormat, i+1, line)
			}
			el := &Element{Key: strings.Split(strings.TrimSpace(e[2]), " . "), Comment: optional(e[3])}
			if e[4] != "" {
				el.Map = e[1]
				el.Value = strings.Split(e[4], " . ")
			} else {
				el.Set = e[1]
			}
			tx.Add(el)
		}
	}
	return f.Run(context.Background(), tx)
}
