package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch01-apiserver/apiserver/auth/node"
	"kubik/ch01-apiserver/apiserver/defaults"
	"kubik/ch01-apiserver/storage"
)

// Admission: what happens to an object after it is decoded and before it is
// validated and stored. Upstream runs a chain of admission plugins; the ones
// every user meets are here, with upstream's names:
//
//   - NamespaceLifecycle: no new objects in a missing or terminating
//     namespace; default, kube-system and kube-public cannot be deleted.
//   - ServiceAccount: a pod runs as a ServiceAccount ("default" unless it says
//     otherwise) and gets its token mounted as the kube-api-access-xxxxx volume.
//   - Priority: a pod's priorityClassName becomes spec.priority.
//   - DefaultTolerationSeconds: pods tolerate not-ready/unreachable nodes for
//     300 s before eviction.
//   - TaintNodesByCondition: a new Node starts with the not-ready:NoSchedule
//     taint; the node lifecycle controller removes it once the node is Ready.
//   - DefaultIngressClass and RuntimeClass: admission_classes.go.
//   - StorageObjectInUseProtection (VolumeAttributesClasses):
//     admission_storage.go.
//   - CertificateApproval, CertificateSigning and
//     CertificateSubjectRestriction (admission_certificates.go), after
//     validation.
//   - MutatingAdmissionWebhook and ValidatingAdmissionWebhook
//     (admission_webhook.go): the webhooks of the webhook configurations.
//   - ValidatingAdmissionPolicy (admission_policy.go): the CEL policies
//     bound by ValidatingAdmissionPolicyBindings, before the validating
//     webhooks.
//   - LimitRanger (admission_limits.go) and ResourceQuota
//     (admission_quota.go); their checks run after validation
//     (validateAdmission).
//
// Defaulting (upstream does it while decoding) runs first.

var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// admit mutates and checks an object on create (old == nil) and update.
func (s *Server) admit(ctx context.Context, q *request, obj, old metav1.Object) error {
	defaults.Default(obj)
	res := q.res
	meta := obj.GetObjectMeta()
	if old == nil && res.Namespaced {
		if err := s.namespaceLifecycle(ctx, res, meta); err != nil {
			return err
		}
	}
	if node, ok := obj.(*corev1.Node); ok && old == nil {
		admitNodeTaint(node)
	}
	if err := s.admitNodeRestriction(ctx, q, obj, old); err != nil {
		return err
	}
	if res.Group == rbacv1.GroupName {
		if err := s.admitRBAC(ctx, q, obj, old); err != nil {
			return err
		}
	}
	if pod, ok := obj.(*corev1.Pod); ok && old == nil && q.info.Subresource == "" {
		if err := s.admitLimitRanger(ctx, pod); err != nil {
			return err
		}
	}
	if pod, ok := obj.(*corev1.Pod); ok && old == nil {
		if err := s.admitServiceAccount(ctx, pod); err != nil {
			return err
		}
		if err := s.admitPriority(ctx, res, pod); err != nil {
			return err
		}
		admitDefaultTolerationSeconds(pod)
		if err := s.admitRuntimeClass(ctx, res, pod); err != nil {
			return err
		}
	}
	if vac, ok := obj.(*storagev1.VolumeAttributesClass); ok && old == nil {
		admitStorageObjectInUseProtection(vac)
	}
	if ing, ok := obj.(*networkingv1.Ingress); ok && old == nil {
		if err := s.admitDefaultIngressClass(ctx, ing); err != nil {
			return err
		}
	}
	return s.admitWebhooks(ctx, q, obj, old) // MutatingAdmissionWebhook
}

// validateAdmission runs the validating admission plugins that come after
// validation upstream: LimitRanger's checks, then ResourceQuota, which
// charges the new object to the namespace's quotas. Objects being deleted
// are left alone.
func (s *Server) validateAdmission(ctx context.Context, q *request, obj, old metav1.Object) error {
	if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok {
		if err := s.validateCertificateAdmission(ctx, q, csr, old); err != nil {
			return err
		}
	}
	if err := s.validatePolicies(ctx, q, obj, old); err != nil { // ValidatingAdmissionPolicy
		return err
	}
	if err := s.validateWebhooks(ctx, q, obj, old); err != nil { // ValidatingAdmissionWebhook
		return err
	}
	if q.info.Subresource != "" || (old != nil && old.GetObjectMeta().DeletionTimestamp != nil) {
		return nil
	}
	meta := obj.GetObjectMeta()
	switch o := obj.(type) {
	case *corev1.Pod:
		if old == nil {
			if err := s.validateLimitRanger(ctx, q.res, o, meta.Namespace, meta.Name); err != nil {
				return err
			}
		}
	case *corev1.PersistentVolumeClaim:
		if err := s.validateLimitRanger(ctx, q.res, o, meta.Namespace, meta.Name); err != nil {
			return err
		}
	}
	return s.admitResourceQuota(ctx, q, obj, old)
}

