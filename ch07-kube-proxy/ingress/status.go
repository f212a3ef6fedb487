package ingress

import (
	"context"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// StatusWriter writes status.loadBalancer.ingress of the controller's
// Ingresses: the IPs of the nodes its running pods are on, which kubectl
// shows as ADDRESS. Only the leader runs it. Upstream: ingress-nginx's
// internal/ingress/status (statusAddressFromPod, without --publish-service).
type StatusWriter struct {
	Client *rest.Client
	// Namespace and PodSelector find the controller's pods.
	Namespace, PodSelector string
	// Ingresses lists the Ingresses to keep current.
	Ingresses func() []*networkingv1.Ingress
	// Period between two syncs without a change (ingress-nginx: 60s).
	Period  time.Duration
	Logger  *slog.Logger
	trigger chan struct{}
}

// NewStatusWriter returns a writer; set Ingresses before Run.
func NewStatusWriter(c *rest.Client, namespace, podSelector string, log *slog.Logger) *StatusWriter {
	return &StatusWriter{Client: c, Namespace: namespace, PodSelector: podSelector, Period: 30 * time.Second, Logger: log,
		trigger: make(chan struct{}, 1)}
}

// Trigger asks for a sync soon (an Ingress changed).
func (s *StatusWriter) Trigger() {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}

// Run syncs until ctx ends (the leader's term).
func (s *StatusWriter) Run(ctx context.Context) {
	s.Logger.Info("leading: updating Ingress statuses")
	tick := time.NewTicker(s.Period)
	defer tick.Stop()
	for {
		if err := s.sync(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Warn("updating Ingress statuses failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-s.trigger:
		}
	}
}

// addresses are the node IPs of the controller's running pods, sorted.
func (s *StatusWriter) addresses(ctx context.Context) ([]networkingv1.IngressLoadBalancerIngress, error) {
	pods, err := rest.List[corev1.Pod](ctx, s.Client, s.Namespace, rest.ListOptions{LabelSelector: s.PodSelector})
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		if a, err := netip.ParseAddr(p.Status.HostIP); err == nil && !slices.Contains(ips, a) {
			ips = append(ips, a)
		}
	}
	slices.SortFunc(ips, netip.Addr.Compare)
	out := make([]networkingv1.IngressLoadBalancerIngress, len(ips))
	for i, a := range ips {
		out[i].IP = a.String()
	}
	return out, nil
}

func (s *StatusWriter) sync(ctx context.Context) error {
	want, err := s.addresses(ctx)
	if err != nil {
		return err
	}
	for _, ing := range s.Ingresses() {
		if slices.EqualFunc(ing.Status.LoadBalancer.Ingress, want, func(a, b networkingv1.IngressLoadBalancerIngress) bool {
			return a.IP == b.IP && a.Hostname == b.Hostname && len(a.Ports) == 0 && len(b.Ports) == 0
		}) {
			continue
		}
		upd := *ing
		upd.Status.LoadBalancer.Ingress = want
		if _, err := rest.UpdateStatus(ctx, s.Client, &upd); err != nil {
			if rest.IsConflict(err) || rest.IsNotFound(err) {
				continue // the informer brings the newer one, which triggers a sync
			}
			return err
		}
		s.Logger.Info("updated Ingress status", "ingress", ing.Namespace+"/"+ing.Name, "addresses", len(want))
	}
	return nil
}
