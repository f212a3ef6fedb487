// Package validatingadmissionpolicystatus is the
// validatingadmissionpolicy-status-controller of kube-controller-manager:
// it type-checks every ValidatingAdmissionPolicy whose generation it has
// not seen against the schemas of the kinds the policy matches (package
// policy's TypeChecker over the built-in kinds' OpenAPI schemas) and
// writes the result into status.typeChecking, with status.observedGeneration,
// by a server-side apply of the status (field manager
// validatingadmissionpolicy-status). The warnings do not change
// what the policy does: an expression that does not check fails at runtime.
//
// Upstream: pkg/controller/validatingadmissionpolicystatus.
package validatingadmissionpolicystatus

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/policy"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// ControllerName is upstream's name of the controller's queue and the
// field manager of the status it applies (--controllers names it
// validatingadmissionpolicy-status-controller).
const ControllerName = "validatingadmissionpolicy-status"

// Controller is upstream's validatingadmissionpolicystatus.Controller.
type Controller struct {
	client      *rest.Client
	policies    *cache.Informer[admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicy]
	queue       *workqueue.RateLimitingQueue[string]
	typeChecker *policy.TypeChecker
	log         *slog.Logger
}

// NewController asks for the ValidatingAdmissionPolicy informer.
func NewController(cc *controller.ControllerContext) (*Controller, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{client: cc.Client, log: log.With("controller", ControllerName),
		policies:    controller.InformerFor[admissionregistrationv1.ValidatingAdmissionPolicy](cc.Informers),
		queue:       workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		typeChecker: &policy.TypeChecker{Schemas: policy.BuiltinSchemas()}}
	c.policies.AddEventHandler(cache.ResourceEventHandlerFuncs[admissionregistrationv1.ValidatingAdmissionPolicy]{
		AddFunc:    func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { c.queue.Add(p.Name) },
		UpdateFunc: func(_, p *admissionregistrationv1.ValidatingAdmissionPolicy) { c.queue.Add(p.Name) },
	})
	return c, nil
}

// Run waits for the cache and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.reconcile), c.log, "validatingAdmissionPolicy")
	}, c.policies.HasSynced)
}

// reconcile type-checks one policy if its generation is new.
func (c *Controller) reconcile(ctx context.Context, name string) error {
	p, ok := c.policies.GetStore().Get("", name)
	if !ok || p.Generation <= p.Status.ObservedGeneration {
		return nil
	}
	warnings := c.typeChecker.Check(p)
	if warnings == nil {
		warnings = []admissionregistrationv1.ExpressionWarning{}
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": admissionregistrationv1.GroupName + "/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": p.Name},
		"status": map[string]any{"observedGeneration": p.Generation,
			"typeChecking": map[string]any{"expressionWarnings": warnings}},
	})
	if err != nil {
		return err
	}
	r := scheme.Lookup(admissionregistrationv1.GroupName, "v1", "validatingadmissionpolicies")
	return c.client.Do(ctx, rest.Request{Method: http.MethodPatch, Path: rest.ResourcePath(r, "", p.Name, "status"),
		Query:       url.Values{"fieldManager": {ControllerName}, "force": {"true"}},
		ContentType: string(rest.ApplyPatchType), Body: body}, nil)
}
