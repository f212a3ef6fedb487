package apiserver

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/protobuf"
	"kubik/ch01-apiserver/apiserver/serializer"
)

// Request bodies: JSON (kubectl apply/create -f), YAML (curl -H
// 'Content-Type: application/yaml'), and the Kubernetes protobuf envelope
// that kubectl 1.32+ uses for its typed-client commands (create configmap,
// create deployment, auth can-i, ...). Protobuf is how Kubernetes components
// talk to the apiserver by default: smaller and much cheaper to decode than
// JSON. Answers are in the format the Accept header picks (negotiate.go).

const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

var supportedBodyTypes = []string{mediaJSON, mediaYAML, mediaProtobuf}

// bodyType is the request body's media type: JSON when the header is
// empty, a 415 when it cannot be parsed (upstream's
// NegotiateInputSerializer).
func bodyType(r *http.Request) (string, error) {
	h := r.Header.Get("Content-Type")
	if strings.TrimSpace(h) == "" {
		return mediaJSON, nil
	}
	ct, _, err := mime.ParseMediaType(h)
	if err != nil {
		return "", ErrUnsupportedMediaType(h, supportedBodyTypes)
	}
	return ct, nil
}

// checkBodyType refuses a create or update body of a type the server does
// not decode, before the options are looked at (upstream's order).
func checkBodyType(r *http.Request) error {
	ct, err := bodyType(r)
	if err != nil {
		return err
	}
	switch ct {
	case mediaJSON, mediaYAML, mediaProtobuf, "text/yaml", "application/apply-patch+yaml":
		return nil
	}
	return ErrUnsupportedMediaType(ct, supportedBodyTypes)
}

// readBody reads at most limit bytes; more is upstream's 413.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, ErrBadRequest(fmt.Sprintf("reading request body: %v", err))
	}
	if int64(len(b)) > limit {
		return nil, ErrRequestEntityTooLarge(fmt.Sprintf("limit is %d", limit))
	}
	return b, nil
}

// decodeBody turns a create/update body into a typed object of res's kind,
// applying fieldValidation (Strict rejects unknown and duplicate fields, Warn
// reports them as Warning headers, Ignore drops them silently).
func (s *Server) decodeBody(q *request, res *scheme.Resource) (metav1.Object, error) {
	body, err := readBody(q.r, s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return nil, err
	}
	ct, err := bodyType(q.r)
	if err != nil {
		return nil, err
	}
	obj := res.New()
	switch ct {
	case mediaProtobuf:
		apiVersion, kind, raw, err := protobuf.DecodeEnvelope(body)
		if err != nil {
			return nil, ErrBadRequest(err.Error())
		}
		if err := checkKind(res, apiVersion, kind); err != nil {
			return nil, err
		}
		if err := protobuf.Unmarshal(raw, obj); err != nil {
			return nil, ErrBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.Kind, res.Version, res.Kind, err))
		}
		setTypeMeta(res, obj)
		return obj, nil
	case mediaJSON, mediaYAML, "text/yaml", "application/apply-patch+yaml":
	default:
		return nil, ErrUnsupportedMediaType(ct, supportedBodyTypes)
	}
	data, err := serializer.ToJSON(body, ct)
	var yamlStrict serializer.StrictErrors
	if errors.As(err, &yamlStrict) {
		err = nil // duplicate YAML keys: a strict error, reported with the others
	}
	if err != nil {
		return nil, ErrBadRequest(err.Error())
	}
	return s.decodeJSON(q, res, data, obj, yamlStrict...)
}

// decodeJSON is the JSON half of decodeBody (patches end here too).
func (s *Server) decodeJSON(q *request, res *scheme.Resource, data []byte, obj metav1.Object, earlier ...string) (metav1.Object, error) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || len(data) == 0 {
			return nil, ErrBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
		}
		return nil, ErrBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	if err := checkKind(res, tm.APIVersion, tm.Kind); err != nil {
		return nil, err
	}
	strictErrs, err := serializer.DecodeStrict(data, obj)
	strictErrs = append(serializer.StrictErrors(earlier), strictErrs...)
	if u, ok := obj.(*apiextensions.Unstructured); ok && err == nil {
		if cr := s.crds.Served(res); cr != nil {
			var pruned serializer.StrictErrors
			pruned, err = s.decodeCustom(cr, data, u)
			strictErrs = append(strictErrs, pruned...)
		}
	}
	if err != nil {
		return nil, ErrBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.Kind, res.Version, res.Kind, err))
	}
	if len(strictErrs) > 0 {
		switch fieldValidation(q) {
		case "Strict":
			return nil, ErrBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.Kind, res.Version, res.Kind, strictErrs.Error()))
		case "Warn":
			for _, w := range strictErrs.Warnings() {
				addWarning(q.w, w)
			}
		}
	}
	setTypeMeta(res, obj)
	return obj, nil
}

// fieldValidation is the query parameter; the server's default is Warn.
func fieldValidation(q *request) string {
	switch v := q.query("fieldValidation"); v {
	case "Strict", "Ignore":
		return v
	}
	return "Warn"
}

// checkKind refuses a body whose kind or apiVersion is not the URL's: a body
// without them is fine (the URL says what it is), as upstream.
func checkKind(res *scheme.Resource, apiVersion, kind string) error {
	if kind == "" && apiVersion == "" {
		return nil
	}
	if (kind == "" || kind == res.Kind) && (apiVersion == "" || apiVersion == res.GroupVersion()) {
		return nil
	}
	if res == evictionKind && (kind == "" || kind == res.Kind) && apiVersion == "policy/v1beta1" {
		return nil // upstream's EvictionREST accepts both versions
	}
	if kind == "" {
		kind = res.Kind
	}
	internal := res.Group
	if internal == "" {
		internal = "core"
	}
	_, v := scheme.SplitGroupVersion(apiVersion)
	if v == "" {
		v = res.Version
	}
	return ErrBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: converting (%s.%s) to (%s.%s): unknown conversion",
		kind, res.Version, res.Kind, v, kind, internal, res.Kind))
}

// generateName appends five random characters from upstream's alphabet
// (no vowels, no look-alike digits) to metadata.generateName.
func generateName(base string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	const maxBase = 63 - 5
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	b := make([]byte, 5)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return base + string(b)
}

// decodeDeleteOptions reads a DELETE body: JSON (kubectl) or, from
// components that speak protobuf (kube-controller-manager's clients), the
// Kubernetes protobuf envelope around a DeleteOptions.
func decodeDeleteOptions(contentType string, body []byte, opts *metav1.DeleteOptions) error {
	if ct, _, err := mime.ParseMediaType(contentType); err == nil && ct == mediaProtobuf {
		_, kind, raw, err := protobuf.DecodeEnvelope(body)
		if err != nil {
			return err
		}
		if kind != "" && kind != "DeleteOptions" {
			return fmt.Errorf("expected DeleteOptions, got %s", kind)
		}
		return protobuf.Unmarshal(raw, opts)
	}
	return json.Unmarshal(body, opts)
}
