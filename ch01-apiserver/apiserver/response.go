package apiserver

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// writeJSON writes any value as JSON with the given status code, ended by
// a newline as upstream's serializer ends it (json.Encoder.Encode).
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(ErrInternal(err).Status)
		code = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// writeRawJSON writes v indented, whoever asks, and without the final
// newline: upstream's responsewriters.WriteRawJSON, which answers /version.
func writeRawJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, ErrInternal(err).Status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(code)
	w.Write(b)
}

// writeStatus writes an error as its Status object.
func writeStatus(w http.ResponseWriter, r *http.Request, err error) {
	se := asStatus(err)
	if rw, ok := w.(*loggingWriter); ok {
		rw.errMsg = se.Status.Message
	}
	if wantsProtobufError(r) {
		writeProtobuf(w, int(se.Status.Code), &se.Status)
		return
	}
	writeJSON(w, int(se.Status.Code), se.Status)
}

// addWarning adds a `Warning: 299 - "text"` header, which kubectl prints as "Warning: text".
func addWarning(w http.ResponseWriter, text string) {
	// Upstream's net.NewWarningHeader: a text that is not valid UTF-8 or
	// holds control characters is dropped; in the quoted text only " and \
	// are escaped (no JSON escapes: "<=" and "&&" stay as they are).
	if !utf8.ValidString(text) || strings.ContainsFunc(text, unicode.IsControl) {
		return
	}
	var b strings.Builder
	b.WriteString(`299 - "`)
	for _, c := range text {
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	w.Header().Add("Warning", b.String())
}

// loggingWriter remembers the status code for the access log.
type loggingWriter struct {
	http.ResponseWriter
	code   int
	errMsg string
	user   string
}

func (l *loggingWriter) WriteHeader(code int) {
	if l.code == 0 {
		l.code = code
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *loggingWriter) Write(b []byte) (int, error) {
	if l.code == 0 {
		l.code = http.StatusOK
	}
	return l.ResponseWriter.Write(b)
}

// Flush lets watch streams flush through the wrapper.
func (l *loggingWriter) Flush() {
	if f, ok := l.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer (hijacking for upgrades).
func (l *loggingWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// withRecovery logs every request on one line and turns a panic into a 500
// Status instead of a dropped connection.
func (s *Server) withRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// Every answer names its request, as upstream's WithAuditInit does:
		// the client's own Audit-ID if it sent one, a new UUID otherwise.
		auditID := r.Header.Get("Audit-ID")
		if auditID == "" {
			auditID = newUID()
		}
		w.Header().Set("Audit-Id", auditID)
		if isPrettyPrint(r) && !isWatchRequest(r) {
			pw := &prettyWriter{ResponseWriter: w}
			defer pw.finish() // after the deferred recovery below has written its answer
			w = pw
		}
		lw := &loggingWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if lw.code == 0 {
					writeStatus(lw, r, ErrInternal(fmt.Errorf("%v", p)))
				}
			}
			// Every request at DEBUG (--log-level debug), as upstream logs
			// requests only at -v=3: a 404 or a 409 is an answer to the
			// client, not a fault of the server. A 5xx is: WARN, except
			// from the public health paths, which load balancers poll and
			// whose failing checks health.go logs on their own.
			user := lw.user
			level := slog.LevelDebug
			if lw.code >= 500 && !isPublicPath(r.URL.Path) {
				level = slog.LevelWarn
			}
			attrs := []any{"method", r.Method, "uri", r.URL.RequestURI(), "code", lw.code, "user", user, "latency", time.Since(start).Round(time.Microsecond).String()}
			if lw.errMsg != "" {
				attrs = append(attrs, "error", lw.errMsg)
			}
			s.log.Log(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(lw, r)
	})
}

// jsonMarshal is json.Marshal; one name so a faster encoder can be swapped in later.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
