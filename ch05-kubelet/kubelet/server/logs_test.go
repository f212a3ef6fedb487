package server

import (
	"net/url"
	"testing"
	"time"
)

func TestParseLogOptions(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	q, _ := url.ParseQuery("follow=true&timestamps=1&tailLines=5&limitBytes=10&sinceSeconds=60")
	o, err := parseLogOptions(q, now)
	if err != nil || !o.Follow || !o.Timestamps || o.Tail != 5 || o.Bytes != 10 || !o.Since.Equal(now.Add(-time.Minute)) {
		t.Errorf("got %+v, %v", o, err)
	}
	q, _ = url.ParseQuery("tail=3")
	if o, _ := parseLogOptions(q, now); o.Tail != 3 {
		t.Errorf("the old tail parameter: %+v", o)
	}
	q, _ = url.ParseQuery("tailLines=x")
	if _, err := parseLogOptions(q, now); err == nil {
		t.Error("tailLines=x accepted")
	}
}
