package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/storage"
)

// API aggregation: upstream's kube-aggregator, the front of kube-apiserver.
//
// Every group version is an APIService. Those without spec.service are
// "local": served by this apiserver, created by it at start (the built-in
// group versions, label kube-aggregator.kubernetes.io/automanaged=onstart)
// and as CRDs come and go (automanaged=true). One with a service is served
// by an extension apiserver behind that Service: every request under
// /apis/<group>/<version> is proxied to it over HTTPS, with the front-proxy
// client certificate and the user in X-Remote-User, X-Remote-Group and
// X-Remote-Extra-* headers, which the extension apiserver trusts because
// the front-proxy CA signed the certificate (it reads that CA from the
// ConfigMap kube-system/extension-apiserver-authentication).
//
// The availability controller keeps each APIService's Available condition
// (Local, Passed, ServiceNotFound, ServicePortError, EndpointsNotFound,
// MissingEndpoints, FailedDiscoveryCheck) and, for the available remote
// ones, the backend's discovery document, which /apis and the aggregated
// discovery merge with the local groups.

const (
	apiServicePrefix    = "/registry/apiregistration.k8s.io/apiservices/"
	servicePrefix       = "/registry/services/specs/"
	endpointSlicePrefix = "/registry/endpointslices/"
	// apiServiceResync: how often every APIService is checked again
	// (upstream's availability controllers resync every 30s).
	apiServiceResync = 30 * time.Second
	// maxDiscoveryBytes bounds a backend's discovery document.
	maxDiscoveryBytes = 4 << 20
)

// builtinPriorities is upstream's table of the built-in group versions'
// APIService priorities (pkg/controlplane/apiserver/aggregator.go and
// cmd/kube-apiserver/app/aggregator.go), for the ones Kubik serves.
var builtinPriorities = map[string][2]int32{
	"v1":                              {18000, 1},
	"apps/v1":                         {17800, 15},
	"events.k8s.io/v1":                {17750, 15},
	"authentication.k8s.io/v1":        {17700, 15},
	"authorization.k8s.io/v1":         {17600, 15},
	"autoscaling/v2":                  {17500, 30},
	"autoscaling/v1":                  {17500, 15},
	"batch/v1":                        {17400, 15},
	"certificates.k8s.io/v1":          {17300, 15},
	"networking.k8s.io/v1":            {17200, 15},
	"policy/v1":                       {17100, 15},
	"rbac.authorization.k8s.io/v1":    {17000, 15},
	"storage.k8s.io/v1":               {16800, 15},
	"apiextensions.k8s.io/v1":         {16700, 15},
	"admissionregistration.k8s.io/v1": {16700, 15},
	"scheduling.k8s.io/v1":            {16600, 15},
	"coordination.k8s.io/v1":          {16500, 15},
	"node.k8s.io/v1":                  {16300, 15},
	"discovery.k8s.io/v1":             {16200, 15},
	"resource.k8s.io/v1":              {16200, 21},
	"flowcontrol.apiserver.k8s.io/v1": {16100, 21},
}

var apiServiceResource = scheme.Lookup(apiregistrationv1.GroupName, "v1", "apiservices")

type aggregator struct {
	s   *Server
	log *slog.Logger

	mu       sync.RWMutex
	services map[string]*apiregistrationv1.APIService // by name, from the watch
	// discovery: the backends' APIResourceLists, of the available remote APIServices.
	discovery map[string]*metav1.APIResourceList
	// transports: one per remote APIService's TLS settings.
	transports map[string]*http.Transport
	// openAPIV2: the backends' OpenAPI v2 documents (aggregator_openapi.go).
	openAPIV2 openAPIV2Specs

	kick chan struct{}
}

func newAggregator(s *Server) *aggregator {
	return &aggregator{s: s, log: s.log.With("controller", "aggregator"),
		services: map[string]*apiregistrationv1.APIService{}, discovery: map[string]*metav1.APIResourceList{},
		transports: map[string]*http.Transport{}, kick: make(chan struct{}, 1)}
}

func (a *aggregator) trigger() {
	select {
	case a.kick <- struct{}{}:
	default:
	}
}

