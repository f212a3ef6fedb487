package validation

import (
	"encoding/json"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// ToStatusCauses turns validation errors into the causes of a 422 Status:
// reason is the error type, message the error without its field.
func ToStatusCauses(errs field.ErrorList) []metav1.StatusCause {
	causes := make([]metav1.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, metav1.StatusCause{Type: string(e.Type), Message: e.ErrorBody(), Field: e.Field})
	}
	return causes
}

// AggregateMessage joins errors the way upstream's aggregate error prints
// them: one error alone, several as "[a, b]", repeated texts once. The
// Status message is `<Kind> "<name>" is invalid: ` followed by this.
func AggregateMessage(errs field.ErrorList) string {
	uniq := errs.Unique()
	switch len(uniq) {
	case 0:
		return ""
	case 1:
		return uniq[0].Error()
	}
	msg := "["
	for i, e := range uniq {
		if i > 0 {
			msg += ", "
		}
		msg += e.Error()
	}
	return msg + "]"
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
