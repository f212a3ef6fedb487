package nodeagent

import (
	"context"
	"encoding/json"
	"maps"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// The Node annotations an agent publishes about its node, flannel's with
// our prefix (flannel: flannel.alpha.coreos.com/backend-type, ...). The
// other nodes' agents read them: a VXLAN peer needs the VtepMAC and the
// address its VTEP listens on.
const (
	// AnnotationBackendType: "host-gw" or "vxlan".
	AnnotationBackendType = "kubik.io/backend-type"
	// AnnotationBackendData: {"VNI":1,"VtepMAC":"..."} for VXLAN; "null"
	// for host-gw, as flannel writes it.
	AnnotationBackendData = "kubik.io/backend-data"
	// AnnotationPublicIP: the node address the other nodes send to.
	AnnotationPublicIP = "kubik.io/public-ip"
	// AnnotationKubeSubnetManager: "true": the node's subnet is its
	// spec.podCIDR (flannel's kube subnet manager, not an etcd lease).
	AnnotationKubeSubnetManager = "kubik.io/kube-subnet-manager"
)

// nodeAnnotations are the annotations this node should carry.
func nodeAnnotations(backendType, backendData, publicIP string) map[string]string {
	return map[string]string{
		AnnotationBackendType:       backendType,
		AnnotationBackendData:       backendData,
		AnnotationPublicIP:          publicIP,
		AnnotationKubeSubnetManager: "true",
	}
}

// hasAnnotations reports whether n carries all of want.
func hasAnnotations(n *corev1.Node, want map[string]string) bool {
	for k, v := range want {
		if got, ok := n.Annotations[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// publishAnnotations sets want on the Node with a strategic merge patch of
// nodes/status, as flannel does: the status subresource keeps metadata
// changes (upstream's node status strategy resets only the spec), and
// patching nodes/status is all the agent's ClusterRole allows.
func publishAnnotations(ctx context.Context, c *rest.Client, node string, want map[string]string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": maps.Clone(want)}})
	if err != nil {
		return err
	}
	_, err = rest.Patch[corev1.Node](ctx, c, "", node, rest.StrategicMergePatchType, patch, "status")
	return err
}
