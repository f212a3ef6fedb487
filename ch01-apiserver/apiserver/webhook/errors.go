package webhook

import (
	"fmt"
	"net/http"

	"kubik/ch01-apiserver/api/metav1"
)

// StatusError is an error answered to the client with its Status (the
// apiserver turns it into its own StatusError).
type StatusError struct {
	Status metav1.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

func newStatus(code int32, reason, message string) *StatusError {
	return &StatusError{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: message,
	}}
}

// internalError is upstream's apierrors.NewInternalError.
func internalError(err error) *StatusError {
	se := newStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err))
	se.Status.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "UnexpectedServerResponse", Message: err.Error()}}}
	return se
}

func badRequest(msg string) *StatusError {
	return newStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, msg)
}

// timeoutError is upstream's apierrors.NewTimeoutError(msg, 0).
func timeoutError(msg string) *StatusError {
	se := newStatus(http.StatusGatewayTimeout, metav1.StatusReasonTimeout, "Timeout: "+msg)
	se.Status.Details = &metav1.StatusDetails{}
	return se
}

// dryRunUnsupported is upstream's webhookerrors.NewDryRunUnsupportedErr.
func dryRunUnsupported(name string) *StatusError {
	return badRequest(fmt.Sprintf("admission webhook %q does not support dry run", name))
}

// callError is upstream's webhookutil.ErrCallingWebhook: the webhook could
// not be called or answered nonsense. The failure policy decides.
type callError struct {
	WebhookName string
	Reason      error
}

func (e *callError) Error() string {
	if e.Reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.WebhookName, e.Reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.WebhookName)
}

// toStatusErr is upstream's webhookerrors.ToStatusErr: the error of a
// webhook that refused the request, with the webhook's own Status (its code
// at least 400).
func toStatusErr(name string, result *metav1.Status) *StatusError {
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", name)
	st := metav1.Status{}
	if result != nil {
		st = *result
	}
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if st.Status == "" || st.Status == metav1.StatusSuccess {
		st.Status = metav1.StatusFailure
	}
	if st.Code < http.StatusBadRequest {
		st.Code = http.StatusBadRequest
	}
	switch {
	case st.Message != "":
		st.Message = deniedBy + ": " + st.Message
	case st.Reason != "":
		st.Message = deniedBy + ": " + st.Reason
	default:
		st.Message = deniedBy + " without explanation"
	}
	return &StatusError{Status: st}
}

// matchConditionsFailed is upstream's answer when a webhook's match
// conditions could not be evaluated and its failurePolicy is Fail: the
// apiserver's NewForbidden for the request's resource and name.
func matchConditionsFailed(a *Attributes, err error) *StatusError {
	resource := a.Resource.Resource
	if a.Resource.Group != "" {
		resource += "." + a.Resource.Group
	}
	if a.Name == "" {
		return newStatus(http.StatusForbidden, "Forbidden", fmt.Sprintf("%s is forbidden: %v", resource, err))
	}
	return newStatus(http.StatusForbidden, "Forbidden", fmt.Sprintf("%s %q is forbidden: %v", resource, a.Name, err))
}
