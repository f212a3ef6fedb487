package endpoint

import (
	"encoding/json"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller/endpointutil"
	"kubik/internal/controllertest"
)

func TestEndpoints(t *testing.T) {
	env := controllertest.New(t)
	c, _ := NewEndpointController(env.CC)
	env.Start(t)
	env.Service(t, "web", "web")
	env.ServicePod(t, "web-1", "web", "node-1", "10.244.1.5", 8080, true)
	env.ServicePod(t, "web-2", "web", "node-2", "10.244.2.7", 9090, true) // another version: another number
	env.ServicePod(t, "web-3", "web", "node-1", "10.244.1.6", 8080, false)
	env.ServicePod(t, "other", "db", "node-1", "10.244.1.9", 5432, true)
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
	env.ExpectWrites(t, "create endpoints default/web")
	ep, err := rest.Get[corev1.Endpoints](env.Ctx, env.Admin, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	type addr struct{ IP, Node, Pod string }
	type sub struct {
		Ready, NotReady []addr
		Ports           string
	}
	var got []sub
	conv := func(as []corev1.EndpointAddress) []addr {
		var out []addr
		for _, a := range as {
			out = append(out, addr{a.IP, *a.NodeName, a.TargetRef.Name})
		}
		return out
	}
	for _, s := range ep.Subsets {
		ports, _ := json.Marshal(s.Ports)
		got = append(got, sub{conv(s.Addresses), conv(s.NotReadyAddresses), string(ports)})
	}
	want := []sub{
		{[]addr{{"10.244.1.5", "node-1", "web-1"}}, []addr{{"10.244.1.6", "node-1", "web-3"}}, `[{"name":"web","port":8080,"protocol":"TCP"}]`},
		{[]addr{{"10.244.2.7", "node-2", "web-2"}}, nil, `[{"name":"web","port":9090,"protocol":"TCP"}]`},
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("subsets:\n got %s\nwant %s", gj, wj)
	}
	if ep.Labels["team"] != "a" || ep.Labels[LabelManagedBy] != ControllerName || ep.Annotations[endpointutil.EndpointsLastChangeTriggerTime] == "" {
		t.Errorf("labels %v annotations %v", ep.Labels, ep.Annotations)
	}
	// A second sync with nothing changed writes nothing.
	controllertest.Eventually(t, "endpoints in cache", func() bool { _, ok := c.endpoints.GetStore().Get("default", "web"); return ok })
	env.ClearActions()
	if err := c.syncService(env.Ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
	// The apiserver's default/kubernetes (no selector) is not touched (on
	// a loopback address the apiserver publishes no Endpoints for it at all).
	env.ClearActions()
	if err := c.syncService(env.Ctx, "default/kubernetes"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
}
