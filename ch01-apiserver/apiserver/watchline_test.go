package apiserver

import (
	"encoding/json"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
)

// TestWatchLine: the hand-written watch line is byte for byte what
// json.Marshal makes of a WatchEvent.
func TestWatchLine(t *testing.T) {
	raw := []byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web","resourceVersion":"12"},"spec":{"containers":[{"name":"a","image":"x"}]}}`)
	for _, typ := range []string{metav1.Added, metav1.Modified, metav1.Deleted, metav1.Bookmark, metav1.Error} {
		want, err := json.Marshal(metav1.WatchEvent{Type: typ, Object: raw})
		if err != nil {
			t.Fatal(err)
		}
		if got := watchLine(typ, raw); string(got) != string(want)+"\n" {
			t.Errorf("watchLine(%s):\n got %s\nwant %s", typ, got, want)
		}
	}
}
