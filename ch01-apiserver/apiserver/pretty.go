package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Indented JSON for people. Upstream's serializers indent JSON answers
// when the request says ?pretty=true, or, without that parameter, when
// the client looks like a person: curl, Wget or a browser. So `curl` at a
// real apiserver prints a Status over ten lines, and so does it here.
// Upstream: isPrettyPrint in apiserver/pkg/endpoints/handlers/negotiation.

// isPrettyPrint is upstream's rule.
func isPrettyPrint(r *http.Request) bool {
	if strings.Contains(r.URL.RawQuery, "pretty") {
		if pp := r.URL.Query().Get("pretty"); pp != "" {
			pretty, _ := strconv.ParseBool(pp)
			return pretty
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// withRecovery holds back the JSON answers of the requests isPrettyPrint
// picks (prettyWriter); watch streams and everything that is not plain
// JSON (logs, exec, protobuf, YAML) pass through untouched.

func isWatchRequest(r *http.Request) bool {
	if strings.Contains(r.URL.Path, "/watch/") {
		return true
	}
	w, _ := strconv.ParseBool(r.URL.Query().Get("watch"))
	return w
}

// prettyWriter holds back a JSON answer until the handler is done, then
// writes it indented by two spaces, as json.MarshalIndent would.
type prettyWriter struct {
	http.ResponseWriter
	code      int // 0 until the header is written
	buffering bool
	buf       bytes.Buffer
}

func (p *prettyWriter) WriteHeader(code int) {
	if p.code != 0 {
		return
	}
	p.code = code
	if p.Header().Get("Content-Type") == "application/json" {
		p.buffering = true
		return
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *prettyWriter) Write(b []byte) (int, error) {
	if p.code == 0 {
		p.WriteHeader(http.StatusOK)
	}
	if p.buffering {
		return p.buf.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

// Flush is a no-op while the answer is held back.
func (p *prettyWriter) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok && !p.buffering {
		f.Flush()
	}
}

func (p *prettyWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

func (p *prettyWriter) finish() {
	if !p.buffering {
		return
	}
	var out bytes.Buffer
	body := bytes.TrimRight(p.buf.Bytes(), "\n")
	if err := json.Indent(&out, body, "", "  "); err == nil {
		body = out.Bytes()
	}
	p.Header().Del("Content-Length")
	p.ResponseWriter.WriteHeader(p.code)
	p.ResponseWriter.Write(body)
}
