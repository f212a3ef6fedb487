// Package certificates is what the CertificateSigningRequest controllers
// share: CertificateController, the loop that hands every request (by
// name) to a handler — the approver's or a signer's — and retries it with
// back-off when the handler fails; and the helpers that read a request's
// conditions and check the shape of a kubelet's request.
//
// Upstream: pkg/controller/certificates (certificate_controller.go,
// certificate_controller_utils.go) and pkg/apis/certificates (helpers.go).
package certificates

import (
	"context"
	"fmt"
	"log/slog"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// CertificateController calls handler for every request added, changed or
// deleted. The handler gets a copy it may change and send back.
type CertificateController struct {
	name     string
	informer *cache.Informer[certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequest]
	handler  func(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) error
	queue    *worker.Queue
	log      *slog.Logger
}

// NewCertificateController watches requests through the shared informer.
func NewCertificateController(cc *controller.ControllerContext, name string,
	handler func(context.Context, *certificatesv1.CertificateSigningRequest) error) *CertificateController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &CertificateController{
		name:     name,
		informer: controller.InformerFor[certificatesv1.CertificateSigningRequest](cc.Informers),
		handler:  handler,
		queue:    workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		log:      log.With("controller", name),
	}
	enqueue := func(csr *certificatesv1.CertificateSigningRequest) { c.queue.Add(csr.Name) }
	c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs[certificatesv1.CertificateSigningRequest]{
		AddFunc:    enqueue,
		UpdateFunc: func(_, csr *certificatesv1.CertificateSigningRequest) { enqueue(csr) },
		DeleteFunc: enqueue,
	})
	return c
}

// Log is the controller's logger (attribute controller=name).
func (c *CertificateController) Log() *slog.Logger { return c.log }

// Run waits for the informer, then runs workers until ctx ends.
func (c *CertificateController) Run(ctx context.Context, workers int) {
	c.log.Info("Starting certificate controller", "name", c.name)
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem, c.informer.HasSynced)
}

func (c *CertificateController) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncFunc), c.log, "csr")
}

// syncFunc hands a copy of the cached request to the handler; an error
// retries it with back-off.
func (c *CertificateController) syncFunc(ctx context.Context, name string) error {
	cached, ok := c.informer.GetStore().Get("", name)
	if !ok {
		return nil // deleted
	}
	csr := *cached
	csr.Status.Conditions = append([]certificatesv1.CertificateSigningRequestCondition(nil), cached.Status.Conditions...)
	return c.handler(ctx, &csr)
}

// IgnorableError is upstream's name for an expected failure (a request
// recognized but not authorized): retried like any other.
func IgnorableError(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}
