package endpointslice

import (
	"testing"

	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// TestDeletedSliceIsRecreated: an EndpointSlice of the controller that a
// user deletes is made again (a new name), as upstream, whose slice
// informer requeues the Service on a deletion it did not make.
func TestDeletedSliceIsRecreated(t *testing.T) {
	env := controllertest.New(t)
	c, _ := NewEndpointSliceController(env.CC)
	// The Service and its pod exist before the controller starts: one sync
	// creates the slice and nothing syncs the Service again before the
	// deletion.
	env.Service(t, "web", "web")
	env.ServicePod(t, "web-1", "web", "node-1", "10.244.1.5", 8080, true)
	env.Start(t)
	go c.Run(env.Ctx, 1)
	slicesOf := func() []discoveryv1.EndpointSlice {
		l, err := rest.List[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", rest.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
		if err != nil {
			t.Fatal(err)
		}
		return l.Items
	}
	var first string
	controllertest.Eventually(t, "a slice with the pod", func() bool {
		l := slicesOf()
		if len(l) == 1 && len(l[0].Endpoints) == 1 {
			first = l[0].Name
			return true
		}
		return false
	})
	if err := rest.Delete[discoveryv1.EndpointSlice](env.Ctx, env.Admin, "default", first, nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "a new slice with the pod", func() bool {
		l := slicesOf()
		return len(l) == 1 && l[0].Name != first && len(l[0].Endpoints) == 1 && l[0].Endpoints[0].Addresses[0] == "10.244.1.5"
	})
}
