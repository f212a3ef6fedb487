package apiserver

import "time"

// SetBookmarkInterval lets the external tests see bookmarks without waiting a
// minute; it returns the previous interval.
func SetBookmarkInterval(d time.Duration) time.Duration {
	old := bookmarkInterval
	bookmarkInterval = d
	return old
}
