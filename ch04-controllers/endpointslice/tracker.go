package endpointslice

import (
	"errors"
	"strconv"
	"sync"

	"kubik/ch01-apiserver/api/discoveryv1"
)

// errStaleCache: the informer has not yet seen this controller's last
// writes for the Service; the sync is retried (rate limited) until it has.
var errStaleCache = errors.New("EndpointSlice informer cache is out of date")

// sliceTracker remembers what this controller last wrote to each Service's
// slices, so that a sync never acts on a cache that has not caught up with
// it. Without it two syncs in a row (the Service, then one of its pods
// changed) could both find no slice and create two: slices have generated
// names, so the second create does not fail. Upstream: EndpointSliceTracker
// (it compares generations; here resourceVersions, which our storage —
// etcd's revisions — keeps increasing).
type sliceTracker struct {
	mu      sync.Mutex
	written map[string]map[string]uint64 // Service key -> slice name -> resourceVersion written (0: deleted)
}

func newSliceTracker() *sliceTracker {
	return &sliceTracker{written: map[string]map[string]uint64{}}
}

// wrote records a created or updated slice (rv = the server's answer) or a
// deleted one (rv = "").
func (t *sliceTracker) wrote(svcKey, slice, rv string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.written[svcKey]
	if m == nil {
		m = map[string]uint64{}
		t.written[svcKey] = m
	}
	n, _ := strconv.ParseUint(rv, 10, 64)
	m[slice] = n
}

// stale reports whether cached lacks a slice written for svcKey, has an
// older version of one, or still has one that was deleted. Once the cache
// has caught up, the Service's records are dropped.
func (t *sliceTracker) stale(svcKey string, cached []*discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	byName := map[string]uint64{}
	for _, s := range cached {
		byName[s.Name], _ = strconv.ParseUint(s.ResourceVersion, 10, 64)
	}
	for name, rv := range t.written[svcKey] {
		have, ok := byName[name]
		if rv == 0 && ok || rv != 0 && (!ok || have < rv) {
			return true
		}
	}
	delete(t.written, svcKey)
	return false
}

// forget drops a Service's records (the Service is gone).
func (t *sliceTracker) forget(svcKey string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.written, svcKey)
}

// deleted is told that the informer saw a slice of svcKey go. Its record
// goes too: the deletion this controller expected has been observed, or a
// user deleted a slice it wrote, which the next sync must create again
// rather than wait for forever. Upstream: EndpointSliceTracker.HandleDeletion.
func (t *sliceTracker) deleted(svcKey, slice string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.written[svcKey], slice)
}
