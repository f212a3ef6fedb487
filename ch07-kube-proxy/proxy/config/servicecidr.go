package config

import (
	"context"
	"slices"
	"sort"
	"sync"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch07-kube-proxy/proxy"
)

// ServiceCIDR is networking.k8s.io/v1 ServiceCIDR, the fields kube-proxy
// reads: the ranges ClusterIPs are allocated from. (Kubik's apiserver does
// not serve it; upstream's does, and the nftables proxier drops traffic to
// unallocated addresses in them.)
type ServiceCIDR struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ServiceCIDRSpec `json:"spec,omitempty"`
}

// ServiceCIDRSpec holds the CIDRs (one per IP family).
type ServiceCIDRSpec struct {
	CIDRs []string `json:"cidrs,omitempty"`
}

// serviceCIDRResource is where an apiserver serves ServiceCIDRs.
var serviceCIDRResource = &scheme.Resource{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs",
	Singular: "servicecidr", Kind: "ServiceCIDR"}

// serviceCIDRsServed asks discovery whether the apiserver serves ServiceCIDRs.
func serviceCIDRsServed(ctx context.Context, c *rest.Client) bool {
	var list struct {
		Resources []struct {
			Name string `json:"name"`
		} `json:"resources"`
	}
	if err := c.Do(ctx, rest.Request{Method: "GET", Path: "/apis/networking.k8s.io/v1"}, &list); err != nil {
		return false
	}
	return slices.ContainsFunc(list.Resources, func(r struct {
		Name string `json:"name"`
	}) bool {
		return r.Name == "servicecidrs"
	})
}

// serviceCIDRConfig tells the proxier the union of all ServiceCIDRs' CIDRs
// after every change. Upstream: config.ServiceCIDRConfig.
type serviceCIDRConfig struct {
	mu    sync.Mutex
	cidrs map[string]int // CIDR → number of ServiceCIDRs naming it
	p     proxy.Provider
}

func (s *serviceCIDRConfig) handle(old, cur *ServiceCIDR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old != nil {
		for _, c := range old.Spec.CIDRs {
			if s.cidrs[c]--; s.cidrs[c] <= 0 {
				delete(s.cidrs, c)
			}
		}
	}
	if cur != nil {
		for _, c := range cur.Spec.CIDRs {
			s.cidrs[c]++
		}
	}
	list := make([]string, 0, len(s.cidrs))
	for c := range s.cidrs {
		list = append(list, c)
	}
	sort.Strings(list)
	s.p.OnServiceCIDRsChanged(list)
}

// runServiceCIDRs starts a ServiceCIDR informer feeding p, if the
// apiserver serves them, and returns its HasSynced (nil if not served).
func (in *Informers) runServiceCIDRs(ctx context.Context, p proxy.Provider) func() bool {
	if !serviceCIDRsServed(ctx, in.client) {
		in.log.Info("The apiserver does not serve ServiceCIDRs; not dropping traffic to unallocated ClusterIPs")
		return nil
	}
	inf := cache.New[ServiceCIDR](in.client, cache.Options{Resource: serviceCIDRResource, LabelSelector: ServiceLabelSelector, Logger: in.log})
	cfg := &serviceCIDRConfig{cidrs: map[string]int{}, p: p}
	reg := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[ServiceCIDR]{
		AddFunc:    func(o *ServiceCIDR) { cfg.handle(nil, o) },
		UpdateFunc: cfg.handle,
		DeleteFunc: func(o *ServiceCIDR) { cfg.handle(o, nil) },
	})
	go inf.Run(ctx)
	return reg.HasSynced
}
