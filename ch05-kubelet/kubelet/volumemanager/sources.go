package volumemanager

import (
	"context"
	"errors"
	"fmt"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// What the volumes read from the apiserver: ConfigMaps, Secrets,
// service-account tokens, PVCs and their PVs. The Node authorizer lets a
// kubelet read only those its own pods reference.

// getConfigMap reads a ConfigMap; a missing one is an empty one when
// optional, else upstream's message: configmap "x" not found.
func (m *Manager) getConfigMap(ctx context.Context, namespace, name string, optional bool) (*corev1.ConfigMap, error) {
	cm, err := rest.Get[corev1.ConfigMap](ctx, m.client, namespace, name)
	if rest.IsNotFound(err) {
		if optional {
			return &corev1.ConfigMap{}, nil
		}
		return nil, fmt.Errorf("configmap %q not found", name)
	}
	return cm, err
}

// getSecret is getConfigMap for a Secret: secret "x" not found.
func (m *Manager) getSecret(ctx context.Context, namespace, name string, optional bool) (*corev1.Secret, error) {
	s, err := rest.Get[corev1.Secret](ctx, m.client, namespace, name)
	if rest.IsNotFound(err) {
		if optional {
			return &corev1.Secret{}, nil
		}
		return nil, fmt.Errorf("secret %q not found", name)
	}
	return s, err
}

// projectedPayload merges the sources of a projected volume (upstream's
// projected plugin collectData): secrets, configMaps, downward API items
// and service-account tokens, each with the volume's defaultMode.
func (m *Manager) projectedPayload(ctx context.Context, pod *corev1.Pod, src *corev1.ProjectedVolumeSource) (map[string]fileProjection, error) {
	payload := map[string]fileProjection{}
	var errs []error
	merge := func(p map[string]fileProjection, err error) {
		if err != nil {
			errs = append(errs, err)
			return
		}
		for path, f := range p {
			payload[path] = f
		}
	}
	for _, s := range src.Sources {
		switch {
		case s.Secret != nil:
			secret, err := m.getSecret(ctx, pod.Namespace, s.Secret.Name, isOptional(s.Secret.Optional))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			merge(secretPayload(s.Secret.Items, secret, src.DefaultMode, isOptional(s.Secret.Optional)))
		case s.ConfigMap != nil:
			cm, err := m.getConfigMap(ctx, pod.Namespace, s.ConfigMap.Name, isOptional(s.ConfigMap.Optional))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			merge(configMapPayload(s.ConfigMap.Items, cm, src.DefaultMode, isOptional(s.ConfigMap.Optional)))
		case s.DownwardAPI != nil:
			merge(downwardAPIPayload(s.DownwardAPI.Items, pod, m.allocatable(), src.DefaultMode))
		case s.ServiceAccountToken != nil:
			tp := s.ServiceAccountToken
			var auds []string
			if tp.Audience != "" {
				auds = []string{tp.Audience}
			}
			tr, err := m.tokens.GetServiceAccountToken(ctx, pod.Namespace, pod.Spec.ServiceAccountName, &authenticationv1.TokenRequest{
				TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"},
				Spec: authenticationv1.TokenRequestSpec{Audiences: auds, ExpirationSeconds: tp.ExpirationSeconds,
					BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID}},
			})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			payload[tp.Path] = fileProjection{Data: []byte(tr.Status.Token), Mode: modeOr(src.DefaultMode)}
		case s.ClusterTrustBundle != nil, s.PodCertificate != nil:
			errs = append(errs, errors.New("unsupported projected volume source"))
		}
	}
	return payload, aggregate(errs)
}

// pvcVolume resolves a claim to its PV's path on this node: the claim
// must be Bound (chapter 4's PV controller binds it) and the PV must be a
// hostPath or local volume. Upstream's populator messages.
func (m *Manager) pvcVolume(ctx context.Context, pod *corev1.Pod, src *corev1.PersistentVolumeClaimVolumeSource) (MountedVolume, error) {
	fail := func(err error) (MountedVolume, error) {
		return MountedVolume{}, fmt.Errorf("error processing PVC %s/%s: %v", pod.Namespace, src.ClaimName, err)
	}
	pvc, err := rest.Get[corev1.PersistentVolumeClaim](ctx, m.client, pod.Namespace, src.ClaimName)
	if err != nil {
		return fail(fmt.Errorf("failed to fetch PVC from API server: %v", err))
	}
	if pvc.Status.Phase != corev1.ClaimBound {
		return fail(errors.New("PVC is not bound"))
	}
	if pvc.Spec.VolumeName == "" {
		return fail(errors.New("PVC has empty pvc.Spec.VolumeName"))
	}
	pv, err := rest.Get[corev1.PersistentVolume](ctx, m.client, "", pvc.Spec.VolumeName)
	if err != nil {
		return fail(fmt.Errorf("failed to fetch PV %s from API server: %v", pvc.Spec.VolumeName, err))
	}
	if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != pvc.UID {
		return fail(fmt.Errorf("found PV object %s but its claimRef does not point to the claim", pv.Name))
	}
	mv := MountedVolume{ReadOnly: src.ReadOnly}
	switch {
	case pv.Spec.HostPath != nil:
		t := corev1.HostPathUnset
		if pv.Spec.HostPath.Type != nil {
			t = *pv.Spec.HostPath.Type
		}
		mv.Path = pv.Spec.HostPath.Path
		return mv, checkHostPathType(mv.Path, t)
	case pv.Spec.Local != nil:
		mv.Path = pv.Spec.Local.Path
		return mv, checkHostPathType(mv.Path, corev1.HostPathDirectory)
	}
	return MountedVolume{}, errors.New("no volume plugin matched")
}