// namespaceLifecycle refuses new objects in a namespace that is missing or going away.
func (s *Server) namespaceLifecycle(ctx context.Context, res *scheme.Resource, meta *metav1.ObjectMeta) error {
	nsRes := scheme.Lookup("", "v1", "namespaces")
	obj, err := s.getForAdmission(ctx, nsRes, "", meta.Namespace)
	if err != nil {
		return err // `namespaces "x" not found`, as upstream
	}
	ns := obj.(*corev1.Namespace)
	if ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		se := ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", meta.Namespace))
		se.Status.Details.Causes = append(se.Status.Details.Causes, metav1.StatusCause{Type: corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", meta.Namespace), Field: "metadata.namespace"})
		return se
	}
	return nil
}

// admitDelete: the three system namespaces stay.
func (s *Server) admitDelete(ctx context.Context, q *request, namespace, name string) error {
	if q.res.Resource == "namespaces" && q.res.Group == "" && immortalNamespaces[name] {
		return ErrForbidden("", "namespaces", "namespaces", name, errors.New("this namespace may not be deleted"))
	}
	if err := s.admitNodeDelete(ctx, q, namespace, name); err != nil {
		return err
	}
	if err := s.deletePolicies(ctx, q, namespace, name); err != nil { // ValidatingAdmissionPolicy
		return err
	}
	return s.deleteWebhooks(ctx, q, namespace, name)
}

const serviceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// admitMirrorPod is the ServiceAccount plugin's rule for mirror pods (a
// kubelet's copy of a static pod): their spec is left as it is — no
// ServiceAccount, no token volume; the kubelet runs the manifest, not this
// copy — and they may not use a ServiceAccount or Secrets.
func admitMirrorPod(pod *corev1.Pod) error {
	forbid := func(msg string) error { return ErrForbidden("", "pods", "pods", pod.Name, errors.New(msg)) }
	if pod.Spec.ServiceAccountName != "" {
		return forbid("a mirror pod may not reference service accounts")
	}
	if len(node.PodReferences(pod)["secrets"]) > 0 {
		return forbid("a mirror pod may not reference secrets")
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, p := range v.Projected.Sources {
			if p.ServiceAccountToken != nil {
				return forbid("a mirror pod may not use ServiceAccountToken volume projections")
			}
		}
	}
	return nil
}

// admitServiceAccount sets spec.serviceAccountName and mounts the account's
// token as a projected volume, the way upstream's ServiceAccount plugin does.
//
// Simplified: upstream refuses a pod whose ServiceAccount does not exist yet
// (the ServiceAccount controller of kube-controller-manager creates "default"
// in every namespace). Until that controller runs (ch04) we accept the pod and
// mount nothing.
func (s *Server) admitServiceAccount(ctx context.Context, pod *corev1.Pod) error {
	if _, mirror := pod.Annotations["kubernetes.io/config.mirror"]; mirror {
		return admitMirrorPod(pod)
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = pod.Spec.DeprecatedServiceAccount
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = "default"
	}
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	saRes := scheme.Lookup("", "v1", "serviceaccounts")
	obj, err := s.getForAdmission(ctx, saRes, pod.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
			return nil
		}
		return err
	}
	sa := obj.(*corev1.ServiceAccount)
	automount := true
	if sa.AutomountServiceAccountToken != nil {
		automount = *sa.AutomountServiceAccountToken
	}
	if pod.Spec.AutomountServiceAccountToken != nil {
		automount = *pod.Spec.AutomountServiceAccountToken
	}
	if !automount {
		return nil
	}
	for _, c := range pod.Spec.Containers {
		for _, m := range c.VolumeMounts {
			if m.MountPath == serviceAccountMountPath {
				return nil // the pod mounts its own
			}
		}
	}
	name := generateName("kube-api-access-")
	expiration := int64(3607)
	mode := int32(420)
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode, Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &expiration, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}},
	}})
	mount := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: serviceAccountMountPath}
	for i := range pod.Spec.InitContainers {
		pod.Spec.InitContainers[i].VolumeMounts = append(pod.Spec.InitContainers[i].VolumeMounts, mount)
	}
	for i := range pod.Spec.Containers {
		pod.Spec.Containers[i].VolumeMounts = append(pod.Spec.Containers[i].VolumeMounts, mount)
	}
	return nil
}