// start registers the local APIServices, lists the APIServices (so the
// first requests already see them), then keeps them in sync.
func (a *aggregator) start(ctx context.Context) error {
	if err := a.registerLocal(ctx); err != nil {
		return err
	}
	rev, err := a.relist(ctx)
	if err != nil {
		return err
	}
	// The local ones are Available before the server reports ready, so
	// that it does not go on writing their status afterwards.
	a.syncAvailability(ctx, true)
	go a.watch(ctx, apiServicePrefix, rev, true)
	cur, err := a.s.cfg.Storage.CurrentRevision(ctx)
	if err != nil {
		return err
	}
	go a.watch(ctx, servicePrefix, cur, false)
	go a.watch(ctx, endpointSlicePrefix, cur, false)
	go a.run(ctx)
	go a.runOpenAPIV2(ctx)
	return nil
}

func (a *aggregator) relist(ctx context.Context) (int64, error) {
	result, err := a.s.cfg.Storage.List(ctx, apiServicePrefix, storage.ListOptions{})
	if err != nil {
		return 0, err
	}
	next := map[string]*apiregistrationv1.APIService{}
	for _, kv := range result.KVs {
		if svc := decodeAPIService(kv.Value); svc != nil {
			next[svc.Name] = svc
		}
	}
	a.mu.Lock()
	a.services = next
	a.mu.Unlock()
	a.trigger()
	return result.Revision, nil
}

func decodeAPIService(value []byte) *apiregistrationv1.APIService {
	svc := &apiregistrationv1.APIService{}
	if json.Unmarshal(value, svc) != nil || svc.Name == "" {
		return nil
	}
	return svc
}

// watch follows one key prefix: APIServices update the cache; Services and
// EndpointSlices only make the availability controller check again.
func (a *aggregator) watch(ctx context.Context, prefix string, rev int64, apiServices bool) {
	for ctx.Err() == nil {
		events, err := a.s.cfg.Storage.Watch(ctx, prefix, rev)
		if err == nil {
			for ev := range events {
				rev = max(rev, ev.KV.ModRevision)
				if apiServices {
					a.mu.Lock()
					if ev.Type == storage.EventDelete {
						name := strings.TrimPrefix(ev.KV.Key, prefix)
						delete(a.services, name)
						delete(a.discovery, name)
					} else if svc := decodeAPIService(ev.KV.Value); svc != nil {
						a.services[svc.Name] = svc
					}
					a.mu.Unlock()
				}
				a.trigger()
			}
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			a.log.Warn("watching", "prefix", prefix, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if apiServices {
			if r, err := a.relist(ctx); err == nil {
				rev = r
			}
		} else if r, err := a.s.cfg.Storage.CurrentRevision(ctx); err == nil {
			rev = r
			a.trigger()
		}
	}
}

// run is the availability controller and the CRD registration controller:
// on every change (and every apiServiceResync) each APIService's
// condition is computed again; every second the CRDs' group versions are
// compared with their APIServices.
func (a *aggregator) run(ctx context.Context) {
	resync := time.NewTicker(apiServiceResync)
	defer resync.Stop()
	crdTick := time.NewTicker(time.Second)
	defer crdTick.Stop()
	var crdGVs []string
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.kick:
		case <-resync.C:
		case <-crdTick.C:
			gvs := a.crdGroupVersions()
			if slices.Equal(gvs, crdGVs) && a.allRegistered(gvs) {
				continue
			}
			if err := a.syncCRDAPIServices(ctx, gvs); err != nil {
				a.log.Warn("registering the CustomResourceDefinitions' APIServices", "err", err)
				continue
			}
			crdGVs = gvs
			continue
		}
		a.syncAvailability(ctx, false)
	}
}

// registerLocal is upstream's autoregister controller at start: an
// APIService for every built-in group version, with its priorities.
func (a *aggregator) registerLocal(ctx context.Context) error {
	for _, gv := range scheme.GroupVersions() {
		p, ok := builtinPriorities[gv]
		if !ok {
			continue // upstream registers only the group versions of its table
		}
		group, version := scheme.SplitGroupVersion(gv)
		if err := a.s.ensure(ctx, localAPIService(group, version, p[0], p[1], "onstart")); err != nil {
			return err
		}
	}
	return nil
}

func localAPIService(group, version string, groupPriority, versionPriority int32, managed string) *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: version + "." + group, Labels: map[string]string{apiregistrationv1.AutoManagedLabel: managed}},
		Spec: apiregistrationv1.APIServiceSpec{Group: group, Version: version,
			GroupPriorityMinimum: groupPriority, VersionPriority: versionPriority},
	}
}

func (a *aggregator) crdGroupVersions() []string {
	var out []string
	for _, r := range a.s.crds.Resources() {
		if gv := r.GroupVersion(); !slices.Contains(out, gv) {
			out = append(out, gv)
		}
	}
	sort.Strings(out)
	return out
}

