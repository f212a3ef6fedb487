package endpointslicemirroring

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

type fixture struct {
	*controllertest.Env
	t *testing.T
	c *Controller
}

func newFixture(t *testing.T) *fixture {
	env := controllertest.New(t)
	c, err := NewController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	return &fixture{Env: env, t: t, c: c}
}

// sync waits until the informers hold the current Endpoints (rv) and the
// controller's own writes, then syncs default/db.
func (f *fixture) sync(rv string) {
	f.t.Helper()
	controllertest.Eventually(f.t, "caches current", func() bool {
		ep, ok := f.c.endpoints.GetStore().Get("default", "db")
		return (rv == "" || ok && ep.ResourceVersion == rv) && !f.c.stale("default/db", f.c.slices.GetStore().ByIndex(indexByService, "default/db"))
	})
	f.ClearActions()
	if err := f.c.syncEndpoints(f.Ctx, "default/db"); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) slices() []discoveryv1.EndpointSlice {
	f.t.Helper()
	l, err := rest.List[discoveryv1.EndpointSlice](f.Ctx, f.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=db"})
	if err != nil {
		f.t.Fatal(err)
	}
	return l.Items
}

// TestMirroring: the Endpoints of a selector-less Service become one slice
// (labels, ownerReference, ready and not-ready endpoints); an unchanged
// sync writes nothing, a change rewrites the slice, skip-mirror deletes it.
func TestMirroring(t *testing.T) {
	f := newFixture(t)
	if _, err := rest.Create(f.Ctx, f.Admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5432}}}}); err != nil {
		t.Fatal(err)
	}
	node := "node-1"
	ep, err := rest.Create(f.Ctx, f.Admin, &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default", Labels: map[string]string{"team": "data"},
			Annotations: map[string]string{"note": "by hand", lastAppliedAnnotation: "{}"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses:         []corev1.EndpointAddress{{IP: "10.0.0.5", NodeName: &node}, {IP: "10.0.0.6", Hostname: "db-1"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.7"}},
			Ports:             []corev1.EndpointPort{{Name: "pg", Port: 5432, Protocol: corev1.ProtocolTCP}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	f.sync(ep.ResourceVersion)
	f.ExpectWrites(t, "create endpointslices default")
	l := f.slices()
	if len(l) != 1 {
		t.Fatalf("%d slices, want 1", len(l))
	}
	s := l[0]
	ref := metav1.GetControllerOf(&s.ObjectMeta)
	if s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.Labels["team"] != "data" || s.Annotations["note"] != "by hand" ||
		s.Annotations[lastAppliedAnnotation] != "" || ref == nil || ref.Kind != "Endpoints" || ref.UID != ep.UID ||
		s.AddressType != discoveryv1.AddressTypeIPv4 || len(s.Ports) != 1 || *s.Ports[0].Name != "pg" || *s.Ports[0].Port != 5432 {
		t.Errorf("slice %+v", s)
	}
	if len(s.Endpoints) != 3 || !*s.Endpoints[0].Conditions.Ready || *s.Endpoints[0].NodeName != "node-1" ||
		*s.Endpoints[1].Hostname != "db-1" || *s.Endpoints[2].Conditions.Ready || s.Endpoints[2].Conditions.Serving != nil {
		t.Errorf("endpoints %+v", s.Endpoints)
	}

	f.sync("")
	f.ExpectWrites(t) // nothing changed

	ep.Subsets[0].NotReadyAddresses = nil
	if ep, err = rest.Update(f.Ctx, f.Admin, ep); err != nil {
		t.Fatal(err)
	}
	f.sync(ep.ResourceVersion)
	f.ExpectWrites(t, "update endpointslices default/"+s.Name)
	if l := f.slices(); len(l) != 1 || len(l[0].Endpoints) != 2 {
		t.Errorf("after the update: %+v", l)
	}

	ep.Labels[discoveryv1.LabelSkipMirror] = "true"
	if ep, err = rest.Update(f.Ctx, f.Admin, ep); err != nil {
		t.Fatal(err)
	}
	f.sync(ep.ResourceVersion)
	f.ExpectWrites(t, "delete endpointslices default/"+s.Name)
}

// TestServiceWithSelectorNotMirrored: the endpointslice controller owns the
// slices of a Service with a selector.
func TestServiceWithSelectorNotMirrored(t *testing.T) {
	f := newFixture(t)
	if _, err := rest.Create(f.Ctx, f.Admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "db"}, Ports: []corev1.ServicePort{{Port: 5432}}}}); err != nil {
		t.Fatal(err)
	}
	ep, err := rest.Create(f.Ctx, f.Admin, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.5"}}, Ports: []corev1.EndpointPort{{Port: 5432}}}}})
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "service in cache", func() bool { _, ok := f.c.services.GetStore().Get("default", "db"); return ok })
	f.sync(ep.ResourceVersion)
	f.ExpectWrites(t)
}
