package apiserver

import (
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
)

// The CertificateSigningRequest strategies (upstream's
// pkg/registry/certificates/certificates/strategy.go): the request names
// its requester, and each endpoint may change only its part — the main
// resource the metadata, /approval the conditions, /status the conditions
// but Approved and Denied, and the certificate.

// prepareCSRForCreate fills spec.username, uid, groups and extra from the
// requesting user, whatever the client sent, and starts with an empty
// status: nobody creates a pre-approved request.
func prepareCSRForCreate(csr *certificatesv1.CertificateSigningRequest, user *auth.UserInfo) {
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra = "", "", nil, nil
	if user != nil {
		csr.Spec.Username = user.Name
		csr.Spec.UID = user.UID
		csr.Spec.Groups = user.Groups
		if len(user.Extra) > 0 {
			csr.Spec.Extra = map[string]certificatesv1.ExtraValue{}
			for k, v := range user.Extra {
				csr.Spec.Extra[k] = v
			}
		}
	}
	csr.Status = certificatesv1.CertificateSigningRequestStatus{}
}

// prepareCSRForUpdate keeps what subresource may not change.
func prepareCSRForUpdate(csr, old *certificatesv1.CertificateSigningRequest, subresource string) {
	switch subresource {
	case "status":
		csr.Spec = old.Spec
		// Approved and Denied stay as they were; adding or removing one
		// is left for validation to refuse.
		preserveConditionInstances(csr, old, certificatesv1.CertificateApproved)
		preserveConditionInstances(csr, old, certificatesv1.CertificateDenied)
		populateConditionTimestamps(csr, old)
	case "approval":
		populateConditionTimestamps(csr, old)
		conditions := csr.Status.Conditions
		csr.Spec = old.Spec
		csr.Status = old.Status
		csr.Status.Conditions = conditions
	default:
		csr.Spec = old.Spec
		csr.Status = old.Status
	}
}

// preserveConditionInstances copies the conditions of type t from old when
// csr has as many of them.
func preserveConditionInstances(csr, old *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) {
	oldIdx, newIdx := conditionIndices(old, t), conditionIndices(csr, t)
	if len(oldIdx) != len(newIdx) {
		return
	}
	for i, o := range oldIdx {
		csr.Status.Conditions[newIdx[i]] = old.Status.Conditions[o]
	}
}

func conditionIndices(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) []int {
	var out []int
	for i, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, i)
		}
	}
	return out
}

// populateConditionTimestamps sets an unset lastUpdateTime to now, and an
// unset lastTransitionTime to the old condition's of the same type and
// status, or now.
func populateConditionTimestamps(csr, old *certificatesv1.CertificateSigningRequest) {
	now := metav1.Now()
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
			for _, o := range old.Status.Conditions {
				if o.Type == c.Type && o.Status == c.Status && !o.LastTransitionTime.IsZero() {
					c.LastTransitionTime = o.LastTransitionTime
					break
				}
			}
		}
	}
}