// syncCRDAPIServices is upstream's crdRegistrationController: a local
// APIService (groupPriorityMinimum 1000, versionPriority 100, automanaged
// "true") for every served version of a CRD, removed when no CRD serves it.
func (a *aggregator) syncCRDAPIServices(ctx context.Context, gvs []string) error {
	want := map[string]bool{}
	for _, gv := range gvs {
		group, version := scheme.SplitGroupVersion(gv)
		want[version+"."+group] = true
		if err := a.s.ensure(ctx, localAPIService(group, version, 1000, 100, "true")); err != nil {
			return err
		}
	}
	a.mu.RLock()
	var stale []string
	for name, svc := range a.services {
		if svc.Labels[apiregistrationv1.AutoManagedLabel] == "true" && svc.Spec.Service == nil && !want[name] {
			stale = append(stale, name)
		}
	}
	a.mu.RUnlock()
	for _, name := range stale {
		q := a.s.selfRequest(ctx, apiServiceResource, "delete", "", name)
		if _, _, err := a.s.delete(ctx, q, "", name, &metav1.DeleteOptions{}); err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
				continue
			}
			return err
		}
		a.log.Info("removed the APIService of a group version no CustomResourceDefinition serves", "name", name)
	}
	return nil
}

// allRegistered reports whether every group version has its APIService
// (one deleted by hand is made again, as upstream's autoregister does).
func (a *aggregator) allRegistered(gvs []string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, gv := range gvs {
		group, version := scheme.SplitGroupVersion(gv)
		if a.services[version+"."+group] == nil {
			return false
		}
	}
	return true
}

func (a *aggregator) snapshot() []*apiregistrationv1.APIService {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]*apiregistrationv1.APIService, 0, len(a.services))
	for _, svc := range a.services {
		out = append(out, svc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// syncAvailability computes every APIService's Available condition (or
// only the local ones') and writes those that changed (upstream's local
// and remote availability controllers).
func (a *aggregator) syncAvailability(ctx context.Context, localOnly bool) {
	var wg sync.WaitGroup
	for _, svc := range a.snapshot() {
		if localOnly && svc.Spec.Service != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cond, list := apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available,
				Status: apiregistrationv1.ConditionTrue, Reason: "Local", Message: "Local APIServices are always available"}, (*metav1.APIResourceList)(nil)
			if svc.Spec.Service != nil {
				cond, list = a.check(ctx, svc)
			}
			a.mu.Lock()
			if list != nil {
				a.discovery[svc.Name] = list
			} else {
				delete(a.discovery, svc.Name)
			}
			a.mu.Unlock()
			if err := a.writeCondition(ctx, svc.Name, cond); err != nil && ctx.Err() == nil {
				a.log.Warn("updating the APIService status", "name", svc.Name, "err", err)
			}
		}()
	}
	wg.Wait()
}

func (a *aggregator) writeCondition(ctx context.Context, name string, cond apiregistrationv1.APIServiceCondition) error {
	if cur := a.get(name); cur != nil {
		if c := cur.Status.Condition(apiregistrationv1.Available); c != nil && c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
			return nil
		}
	}
	q := a.s.selfRequest(ctx, apiServiceResource, "update", "", name)
	q.info.Subresource = "status"
	_, _, err := a.s.update(ctx, q, name, "status", func(old metav1.Object) (metav1.Object, error) {
		svc := old.(*apiregistrationv1.APIService)
		c := svc.Status.Condition(apiregistrationv1.Available)
		if c != nil && c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
			return svc, nil
		}
		cond.LastTransitionTime = metav1.Now()
		if c != nil && c.Status == cond.Status {
			cond.LastTransitionTime = c.LastTransitionTime // upstream's SetAPIServiceCondition
		}
		if c != nil {
			*c = cond
		} else {
			svc.Status.Conditions = append(svc.Status.Conditions, cond)
		}
		svc.ResourceVersion = ""
		return svc, nil
	}, false)
	var se *StatusError
	if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
		return nil
	}
	return err
}

func (a *aggregator) get(name string) *apiregistrationv1.APIService {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.services[name]
}

// lookup returns the APIService of a group version, or nil.
func (a *aggregator) lookup(group, version string) *apiregistrationv1.APIService {
	return a.get(version + "." + group)
}

func (a *aggregator) getService(ctx context.Context, namespace, name string) (*corev1.Service, error) {
	res := scheme.Lookup("", "v1", "services")
	obj, err := a.s.getObject(ctx, res, namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Service), nil
}

