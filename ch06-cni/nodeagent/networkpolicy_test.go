package nodeagent

import (
	"context"
	"fmt"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/testutils"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch06-cni/networkpolicy"
)

// TestNetworkPolicyFollowsChanges runs the agent's NetworkPolicy loop with
// the agent's identity in a network namespace and changes Pods,
// Namespaces and NetworkPolicies: every change reaches the nft table.
func TestNetworkPolicyFollowsChanges(t *testing.T) {
	requireRoot(t)
	ctx := context.Background()
	s := startAPIServer(t, "127.0.0.1")
	if err := EnsureRBAC(ctx, s.admin); err != nil {
		t.Fatal(err)
	}
	agent, err := rest.New(s.agentKubeconfig(t, "node-a"), "kubik-node-agent/node-a")
	if err != nil {
		t.Fatal(err)
	}
	netns, err := testutils.NewNS()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { netns.Close(); testutils.UnmountNS(netns) })
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		netns.Do(func(ns.NetNS) error {
			networkpolicy.Run(runCtx, agent, networkpolicy.Config{NodeName: "node-a",
				NodeIPs: []netip.Addr{netip.MustParseAddr("10.244.1.1")}, MinSyncPeriod: 100 * time.Millisecond})
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })

	table := func() string {
		out, err := exec.Command("ip", "netns", "exec", filepath.Base(netns.Path()),
			"nft", "list", "table", "inet", networkpolicy.TableName).CombinedOutput()
		if err != nil {
			return err.Error() + ": " + string(out)
		}
		return string(out)
	}
	waitTable := func(what string, ok func(string) bool) {
		t.Helper()
		eventually(t, what, func() error {
			if tb := table(); !ok(tb) {
				return fmt.Errorf("table:\n%s", tb)
			}
			return nil
		})
	}
	waitTable("the empty table", func(tb string) bool { return strings.Contains(tb, "chain forward-ingress") })

	suffix := randomHex(3)
	web, clients := "web-"+suffix, "clients-"+suffix
	for _, n := range []string{web, clients} {
		if _, err := rest.Create(ctx, s.admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n,
			Labels: map[string]string{"team": n}}}); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(namespace, name, node, ip string) {
		t.Helper()
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": name}}}
		p.Spec.NodeName = node
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
		created, err := rest.Create(ctx, s.admin, p)
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Phase, created.Status.PodIP = corev1.PodRunning, ip
		created.Status.PodIPs = []corev1.PodIP{{IP: ip}}
		if _, err := rest.UpdateStatus(ctx, s.admin, created); err != nil {
			t.Fatal(err)
		}
	}
	pod(web, "web", "node-a", "10.244.1.5")
	pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: web, Name: "from-clients"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{
				{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": clients}}}}}}}}
	if _, err := rest.Create(ctx, s.admin, pol); err != nil {
		t.Fatal(err)
	}
	chain := "chain ingress/" + web + "/web {"
	set := "set np/" + web + "/from-clients/ingress/0 {"
	waitTable("the policy isolates web", func(tb string) bool {
		return strings.Contains(tb, chain) && strings.Contains(tb, set) && strings.Contains(tb, "10.244.1.5 : jump ingress/"+web+"/web")
	})

	pod(clients, "client", "node-b", "10.244.2.7") // a peer on another node
	waitTable("the client pod in the peer set", func(tb string) bool { return strings.Contains(tb, "elements = { 10.244.2.7 }") })

	ns, err := rest.Get[corev1.Namespace](ctx, s.admin, "", clients)
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels["team"] = "other"
	if _, err := rest.Update(ctx, s.admin, ns); err != nil {
		t.Fatal(err)
	}
	waitTable("the relabelled namespace out of the peer set", func(tb string) bool {
		return strings.Contains(tb, set) && !strings.Contains(tb, "10.244.2.7")
	})

	if err := rest.Delete[networkingv1.NetworkPolicy](ctx, s.admin, web, "from-clients", nil); err != nil {
		t.Fatal(err)
	}
	waitTable("no isolated pod after the policy is deleted", func(tb string) bool {
		return strings.Contains(tb, "chain forward-ingress") && !strings.Contains(tb, chain)
	})
}
