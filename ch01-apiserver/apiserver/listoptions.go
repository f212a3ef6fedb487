package apiserver

import (
	"fmt"

	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// validateListOptions checks resourceVersionMatch and sendInitialEvents the
// way upstream's ValidateListOptions does: lists and watches have different
// rules (a streaming watch needs resourceVersionMatch=NotOlderThan, a list
// never takes sendInitialEvents). Failures are 422 Invalid ListOptions.
func validateListOptions(watch bool, opts *listOptions) error {
	var errs field.ErrorList
	match := opts.ResourceVersionMatch
	matchPath := field.NewPath("resourceVersionMatch")
	if watch {
		if opts.SendInitialEvents != nil && match != "NotOlderThan" {
			errs = append(errs, field.Forbidden(matchPath, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if match != "" {
			if opts.SendInitialEvents == nil {
				errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
			}
			if match != "NotOlderThan" {
				errs = append(errs, field.NotSupported(matchPath, match, []string{"NotOlderThan"}))
			}
			if opts.Continue != "" {
				errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden when continue is provided"))
			}
		}
	} else {
		if match != "" {
			if opts.ResourceVersion == "" {
				errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
			}
			if opts.Continue != "" {
				errs = append(errs, field.Forbidden(matchPath, "resourceVersionMatch is forbidden when continue is provided"))
			}
			if match != "Exact" && match != "NotOlderThan" {
				errs = append(errs, field.NotSupported(matchPath, match, []string{"Exact", "NotOlderThan", ""}))
			}
			if match == "Exact" && opts.ResourceVersion == "0" {
				errs = append(errs, field.Forbidden(matchPath, fmt.Sprintf("resourceVersionMatch %q is forbidden for resourceVersion %q", "exact", "0")))
			}
		}
		if opts.SendInitialEvents != nil {
			errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return ErrInvalid("meta.k8s.io", "ListOptions", "", validation.ToStatusCauses(errs), validation.AggregateMessage(errs))
}
