// Package serviceaccount makes sure every active namespace has a
// ServiceAccount named "default": the identity a pod runs as when it names
// none (the apiserver's ServiceAccount admission fills in
// spec.serviceAccountName: default).
//
// The loop (upstream: serviceaccounts_controller.go): a namespace added or
// changed, or a ServiceAccount deleted, queues its namespace; syncNamespace
// looks in the informer caches and creates "default" if it is missing — so
// `kubectl delete sa default` is undone within moments. A namespace that is
// not Active (Terminating) is left alone: its content is being deleted.
//
// Upstream: pkg/controller/serviceaccount (ServiceAccountsController).
package serviceaccount

import (
	"context"
	"errors"
	"kubik/ch04-controllers/worker"
	"log/slog"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// DefaultServiceAccountName is the account every namespace gets.
const DefaultServiceAccountName = "default"

// ServiceAccountsController creates the default ServiceAccounts.
type ServiceAccountsController struct {
	client *rest.Client
	// serviceAccountsToEnsure: upstream's option, ["default"].
	serviceAccountsToEnsure []corev1.ServiceAccount
	saInformer              *cache.Informer[corev1.ServiceAccount, *corev1.ServiceAccount]
	nsInformer              *cache.Informer[corev1.Namespace, *corev1.Namespace]
	queue                   *workqueue.RateLimitingQueue[string]
	log                     *slog.Logger
}

// NewServiceAccountsController registers the handlers on the shared
// ServiceAccount and Namespace informers.
func NewServiceAccountsController(cc *controller.ControllerContext) (*ServiceAccountsController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &ServiceAccountsController{
		client:                  cc.Client,
		serviceAccountsToEnsure: []corev1.ServiceAccount{{ObjectMeta: metav1.ObjectMeta{Name: DefaultServiceAccountName}}},
		saInformer:              controller.InformerFor[corev1.ServiceAccount](cc.Informers),
		nsInformer:              controller.InformerFor[corev1.Namespace](cc.Informers),
		queue:                   workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		log:                     log.With("controller", "serviceaccount-controller"),
	}
	c.saInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.ServiceAccount]{
		DeleteFunc: func(sa *corev1.ServiceAccount) { c.queue.Add(sa.Namespace) },
	})
	c.nsInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Namespace]{
		AddFunc:    func(ns *corev1.Namespace) { c.queue.Add(ns.Name) },
		UpdateFunc: func(_, ns *corev1.Namespace) { c.queue.Add(ns.Name) },
	})
	return c, nil
}

// Run waits for both informers, then runs workers until ctx ends.
func (c *ServiceAccountsController) Run(ctx context.Context, workers int) {
	c.log.Info("starting")
	worker.RunWorkers(ctx, c.queue, workers, c.processNextWorkItem, c.saInformer.HasSynced, c.nsInformer.HasSynced)
}

func (c *ServiceAccountsController) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.syncNamespace), c.log, "namespace")
}

// syncNamespace creates the missing ServiceAccounts of an active namespace.
func (c *ServiceAccountsController) syncNamespace(ctx context.Context, key string) error {
	ns, ok := c.nsInformer.GetStore().Get("", key)
	if !ok {
		return nil
	}
	if ns.Status.Phase != corev1.NamespaceActive {
		return nil // terminating: nothing new goes in
	}
	var failures []error
	for _, sa := range c.serviceAccountsToEnsure {
		if _, ok := c.saInformer.GetStore().Get(ns.Name, sa.Name); ok {
			continue
		}
		sa.Namespace = ns.Name
		_, err := rest.Create(ctx, c.client, &sa)
		switch {
		case err == nil:
			c.log.Info("created ServiceAccount", "namespace", ns.Name, "name", sa.Name)
		case rest.IsAlreadyExists(err), controller.IsNamespaceTerminating(err):
			// Someone was quicker, or the namespace is going away.
		default:
			failures = append(failures, err)
		}
	}
	return errors.Join(failures...)
}
