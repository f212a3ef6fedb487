package apiserver

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/protobuf"
)

// Content negotiation: the Accept header picks the format of the answer, as
// kube-apiserver picks it (apiserver/pkg/endpoints/handlers/negotiation).
// The clauses are tried in order of preference (q-value, then concrete
// types before wildcards), and the first one that names a format the
// endpoint can write wins:
//
//	Accept: application/vnd.kubernetes.protobuf, application/json
//
// is what client-go, kube-scheduler and kube-controller-manager send: a
// built-in kind answers in protobuf, a custom resource (which has no
// protobuf form) in JSON. Offered, in this order: JSON, YAML, protobuf; an
// empty header is JSON. YAML answers are still written as JSON.

// format is a negotiated answer format.
type format int

const (
	formatJSON format = iota
	formatYAML
	formatProtobuf
)

// formats are the serializers in upstream's order (its CodecFactory's).
var formats = []struct {
	typ, subType string
	format       format
}{
	{"application", "json", formatJSON},
	{"application", "yaml", formatYAML},
	{"application", "vnd.kubernetes.protobuf", formatProtobuf},
}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, subType string
	q            float64
	params       map[string]string // nil when there are none
}

// parseAccept is goautoneg's ParseAccept, which upstream uses: clauses
// that are not type/subtype are dropped, a bad q is 0 (a q=0 clause still
// counts, last), and the clauses are sorted by q, concrete types and
// subtypes before wildcards. The header's size is bounded by the server's
// MaxHeaderBytes.
func parseAccept(header string) []acceptClause {
	parts := strings.Split(header, ",")
	clauses := make([]acceptClause, 0, len(parts))
	for _, part := range parts {
		part = strings.Trim(part, " ")
		c := acceptClause{q: 1}
		mediaRange, params, _ := strings.Cut(part, ";")
		typ, subType, hasSub := strings.Cut(mediaRange, "/")
		c.typ = strings.Trim(typ, " ")
		if !hasSub || subType == "" {
			if c.typ != "*" {
				continue
			}
			c.subType = "*"
		} else {
			sub, rest, _ := strings.Cut(subType, "/")
			if rest != "" {
				continue
			}
			c.subType = strings.Trim(sub, " ")
		}
		for params != "" {
			var p string
			p, params, _ = strings.Cut(params, ";")
			k, v, _ := strings.Cut(p, "=")
			v, rest, _ := strings.Cut(v, "=")
			if v == "" || rest != "" {
				continue
			}
			k = strings.Trim(k, " ")
			if k == "q" {
				c.q, _ = strconv.ParseFloat(v, 32)
				continue
			}
			if c.params == nil {
				c.params = map[string]string{}
			}
			c.params[k] = strings.Trim(v, " ")
		}
		clauses = append(clauses, c)
	}
	sort.Sort(byPreference(clauses))
	return clauses
}

// byPreference is goautoneg's order (its Less, with sort.Sort as it calls it).
type byPreference []acceptClause

func (s byPreference) Len() int      { return len(s) }
func (s byPreference) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s byPreference) Less(i, j int) bool {
	a, b := s[i], s[j]
	switch {
	case a.q > b.q:
		return true
	case a.typ != "*" && b.typ == "*":
		return true
	case a.subType != "*" && b.subType == "*":
		return true
	}
	return false
}

// negotiate returns the format of the first clause, in order of
// preference, that names a format (exactly or by a wildcard) which allows
// accepts with that clause's parameters; ok is false when none does.
func negotiate(header string, allows func(f format, params map[string]string) bool) (f format, ok bool) {
	if strings.TrimSpace(header) == "" {
		return formatJSON, true
	}
	for _, c := range parseAccept(header) {
		for _, s := range formats {
			if (c.typ == s.typ || c.typ == "*" && c.subType == "*") && (c.subType == s.subType || c.subType == "*") {
				if allows(s.format, c.params) {
					return s.format, true
				}
			}
		}
	}
	return formatJSON, false
}

