// Package cleaner is the csrcleaner controller: once an hour it deletes the
// CertificateSigningRequests nobody needs any more, so that requests made
// automatically (kubelets renewing their certificates) do not pile up:
//
//   - approved and issued, approved more than an hour ago;
//   - denied, or failed, more than an hour ago;
//   - pending (no condition), created more than a day ago;
//   - approved and issued, and the certificate has expired.
//
// Upstream: pkg/controller/certificates/cleaner.
package cleaner

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// Upstream's intervals: how often all requests are looked at, and how long
// each kind is kept.
const (
	pollingInterval    = time.Hour
	approvedExpiration = time.Hour
	deniedExpiration   = time.Hour
	pendingExpiration  = 24 * time.Hour
	failedExpiration   = time.Hour
)

// CSRCleanerController deletes old requests.
type CSRCleanerController struct {
	client   *rest.Client
	informer *cache.Informer[certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequest]
	now      func() time.Time
	log      *slog.Logger
}

// NewCSRCleanerController reads requests from the shared informer.
func NewCSRCleanerController(cc *controller.ControllerContext) (*CSRCleanerController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &CSRCleanerController{
		client:   cc.Client,
		informer: controller.InformerFor[certificatesv1.CertificateSigningRequest](cc.Informers),
		now:      time.Now,
		log:      log.With("controller", "csrcleaner"),
	}, nil
}

// Run looks at every request once the informer has listed, then every
// pollingInterval, until ctx ends. (Upstream starts workers such loops; one
// is enough.)
func (c *CSRCleanerController) Run(ctx context.Context, _ int) {
	c.log.Info("Starting CSR cleaner controller")
	if !cache.WaitForCacheSync(ctx, c.informer.HasSynced) {
		return
	}
	t := time.NewTicker(pollingInterval)
	defer t.Stop()
	for {
		c.worker(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// worker handles every cached request.
func (c *CSRCleanerController) worker(ctx context.Context) {
	for _, csr := range c.informer.GetStore().List() {
		if err := c.handle(ctx, csr); err != nil && ctx.Err() == nil {
			c.log.Error("Error while attempting to clean CSR", "csr", csr.Name, "err", err)
		}
	}
}

// handle deletes the request if one of the rules says so.
func (c *CSRCleanerController) handle(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error {
	expired, err := c.isIssuedExpired(csr)
	if err != nil {
		return err
	}
	reason := ""
	switch {
	case c.isIssuedPastDeadline(csr):
		reason = fmt.Sprintf("it is more than %v old and approved", approvedExpiration)
	case c.isDeniedPastDeadline(csr):
		reason = fmt.Sprintf("it is more than %v old and denied", deniedExpiration)
	case c.isFailedPastDeadline(csr):
		reason = fmt.Sprintf("it is more than %v old and failed", failedExpiration)
	case c.isPendingPastDeadline(csr):
		reason = fmt.Sprintf("it is more than %v old and unhandled", pendingExpiration)
	case expired:
		reason = "the associated certificate is expired"
	default:
		return nil
	}
	c.log.Info("Cleaning CSR as "+reason, "csr", csr.Name)
	err = rest.Delete[certificatesv1.CertificateSigningRequest](ctx, c.client, "", csr.Name, nil)
	if err != nil && !rest.IsNotFound(err) {
		return fmt.Errorf("unable to delete CSR %q: %v", csr.Name, err)
	}
	return nil
}

// isIssuedExpired: approved, issued, and the certificate's NotAfter passed.
func (c *CSRCleanerController) isIssuedExpired(csr *certificatesv1.CertificateSigningRequest) (bool, error) {
	if !hasCondition(csr, certificatesv1.CertificateApproved) || !isIssued(csr) {
		return false, nil
	}
	block, _ := pem.Decode(csr.Status.Certificate)
	if block == nil {
		return false, errors.New("expected the certificate associated with the CSR to be PEM encoded")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return false, fmt.Errorf("unable to parse certificate data: %v", err)
	}
	return c.now().After(cert.NotAfter), nil
}

// isPendingPastDeadline: no condition at all, created long ago.
func (c *CSRCleanerController) isPendingPastDeadline(csr *certificatesv1.CertificateSigningRequest) bool {
	return len(csr.Status.Conditions) == 0 && c.isOlderThan(csr.CreationTimestamp, pendingExpiration)
}

// isDeniedPastDeadline: denied long ago (the condition's lastUpdateTime).
func (c *CSRCleanerController) isDeniedPastDeadline(csr *certificatesv1.CertificateSigningRequest) bool {
	return c.conditionOlderThan(csr, certificatesv1.CertificateDenied, deniedExpiration)
}

// isFailedPastDeadline: failed long ago.
func (c *CSRCleanerController) isFailedPastDeadline(csr *certificatesv1.CertificateSigningRequest) bool {
	return c.conditionOlderThan(csr, certificatesv1.CertificateFailed, failedExpiration)
}

// isIssuedPastDeadline: issued and approved long ago.
func (c *CSRCleanerController) isIssuedPastDeadline(csr *certificatesv1.CertificateSigningRequest) bool {
	return isIssued(csr) && c.conditionOlderThan(csr, certificatesv1.CertificateApproved, approvedExpiration)
}

func (c *CSRCleanerController) conditionOlderThan(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType, d time.Duration) bool {
	for _, cond := range csr.Status.Conditions {
		if cond.Type == t && c.isOlderThan(cond.LastUpdateTime, d) {
			return true
		}
	}
	return false
}

// isOlderThan: t is set and more than d ago.
func (c *CSRCleanerController) isOlderThan(t metav1.Time, d time.Duration) bool {
	return !t.IsZero() && t.Time.Before(c.now().Add(-d))
}

func hasCondition(csr *certificatesv1.CertificateSigningRequest, t certificatesv1.RequestConditionType) bool {
	for _, cond := range csr.Status.Conditions {
		if cond.Type == t {
			return true
		}
	}
	return false
}

// isIssued: there is no Issued condition; a certificate in status is what
// kubectl shows as Issued.
func isIssued(csr *certificatesv1.CertificateSigningRequest) bool {
	return len(csr.Status.Certificate) > 0
}
