package ingress

import (
	"context"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/record"
)

// Config configures a controller.
type Config struct {
	Client *rest.Client
	// ControllerName is the spec.controller of the IngressClasses this
	// controller implements (ingress-nginx: --controller-class).
	ControllerName string
	Proxy          *Proxy
	// Status, when set, writes status.loadBalancer.ingress (only the
	// leader runs it).
	Status   *StatusWriter
	Recorder *record.Recorder
	Logger   *slog.Logger
}

// DefaultControllerName is the spec.controller of Kubik's IngressClass.
const DefaultControllerName = "kubik.io/ingress-controller"

// Controller keeps the proxy's table current with the cluster.
// Upstream: ingress-nginx's NGINXController with its store.
type Controller struct {
	cfg       Config
	ingresses *cache.Informer[networkingv1.Ingress, *networkingv1.Ingress]
	classes   *cache.Informer[networkingv1.IngressClass, *networkingv1.IngressClass]
	services  *cache.Informer[corev1.Service, *corev1.Service]
	slices    *cache.Informer[discoveryv1.EndpointSlice, *discoveryv1.EndpointSlice]
	secrets   *cache.Informer[corev1.Secret, *corev1.Secret]
	regs      []cache.Registration
	changed   chan struct{}
	warned    map[Warning]bool
	// ingressCount is the last table's number of Ingresses (logged when it changes).
	ingressCount int
}

// NewController builds the informers (not yet running).
func NewController(cfg Config) *Controller {
	opts := cache.Options{Logger: cfg.Logger}
	c := &Controller{cfg: cfg, changed: make(chan struct{}, 1), warned: map[Warning]bool{},
		ingresses: cache.New[networkingv1.Ingress](cfg.Client, opts),
		classes:   cache.New[networkingv1.IngressClass](cfg.Client, opts),
		services:  cache.New[corev1.Service](cfg.Client, opts),
		slices:    cache.New[discoveryv1.EndpointSlice](cfg.Client, opts),
		secrets:   cache.New[corev1.Secret](cfg.Client, opts),
	}
	c.regs = append(c.regs, c.ingresses.AddEventHandler(handler[networkingv1.Ingress](c.enqueue)),
		c.classes.AddEventHandler(handler[networkingv1.IngressClass](c.enqueue)),
		c.services.AddEventHandler(handler[corev1.Service](c.enqueue)),
		c.slices.AddEventHandler(handler[discoveryv1.EndpointSlice](c.enqueue)),
		c.secrets.AddEventHandler(handler[corev1.Secret](c.enqueue)))
	return c
}

func handler[T any](f func()) cache.ResourceEventHandlerFuncs[T] {
	return cache.ResourceEventHandlerFuncs[T]{AddFunc: func(*T) { f() }, UpdateFunc: func(_, _ *T) { f() }, DeleteFunc: func(*T) { f() }}
}

// enqueue asks for a rebuild; changes arriving during one coalesce into
// the next.
func (c *Controller) enqueue() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// HasSynced reports whether every informer has delivered its first list:
// the readiness of /healthz.
func (c *Controller) HasSynced() bool {
	for _, r := range c.regs {
		if !r.HasSynced() {
			return false
		}
	}
	return true
}

// Run runs the informers and rebuilds the table on every change until ctx
// ends.
func (c *Controller) Run(ctx context.Context) {
	go c.ingresses.Run(ctx)
	go c.classes.Run(ctx)
	go c.services.Run(ctx)
	go c.slices.Run(ctx)
	go c.secrets.Run(ctx)
	if !cache.WaitForCacheSync(ctx, c.HasSynced) {
		return
	}
	c.cfg.Logger.Info("informers synced")
	c.ingressCount = -1
	c.sync()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.changed:
			c.sync()
			if c.cfg.Status != nil {
				c.cfg.Status.Trigger()
			}
		}
	}
}

// sync builds a new table from the informers' caches and swaps it in.
func (c *Controller) sync() {
	start := time.Now()
	objs := Objects{Ingresses: c.Ingresses(), Services: map[string]*corev1.Service{},
		EndpointSlices: map[string][]*discoveryv1.EndpointSlice{}, Secrets: map[string]*corev1.Secret{}}
	for _, s := range c.services.GetStore().List() {
		objs.Services[s.Namespace+"/"+s.Name] = s
	}
	for _, es := range c.slices.GetStore().List() {
		if svc := es.Labels[discoveryv1.LabelServiceName]; svc != "" {
			objs.EndpointSlices[es.Namespace+"/"+svc] = append(objs.EndpointSlices[es.Namespace+"/"+svc], es)
		}
	}
	for _, s := range c.secrets.GetStore().List() {
		objs.Secrets[s.Namespace+"/"+s.Name] = s
	}
	t := NewTable(objs)
	c.cfg.Proxy.SetTable(t)
	c.cfg.Logger.Debug("routing table updated", "ingresses", len(objs.Ingresses), "took", time.Since(start).Round(time.Microsecond))
	if len(objs.Ingresses) != c.ingressCount {
		c.ingressCount = len(objs.Ingresses)
		c.cfg.Logger.Info("routing table updated", "ingresses", len(objs.Ingresses), "took", time.Since(start).Round(time.Microsecond))
	}
	now := map[Warning]bool{}
	for _, w := range t.Warnings {
		now[w] = true
		if c.warned[w] {
			continue
		}
		c.cfg.Logger.Warn(w.Message, "ingress", w.Namespace+"/"+w.Name, "reason", w.Reason)
		if ing, ok := c.ingresses.GetStore().Get(w.Namespace, w.Name); ok {
			c.cfg.Recorder.Eventf(record.RefFor(&ing.ObjectMeta, "networking.k8s.io/v1", "Ingress"), corev1.EventTypeWarning, w.Reason, "%s", w.Message)
		}
	}
	c.warned = now
}

// Ingresses are the Ingresses of this controller's classes.
func (c *Controller) Ingresses() []*networkingv1.Ingress {
	classes := c.classes.GetStore().List()
	var out []*networkingv1.Ingress
	for _, ing := range c.ingresses.GetStore().List() {
		if IsOurs(ing, classes, c.cfg.ControllerName) {
			out = append(out, ing)
		}
	}
	return out
}

// IsOurs says whether controller implements ing: its spec.ingressClassName
// (or the deprecated kubernetes.io/ingress.class annotation) names an
// IngressClass of the controller, or it names none and the default class
// (ingressclass.kubernetes.io/is-default-class: "true") is the
// controller's.
func IsOurs(ing *networkingv1.Ingress, classes []*networkingv1.IngressClass, controller string) bool {
	name := ""
	if ing.Spec.IngressClassName != nil {
		name = *ing.Spec.IngressClassName
	} else if a, ok := ing.Annotations[networkingv1.AnnotationIngressClass]; ok {
		name = a
	}
	for _, ic := range classes {
		if ic.Spec.Controller != controller {
			continue
		}
		if name == ic.Name || (name == "" && ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true") {
			return true
		}
	}
	return false
}
