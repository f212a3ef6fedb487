package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// backend answers POST /exec/token with a 101 and then echoes upper-cased
// bytes, sending a greeting right after the 101 (bytes the proxy's reader
// may already hold); any other path gets a 404.
func backend(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/exec/token" || r.URL.RawQuery != "a=1" || r.Header.Get("X-Stream-Protocol-Version") != "v4.channel.k8s.io" ||
			r.Header.Get("Authorization") != "" {
			http.Error(w, "no such stream "+r.URL.String(), http.StatusNotFound)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\nhello ")
		rw.Flush()
		line, _ := rw.ReadString('\n')
		rw.WriteString(strings.ToUpper(line))
		rw.Flush()
	}))
}

func TestUpgrade(t *testing.T) {
	be := backend(t)
	defer be.Close()
	beAddr := strings.TrimPrefix(be.URL, "http://")
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dial := func() (net.Conn, error) { return net.Dial("tcp", beAddr) }
		if err := Upgrade(w, r, dial, beAddr, r.URL.Path, "a=1"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	defer front.Close()

	conn, err := net.Dial("tcp", strings.TrimPrefix(front.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /exec/token HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 || resp.Header.Get("X-Stream-Protocol-Version") != "v4.channel.k8s.io" || resp.Header.Get("Upgrade") != "SPDY/3.1" {
		t.Fatalf("got %s %v", resp.Status, resp.Header)
	}
	io.WriteString(conn, "world\n")
	got, _ := io.ReadAll(br) // until the backend closes: both sides are closed
	if string(got) != "hello WORLD\n" {
		t.Errorf("relayed %q", got)
	}

	// A refusal is relayed as it is.
	req, _ := http.NewRequest(http.MethodPost, front.URL+"/exec/other", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.HasPrefix(string(body), "no such stream /exec/other?a=1") {
		t.Errorf("refusal: %d %q", resp.StatusCode, body)
	}

	// The backend cannot be reached: an error for the caller to answer.
	dead := func() (net.Conn, error) { return net.Dial("tcp", "127.0.0.1:1") }
	rec := httptest.NewRecorder()
	if err := Upgrade(rec, httptest.NewRequest("POST", "/exec/x", nil), dead, "127.0.0.1:1", "/exec/x", ""); err == nil {
		t.Error("no error for an unreachable backend")
	}
}

func TestIsUpgrade(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	if IsUpgrade(r) {
		t.Error("plain request")
	}
	r.Header.Set("Connection", "keep-alive, Upgrade")
	if !IsUpgrade(r) {
		t.Error("Connection: keep-alive, Upgrade")
	}
}
