package pki

import (
	"fmt"
	"strings"
)

// Identity is who a client certificate says its holder is: the user name
// (the certificate's CommonName) and groups (its Organization fields). The
// apiserver's RBAC bootstrap policy grants each component identity exactly
// the rights that component needs.
type Identity struct {
	User   string
	Groups []string
}

// The identities of the control-plane components and the administrator, as
// kubeadm issues them.
var (
	Admin             = Identity{User: "kubernetes-admin", Groups: []string{"system:masters"}}
	Scheduler         = Identity{User: "system:kube-scheduler"}
	ControllerManager = Identity{User: "system:kube-controller-manager"}
	KubeProxy         = Identity{User: "system:kube-proxy"}
	// KubeletClient is the apiserver when it calls kubelets (logs, exec,
	// port-forward): kubeadm's apiserver-kubelet-client.crt, in group
	// system:masters as kubeadm issued it up to v1.28 (since, group
	// kubeadm:cluster-admins, bound to cluster-admin: the same rights).
	// The kubelet asks the apiserver whether it may use nodes/proxy.
	KubeletClient = Identity{User: "kube-apiserver-kubelet-client", Groups: []string{"system:masters"}}
)

// Node is the identity of the kubelet on node name: system:node:<name> in
// group system:nodes, which the Node authorizer recognises.
func Node(name string) Identity {
	return Identity{User: "system:node:" + name, Groups: []string{"system:nodes"}}
}

// ComponentIdentity resolves a component name: admin, kube-scheduler (or
// scheduler), kube-controller-manager (controller-manager), kube-proxy, or
// node:<name>.
func ComponentIdentity(name string) (Identity, error) {
	switch name {
	case "admin":
		return Admin, nil
	case "scheduler", "kube-scheduler":
		return Scheduler, nil
	case "controller-manager", "kube-controller-manager":
		return ControllerManager, nil
	case "kube-proxy", "proxy":
		return KubeProxy, nil
	}
	if n, ok := strings.CutPrefix(name, "node:"); ok && n != "" {
		return Node(n), nil
	}
	return Identity{}, fmt.Errorf("unknown component %q (admin, kube-scheduler, kube-controller-manager, kube-proxy, node:<name>)", name)
}

// WriteIdentityKubeconfig issues a client certificate for id and writes a
// kubeconfig for it at path (see WriteKubeconfig).
func (ca *CA) WriteIdentityKubeconfig(path, serverURL string, id Identity) error {
	return ca.WriteKubeconfig(path, serverURL, id.User, id.Groups)
}
