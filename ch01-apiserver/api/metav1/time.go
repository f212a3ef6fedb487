package metav1

import (
	"encoding/json"
	"time"
)

// Time is a timestamp serialised as RFC 3339 with second precision, in UTC,
// and as null when zero — exactly like upstream's metav1.Time.
type Time struct {
	time.Time `protobuf:"-"`
}

// Now returns the current time truncated to seconds, as the API stores it.
func Now() Time { return Time{time.Now().UTC().Truncate(time.Second)} }

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = pt.Local().UTC()
	return nil
}

// MicroTime is like Time with microsecond precision (Events, Leases).
type MicroTime struct {
	time.Time `protobuf:"-"`
}

// RFC3339Micro is the layout of MicroTime on the wire.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// NowMicro returns the current time with microsecond precision.
func NowMicro() MicroTime { return MicroTime{time.Now().UTC().Truncate(time.Microsecond)} }

func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(RFC3339Micro))
}

func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	pt, err := time.Parse(RFC3339Micro, s)
	if err != nil {
		if pt, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return err
		}
	}
	t.Time = pt.UTC()
	return nil
}

// Duration is a time.Duration serialised as a Go duration string ("5s").
type Duration struct {
	time.Duration `protobuf:"varint,1,opt,name=duration,casttype=time.Duration"`
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Duration.String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	pd, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = pd
	return nil
}
