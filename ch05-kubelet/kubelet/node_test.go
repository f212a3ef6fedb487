package kubelet

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// TestNodeReadyAfterRegistration: the runtime's network turns ready just
// after the kubelet posted the Node NotReady at registration (containerd
// loads the CNI configuration the node agent wrote a moment later); the
// heartbeat compares with what was posted, so the Node turns Ready at its
// first beat instead of staying NotReady until the 5-minute report.
func TestNodeReadyAfterRegistration(t *testing.T) {
	rt := newFakeRuntime()
	rt.networkReadyFrom = 2 // registration's Status call: not ready; every later one: ready
	f := newFixtureOn(t, rt)
	f.waitFor("the Node Ready=True", func() bool {
		n, err := rest.Get[corev1.Node](context.Background(), f.admin, "", f.node)
		if err != nil {
			return false
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	})
}
