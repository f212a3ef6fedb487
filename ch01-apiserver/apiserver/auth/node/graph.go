package node

import (
	"context"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
)

// Objects is what the Node authorizer reads: pods and the claims their
// volumes use. Upstream builds a graph of them from informers.
type Objects interface {
	// GetPod returns a pod, or nil when there is none.
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	// ListPodsOnNode returns the pods of namespace ("": every namespace)
	// bound to node.
	ListPodsOnNode(ctx context.Context, namespace, node string) ([]*corev1.Pod, error)
	// ListPersistentVolumeClaims returns every claim.
	ListPersistentVolumeClaims(ctx context.Context) ([]*corev1.PersistentVolumeClaim, error)
}

// uses answers the graph question "is there a path from this object to
// the node?" by reading objects: the pods of the namespace bound to node and
// what they reference.
func (z *Authorizer) uses(ctx context.Context, node, resource, namespace, name string) (bool, error) {
	if resource == "pods" {
		pod, err := z.objects.GetPod(ctx, namespace, name)
		if err != nil || pod == nil {
			return false, err
		}
		return pod.Spec.NodeName == node, nil
	}
	if resource == "persistentvolumes" { // node <- pod <- pvc <- pv
		pvcs, err := z.objects.ListPersistentVolumeClaims(ctx)
		if err != nil {
			return false, err
		}
		for _, pvc := range pvcs {
			if pvc.Spec.VolumeName != name {
				continue
			}
			if ok, err := z.uses(ctx, node, "persistentvolumeclaims", pvc.Namespace, pvc.Name); ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	pods, err := z.objects.ListPodsOnNode(ctx, namespace, node)
	if err != nil {
		return false, err
	}
	for _, pod := range pods {
		if pod.Spec.NodeName != node {
			continue
		}
		if slices.Contains(PodReferences(pod)[resource], name) {
			return true, nil
		}
	}
	return false, nil
}

// PodReferences lists, by resource, the objects a pod uses: the edges of
// upstream's graph from a pod to its service account, secrets, config maps
// and claims.
func PodReferences(pod *corev1.Pod) map[string][]string {
	refs := map[string][]string{}
	add := func(resource, name string) {
		if name != "" {
			refs[resource] = append(refs[resource], name)
		}
	}
	add("serviceaccounts", pod.Spec.ServiceAccountName)
	for _, s := range pod.Spec.ImagePullSecrets {
		add("secrets", s.Name)
	}
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil {
			add("secrets", v.Secret.SecretName)
		}
		if v.ConfigMap != nil {
			add("configmaps", v.ConfigMap.Name)
		}
		if v.PersistentVolumeClaim != nil {
			add("persistentvolumeclaims", v.PersistentVolumeClaim.ClaimName)
		}
		if v.Ephemeral != nil {
			add("persistentvolumeclaims", corev1.EphemeralVolumeClaimName(pod, &v))
		}
		if v.Projected != nil {
			for _, p := range v.Projected.Sources {
				if p.Secret != nil {
					add("secrets", p.Secret.Name)
				}
				if p.ConfigMap != nil {
					add("configmaps", p.ConfigMap.Name)
				}
			}
		}
	}
	envs := func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add("secrets", e.ValueFrom.SecretKeyRef.Name)
			}
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				add("configmaps", e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
		for _, f := range from {
			if f.SecretRef != nil {
				add("secrets", f.SecretRef.Name)
			}
			if f.ConfigMapRef != nil {
				add("configmaps", f.ConfigMapRef.Name)
			}
		}
	}
	for _, c := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		envs(c.Env, c.EnvFrom)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		envs(c.Env, c.EnvFrom)
	}
	return refs
}
