// Package rootcacertpublisher puts the cluster's CA certificate into every
// namespace, as the ConfigMap "kube-root-ca.crt" (key ca.crt). A pod's
// ServiceAccount token volume (kube-api-access-*, added by the apiserver's
// ServiceAccount admission) projects that ConfigMap next to the token, so a
// program in the pod can verify the apiserver it talks to at
// https://kubernetes.default.svc.
//
// The loop (upstream: publisher.go): a namespace added (or becoming
// Active), or the ConfigMap changed or deleted, queues the namespace;
// syncNamespace creates the ConfigMap, or puts back the CA and the
// description annotation if someone changed them.
//
// Upstream: pkg/controller/certificates/rootcacertpublisher
// (controller name root-ca-certificate-publisher).
package rootcacertpublisher

import (
	"context"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"maps"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// Upstream's names and text.
const (
	RootCACertConfigMapName = "kube-root-ca.crt"
	DescriptionAnnotation   = "kubernetes.io/description"
	Description             = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Publisher keeps kube-root-ca.crt in every namespace.
type Publisher struct {
	client     *rest.Client
	rootCA     []byte
	cmInformer *cache.Informer[corev1.ConfigMap, *corev1.ConfigMap]
	nsInformer *cache.Informer[corev1.Namespace, *corev1.Namespace]
	queue      *workqueue.RateLimitingQueue[string]
	log        *slog.Logger
}

// NewPublisher publishes rootCA (PEM): the CA the controller manager's own
// kubeconfig trusts, or --root-ca-file.
func NewPublisher(cc *controller.ControllerContext, rootCA []byte) (*Publisher, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Publisher{
		client:     cc.Client,
		rootCA:     rootCA,
		cmInformer: controller.InformerFor[corev1.ConfigMap](cc.Informers),
		nsInformer: controller.InformerFor[corev1.Namespace](cc.Informers),
		queue:      workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		log:        log.With("controller", "root-ca-certificate-publisher"),
	}
	ours := func(cm *corev1.ConfigMap) bool { return cm.Name == RootCACertConfigMapName }
	p.cmInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.ConfigMap]{
		UpdateFunc: func(_, cm *corev1.ConfigMap) {
			if ours(cm) {
				p.queue.Add(cm.Namespace)
			}
		},
		DeleteFunc: func(cm *corev1.ConfigMap) {
			if ours(cm) {
				p.queue.Add(cm.Namespace)
			}
		},
	})
	p.nsInformer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Namespace]{
		AddFunc: func(ns *corev1.Namespace) { p.queue.Add(ns.Name) },
		UpdateFunc: func(_, ns *corev1.Namespace) {
			if ns.Status.Phase == corev1.NamespaceActive {
				p.queue.Add(ns.Name)
			}
		},
	})
	return p, nil
}

// Run waits for the informers, then runs workers until ctx ends.
func (p *Publisher) Run(ctx context.Context, workers int) {
	p.log.Info("starting")
	worker.RunWorkers(ctx, p.queue, workers, p.processNextWorkItem, p.cmInformer.HasSynced, p.nsInformer.HasSynced)
}

func (p *Publisher) processNextWorkItem(ctx context.Context) bool {
	return worker.ProcessNextWorkItem(ctx, p.queue, worker.SyncErr(p.syncNamespace), p.log, "namespace")
}

// syncNamespace makes the namespace's kube-root-ca.crt hold the CA.
func (p *Publisher) syncNamespace(ctx context.Context, ns string) error {
	data := map[string]string{"ca.crt": string(p.rootCA)}
	cm, ok := p.cmInformer.GetStore().Get(ns, RootCACertConfigMapName)
	if !ok {
		_, err := rest.Create(ctx, p.client, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: RootCACertConfigMapName, Namespace: ns,
				Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data: data,
		})
		if rest.IsNotFound(err) || controller.IsNamespaceTerminating(err) {
			return nil // the namespace is gone or going
		}
		return err
	}
	if maps.Equal(cm.Data, data) && cm.Annotations[DescriptionAnnotation] != "" {
		return nil
	}
	updated := *cm
	updated.Data = data
	updated.Annotations = maps.Clone(cm.Annotations)
	if updated.Annotations == nil {
		updated.Annotations = map[string]string{}
	}
	updated.Annotations[DescriptionAnnotation] = Description
	_, err := rest.Update(ctx, p.client, &updated)
	return err
}
