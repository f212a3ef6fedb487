package apiextensions

import (
	"fmt"
	"net/url"
	"strings"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Groups under k8s.io and kubernetes.io belong to the Kubernetes project:
// a CRD there must carry the api-approved.kubernetes.io annotation (a link
// to the approved API review, or a reason starting with "unapproved").
// Gateway API's CRDs do. Upstream: pkg/apihelpers/helpers.go and the
// apiapproval controller.

// KubeAPIApprovedAnnotation is the annotation protected groups must carry.
const KubeAPIApprovedAnnotation = "api-approved.kubernetes.io"

// IsProtectedCommunityGroup reports groups owned by the Kubernetes project.
func IsProtectedCommunityGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

type approvalState int

const (
	approvalInvalid approvalState = iota
	approvalMissing
	approved
	approvalBypassed
)

func apiApprovalState(annotations map[string]string) (approvalState, string) {
	v, ok := annotations[KubeAPIApprovedAnnotation]
	if !ok {
		return approvalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", KubeAPIApprovedAnnotation)
	}
	if strings.HasPrefix(v, "unapproved") {
		return approvalBypassed, fmt.Sprintf("not approved: %q", v)
	}
	if _, err := url.ParseRequestURI(v); err != nil {
		return approvalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", KubeAPIApprovedAnnotation)
	}
	return approved, fmt.Sprintf("approved in %v", v)
}

// validateAPIApproval is v1's check of the annotation.
func validateAPIApproval(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	if !IsProtectedCommunityGroup(crd.Spec.Group) {
		return nil
	}
	p := field.NewPath("metadata", "annotations").Key(KubeAPIApprovedAnnotation)
	switch state, reason := apiApprovalState(crd.Annotations); state {
	case approvalInvalid:
		return field.ErrorList{field.Invalid(p, crd.Annotations[KubeAPIApprovedAnnotation], reason)}
	case approvalMissing:
		return field.ErrorList{field.Required(p, reason)}
	}
	return nil
}

// APIApprovalCondition is the KubernetesAPIApprovalPolicyConformant
// condition of a CRD in a protected group (nil for other groups).
func APIApprovalCondition(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionCondition {
	if !IsProtectedCommunityGroup(crd.Spec.Group) {
		return nil
	}
	c := &apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionFalse}
	state, reason := apiApprovalState(crd.Annotations)
	c.Message = reason
	switch state {
	case approvalInvalid:
		c.Reason = "InvalidAnnotation"
	case approvalMissing:
		c.Reason = "MissingAnnotation"
	case approved:
		c.Status, c.Reason = apiextensionsv1.ConditionTrue, "ApprovedAnnotation"
	case approvalBypassed:
		c.Reason = "UnapprovedAnnotation"
	}
	return c
}