// admitPriority resolves priorityClassName into spec.priority and
// spec.preemptionPolicy; with no class named, the global default class (if
// any) or priority 0.
func (s *Server) admitPriority(ctx context.Context, res *scheme.Resource, pod *corev1.Pod) error {
	pcRes := scheme.Lookup("scheduling.k8s.io", "v1", "priorityclasses")
	var class *schedulingv1.PriorityClass
	if pod.Spec.PriorityClassName != "" {
		obj, err := s.getForAdmission(ctx, pcRes, "", pod.Spec.PriorityClassName)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
				return ErrForbidden(res.Group, res.Resource, res.GroupResource(), pod.Name,
					fmt.Errorf("no PriorityClass with name %s was found", pod.Spec.PriorityClassName))
			}
			return err
		}
		class = obj.(*schedulingv1.PriorityClass)
	} else {
		items, _, err := s.list(ctx, pcRes, "", listOptions{ResourceVersion: "0"})
		if err != nil {
			return err
		}
		for _, it := range items {
			if pc := it.(*schedulingv1.PriorityClass); pc.GlobalDefault {
				class = pc
				break
			}
		}
	}
	priority := int32(0)
	policy := corev1.PreemptLowerPriority
	if class != nil {
		priority = class.Value
		if class.PreemptionPolicy != nil {
			policy = *class.PreemptionPolicy
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), pod.Name,
			errors.New("the integer value of priority must not be provided in pod spec; priority admission controller computed "+
				fmt.Sprint(priority)+" from the given PriorityClass name"))
	}
	pod.Spec.Priority = &priority
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = &policy
	}
	return nil
}

// admitDefaultTolerationSeconds adds the two NoExecute tolerations every pod gets.
func admitDefaultTolerationSeconds(pod *corev1.Pod) {
	seconds := int64(300)
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		found := false
		for _, t := range pod.Spec.Tolerations {
			if (t.Key == key || (t.Key == "" && t.Operator == corev1.TolerationOpExists)) &&
				(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute) {
				found = true
			}
		}
		if !found {
			s := seconds
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s})
		}
	}
}

// admitNodeTaint adds node.kubernetes.io/not-ready:NoSchedule to a new Node,
// so nothing is scheduled there before anyone has seen it Ready.
func admitNodeTaint(node *corev1.Node) {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
}

// getForAdmission reads an object the way upstream's admission plugins do:
// from an informer's cache, not with a quorum read. A resourceVersion="0"
// list may be answered by the watch cache (chapter 2) without a round trip to
// etcd; an object found there may be a moment old, as upstream's listers are.
func (s *Server) getForAdmission(ctx context.Context, res *scheme.Resource, namespace, name string) (metav1.Object, error) {
	key := storageKey(res, namespace, name)
	result, err := s.cfg.Storage.List(ctx, key, storage.ListOptions{AllowStale: true})
	if err != nil {
		return nil, storageError(err)
	}
	for _, kv := range result.KVs {
		if kv.Key == key {
			return s.admissionObjects.decode(res, kv)
		}
	}
	// Not in the cache: it may have been created a moment ago (a namespace,
	// then at once a pod in it). Upstream's plugins fall back to a live
	// read likewise.
	return s.getObject(ctx, res, namespace, name)
}

// decodedCache keeps the objects getForAdmission decoded, by key, for as
// long as their revision is current: every pod and every Event looks up
// the same namespace (and every pod the same ServiceAccount), and upstream's
// plugins read such objects from an informer's already decoded cache too.
// Callers only read what they get.
type decodedCache struct {
	mu sync.Mutex
	m  map[string]decodedObject
}

type decodedObject struct {
	rev int64
	obj metav1.Object
}

// maxDecodedObjects bounds the cache; when full it starts over, rather than
// tracking which keys were deleted.
const maxDecodedObjects = 1024

func (c *decodedCache) decode(res *scheme.Resource, kv storage.KeyValue) (metav1.Object, error) {
	c.mu.Lock()
	d, ok := c.m[kv.Key]
	c.mu.Unlock()
	if ok && d.rev == kv.ModRevision {
		return d.obj, nil
	}
	obj, err := decodeFromStorage(res, kv)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxDecodedObjects {
		c.m = map[string]decodedObject{}
	}
	c.m[kv.Key] = decodedObject{rev: kv.ModRevision, obj: obj}
	c.mu.Unlock()
	return obj, nil
}
