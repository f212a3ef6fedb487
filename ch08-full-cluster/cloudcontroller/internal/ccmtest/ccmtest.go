// Package ccmtest is internal/controllertest for the cloud controllers:
// the same in-process apiserver, with the controller's client acting as
// system:cloud-controller-manager under the ClusterRole cloudcontroller.EnsureRBAC
// creates — so each test also checks that the role allows what the
// controller does — and helpers for Nodes and events.
package ccmtest

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
	"kubik/ch08-full-cluster/cloudcontroller"
	"kubik/internal/controllertest"
	"kubik/internal/testenv"
)

// New starts the apiserver, creates the manager's RBAC and points env.CC
// and env.Actions at a recording client of the manager's identity.
func New(t *testing.T) *controllertest.Env {
	t.Helper()
	env := controllertest.New(t)
	if err := cloudcontroller.EnsureRBAC(env.Ctx, env.Admin); err != nil {
		t.Fatal(err)
	}
	c, rec := env.RecordingClient(t, cloudcontroller.Identity)
	// The informers' watches end before the recording client's server
	// closes (cleanups run last registered first).
	ctx, cancel := context.WithCancel(env.Ctx)
	t.Cleanup(cancel)
	env.Ctx = ctx
	log := slog.New(slog.DiscardHandler)
	env.CC = &controller.ControllerContext{Client: c, Informers: controller.NewSharedInformers(c, log), Log: log}
	env.Actions = rec
	return env
}

// Node creates a Node with an InternalIP and the Ready condition status
// ready ("" for none), as a kubelet would register it.
func Node(t *testing.T, env *controllertest.Env, name, ip string, ready corev1.ConditionStatus) *corev1.Node {
	t.Helper()
	n, err := rest.Create(env.Ctx, env.Admin, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}}
	if ready != "" {
		now := metav1.Now()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastHeartbeatTime: now, LastTransitionTime: now}}
	}
	if n, err = rest.UpdateStatus(env.Ctx, env.Admin, n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Events are the "reason message" of the events about the object of kind
// and name in namespace, oldest first.
func Events(t *testing.T, env *controllertest.Env, namespace, kind, name string) []string {
	t.Helper()
	list, err := rest.List[corev1.Event](env.Ctx, env.Admin, namespace, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(list.Items, func(a, b corev1.Event) int { return a.FirstTimestamp.Compare(b.FirstTimestamp.Time) })
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e.Reason+" "+e.Message)
		}
	}
	return out
}

// WaitForEvents waits until the events about the object include each of
// want ("Reason message" prefixes), in that order.
func WaitForEvents(t *testing.T, env *controllertest.Env, namespace, kind, name string, want ...string) {
	t.Helper()
	testenv.Eventually(t, "events "+strings.Join(want, "; "), controllertest.Timeout, func() (string, bool) {
		got := Events(t, env, namespace, kind, name)
		i := 0
		for _, g := range got {
			if i < len(want) && strings.HasPrefix(g, want[i]) {
				i++
			}
		}
		return strings.Join(got, "\n"), i == len(want)
	})
}
