package cronjob

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed standard cron schedule: five fields (minute, hour,
// day of month, month, day of week) or a descriptor (@hourly ...).
// Upstream uses github.com/robfig/cron/v3's ParseStandard; this is the
// same language:
//
//	*/15 9-17 * * mon-fri   every 15 minutes from 9:00 to 17:45 on weekdays
//	0 0 1,15 * *            midnight on the 1st and the 15th
//	@daily                  0 0 * * *
//
// Each field is a bit set of the allowed values. As in cron (and robfig),
// when both day of month and day of week are restricted (neither starts
// with *), a day matches if EITHER matches.
type Schedule struct {
	minute, hour, dom, month, dow uint64
}

type bounds struct {
	min, max uint
	names    map[string]uint
}

var (
	minutes = bounds{0, 59, nil}
	hours   = bounds{0, 23, nil}
	doms    = bounds{1, 31, nil}
	months  = bounds{1, 12, map[string]uint{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}}
	dows = bounds{0, 6, map[string]uint{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}}
)

// starBit marks a field written as * (or ?): "unrestricted" for the
// day-of-month/day-of-week rule.
const starBit = 1 << 63

var descriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// ParseStandard parses a schedule. Upstream: cron.ParseStandard.
func ParseStandard(spec string) (*Schedule, error) {
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		return nil, fmt.Errorf("TZ or CRON_TZ in the schedule is not supported; use spec.timeZone")
	}
	if strings.HasPrefix(spec, "@") {
		d, ok := descriptors[spec]
		if !ok {
			return nil, fmt.Errorf("unrecognized descriptor: %s", spec)
		}
		spec = d
	}
	f := strings.Fields(spec)
	if len(f) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(f), spec)
	}
	var s Schedule
	var err error
	for i, p := range []struct {
		dst *uint64
		b   bounds
	}{{&s.minute, minutes}, {&s.hour, hours}, {&s.dom, doms}, {&s.month, months}, {&s.dow, dows}} {
		if *p.dst, err = parseField(f[i], p.b); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// parseField parses "a", "a-b", "*", each optionally "/step", joined by commas.
func parseField(field string, b bounds) (uint64, error) {
	var bitsSet uint64
	for _, expr := range strings.Split(field, ",") {
		rangeAndStep := strings.Split(expr, "/")
		lowAndHigh := strings.Split(rangeAndStep[0], "-")
		var start, end uint
		var extra uint64
		var err error
		if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
			start, end, extra = b.min, b.max, starBit
		} else {
			if start, err = parseValue(lowAndHigh[0], b); err != nil {
				return 0, err
			}
			end = start
			if len(lowAndHigh) == 2 {
				if end, err = parseValue(lowAndHigh[1], b); err != nil {
					return 0, err
				}
			} else if len(lowAndHigh) > 2 {
				return 0, fmt.Errorf("too many hyphens: %s", expr)
			}
		}
		step := uint(1)
		switch len(rangeAndStep) {
		case 1:
		case 2:
			n, err := strconv.ParseUint(rangeAndStep[1], 10, 32)
			if err != nil || n == 0 {
				return 0, fmt.Errorf("step of range should be a positive number: %s", expr)
			}
			step = uint(n)
			if len(lowAndHigh) == 1 && extra == 0 { // "5/10" means 5-max/10
				end = b.max
			}
			if step > 1 {
				extra = 0
			}
		default:
			return 0, fmt.Errorf("too many slashes: %s", expr)
		}
		if start < b.min || end > b.max || start > end {
			return 0, fmt.Errorf("value out of range (%d - %d): %s", b.min, b.max, expr)
		}
		for v := start; v <= end; v += step {
			bitsSet |= 1 << v
		}
		bitsSet |= extra
	}
	return bitsSet, nil
}

func parseValue(s string, b bounds) (uint, error) {
	if v, ok := b.names[strings.ToLower(s)]; ok {
		return v, nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %w", s, err)
	}
	if b.max == 6 && n == 7 { // day of week: 7 is Sunday too
		n = 0
	}
	return uint(n), nil
}

func has(set uint64, v int) bool { return set&(1<<uint(v)) != 0 }

// dayMatches applies cron's rule for the two day fields.
func (s *Schedule) dayMatches(t time.Time) bool {
	domOK, dowOK := has(s.dom, t.Day()), has(s.dow, int(t.Weekday()))
	if s.dom&starBit != 0 || s.dow&starBit != 0 {
		return domOK && dowOK
	}
	return domOK || dowOK
}

// Next returns the first activation strictly after t, in t's location, or
// the zero time if there is none within five years (e.g. "0 0 30 2 *").
func (s *Schedule) Next(t time.Time) time.Time {
	loc := t.Location()
	t = t.Add(time.Minute - time.Duration(t.Second())*time.Second - time.Duration(t.Nanosecond()))
	limit := t.Year() + 5
	for t.Year() <= limit {
		switch {
		case !has(s.month, int(t.Month())):
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case !has(s.hour, t.Hour()):
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
		case !has(s.minute, t.Minute()):
			t = t.Truncate(time.Minute).Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}
