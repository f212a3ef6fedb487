package dns

import (
	"context"
	"log/slog"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// RunInformers keeps idx current with the cluster's Services,
// EndpointSlices and Namespaces (list and watch, all namespaces) until ctx
// ends. The returned function reports whether idx has been given all three
// initial lists: the server's readiness. The service account needs list
// and watch on services, endpointslices.discovery.k8s.io and namespaces
// (kubeadm's ClusterRole system:coredns).
func RunInformers(ctx context.Context, c *rest.Client, idx *Index, log *slog.Logger) (hasSynced func() bool) {
	services := cache.New[corev1.Service](c, cache.Options{Logger: log})
	slices := cache.New[discoveryv1.EndpointSlice](c, cache.Options{Logger: log})
	namespaces := cache.New[corev1.Namespace](c, cache.Options{Logger: log})

	regs := []cache.Registration{
		services.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Service]{
			AddFunc:    idx.SetService,
			UpdateFunc: func(_, svc *corev1.Service) { idx.SetService(svc) },
			DeleteFunc: func(svc *corev1.Service) { idx.DeleteService(svc.Namespace, svc.Name) },
		}),
		slices.AddEventHandler(cache.ResourceEventHandlerFuncs[discoveryv1.EndpointSlice]{
			AddFunc:    idx.SetEndpointSlice,
			UpdateFunc: func(_, es *discoveryv1.EndpointSlice) { idx.SetEndpointSlice(es) },
			DeleteFunc: func(es *discoveryv1.EndpointSlice) { idx.DeleteEndpointSlice(es.Namespace, es.Name) },
		}),
		namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Namespace]{
			AddFunc:    func(ns *corev1.Namespace) { idx.SetNamespace(ns.Name) },
			DeleteFunc: func(ns *corev1.Namespace) { idx.DeleteNamespace(ns.Name) },
		}),
	}
	go services.Run(ctx)
	go slices.Run(ctx)
	go namespaces.Run(ctx)
	return func() bool {
		for _, r := range regs {
			if !r.HasSynced() {
				return false
			}
		}
		return true
	}
}
