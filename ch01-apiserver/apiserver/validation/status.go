package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// MaxReportedErrors bounds how many errors one 422 answer lists, in its
// causes and in its message. Upstream lists every error, and builds its
// message in time quadratic in their number: a pod with 20,000 empty
// containers (a 60 KB body) takes it half a minute and an 11 MB answer. Up
// to this many errors the answer is upstream's to the byte; beyond, the
// message ends with how many more there were.
const MaxReportedErrors = 1000

// ToStatusCauses turns validation errors into the causes of a 422 Status:
// reason is the error type, message the error without its field. At most
// MaxReportedErrors are listed.
func ToStatusCauses(errs field.ErrorList) []metav1.StatusCause {
	errs = errs[:min(len(errs), MaxReportedErrors)]
	causes := make([]metav1.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, metav1.StatusCause{Type: string(e.Type), Message: e.ErrorBody(), Field: e.Field})
	}
	return causes
}

// AggregateMessage joins errors the way upstream's aggregate error prints
// them: one error alone, several as "[a, b]", repeated texts once. The
// Status message is `<Kind> "<name>" is invalid: ` followed by this. After
// MaxReportedErrors distinct errors it says how many more there were
// ("[a, b, ..., and 7 more errors]"); its cost is linear in len(errs).
func AggregateMessage(errs field.ErrorList) string {
	uniq := errs.Unique()
	switch len(uniq) {
	case 0:
		return ""
	case 1:
		return uniq[0].Error()
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range uniq {
		if i == MaxReportedErrors {
			fmt.Fprintf(&b, ", and %d more errors", len(uniq)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Error())
	}
	b.WriteByte(']')
	return b.String()
}

// InvalidStatus builds the whole 422 answer for an object of kind (with its
// API group, "" for core) that failed validation.
func InvalidStatus(group, kind, name string, errs field.ErrorList) *metav1.Status {
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	msg := qualified + " \"" + name + "\" is invalid"
	if len(errs) > 0 {
		msg += ": " + AggregateMessage(errs)
	}
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  msg,
		Reason:   metav1.StatusReasonInvalid,
		Details:  &metav1.StatusDetails{Name: name, Group: group, Kind: kind, Causes: ToStatusCauses(errs)},
		Code:     422,
	}
}

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