func (a *aggregator) endpointSlices(ctx context.Context, namespace, service string) ([]*discoveryv1.EndpointSlice, error) {
	result, err := a.s.cfg.Storage.List(ctx, endpointSlicePrefix+namespace+"/", storage.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*discoveryv1.EndpointSlice
	for _, kv := range result.KVs {
		es := &discoveryv1.EndpointSlice{}
		if json.Unmarshal(kv.Value, es) == nil && es.Labels[discoveryv1.LabelServiceName] == service {
			out = append(out, es)
		}
	}
	return out, nil
}

// check is the remote availability controller's sync for one APIService.
func (a *aggregator) check(ctx context.Context, svc *apiregistrationv1.APIService) (apiregistrationv1.APIServiceCondition, *metav1.APIResourceList) {
	ref := svc.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	cond := apiregistrationv1.APIServiceCondition{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse}
	service, err := a.getService(ctx, ref.Namespace, ref.Name)
	if isNotFound(err) {
		cond.Reason = "ServiceNotFound"
		cond.Message = fmt.Sprintf("service/%s in %q is not present", ref.Name, ref.Namespace)
		return cond, nil
	} else if err != nil {
		cond.Status, cond.Reason = apiregistrationv1.ConditionUnknown, "ServiceAccessError"
		cond.Message = fmt.Sprintf("service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err)
		return cond, nil
	}
	if service.Spec.Type == corev1.ServiceTypeClusterIP || service.Spec.Type == "" {
		portName, found := "", false
		for _, p := range service.Spec.Ports {
			if p.Port == port {
				portName, found = p.Name, true
				break
			}
		}
		if !found {
			cond.Reason = "ServicePortError"
			cond.Message = fmt.Sprintf("service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port)
			return cond, nil
		}
		slices_, err := a.endpointSlices(ctx, ref.Namespace, ref.Name)
		if err != nil {
			cond.Status, cond.Reason = apiregistrationv1.ConditionUnknown, "EndpointsAccessError"
			cond.Message = fmt.Sprintf("service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err)
			return cond, nil
		}
		if len(slices_) == 0 {
			cond.Reason = "EndpointsNotFound"
			cond.Message = fmt.Sprintf("cannot find endpointslices for service/%s in %q", ref.Name, ref.Namespace)
			return cond, nil
		}
		if !hasReadyEndpoint(slices_, portName) {
			cond.Reason = "MissingEndpoints"
			cond.Message = fmt.Sprintf("endpointslices for service/%s in %q have no addresses with port name %q", ref.Name, ref.Namespace, portName)
			return cond, nil
		}
	}
	list, err := a.discoveryCheck(ctx, svc, port)
	if err != nil {
		cond.Reason = "FailedDiscoveryCheck"
		cond.Message = err.Error()
		return cond, nil
	}
	cond.Status, cond.Reason, cond.Message = apiregistrationv1.ConditionTrue, "Passed", "all checks passed"
	return cond, list
}

func hasReadyEndpoint(slices_ []*discoveryv1.EndpointSlice, portName string) bool {
	for _, es := range slices_ {
		ready := false
		for _, ep := range es.Endpoints {
			if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
				ready = true
				break
			}
		}
		if !ready {
			continue
		}
		for _, p := range es.Ports {
			if p.Name != nil && *p.Name == portName && p.Port != nil {
				return true
			}
		}
	}
	return false
}

func isNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status.Code == http.StatusNotFound
}

// discoveryCheck GETs /apis/<group>/<version> from the backend as
// system:kube-aggregator in system:masters, without verifying the serving
// certificate, within 5 seconds — upstream's check — and keeps the
// document it answers for discovery.
func (a *aggregator) discoveryCheck(ctx context.Context, svc *apiregistrationv1.APIService, port int32) (*metav1.APIResourceList, error) {
	loc, err := a.resolve(ctx, svc.Spec.Service.Namespace, svc.Spec.Service.Name, port)
	if err != nil {
		return nil, err
	}
	loc.Path = "/apis/" + svc.Spec.Group + "/" + svc.Spec.Version
	tlsConfig := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} // upstream's check does not verify either
	if c := a.s.cfg.ProxyClientCert; c != nil {
		tlsConfig.Certificates = []tls.Certificate{*c}
	}
	client := &http.Client{Timeout: 5 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	setAuthProxyHeaders(req.Header, &auth.UserInfo{Name: "system:kube-aggregator", Groups: []string{auth.GroupMasters}})
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("failing or missing response from %v: %w", loc, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusMultipleChoices {
		return nil, fmt.Errorf("failing or missing response from %v: bad status from %v: %d", loc, loc, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBytes))
	if err != nil {
		return nil, fmt.Errorf("failing or missing response from %v: %w", loc, err)
	}
	list := &metav1.APIResourceList{}
	if json.Unmarshal(body, list) != nil {
		list = &metav1.APIResourceList{GroupVersion: svc.Spec.Group + "/" + svc.Spec.Version}
	}
	return list, nil
}

// resolve finds where a Service is called: with --enable-aggregator-routing
// a ready endpoint of its EndpointSlices (upstream's ResolveEndpoint), else
// its ClusterIP, or an ExternalName Service's name (ResolveCluster).
func (a *aggregator) resolve(ctx context.Context, namespace, name string, port int32) (*url.URL, error) {
	svc, err := a.getService(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	typ := svc.Spec.Type
	if typ == "" {
		typ = corev1.ServiceTypeClusterIP
	}
	if !a.s.cfg.EnableAggregatorRouting {
		switch typ {
		case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
			if typ == corev1.ServiceTypeClusterIP && svc.Spec.ClusterIP == corev1.ClusterIPNone {
				return nil, errors.New(`cannot route to service with ClusterIP "None"`)
			}
			sp, err := findServicePort(svc, port)
			if err != nil {
				return nil, err
			}
			return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(sp.Port)))}, nil
		case corev1.ServiceTypeExternalName:
			return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
		}
		return nil, fmt.Errorf("unsupported service type %q", typ)
	}
	switch typ {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
	default:
		return nil, fmt.Errorf("unsupported service type %q", typ)
	}
	sp, err := findServicePort(svc, port)
	if err != nil {
		return nil, err
	}
	slices_, err := a.endpointSlices(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if len(slices_) == 0 {
		return nil, ErrServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	for _, es := range slices_ {
		for _, p := range es.Ports {
			if p.Name == nil || *p.Name != sp.Name || p.Port == nil || len(es.Endpoints) == 0 {
				continue
			}
			offset := rand.IntN(len(es.Endpoints))
			for i := range es.Endpoints {
				ep := es.Endpoints[(i+offset)%len(es.Endpoints)]
				if (ep.Conditions.Ready == nil || *ep.Conditions.Ready) && len(ep.Addresses) > 0 {
					return &url.URL{Scheme: "https", Host: net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*p.Port)))}, nil
				}
			}
		}
	}
	return nil, ErrServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
}