// streamAllowed is the stream parameter's rule: only stream=watch, and only
// for the formats that have a stream form (YAML has none).
func streamAllowed(f format, params map[string]string) bool {
	s := params["stream"]
	return s == "" || s == "watch" && f != formatYAML
}

// conversion is the as/g/v parameters of a clause ("" when there are none).
func conversion(params map[string]string) (kind string, converts bool) {
	_, as := params["as"]
	_, g := params["g"]
	_, v := params["v"]
	return params["as"], as || g || v
}

// resourceFormats is what a resource endpoint writes (upstream's
// RequestScope restrictions): every format for a built-in kind, JSON and
// YAML for a custom resource (no protobuf form); a Table in JSON or YAML;
// PartialObjectMetadata conversions are answered in JSON with the whole
// objects (as before negotiation existed), so a client asking for them in
// protobuf first gets its JSON clause; other conversions nothing.
func resourceFormats(q *request) func(format, map[string]string) bool {
	return func(f format, params map[string]string) bool {
		if !streamAllowed(f, params) {
			return false
		}
		if sv := params["sv"]; sv != "" && sv != "v1" {
			return false
		}
		kind, converts := conversion(params)
		if !converts {
			return f != formatProtobuf || q.custom == nil
		}
		if g, v := params["g"], params["v"]; g != "meta.k8s.io" || v != "v1" && v != "v1beta1" {
			return false
		}
		switch kind {
		case "Table", "PartialObjectMetadata", "PartialObjectMetadataList":
			return f != formatProtobuf
		}
		return false
	}
}

// errorFormats is what an error answer is written in: upstream negotiates
// it with its default restrictions, no conversions and no server version.
func errorFormats(f format, params map[string]string) bool {
	_, converts := conversion(params)
	return !converts && params["sv"] == "" && streamAllowed(f, params)
}

// negotiateAnswer picks the format of a resource request's answer, or
// returns upstream's 406 when the client accepts none that the endpoint
// writes: a custom resource asked for in protobuf only, a Table in
// protobuf, a watch in YAML.
func negotiateAnswer(q *request) (format, error) {
	accept := q.r.Header.Get("Accept")
	f, ok := negotiate(accept, resourceFormats(q))
	if !ok {
		return 0, errNotAcceptable(mediaJSON, mediaYAML, mediaProtobuf)
	}
	if q.info.Verb == "watch" && f == formatYAML {
		return 0, errNotAcceptable(mediaJSON+";stream=watch", mediaProtobuf+";stream=watch")
	}
	return f, nil
}

// errNotAcceptable is upstream's negotiation.NewNotAcceptableError.
func errNotAcceptable(offered ...string) *StatusError {
	return newStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: "+strings.Join(offered, ", "), nil)
}

// wantsProtobufError: the error answer to r is written in protobuf.
func wantsProtobufError(r *http.Request) bool {
	f, ok := negotiate(r.Header.Get("Accept"), errorFormats)
	return ok && f == formatProtobuf
}

// typed is what every API type is: it has a kind and an apiVersion.
type typed interface{ GetTypeMeta() *metav1.TypeMeta }

// writeProtobuf writes obj (one of our API types, kind and apiVersion set)
// in the protobuf envelope. A type without a protobuf form is a fault of
// the server: a 500, in protobuf too.
func writeProtobuf(w http.ResponseWriter, code int, obj typed) {
	raw, err := protobuf.Marshal(obj)
	if err != nil {
		st := ErrInternal(err).Status
		obj, code = &st, http.StatusInternalServerError
		raw, _ = protobuf.Marshal(obj)
	}
	tm := obj.GetTypeMeta()
	body := protobuf.EncodeEnvelope(tm.APIVersion, tm.Kind, raw)
	h := w.Header()
	h.Set("Content-Type", mediaProtobuf)
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}
