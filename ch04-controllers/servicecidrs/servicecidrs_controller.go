// Package servicecidrs is kube-controller-manager's service-cidr-controller.
// The apiserver allocates ClusterIPs from --service-cluster-ip-range and
// from every ready ServiceCIDR object (an administrator adds one when the
// range runs out); each allocated address is an IPAddress object. This
// controller keeps the ServiceCIDR objects honest:
//
//   - a ServiceCIDR gets the finalizer networking.k8s.io/service-cidr-finalizer
//     and the condition Ready=True, so the allocators use it;
//   - a ServiceCIDR being deleted keeps its finalizer while IPAddresses
//     that no other ServiceCIDR contains are still in it: it shows
//     Ready=False, reason Terminating, until they are gone (or a new
//     ServiceCIDR covers them); then, once DeletionGracePeriod has passed
//     since the deletion began (so every apiserver has stopped allocating
//     from it), the finalizer is removed and the object goes.
//
// Upstream: pkg/controller/servicecidrs.
package servicecidrs

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

const (
	// ControllerName is upstream's: the --controllers name and the field
	// manager of the status it applies.
	ControllerName = "service-cidr-controller"
	// ServiceCIDRProtectionFinalizer keeps a ServiceCIDR while addresses
	// allocated from it exist.
	ServiceCIDRProtectionFinalizer = "networking.k8s.io/service-cidr-finalizer"
	// DeletionGracePeriod is how long after a ServiceCIDR's deletion began
	// the finalizer stays, so that no apiserver still allocates from it.
	DeletionGracePeriod = 10 * time.Second

	readyMessage       = "Kubernetes Service CIDR is ready"
	terminatingMessage = "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR"
)

// Controller is upstream's servicecidrs.Controller.
type Controller struct {
	client       *rest.Client
	serviceCIDRs *cache.Informer[networkingv1.ServiceCIDR, *networkingv1.ServiceCIDR]
	ipAddresses  *cache.Informer[networkingv1.IPAddress, *networkingv1.IPAddress]
	queue        *workqueue.RateLimitingQueue[string]
	log          *slog.Logger
	now          func() time.Time // the clock of the grace period; tests set it
}

// NewController asks for the ServiceCIDR and IPAddress informers.
func NewController(cc *controller.ControllerContext) (*Controller, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{client: cc.Client, log: log.With("controller", ControllerName),
		serviceCIDRs: controller.InformerFor[networkingv1.ServiceCIDR](cc.Informers),
		ipAddresses:  controller.InformerFor[networkingv1.IPAddress](cc.Informers),
		queue:        workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()), now: time.Now}
	c.serviceCIDRs.AddEventHandler(cache.ResourceEventHandlerFuncs[networkingv1.ServiceCIDR]{
		// A new range may be what a deleted one was waiting for.
		AddFunc: func(sc *networkingv1.ServiceCIDR) {
			c.queue.Add(sc.Name)
			for _, name := range c.overlapping(sc) {
				c.queue.Add(name)
			}
		},
		UpdateFunc: func(_, sc *networkingv1.ServiceCIDR) { c.queue.Add(sc.Name) },
		DeleteFunc: func(sc *networkingv1.ServiceCIDR) { c.queue.Add(sc.Name) },
	})
	// An address may block a deletion, and its release unblock one.
	onIP := func(ip *networkingv1.IPAddress) {
		for _, name := range c.containing(ip) {
			c.queue.Add(name)
		}
	}
	c.ipAddresses.AddEventHandler(cache.ResourceEventHandlerFuncs[networkingv1.IPAddress]{AddFunc: onIP, DeleteFunc: onIP})
	return c, nil
}

// Run waits for the caches and runs workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, c.sync, c.log, "serviceCIDR")
	}, c.serviceCIDRs.HasSynced, c.ipAddresses.HasSynced)
}