func findServicePort(svc *corev1.Service, port int32) (*corev1.ServicePort, error) {
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			return &svc.Spec.Ports[i], nil
		}
	}
	return nil, ErrServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", port, svc.Name))
}

// ErrServiceUnavailable is a 503 Status with reason ServiceUnavailable.
func ErrServiceUnavailable(msg string) *StatusError {
	return newStatus(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, msg, nil)
}

// setAuthProxyHeaders is upstream's transport.SetAuthProxyHeaders: the
// client's own X-Remote-* headers go, the user's are set.
func setAuthProxyHeaders(h http.Header, u *auth.UserInfo) {
	h.Del("X-Remote-User")
	h.Del("X-Remote-Uid")
	h.Del("X-Remote-Group")
	for key := range h {
		if strings.HasPrefix(strings.ToLower(key), "x-remote-extra-") {
			h.Del(key)
		}
	}
	h.Set("X-Remote-User", u.Name)
	if u.UID != "" {
		h.Set("X-Remote-Uid", u.UID)
	}
	for _, g := range u.Groups {
		h.Add("X-Remote-Group", g)
	}
	for k, values := range u.Extra {
		for _, v := range values {
			h.Add("X-Remote-Extra-"+url.PathEscape(k), v)
		}
	}
}

// proxies reports whether a request goes to an extension apiserver, and
// serves it if so.
func (a *aggregator) proxies(w http.ResponseWriter, r *http.Request, info *RequestInfo) bool {
	if info.APIPrefix != "apis" || info.APIGroup == "" || info.APIVersion == "" {
		return false
	}
	svc := a.lookup(info.APIGroup, info.APIVersion)
	if svc == nil || svc.Spec.Service == nil {
		return false
	}
	a.serveProxy(w, r, info, svc)
	return true
}

// proxyError is upstream's: a plain-text body, as http.Error writes it,
// which kubectl shows as "the server is currently unable to handle the
// request" for a 503.
func proxyError(w http.ResponseWriter, msg string, code int) {
	if lw, ok := w.(*loggingWriter); ok {
		lw.errMsg = msg
	}
	http.Error(w, msg, code)
}

