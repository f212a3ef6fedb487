package apiserver

import (
	"errors"
	"fmt"
	"net/http"

	"kubik/ch01-apiserver/api/metav1"
)

// StatusError is an error that carries the Status object the client will get.
// Upstream: k8s.io/apimachinery/pkg/api/errors. kubectl prints
// "Error from server (<Reason>): <Message>" from it.
type StatusError struct {
	Status metav1.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

func newStatus(code int32, reason, message string, details *metav1.StatusDetails) *StatusError {
	return &StatusError{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  message,
		Reason:   reason,
		Details:  details,
		Code:     code,
	}}
}

// qualified is `pods "web"` or `deployments.apps "nginx"`: upstream's wording.
func qualified(groupResource, name string) string { return fmt.Sprintf("%s %q", groupResource, name) }

func errDetails(group, resource, name string) *metav1.StatusDetails {
	return &metav1.StatusDetails{Name: name, Group: group, Kind: resource}
}

// ErrNotFound: `pods "nope" not found`.
func ErrNotFound(group, resource, groupResource, name string) *StatusError {
	return newStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		qualified(groupResource, name)+" not found", errDetails(group, resource, name))
}

// errNoSuchPath is the 404 of a path that names no resource; kubectl prints
// "the server could not find the requested resource".
func errNoSuchPath() *StatusError {
	return newStatus(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", &metav1.StatusDetails{})
}

// notServed answers a path no API group handles (an unknown group, a path
// outside /api and /apis) as upstream does: its mux's plain-text 404, not a
// Status. Clients that ask for an aggregated group that is not there
// (metrics.k8s.io without a metrics server) see exactly this.
func notServed(w http.ResponseWriter, r *http.Request) {
	if lw, ok := w.(*loggingWriter); ok {
		lw.errMsg = "404 page not found"
	}
	http.NotFound(w, r)
}

// ErrAlreadyExists: `configmaps "cfg" already exists`.
func ErrAlreadyExists(group, resource, groupResource, name string) *StatusError {
	return newStatus(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		qualified(groupResource, name)+" already exists", errDetails(group, resource, name))
}

// ErrConflict: the optimistic-concurrency failure of an update.
func ErrConflict(group, resource, groupResource, name string, err error) *StatusError {
	return newStatus(http.StatusConflict, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s: %v", qualified(groupResource, name), err),
		errDetails(group, resource, name))
}

// errObjectModified is the text every stale-resourceVersion conflict carries.
var errObjectModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

// ErrBadRequest is a 400 with reason BadRequest.
func ErrBadRequest(msg string) *StatusError {
	return newStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, msg, nil)
}

// ErrInvalid is the 422 of a failed validation. Details carry kind (not plural!),
// name and one cause per field error; kubectl rebuilds its message from them.
func ErrInvalid(group, kind, name string, causes []metav1.StatusCause, aggregate string) *StatusError {
	return newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		fmt.Sprintf("%s %q is invalid: %s", qualifiedKind(group, kind), name, aggregate),
		&metav1.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// qualifiedKind is "Pod" or "Deployment.apps".
func qualifiedKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// ErrForbidden: `pods "x" is forbidden: <reason>`.
func ErrForbidden(group, resource, groupResource, name string, err error) *StatusError {
	var msg string
	if groupResource == "" {
		msg = fmt.Sprintf("forbidden: %v", err)
	} else if name == "" {
		msg = fmt.Sprintf("%s is forbidden: %v", groupResource, err)
	} else {
		msg = fmt.Sprintf("%s is forbidden: %v", qualified(groupResource, name), err)
	}
	return newStatus(http.StatusForbidden, metav1.StatusReasonForbidden, msg, errDetails(group, resource, name))
}

// ErrTooManyRequests is upstream's NewTooManyRequests: try again after
// retryAfterSeconds (0: no advice).
func ErrTooManyRequests(msg string, retryAfterSeconds int32) *StatusError {
	return newStatus(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, msg,
		&metav1.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

// ErrGone is the 410 of a watch or list from a resourceVersion no longer kept.
func ErrGone(msg string) *StatusError {
	return newStatus(http.StatusGone, metav1.StatusReasonExpired, msg, nil)
}

// ErrUnsupportedMediaType: a body in a format we cannot decode.
func ErrUnsupportedMediaType(contentType string, supported []string) *StatusError {
	return newStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s", joinComma(supported)), nil)
}

// ErrRequestEntityTooLarge: body or object over the limit.
func ErrRequestEntityTooLarge(msg string) *StatusError {
	return newStatus(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		"Request entity too large: "+msg, nil)
}

// ErrInternal: something went wrong on our side.
func ErrInternal(err error) *StatusError {
	return newStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeUnexpectedServerResponse, Message: err.Error()}}})
}

// ErrTimeout is the 504 of a request that ran out of time (e.g. storage
// did not answer): "Timeout: <msg>", as upstream's NewTimeoutError.
func ErrTimeout(msg string) *StatusError {
	return newStatus(http.StatusGatewayTimeout, metav1.StatusReasonTimeout, "Timeout: "+msg, &metav1.StatusDetails{})
}

// ErrTooLargeResourceVersion: a list or watch from a resourceVersion storage
// has not reached yet (upstream's storage.NewTooLargeResourceVersionError;
// the watch cache asks the client to retry after a second).
func ErrTooLargeResourceVersion(rv, current int64) *StatusError {
	se := ErrTimeout(fmt.Sprintf("Too large resource version: %d, current: %d", rv, current))
	se.Status.Details = &metav1.StatusDetails{RetryAfterSeconds: 1, Causes: []metav1.StatusCause{
		{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}}
	return se
}

// ErrUnauthorized: no valid identity.
func ErrUnauthorized() *StatusError {
	return newStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil)
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// asStatus turns any error into the StatusError the client gets; unknown
// errors become 500 InternalError.
func asStatus(err error) *StatusError {
	var se *StatusError
	if errors.As(err, &se) {
		return se
	}
	return ErrInternal(err)
}
