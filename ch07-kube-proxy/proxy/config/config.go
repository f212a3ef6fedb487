// Package config feeds a proxier from the apiserver: informers for
// Services and EndpointSlices (without those another proxy handles, or
// headless ones) deliver every change to the proxier's handlers, and after
// the initial lists, OnServiceSynced / OnEndpointSlicesSynced start the
// syncing. The own Node is watched for its topology labels, the
// ServiceCIDRs (where served) for the nftables proxier.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/config (ServiceConfig,
// EndpointSliceConfig, NodeTopologyConfig) and the informer factory of
// cmd/kube-proxy/app.
package config

import (
	"context"
	"log/slog"
	"maps"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch07-kube-proxy/proxy"
)

const (
	// LabelServiceProxyName marks Services some other proxy implements.
	LabelServiceProxyName = "service.kubernetes.io/service-proxy-name"
	// LabelHeadless marks the EndpointSlices of headless Services.
	LabelHeadless = "service.kubernetes.io/headless"
)

// ServiceLabelSelector is what kube-proxy's informers list and watch:
// objects with neither label.
const ServiceLabelSelector = "!" + LabelServiceProxyName + ",!" + LabelHeadless

// Informers are kube-proxy's three informers.
type Informers struct {
	Services       *cache.Informer[corev1.Service, *corev1.Service]
	EndpointSlices *cache.Informer[discoveryv1.EndpointSlice, *discoveryv1.EndpointSlice]
	Node           *cache.Informer[corev1.Node, *corev1.Node]
	nodeName       string
	nodeOnce       sync.Once
	client         *rest.Client
	log            *slog.Logger
}

// RunNode starts the Node informer (once); Run calls it too.
func (in *Informers) RunNode(ctx context.Context) {
	in.nodeOnce.Do(func() { go in.Node.Run(ctx) })
}

// NewInformers returns the informers of c, not yet running.
func NewInformers(c *rest.Client, nodeName string, log *slog.Logger) *Informers {
	return &Informers{
		// Headless Services are proxied by DNS: not even listed.
		Services: cache.New[corev1.Service](c, cache.Options{LabelSelector: ServiceLabelSelector,
			FieldSelector: "spec.clusterIP!=" + corev1.ClusterIPNone, Logger: log}),
		EndpointSlices: cache.New[discoveryv1.EndpointSlice](c, cache.Options{LabelSelector: ServiceLabelSelector, Logger: log}),
		Node:           cache.New[corev1.Node](c, cache.Options{FieldSelector: "metadata.name=" + nodeName, Logger: log}),
		nodeName:       nodeName,
		client:         c,
		log:            log,
	}
}

// CurrentNode is the own Node from the cache (nil until seen).
func (in *Informers) CurrentNode() *corev1.Node {
	n, _ := in.Node.GetStore().Get("", in.nodeName)
	return n
}

// topologyLabels are the Node labels the proxier's topology uses.
func topologyLabels(n *corev1.Node) map[string]string {
	out := map[string]string{}
	if z, ok := n.Labels[corev1.LabelTopologyZone]; ok {
		out[corev1.LabelTopologyZone] = z
	}
	return out
}

// Run connects the informers to p, runs them until ctx ends, and tells
// p when the initial lists are in (after which p syncs).
func (in *Informers) Run(ctx context.Context, p proxy.Provider) {
	svcReg := in.Services.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Service]{
		AddFunc:    p.OnServiceAdd,
		UpdateFunc: p.OnServiceUpdate,
		DeleteFunc: p.OnServiceDelete,
	})
	epsReg := in.EndpointSlices.AddEventHandler(cache.ResourceEventHandlerFuncs[discoveryv1.EndpointSlice]{
		AddFunc:    p.OnEndpointSliceAdd,
		UpdateFunc: p.OnEndpointSliceUpdate,
		DeleteFunc: p.OnEndpointSliceDelete,
	})
	var labels map[string]string
	onNode := func(n *corev1.Node) {
		l := topologyLabels(n)
		if !maps.Equal(l, labels) {
			labels = l
			p.OnTopologyChange(l)
		}
	}
	in.Node.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc:    onNode,
		UpdateFunc: func(_, n *corev1.Node) { onNode(n) },
	})
	// ServiceCIDRs first: the nftables proxier puts them in its first sync.
	cidrsSynced := in.runServiceCIDRs(ctx, p)
	go in.Services.Run(ctx)
	go in.EndpointSlices.Run(ctx)
	in.RunNode(ctx)
	go func() {
		synced := []func() bool{svcReg.HasSynced}
		if cidrsSynced != nil {
			synced = append(synced, cidrsSynced)
		}
		if cache.WaitForCacheSync(ctx, synced...) {
			p.OnServiceSynced()
		}
	}()
	go func() {
		if cache.WaitForCacheSync(ctx, epsReg.HasSynced) {
			p.OnEndpointSlicesSynced()
		}
	}()
}
