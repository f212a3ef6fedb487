// Package proxy relays an HTTP connection upgrade (SPDY/3.1 for
// `kubectl exec`, `attach` and `port-forward`) from a client to a backend:
// the apiserver to a kubelet, the kubelet to the container runtime's
// streaming server. Upstream does the same with
// k8s.io/apimachinery/pkg/util/proxy.UpgradeAwareHandler.
//
// After the backend's "101 Switching Protocols" the connection carries no
// more HTTP: the SPDY frames (streams stdin, stdout, stderr, error, resize;
// or data and error per forwarded port) pass through untouched, so neither
// the apiserver nor the kubelet needs to understand SPDY.
package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// IsUpgrade reports whether r asks to switch protocols (Connection: Upgrade).
func IsUpgrade(r *http.Request) bool {
	for _, v := range r.Header.Values("Connection") {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return true
			}
		}
	}
	return false
}

// Upgrade sends r to the backend reached by dial, at path (and rawQuery),
// keeping r's method and headers (Connection, Upgrade,
// X-Stream-Protocol-Version ...). When the backend switches protocols,
// its 101 answer is relayed to the client and bytes are copied both ways
// until one side closes; any other answer (an error) is relayed as it
// is. It returns an error only when nothing was written to w yet, so the
// caller can still answer with a Status.
func Upgrade(w http.ResponseWriter, r *http.Request, dial func() (net.Conn, error), host, path, rawQuery string) error {
	backend, err := dial()
	if err != nil {
		return err
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.URL.Path, out.URL.RawPath, out.URL.RawQuery = "", "", path, "", rawQuery
	out.Host = host
	out.RequestURI = ""
	out.Header.Del("Authorization") // the client's credentials are for us, not for the backend
	out.Body, out.ContentLength = http.NoBody, 0
	if err := out.Write(backend); err != nil {
		backend.Close()
		return fmt.Errorf("error sending request: %w", err)
	}
	br := bufio.NewReader(backend)
	resp, err := http.ReadResponse(br, out)
	if err != nil {
		backend.Close()
		return fmt.Errorf("error reading response: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		// The backend refused (pod not found, unsupported protocol ...):
		// the client gets its answer.
		defer backend.Close()
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
		return nil
	}

	client, crw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		backend.Close()
		return fmt.Errorf("cannot take over the client connection: %w", err)
	}
	// The 101 with the backend's headers (Upgrade, X-Stream-Protocol-Version).
	var head strings.Builder
	head.WriteString("HTTP/1.1 101 Switching Protocols\r\n")
	resp.Header.Write(&head)
	head.WriteString("\r\n")
	if _, err := io.WriteString(client, head.String()); err != nil {
		client.Close()
		backend.Close()
		return nil
	}
	Pipe(client, crw.Reader, backend, br)
	return nil
}

// Pipe copies a's bytes to b and b's to a until either side ends, then
// closes both. ar and br read a and b, and may hold bytes already read
// from them.
func Pipe(a net.Conn, ar io.Reader, b net.Conn, br io.Reader) {
	var once sync.Once
	closeBoth := func() { once.Do(func() { a.Close(); b.Close() }) }
	done := make(chan struct{}, 2)
	go func() { io.Copy(b, ar); closeBoth(); done <- struct{}{} }()
	go func() { io.Copy(a, br); closeBoth(); done <- struct{}{} }()
	<-done
	<-done
}
