// Package approver is the csrapproving controller: it approves the client
// certificate requests of kubelets (signer
// kubernetes.io/kube-apiserver-client-kubelet, subject system:node:<name>
// in system:nodes, client usages and no SANs) when the requester may ask
// for one. It asks the apiserver with a SubjectAccessReview for the
// requester recorded in the request (spec.username, groups, extra):
//
//   - a kubelet renewing its own certificate (username = the request's
//     common name) needs "create certificatesigningrequests/selfnodeclient";
//   - a bootstrapping kubelet (a bootstrap token) needs "create
//     certificatesigningrequests/nodeclient".
//
// kubeadm binds those ClusterRoles
// (system:certificates.k8s.io:certificatesigningrequests:nodeclient and
// :selfnodeclient) to the bootstrappers and the nodes. Everything else is
// left for a human (`kubectl certificate approve`); requests are never
// denied here.
//
// Upstream: pkg/controller/certificates/approver (sarapprove.go).
package approver

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"

	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/certificates"
	"kubik/ch04-controllers/controller"
)

// csrRecognizer is one kind of request the approver knows, the permission
// its requester needs and the approval's message.
type csrRecognizer struct {
	recognize      func(csr *certificatesv1.CertificateSigningRequest, x509cr *x509.CertificateRequest) bool
	permission     authorizationv1.ResourceAttributes
	successMessage string
}

func recognizers() []csrRecognizer {
	return []csrRecognizer{
		{
			recognize: isSelfNodeClientCert,
			permission: authorizationv1.ResourceAttributes{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests",
				Verb: "create", Subresource: "selfnodeclient", Version: "*"},
			successMessage: "Auto approving self kubelet client certificate after SubjectAccessReview.",
		},
		{
			recognize: isNodeClientCert,
			permission: authorizationv1.ResourceAttributes{Group: certificatesv1.GroupName, Resource: "certificatesigningrequests",
				Verb: "create", Subresource: "nodeclient", Version: "*"},
			successMessage: "Auto approving kubelet client certificate after SubjectAccessReview.",
		},
	}
}

// SARApprover approves kubelet client requests.
type SARApprover struct {
	*certificates.CertificateController
	client      *rest.Client
	recognizers []csrRecognizer
}

// NewCSRApprovingController builds the approver (controller name
// csrapproving).
func NewCSRApprovingController(cc *controller.ControllerContext) (*SARApprover, error) {
	a := &SARApprover{client: cc.Client, recognizers: recognizers()}
	a.CertificateController = certificates.NewCertificateController(cc, "csrapproving", a.handle)
	return a, nil
}

// handle approves a pending request the first recognizer whose permission
// the requester holds accepts.
func (a *SARApprover) handle(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error {
	if len(csr.Status.Certificate) != 0 {
		return nil
	}
	if approved, denied := certificates.GetCertApprovalCondition(&csr.Status); approved || denied {
		return nil
	}
	x509cr, err := certificates.ParseCSR(csr.Spec.Request)
	if err != nil {
		return fmt.Errorf("unable to parse csr %q: %v", csr.Name, err)
	}
	var tried []string
	for _, r := range a.recognizers {
		if !r.recognize(csr, x509cr) {
			continue
		}
		tried = append(tried, r.permission.Subresource)
		approved, err := a.authorize(ctx, csr, r.permission)
		if err != nil {
			return err
		}
		if approved {
			appendApprovalCondition(csr, r.successMessage)
			if _, err := certificates.UpdateApproval(ctx, a.client, csr); err != nil {
				return fmt.Errorf("error updating approval for csr: %v", err)
			}
			a.Log().Info("approved", "csr", csr.Name, "permission", r.permission.Subresource)
			return nil
		}
	}
	if len(tried) != 0 {
		return certificates.IgnorableError("recognized csr %q as %v but subject access review was not approved", csr.Name, tried)
	}
	return nil
}

// subjectAccessReviewsPath is where reviews are created (a kind the
// apiserver answers, never stores).
const subjectAccessReviewsPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"

// authorize asks the apiserver whether the requester may do rattrs.
func (a *SARApprover) authorize(ctx context.Context, csr *certificatesv1.CertificateSigningRequest, rattrs authorizationv1.ResourceAttributes) (bool, error) {
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range csr.Spec.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar := &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1"},
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User: csr.Spec.Username, UID: csr.Spec.UID, Groups: csr.Spec.Groups, Extra: extra, ResourceAttributes: &rattrs,
		}}
	body, err := json.Marshal(sar)
	if err != nil {
		return false, err
	}
	var out authorizationv1.SubjectAccessReview
	if err := a.client.Do(ctx, rest.Request{Method: http.MethodPost, Path: subjectAccessReviewsPath, Body: body}, &out); err != nil {
		return false, err
	}
	return out.Status.Allowed, nil
}

func appendApprovalCondition(csr *certificatesv1.CertificateSigningRequest, message string) {
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "AutoApproved", Message: message,
	})
}

// isNodeClientCert: a kubelet client certificate request.
func isNodeClientCert(csr *certificatesv1.CertificateSigningRequest, x509cr *x509.CertificateRequest) bool {
	if csr.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName {
		return false
	}
	return certificates.IsKubeletClientCSR(x509cr, csr.Spec.Usages)
}

// isSelfNodeClientCert: a kubelet asking for a certificate of its own name.
func isSelfNodeClientCert(csr *certificatesv1.CertificateSigningRequest, x509cr *x509.CertificateRequest) bool {
	if csr.Spec.Username != x509cr.Subject.CommonName {
		return false
	}
	return isNodeClientCert(csr, x509cr)
}
