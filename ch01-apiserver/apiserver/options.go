package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// The query options of a write — dryRun, fieldManager, fieldValidation and,
// for patches, force — are checked before anything else happens, as
// upstream's ValidateCreateOptions, ValidateUpdateOptions,
// ValidatePatchOptions and ValidateDeleteOptions do
// (apimachinery/pkg/apis/meta/v1/validation). A value the server does not
// know is a 422 naming the options kind, never silently read as a default:
// `?dryRun=yes` must not become a real write.

// fieldManagerMaxLength is upstream's FieldManagerMaxLength.
const fieldManagerMaxLength = 128

// writeOptions are the query options every write takes.
type writeOptions struct {
	dryRun          []string
	fieldManager    string
	fieldValidation string
	force           *bool // patches only
}

func writeOptionsFrom(q *request) writeOptions {
	v := q.r.URL.Query()
	o := writeOptions{dryRun: v["dryRun"], fieldManager: v.Get("fieldManager"), fieldValidation: v.Get("fieldValidation")}
	if f, ok := v["force"]; ok {
		b := queryBool(f)
		o.force = &b
	}
	return o
}

// queryBool reads a boolean query parameter as upstream's parameter codec
// does (Convert_Slice_string_To_bool): present and neither "0" nor "false"
// (in any case) is true — `watch=maybe` is a watch.
func queryBool(values []string) bool {
	if len(values) == 0 {
		return false
	}
	return values[0] != "0" && !strings.EqualFold(values[0], "false")
}

// validateWriteOptions is the part all four validations share; kind names
// the options in the 422 ("CreateOptions", "UpdateOptions", "PatchOptions").
func validateWriteOptions(kind string, o writeOptions, extra field.ErrorList) error {
	errs := extra
	errs = append(errs, validateFieldManager(o.fieldManager, field.NewPath("fieldManager"))...)
	errs = append(errs, validateDryRun(o.dryRun)...)
	switch o.fieldValidation {
	case "", "Ignore", "Warn", "Strict":
	default:
		errs = append(errs, field.NotSupported(field.NewPath("fieldValidation"), o.fieldValidation, []string{"", "Ignore", "Strict", "Warn"}))
	}
	return optionsInvalid(kind, errs)
}

// validateCreateOptions: POST.
func validateCreateOptions(q *request) error {
	return validateWriteOptions("CreateOptions", writeOptionsFrom(q), nil)
}

// validateUpdateOptions: PUT.
func validateUpdateOptions(q *request) error {
	return validateWriteOptions("UpdateOptions", writeOptionsFrom(q), nil)
}

// validatePatchOptions: PATCH. force belongs to server-side apply, which in
// turn needs a field manager.
func validatePatchOptions(q *request, patchType string) error {
	o := writeOptionsFrom(q)
	var errs field.ErrorList
	if patchType != patchApply {
		if o.force != nil {
			errs = append(errs, field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch"))
		}
	} else if o.fieldManager == "" {
		errs = append(errs, field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
	}
	return validateWriteOptions("PatchOptions", o, errs)
}

// validateDeleteOptions is upstream's ValidateDeleteOptions.
func validateDeleteOptions(opts *metav1.DeleteOptions) error {
	var errs field.ErrorList
	policy := field.NewPath("propagationPolicy")
	if opts.OrphanDependents != nil && opts.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(policy, *opts.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan:
		default:
			errs = append(errs, field.NotSupported(policy, *p, []string{"Foreground", "Background", "Orphan", "nil"}))
		}
	}
	errs = append(errs, validateDryRun(opts.DryRun)...)
	return optionsInvalid("DeleteOptions", errs)
}

// validateDryRun: "All" is the only dry run there is.
func validateDryRun(values []string) field.ErrorList {
	for _, v := range values {
		if v != "All" {
			return field.ErrorList{field.NotSupported(field.NewPath("dryRun"), values, []string{"All"})}
		}
	}
	return nil
}

// validateFieldManager is upstream's ValidateFieldManager: at most 128
// bytes, printable characters only.
func validateFieldManager(m string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(m) > fieldManagerMaxLength {
		errs = append(errs, field.TooLong(path, m, fieldManagerMaxLength))
	}
	for i, r := range m {
		if !unicode.IsPrint(r) {
			errs = append(errs, field.Invalid(path, m, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}

// optionsInvalid is the 422 of failed options: `CreateOptions.meta.k8s.io ""
// is invalid: ...`.
func optionsInvalid(kind string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return ErrInvalid("meta.k8s.io", kind, "", validation.ToStatusCauses(errs), validation.AggregateMessage(errs))
}

// requestTimeout is the deadline of a short request: the server's
// --request-timeout, or less when ?timeout= asks for less (as upstream's
// WithRequestDeadline; 0 or more than the server's means the server's). An
// unparseable timeout is a 400 before anything is done.
func (s *Server) requestTimeout(r *http.Request) (time.Duration, error) {
	timeout := s.cfg.RequestTimeout
	v := r.URL.Query().Get("timeout")
	if v == "" {
		return timeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, ErrBadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %v", err))
	}
	if d > 0 && d < timeout {
		timeout = d
	}
	return timeout, nil
}

// parseIntParam reads an integer query parameter; a malformed one is a 400
// with strconv's words, as upstream's parameter codec answers.
func parseIntParam(value string) (int64, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return 0, ErrBadRequest(err.Error())
	}
	return n, nil
}

// The media types a resource endpoint answers in, for the 406 of an Accept
// header that names none of them.
var (
	objectMediaTypes = []string{mediaJSON, mediaYAML, mediaProtobuf}
	listMediaTypes   = append(slices.Clip(objectMediaTypes), mediaJSON+";stream=watch", mediaProtobuf+";stream=watch")
)

// checkAccept refuses, with upstream's 406, a request whose Accept header
// names no media type the endpoint serves. An empty header, */* and
// application/* accept anything. A Table of a version the server does not
// have (as=Table;v=v2) is refused with upstream's other 406 text when
// nothing else in the header is acceptable; other conversions
// (as=PartialObjectMetadataList) are answered with the whole objects, as
// before.
func checkAccept(r *http.Request, offered []string) error {
	accept := r.Header.Get("Accept")
	if strings.TrimSpace(accept) == "" {
		return nil
	}
	badTable := false
	for _, part := range strings.Split(accept, ",") {
		p := mediaParams(part)
		if q := p["q"]; q != "" {
			if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
				continue // q=0: explicitly not acceptable
			}
		}
		switch strings.ToLower(p[""]) {
		case "*/*", "application/*", mediaJSON, mediaYAML, mediaProtobuf:
		default:
			continue
		}
		if p["as"] == "Table" && (p["g"] != "meta.k8s.io" || (p["v"] != "v1" && p["v"] != "v1beta1")) {
			badTable = true
			continue
		}
		return nil
	}
	if badTable {
		return newStatus(http.StatusNotAcceptable, "NotAcceptable",
			"only the following media types are accepted: "+strings.Join(objectMediaTypes, ", "), nil)
	}
	return newStatus(http.StatusNotAcceptable, "NotAcceptable",
		"406: Not Acceptable\n\nAvailable representations: "+strings.Join(offered, ", "), &metav1.StatusDetails{})
}