// sync reconciles one ServiceCIDR; a deletion waiting out its grace
// period asks to be looked at again when it ends.
func (c *Controller) sync(ctx context.Context, name string) (time.Duration, error) {
	sc, ok := c.serviceCIDRs.GetStore().Get("", name)
	if !ok {
		return 0, nil
	}
	if sc.DeletionTimestamp != nil {
		if !c.canDelete(sc) {
			return 0, c.applyReady(ctx, sc, "False", networkingv1.ServiceCIDRReasonTerminating, terminatingMessage)
		}
		if wait := DeletionGracePeriod - c.now().Sub(sc.DeletionTimestamp.Time); wait > 0 {
			return wait, nil
		}
		if !slices.Contains(sc.Finalizers, ServiceCIDRProtectionFinalizer) {
			return 0, nil
		}
		c.log.Info("removing the finalizer: no address depends on the ServiceCIDR any more", "serviceCIDR", name)
		return 0, c.patchFinalizers(ctx, name, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["`+ServiceCIDRProtectionFinalizer+`"]}}`)
	}
	if !slices.Contains(sc.Finalizers, ServiceCIDRProtectionFinalizer) {
		if err := c.patchFinalizers(ctx, name, `{"metadata":{"finalizers":["`+ServiceCIDRProtectionFinalizer+`"]}}`); err != nil {
			return 0, err
		}
	}
	return 0, c.applyReady(ctx, sc, "True", "", readyMessage)
}

// canDelete is upstream's canDeleteCIDR: a ServiceCIDR may go when
// another one contains each of its CIDRs, or when no IPAddress of the
// apiserver's allocator is contained in it alone.
func (c *Controller) canDelete(sc *networkingv1.ServiceCIDR) bool {
	all := c.serviceCIDRs.GetStore().List()
	hasParent := true
	for _, p := range prefixes(sc) {
		if !slices.ContainsFunc(all, func(o *networkingv1.ServiceCIDR) bool {
			return o.Name != sc.Name && containsPrefix(o, p)
		}) {
			hasParent = false
		}
	}
	if hasParent {
		return true
	}
	for _, ip := range c.ipAddresses.GetStore().List() {
		addr, ok := allocatedAddr(ip)
		if !ok || !containsAddr(sc, addr) {
			continue
		}
		if !slices.ContainsFunc(all, func(o *networkingv1.ServiceCIDR) bool { return o.Name != sc.Name && containsAddr(o, addr) }) {
			c.log.Info("deleting the ServiceCIDR is blocked by an address", "serviceCIDR", sc.Name, "ipAddress", ip.Name)
			return false
		}
	}
	return true
}

// applyReady server-side applies the Ready condition, as upstream does
// with Force; a condition already saying the same is left alone (upstream
// applies it again, which changes only lastTransitionTime).
func (c *Controller) applyReady(ctx context.Context, sc *networkingv1.ServiceCIDR, status, reason, message string) error {
	for _, cond := range sc.Status.Conditions {
		if cond.Type == networkingv1.ServiceCIDRConditionReady && cond.Status == status && cond.Reason == reason && cond.Message == message {
			return nil
		}
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": networkingv1.GroupName + "/v1", "kind": "ServiceCIDR",
		"metadata": map[string]any{"name": sc.Name},
		"status": map[string]any{"conditions": []metav1.Condition{{Type: networkingv1.ServiceCIDRConditionReady,
			Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(c.now())}}},
	})
	if err != nil {
		return err
	}
	return c.client.Do(ctx, rest.Request{Method: http.MethodPatch, Path: rest.ResourcePath(serviceCIDRsResource, "", sc.Name, "status"),
		Query:       url.Values{"fieldManager": {ControllerName}, "force": {"true"}},
		ContentType: string(rest.ApplyPatchType), Body: body}, nil)
}

// patchFinalizers sends a strategic merge patch of the finalizers; a
// ServiceCIDR already gone is no error.
func (c *Controller) patchFinalizers(ctx context.Context, name, patch string) error {
	_, err := rest.Patch[networkingv1.ServiceCIDR](ctx, c.client, "", name, rest.StrategicMergePatchType, []byte(patch), "")
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}

var serviceCIDRsResource = scheme.Lookup(networkingv1.GroupName, "v1", "servicecidrs")

// overlapping are the other ServiceCIDRs whose CIDRs overlap sc's.
func (c *Controller) overlapping(sc *networkingv1.ServiceCIDR) []string {
	var out []string
	ours := prefixes(sc)
	for _, o := range c.serviceCIDRs.GetStore().List() {
		if o.Name == sc.Name {
			continue
		}
		theirs := prefixes(o)
		if slices.ContainsFunc(ours, func(p netip.Prefix) bool {
			return slices.ContainsFunc(theirs, p.Overlaps)
		}) {
			out = append(out, o.Name)
		}
	}
	return out
}

// containing are the ServiceCIDRs an allocated address is in.
func (c *Controller) containing(ip *networkingv1.IPAddress) []string {
	addr, ok := allocatedAddr(ip)
	if !ok {
		return nil
	}
	var out []string
	for _, sc := range c.serviceCIDRs.GetStore().List() {
		if containsAddr(sc, addr) {
			out = append(out, sc.Name)
		}
	}
	return out
}

// allocatedAddr is an IPAddress's address, when the apiserver's allocator
// made it (only those hold a ServiceCIDR back).
func allocatedAddr(ip *networkingv1.IPAddress) (netip.Addr, bool) {
	if ip.Labels[networkingv1.LabelManagedBy] != networkingv1.IPAllocatorManager {
		return netip.Addr{}, false
	}
	addr, err := netip.ParseAddr(ip.Name)
	return addr, err == nil
}

// prefixes are sc's CIDRs (validated on write; one that does not parse is
// left out).
func prefixes(sc *networkingv1.ServiceCIDR) []netip.Prefix {
	var out []netip.Prefix
	for _, cidr := range sc.Spec.CIDRs {
		if p, err := netip.ParsePrefix(cidr); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// containsAddr: one of sc's CIDRs contains addr.
func containsAddr(sc *networkingv1.ServiceCIDR, addr netip.Addr) bool {
	return slices.ContainsFunc(prefixes(sc), func(p netip.Prefix) bool { return p.Contains(addr) })
}

// containsPrefix: one of sc's CIDRs contains p (or is p).
func containsPrefix(sc *networkingv1.ServiceCIDR, p netip.Prefix) bool {
	return slices.ContainsFunc(prefixes(sc), func(q netip.Prefix) bool { return q.Bits() <= p.Bits() && q.Contains(p.Addr()) })
}
