package endpointslice

import (
	"fmt"
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/internal/controllertest"
)

func TestEndpointSlices(t *testing.T) {
	env := controllertest.New(t)
	c, _ := NewEndpointSliceController(env.CC)
	c.MaxEndpointsPerSlice = 2
	env.Start(t)
	env.Service(t, "web", "web")
	env.ServicePod(t, "web-1", "web", "node-1", "10.244.1.5", 8080, true)
	env.ServicePod(t, "web-2", "web", "node-1", "10.244.1.6", 8080, false)
	env.ServicePod(t, "web-3", "web", "node-2", "10.244.2.5", 8080, true)
	env.ServicePod(t, "web-4", "web", "node-2", "10.244.2.6", 9090, true)
	controllertest.Eventually(t, "cache", func() bool {
		n := 0
		for _, p := range c.pods.GetStore().List() {
			if p.Status.PodIP != "" {
				n++
			}
		}
		_, ok := c.services.GetStore().Get("default", "web")
		return ok && n == 4
	})
	env.ClearActions()
	if err := c.syncService(env.Ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	// Two ports, at most two endpoints a slice: three slices, created.
	env.ExpectWrites(t, "create endpointslices default", "create endpointslices default", "create endpointslices default")
	l, err := rest.List[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range l.Items {
		if s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.AddressType != discoveryv1.AddressTypeIPv4 ||
			len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Kind != "Service" {
			t.Errorf("slice %s: labels %v, addressType %s, owners %v", s.Name, s.Labels, s.AddressType, s.OwnerReferences)
		}
		line := fmt.Sprintf("port %d:", *s.Ports[0].Port)
		for _, e := range s.Endpoints {
			line += fmt.Sprintf(" %s/%s/ready=%v,serving=%v,terminating=%v", e.Addresses[0], *e.NodeName,
				*e.Conditions.Ready, *e.Conditions.Serving, *e.Conditions.Terminating)
		}
		got = append(got, line)
	}
	slices.Sort(got)
	want := []string{
		"port 8080: 10.244.1.5/node-1/ready=true,serving=true,terminating=false 10.244.1.6/node-1/ready=false,serving=false,terminating=false",
		"port 8080: 10.244.2.5/node-2/ready=true,serving=true,terminating=false",
		"port 9090: 10.244.2.6/node-2/ready=true,serving=true,terminating=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("slices:\n got %q\nwant %q", got, want)
	}
	// Once the slices are in the cache, a resync that changes nothing
	// writes nothing, whatever order their generated names sort in.
	controllertest.Eventually(t, "the slices in the cache", func() bool {
		return len(c.slices.GetStore().ByIndex(indexByService, "default/web")) == 3
	})
	env.ClearActions()
	if err := c.syncService(env.Ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
	// default/kubernetes has no selector: its slice stays the apiserver's.
	env.ClearActions()
	if err := c.syncService(env.Ctx, "default/kubernetes"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
	k, _ := rest.List[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	for _, s := range k.Items {
		if s.Labels[discoveryv1.LabelManagedBy] == ControllerName {
			t.Errorf("slice %s of default/kubernetes taken over", s.Name)
		}
	}
}

// TestNoSecondSliceFromAStaleCache: two syncs in a row, the second before
// the informer has seen the slice the first created, must not create a
// second slice (generated names never collide, so nothing else stops it).
func TestNoSecondSliceFromAStaleCache(t *testing.T) {
	env := controllertest.New(t)
	c, _ := NewEndpointSliceController(env.CC)
	env.Start(t)
	env.Service(t, "db", "db")
	controllertest.Eventually(t, "cache", func() bool {
		_, ok := c.services.GetStore().Get("default", "db")
		return ok
	})
	env.ClearActions()
	if err := c.syncService(env.Ctx, "default/db"); err != nil {
		t.Fatal(err)
	}
	if err := c.syncService(env.Ctx, "default/db"); err != nil && err != errStaleCache {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the cache catches up", func() bool { return c.syncService(env.Ctx, "default/db") == nil })
	// Three syncs or more, one write: the placeholder slice.
	env.ExpectWrites(t, "create endpointslices default")
	l, err := rest.List[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=db"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 {
		t.Errorf("%d slices for a Service without endpoints, want 1 (the placeholder)", len(l.Items))
	}
}

// TestResyncWritesOnlyWhatChanged: a Service whose endpoints fit one slice
// gets it created; synced again with nothing changed, nothing is written;
// a pod turning unready rewrites that one slice.
func TestResyncWritesOnlyWhatChanged(t *testing.T) {
	env := controllertest.New(t)
	c, _ := NewEndpointSliceController(env.CC)
	env.Start(t)
	env.Service(t, "api", "api")
	env.ServicePod(t, "api-1", "api", "node-1", "10.244.1.7", 8080, true)
	p := env.ServicePod(t, "api-2", "api", "node-1", "10.244.1.8", 8080, true)
	sync := func() {
		t.Helper()
		controllertest.Eventually(t, "the cache current", func() bool { return c.syncService(env.Ctx, "default/api") != errStaleCache })
	}
	podsReady := func(want int) func() bool {
		return func() bool {
			n := 0
			for _, p := range c.pods.GetStore().List() {
				if p.Status.PodIP != "" && controller.IsPodReady(p) {
					n++
				}
			}
			return n == want
		}
	}
	controllertest.Eventually(t, "pods in the cache", podsReady(2))
	env.ClearActions()
	sync()
	env.ExpectWrites(t, "create endpointslices default")
	l, err := rest.List[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=api"})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("slices of api: %v, %v", l, err)
	}
	name := l.Items[0].Name

	env.ClearActions()
	sync()
	env.ExpectWrites(t)

	p.Status.Conditions[0].Status = corev1.ConditionFalse
	if _, err := rest.UpdateStatus(env.Ctx, env.Admin, p); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the unready pod in the cache", podsReady(1))
	env.ClearActions()
	sync()
	env.ExpectWrites(t, "update endpointslices default/"+name)
}
