package metav1

// GetControllerOf returns the owner reference marked controller=true (the
// ReplicaSet of a pod, the Deployment of a ReplicaSet), or nil.
// Upstream: k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go.
func GetControllerOf(m *ObjectMeta) *OwnerReference {
	for i := range m.OwnerReferences {
		if r := m.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return &m.OwnerReferences[i]
		}
	}
	return nil
}
