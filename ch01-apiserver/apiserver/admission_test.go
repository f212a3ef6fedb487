package apiserver_test

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestPodAdmission(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	pods := "/api/v1/namespaces/" + ns + "/pods"

	// DefaultTolerationSeconds, Priority (no class: 0), ServiceAccount (none exists: no volume).
	p := c.post(t, pods, pod("plain", nil)).must(t, http.StatusCreated)
	jsonEqual(t, "tolerations", p.path("spec.tolerations"), `[
		{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},
		{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]`)
	equal(t, "priority", p.num("spec.priority"), int64(0))
	equal(t, "serviceAccountName", p.str("spec.serviceAccountName"), "default")
	equal(t, "volumes without a ServiceAccount", p.path("spec.volumes"), nil)

	// With the ServiceAccount: the projected token volume and its mount.
	c.post(t, "/api/v1/namespaces/"+ns+"/serviceaccounts", obj{"metadata": obj{"name": "default"}}).must(t, http.StatusCreated)
	p = c.post(t, pods, pod("with-sa", nil)).must(t, http.StatusCreated)
	vol := p.str("spec.volumes.0.name")
	if !strings.HasPrefix(vol, "kube-api-access-") || len(vol) != len("kube-api-access-")+5 {
		t.Fatalf("volume %q", vol)
	}
	equal(t, "token path", p.str("spec.volumes.0.projected.sources.0.serviceAccountToken.path"), "token")
	equal(t, "mount", p.path("spec.containers.0.volumeMounts.0"), map[string]any{"name": vol, "readOnly": true,
		"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"})

	// Priority from a PriorityClass.
	c.post(t, "/apis/scheduling.k8s.io/v1/priorityclasses", obj{"metadata": obj{"name": "high-" + ns}, "value": 1000}).must(t, http.StatusCreated)
	t.Cleanup(func() { c.del(t, "/apis/scheduling.k8s.io/v1/priorityclasses/high-"+ns, nil) })
	hp := pod("high", nil)
	hp["spec"].(obj)["priorityClassName"] = "high-" + ns
	p = c.post(t, pods, hp).must(t, http.StatusCreated)
	equal(t, "priority", p.num("spec.priority"), int64(1000))
	equal(t, "preemptionPolicy", p.str("spec.preemptionPolicy"), "PreemptLowerPriority")
	sys := pod("sys", nil)
	sys["spec"].(obj)["priorityClassName"] = "system-node-critical"
	equal(t, "system-node-critical", c.post(t, pods, sys).must(t, http.StatusCreated).num("spec.priority"), int64(2000001000))

	bad := pod("bad", nil)
	bad["spec"].(obj)["priorityClassName"] = "x"
	c.post(t, pods, bad).expectError(t, http.StatusForbidden, "Forbidden", `pods "bad" is forbidden: no PriorityClass with name x was found`)
}

func TestServiceAllocation(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	svcs := "/api/v1/namespaces/" + ns + "/services"
	svc := func(name, typ, ip string) obj {
		spec := obj{"type": typ, "selector": obj{"app": name}, "ports": []obj{{"port": 80, "targetPort": 8080}}}
		if ip != "" {
			spec["clusterIP"] = ip
		}
		return obj{"metadata": obj{"name": name}, "spec": spec}
	}
	cidr := netip.MustParsePrefix("10.96.0.0/12")

	o := c.post(t, svcs, svc("a", "ClusterIP", "")).must(t, http.StatusCreated)
	ip, err := netip.ParseAddr(o.str("spec.clusterIP"))
	if err != nil || !cidr.Contains(ip) || ip == netip.MustParseAddr("10.96.0.1") {
		t.Fatalf("clusterIP %q", o.str("spec.clusterIP"))
	}
	equal(t, "clusterIPs", o.list("spec.clusterIPs"), []any{ip.String()})

	// A taken ClusterIP.
	taken := ip.String()
	st := c.post(t, svcs, svc("b", "ClusterIP", taken)).expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`Service "b" is invalid: spec.clusterIPs: Invalid value: ["`+taken+`"]: failed to allocate IP `+taken+`: provided IP is already allocated`)
	jsonEqual(t, "causes", st.Details.Causes, `[{"reason":"FieldValueInvalid","message":"Invalid value: [\"`+taken+`\"]: failed to allocate IP `+taken+`: provided IP is already allocated","field":"spec.clusterIPs"}]`)

	// NodePort in range.
	o = c.post(t, svcs, svc("np", "NodePort", "")).must(t, http.StatusCreated)
	if np := o.num("spec.ports.0.nodePort"); np < 30000 || np > 32767 {
		t.Fatalf("nodePort %d", np)
	}
	// Deleting a Service frees its ClusterIP.
	c.del(t, svcs+"/a", nil).must(t, http.StatusOK)
	c.post(t, svcs, svc("reuse", "ClusterIP", taken)).must(t, http.StatusCreated)
}

func TestBootstrapObjects(t *testing.T) {
	c := shared
	svc := c.get(t, "/api/v1/namespaces/default/services/kubernetes").must(t, http.StatusOK)
	equal(t, "clusterIP", svc.str("spec.clusterIP"), "10.96.0.1")
	equal(t, "port", svc.num("spec.ports.0.port"), int64(443))
	// The test server advertises 127.0.0.1: a loopback address is not
	// published (upstream's reconciler fails validation on it likewise).
	c.get(t, "/api/v1/namespaces/default/endpoints/kubernetes").expectError(t, http.StatusNotFound, "NotFound", `endpoints "kubernetes" not found`)
	c.get(t, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes").expectError(t, http.StatusNotFound, "NotFound", `endpointslices.discovery.k8s.io "kubernetes" not found`)
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		c.get(t, "/api/v1/namespaces/"+ns).must(t, http.StatusOK)
	}
	c.get(t, "/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical").must(t, http.StatusOK)
}

func TestNodeTaintAdmission(t *testing.T) {
	c := shared
	name := "taint-" + c.newNamespace(t)
	n := c.post(t, "/api/v1/nodes", obj{"metadata": obj{"name": name}}).must(t, http.StatusCreated)
	t.Cleanup(func() { c.del(t, "/api/v1/nodes/"+name, nil) })
	jsonEqual(t, "taints of a new node", n.path("spec.taints"), `[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]`)

	// An update may remove it (the node lifecycle controller does).
	n = c.patch(t, "/api/v1/nodes/"+name, "application/merge-patch+json", `{"spec":{"taints":null}}`).must(t, http.StatusOK)
	equal(t, "taints after the update", n.path("spec.taints"), nil)
}