func (a *aggregator) serveProxy(w http.ResponseWriter, r *http.Request, info *RequestInfo, svc *apiregistrationv1.APIService) {
	if !svc.IsAvailable() {
		proxyError(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	user, ok := auth.UserFrom(r.Context())
	if !ok {
		proxyError(w, "missing user", http.StatusInternalServerError)
		return
	}
	ref := svc.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	loc, err := a.resolve(r.Context(), ref.Namespace, ref.Name, port)
	if err != nil {
		a.log.Warn("resolving an APIService's backend", "apiservice", svc.Name, "err", err)
		proxyError(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	transport, err := a.transport(svc)
	if err != nil {
		proxyError(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	if !isLongRunning(info) && info.Verb != "watch" {
		timeout, err := a.s.requestTimeout(r)
		if err != nil {
			writeStatus(w, r, err)
			return
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = "https", loc.Host
			pr.Out.URL.Path, pr.Out.URL.RawPath = r.URL.Path, r.URL.RawPath
			pr.Out.URL.RawQuery = r.URL.RawQuery
			pr.Out.Host = loc.Host
			// The credentials and impersonation were used up here; the
			// backend learns the user from the front-proxy headers.
			pr.Out.Header.Del("Authorization")
			for key := range pr.Out.Header {
				if strings.HasPrefix(strings.ToLower(key), "impersonate-") {
					pr.Out.Header.Del(key)
				}
			}
			setAuthProxyHeaders(pr.Out.Header, user)
		},
		Transport:     transport,
		FlushInterval: -1, // watches stream
		ErrorLog:      slog.NewLogLogger(a.log.Handler(), slog.LevelDebug),
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			proxyError(w, err.Error(), http.StatusServiceUnavailable)
		},
	}
	rp.ServeHTTP(w, r.WithContext(ctx))
}

// transport is the proxy's HTTP transport to an APIService's backend:
// ServerName <service>.<namespace>.svc, verified with spec.caBundle
// (unless insecureSkipTLSVerify), the front-proxy client certificate.
func (a *aggregator) transport(svc *apiregistrationv1.APIService) (*http.Transport, error) {
	ref := svc.Spec.Service
	key := fmt.Sprintf("%s/%s %t %x", ref.Namespace, ref.Name, svc.Spec.InsecureSkipTLSVerify, svc.Spec.CABundle)
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.transports[svc.Name+" "+key]; ok {
		return t, nil
	}
	tlsConfig := &tls.Config{ServerName: ref.Name + "." + ref.Namespace + ".svc", MinVersion: tls.VersionTLS12,
		InsecureSkipVerify: svc.Spec.InsecureSkipTLSVerify}
	if len(svc.Spec.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(svc.Spec.CABundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tlsConfig.RootCAs = pool
	}
	if c := a.s.cfg.ProxyClientCert; c != nil {
		tlsConfig.Certificates = []tls.Certificate{*c}
	}
	for k, t := range a.transports { // the APIService's earlier settings
		if strings.HasPrefix(k, svc.Name+" ") {
			t.CloseIdleConnections()
			delete(a.transports, k)
		}
	}
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   25,
		ExpectContinueTimeout: time.Second,
	}
	a.transports[svc.Name+" "+key] = t
	return t, nil
}

// Discovery merge.

// aggregatedGroupVersion is a remote APIService's group version in discovery.
type aggregatedGroupVersion struct {
	group, version  string
	groupPriority   int32
	versionPriority int32
	resources       *metav1.APIResourceList // nil until the backend answered
}

func (a *aggregator) remoteGroupVersions() []aggregatedGroupVersion {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var out []aggregatedGroupVersion
	for name, svc := range a.services {
		if svc.Spec.Service == nil || svc.Spec.Group == "" {
			continue
		}
		out = append(out, aggregatedGroupVersion{group: svc.Spec.Group, version: svc.Spec.Version,
			groupPriority: svc.Spec.GroupPriorityMinimum, versionPriority: svc.Spec.VersionPriority, resources: a.discovery[name]})
	}
	return out
}

// groupRanks is where each group with APIServices stands: upstream sorts
// the APIServices by groupPriorityMinimum (highest first), then by name,
// and lists a group where its first APIService is.
func (a *aggregator) groupRanks() map[string]apiGroupRank {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := map[string]apiGroupRank{}
	for _, svc := range a.services {
		r := apiGroupRank{svc.Spec.GroupPriorityMinimum, svc.Name}
		if cur, ok := out[svc.Spec.Group]; !ok || r.before(cur) {
			out[svc.Spec.Group] = r
		}
	}
	return out
}

type apiGroupRank struct {
	priority int32
	name     string
}

func (r apiGroupRank) before(o apiGroupRank) bool {
	if r.priority != o.priority {
		return r.priority > o.priority
	}
	return r.name < o.name
}

// merge adds the remote APIServices' groups and versions to the local
// ones of discovery, in upstream's order (groups by groupPriorityMinimum,
// highest first, then by name; versions by versionPriority, then
// Kubernetes version order), and returns the resources the available
// backends serve, for aggregated discovery.
func (a *aggregator) merge(groups []string, versions map[string][]string) ([]string, map[string][]string, []*scheme.Resource) {
	remote := a.remoteGroupVersions()
	if len(remote) == 0 {
		return groups, versions, nil
	}
	merged := map[string][]string{}
	for g, vs := range versions {
		merged[g] = vs
	}
	sort.Slice(remote, func(i, j int) bool {
		if remote[i].versionPriority != remote[j].versionPriority {
			return remote[i].versionPriority > remote[j].versionPriority
		}
		return compareKubeVersions(remote[i].version, remote[j].version) > 0
	})
	var extra []*scheme.Resource
	for _, gv := range remote {
		if _, local := versions[gv.group]; local && slices.Contains(versions[gv.group], gv.version) {
			continue
		}
		if _, ok := merged[gv.group]; !ok {
			groups = append(groups, gv.group)
		}
		merged[gv.group] = append(merged[gv.group], gv.version)
		extra = append(extra, resourcesOf(gv)...)
	}
	ranks := a.groupRanks()
	rank := func(g string) (int, apiGroupRank) {
		if g == "" {
			return 0, apiGroupRank{}
		}
		if g == apiregistrationv1.GroupName {
			return 1, apiGroupRank{} // the aggregator's own group comes first
		}
		if r, ok := ranks[g]; ok {
			return 2, r
		}
		return 2, apiGroupRank{1000, "~" + g} // a CRD's group before its APIService exists
	}
	sort.SliceStable(groups, func(i, j int) bool {
		ci, ri := rank(groups[i])
		cj, rj := rank(groups[j])
		if ci != cj {
			return ci < cj
		}
		return ri.before(rj)
	})
	return groups, merged, extra
}

// resourcesOf turns a backend's APIResourceList into resources as the
// local table describes them, for the aggregated discovery document.
func resourcesOf(gv aggregatedGroupVersion) []*scheme.Resource {
	if gv.resources == nil {
		return nil
	}
	var out []*scheme.Resource
	byName := map[string]*scheme.Resource{}
	for _, r := range gv.resources.APIResources {
		name, sub, isSub := strings.Cut(r.Name, "/")
		if !isSub {
			res := &scheme.Resource{Group: gv.group, Version: gv.version, Resource: name, Singular: r.SingularName,
				Kind: r.Kind, Namespaced: r.Namespaced, ShortNames: r.ShortNames, Categories: r.Categories, Verbs: r.Verbs}
			if res.Verbs == nil {
				res.Verbs = []string{}
			}
			byName[name] = res
			out = append(out, res)
			continue
		}
		if parent := byName[name]; parent != nil {
			parent.Subresources = append(parent.Subresources, scheme.Subresource{Name: sub, Group: r.Group, Version: r.Version, Kind: r.Kind, Verbs: r.Verbs})
		}
	}
	return out
}

// compareKubeVersions orders versions as Kubernetes does: GA before beta
// before alpha, higher numbers first.
func compareKubeVersions(a, b string) int {
	return apiextensions.CompareKubeAwareVersionStrings(a, b)
}

// The ConfigMap extension apiservers read.

// ensureAuthenticationConfigMap writes kube-system/extension-apiserver-authentication
// as upstream's cluster-authentication-trust controller does: the client
// CA and, with a front proxy, its CA, allowed names and headers (JSON arrays).
func (s *Server) ensureAuthenticationConfigMap(ctx context.Context) error {
	data := map[string]string{}
	if len(s.cfg.ClientCAPEM) > 0 {
		data["client-ca-file"] = string(s.cfg.ClientCAPEM)
	}
	if rh := s.cfg.RequestHeader; rh != nil && len(s.cfg.RequestHeaderCAPEM) > 0 {
		js := func(l []string) string {
			if l == nil {
				l = []string{}
			}
			b, _ := json.Marshal(l)
			return string(b)
		}
		data["requestheader-username-headers"] = js(rh.UsernameHeaders)
		if len(rh.UIDHeaders) > 0 {
			data["requestheader-uid-headers"] = js(rh.UIDHeaders)
		}
		data["requestheader-group-headers"] = js(rh.GroupHeaders)
		data["requestheader-extra-headers-prefix"] = js(rh.ExtraHeaderPrefixes)
		data["requestheader-client-ca-file"] = string(s.cfg.RequestHeaderCAPEM)
		data["requestheader-allowed-names"] = js(rh.AllowedNames)
	}
	if len(data) == 0 {
		return nil
	}
	const name = "extension-apiserver-authentication"
	res := scheme.Lookup("", "v1", "configmaps")
	q := s.selfRequest(ctx, res, "update", "kube-system", name)
	_, _, err := s.update(ctx, q, name, "", func(old metav1.Object) (metav1.Object, error) {
		if old == nil {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"}, Data: data}, nil
		}
		cm := old.(*corev1.ConfigMap)
		same := len(cm.Data) == len(data)
		for k, v := range data {
			same = same && cm.Data[k] == v
		}
		if !same {
			cm.Data = data
		}
		cm.ResourceVersion = ""
		return cm, nil
	}, true)
	if err != nil {
		return fmt.Errorf("writing kube-system/%s: %w", name, err)
	}
	return nil
}

// OpenAPI v3: /openapi/v3 lists the available remote group versions too,
// and /openapi/v3/apis/<group>/<version> of one is the backend's own
// document, proxied (upstream's aggregator downloads and re-serves it).

func (a *aggregator) withOpenAPI(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		path := strings.TrimSuffix(r.URL.Path, "/")
		if gv, ok := strings.CutPrefix(path, "/openapi/v3/apis/"); ok {
			group, version, _ := strings.Cut(gv, "/")
			if svc := a.lookup(group, version); svc != nil && svc.Spec.Service != nil && !strings.Contains(version, "/") {
				a.serveProxy(w, r, &RequestInfo{Verb: "get", Path: r.URL.Path}, svc)
				return
			}
		}
		if path != "/openapi/v3" {
			next.ServeHTTP(w, r)
			return
		}
		var remote []string
		for _, gv := range a.remoteGroupVersions() {
			if gv.resources != nil {
				remote = append(remote, "apis/"+gv.group+"/"+gv.version)
			}
		}
		if len(remote) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		rec := &bufferedResponse{header: http.Header{}}
		next.ServeHTTP(rec, r)
		var root struct {
			Paths map[string]json.RawMessage `json:"paths"`
		}
		if rec.code != 0 && rec.code != http.StatusOK || json.Unmarshal(rec.body, &root) != nil || root.Paths == nil {
			next.ServeHTTP(w, r)
			return
		}
		for _, gv := range remote {
			root.Paths[gv], _ = json.Marshal(map[string]string{"serverRelativeURL": "/openapi/v3/" + gv})
		}
		b, _ := json.Marshal(root)
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.Header().Del("Etag")
		w.WriteHeader(http.StatusOK)
		w.Write(b)
	})
}

// bufferedResponse records a handler's answer for withOpenAPI to amend.
type bufferedResponse struct {
	header http.Header
	code   int
	body   []byte
}

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}
func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.body = append(b.body, p...)
	return len(p), nil
}

// staleVersion reports a remote group version whose backend has not
// answered its discovery: aggregated discovery lists it without resources.
func (a *aggregator) staleVersion(group, version string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	name := version + "." + group
	svc := a.services[name]
	return svc != nil && svc.Spec.Service != nil && a.discovery[name] == nil
}

// aggregatedOrder is the order of groups in aggregated discovery: as in
// /apis, but groups of equal priority by group name (upstream's discovery
// manager sorts them so, where /apis sorts by APIService name).
func (a *aggregator) aggregatedOrder(groups []string) []string {
	ranks := a.groupRanks()
	prio := func(g string) (int, int32) {
		if g == apiregistrationv1.GroupName {
			return 0, 0
		}
		if r, ok := ranks[g]; ok {
			return 1, -r.priority
		}
		return 1, -1000
	}
	out := slices.Clone(groups)
	sort.SliceStable(out, func(i, j int) bool {
		ci, pi := prio(out[i])
		cj, pj := prio(out[j])
		if ci != cj {
			return ci < cj
		}
		if pi != pj {
			return pi < pj
		}
		return out[i] < out[j]
	})
	return out
}
