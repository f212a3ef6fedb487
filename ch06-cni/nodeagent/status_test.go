package nodeagent

import (
	"context"
	"net/http"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// TestAgentRightsAndStatusPatch: with RBAC() and its own identity the agent
// lists and watches Nodes and patches nodes/status; the apiserver keeps
// the annotations of a nodes/status patch (and ignores its spec), as
// upstream's node status strategy does; the Node itself stays read-only.
func TestAgentRightsAndStatusPatch(t *testing.T) {
	ctx := context.Background()
	s := startAPIServer(t, "127.0.0.1")
	if err := EnsureRBAC(ctx, s.admin); err != nil {
		t.Fatal(err)
	}
	if err := EnsureRBAC(ctx, s.admin); err != nil { // idempotent
		t.Fatalf("second EnsureRBAC: %v", err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Annotations: map[string]string{"keep": "me"}}}
	node.Spec.PodCIDR = "10.244.1.0/24"
	if _, err := rest.Create(ctx, s.admin, node); err != nil {
		t.Fatal(err)
	}
	agent, err := rest.New(s.agentKubeconfig(t, "node-a"), "kubik-node-agent/node-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.List[corev1.Node](ctx, agent, "", rest.ListOptions{}); err != nil {
		t.Fatalf("list nodes as the agent: %v", err)
	}
	w, err := rest.Watch[corev1.Node](ctx, agent, "", rest.ListOptions{})
	if err != nil {
		t.Fatalf("watch nodes as the agent: %v", err)
	}
	w.Stop()

	want := nodeAnnotations(BackendVXLAN, `{"VNI":1,"VtepMAC":"0a:00:00:00:00:01"}`, "10.240.0.11")
	if err := publishAnnotations(ctx, agent, "node-a", want); err != nil {
		t.Fatalf("PATCH nodes/status: %v", err)
	}
	got, err := rest.Get[corev1.Node](ctx, s.admin, "", "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if !hasAnnotations(got, want) || got.Annotations["keep"] != "me" {
		t.Fatalf("annotations after the status patch: %v", got.Annotations)
	}

	// A status patch cannot change the spec; a patch of the Node is forbidden.
	patch := []byte(`{"metadata":{"annotations":{"x":"y"}},"spec":{"podCIDR":"10.244.9.0/24"}}`)
	got, err = rest.Patch[corev1.Node](ctx, agent, "", "node-a", rest.StrategicMergePatchType, patch, "status")
	if err != nil || got.Spec.PodCIDR != "10.244.1.0/24" || got.Annotations["x"] != "y" {
		t.Fatalf("status patch with a spec: podCIDR %q annotations %v, %v", got.Spec.PodCIDR, got.Annotations, err)
	}
	_, err = rest.Patch[corev1.Node](ctx, agent, "", "node-a", rest.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), "")
	if st, ok := err.(*rest.StatusError); !ok || st.ErrStatus.Code != http.StatusForbidden {
		t.Fatalf("PATCH nodes as the agent: %v, want 403", err)
	}
}
