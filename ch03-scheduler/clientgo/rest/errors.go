package rest

import (
	"errors"
	"net/http"

	"kubik/ch01-apiserver/api/metav1"
)

// StatusError is a failed request: the Status the apiserver answered with.
// Upstream: k8s.io/apimachinery/pkg/api/errors.StatusError.
type StatusError struct {
	ErrStatus metav1.Status
}

func (e *StatusError) Error() string { return e.ErrStatus.Message }

// Status returns the apiserver's Status.
func (e *StatusError) Status() metav1.Status { return e.ErrStatus }

// ReasonForError is the Status reason of err ("NotFound", "Conflict", ...),
// or "" if err is not a *StatusError.
func ReasonForError(err error) string {
	if st := asStatusError(err); st != nil {
		return st.ErrStatus.Reason
	}
	return metav1.StatusReasonUnknown
}

func asStatusError(err error) *StatusError {
	var st *StatusError
	if errors.As(err, &st) {
		return st
	}
	return nil
}

func hasReasonOrCode(err error, reason string, code int) bool {
	st := asStatusError(err)
	if st == nil {
		return false
	}
	if st.ErrStatus.Reason != metav1.StatusReasonUnknown {
		return st.ErrStatus.Reason == reason
	}
	return int(st.ErrStatus.Code) == code
}

// IsNotFound: the object does not exist (404).
func IsNotFound(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonNotFound, http.StatusNotFound)
}

// IsAlreadyExists: a create found the name taken (409 AlreadyExists).
func IsAlreadyExists(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonAlreadyExists, http.StatusConflict)
}

// IsConflict: an update carried a stale resourceVersion (409 Conflict).
func IsConflict(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonConflict, http.StatusConflict)
}

// IsGone: a 410, the requested resourceVersion is older than the history the
// apiserver keeps, and a watcher must list again. The apiserver says it with
// reason Expired ("too old resource version", a watch) or Gone; upstream has
// one helper for each (IsGone, IsResourceExpired) and its reflector checks
// both, as this one does.
func IsGone(err error) bool {
	st := asStatusError(err)
	return st != nil && (st.ErrStatus.Code == http.StatusGone ||
		st.ErrStatus.Reason == metav1.StatusReasonGone || st.ErrStatus.Reason == metav1.StatusReasonExpired)
}

// IsResourceExpired: a continue token or resourceVersion has expired (410
// Expired). IsGone covers it too.
func IsResourceExpired(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonExpired, http.StatusGone)
}

// IsForbidden: the authorizer said no (403).
func IsForbidden(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonForbidden, http.StatusForbidden)
}

// IsInvalid: validation failed (422).
func IsInvalid(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonInvalid, http.StatusUnprocessableEntity)
}

// IsTooManyRequests: the apiserver asked us to slow down (429).
func IsTooManyRequests(err error) bool {
	return hasReasonOrCode(err, metav1.StatusReasonTooManyRequests, http.StatusTooManyRequests)
}

// reasonForCode is the reason a Status without one gets, as upstream's
// NewGenericServerResponse picks it.
func reasonForCode(code int) string {
	switch code {
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusMethodNotAllowed:
		return metav1.StatusReasonMethodNotAllowed
	case http.StatusGone:
		return metav1.StatusReasonGone
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	}
	if code >= 500 {
		return metav1.StatusReasonInternalError
	}
	return metav1.StatusReasonUnknown
}
