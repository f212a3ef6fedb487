package endpointslice

import (
	"fmt"
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
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
	if err := c.syncService(env.Ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
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
	// default/kubernetes has no selector: its slice stays the apiserver's.
	if err := c.syncService(env.Ctx, "default/kubernetes"); err != nil {
		t.Fatal(err)
	}
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
	if err := c.syncService(env.Ctx, "default/db"); err != nil {
		t.Fatal(err)
	}
	if err := c.syncService(env.Ctx, "default/db"); err != nil && err != errStaleCache {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the cache catches up", func() bool { return c.syncService(env.Ctx, "default/db") == nil })
	l, err := rest.List[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=db"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 {
		t.Errorf("%d slices for a Service without endpoints, want 1 (the placeholder)", len(l.Items))
	}
}
