package pki

import (
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// tokenFileRefresh is how long a token read from a file is used before the
// file is read again. Upstream (client-go's NewCachedFileTokenSource) reads
// the file at most once a minute; the kubelet rotates a projected token
// when 80% of its lifetime (an hour by default) has passed, so a client
// always holds a valid one.
const tokenFileRefresh = time.Minute

// fileTokenAuth sets "Authorization: Bearer <token>" with the token in a
// file, re-read every tokenFileRefresh and after an answer 401
// Unauthorized (the token may have been rotated since). When the file
// cannot be read the last token read is kept. Upstream: client-go's
// transport.tokenSourceTransport over a cachingTokenSource.
type fileTokenAuth struct {
	path string
	next http.RoundTripper

	mu     sync.Mutex
	token  string
	readAt time.Time // zero: read the file before the next request
}

func newFileTokenAuth(path, initial string, next http.RoundTripper) *fileTokenAuth {
	a := &fileTokenAuth{path: path, next: next, token: initial}
	if initial != "" {
		a.readAt = time.Now()
	}
	return a
}

func (a *fileTokenAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if tok := a.current(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := a.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		a.mu.Lock()
		a.readAt = time.Time{}
		a.mu.Unlock()
	}
	return resp, err
}

// current is the token to send, read from the file when it is due.
func (a *fileTokenAuth) current() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.readAt.IsZero() && time.Since(a.readAt) < tokenFileRefresh {
		return a.token
	}
	if tok, err := readTokenFile(a.path); err == nil && tok != "" {
		a.token = tok
	}
	a.readAt = time.Now()
	return a.token
}

// maxTokenSize bounds what is read of a token file (a service-account
// token is about a kilobyte).
const maxTokenSize = 64 << 10

func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenSize))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
