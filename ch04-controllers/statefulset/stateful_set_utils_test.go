package statefulset

// Table tests of the identity, storage, retention and revision helpers,
// with upstream's cases (stateful_set_utils_test.go).

import (
	"fmt"
	"log/slog"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch04-controllers/controller/history"
)

func ptr[T any](v T) *T { return &v }

// newStatefulSet is upstream's test fixture: replicas pods "foo-<i>" with
// a claim template "datadir" and a host volume "home".
func newStatefulSet(replicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: "default", UID: "test"},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Replicas: &replicas,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx",
						VolumeMounts: []corev1.VolumeMount{{Name: "datadir", MountPath: "/tmp/"}, {Name: "home", MountPath: "/home"}}}},
					Volumes: []corev1.Volume{{Name: "home", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/home"}}}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "datadir"}}},
			ServiceName:          "governingsvc",
			UpdateStrategy:       appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
	}
}

func TestGetParentNameAndOrdinal(t *testing.T) {
	set := newStatefulSet(3)
	pod := newStatefulSetPod(set, 1)
	if parent, ordinal := getParentNameAndOrdinal(pod); parent != set.Name || ordinal != 1 {
		t.Errorf("got %s %d, want %s 1", parent, ordinal, set.Name)
	}
	pod.Name = "1-bar"
	if parent, ordinal := getParentNameAndOrdinal(pod); parent != "" || ordinal != -1 {
		t.Errorf("a name without an ordinal: got %q %d", parent, ordinal)
	}
	pod.Name = "web-2147483648" // beyond int32
	if _, ordinal := getParentNameAndOrdinal(pod); ordinal != -1 {
		t.Errorf("an ordinal beyond int32: got %d", ordinal)
	}
}

func TestIdentityMatches(t *testing.T) {
	set := newStatefulSet(3)
	pod := newStatefulSetPod(set, 1)
	if !identityMatches(set, pod) {
		t.Error("newly created Pod has a bad identity")
	}
	if pod.Labels[appsv1.StatefulSetPodNameLabel] != "foo-1" || pod.Labels[appsv1.PodIndexLabel] != "1" ||
		pod.Spec.Hostname != "foo-1" || pod.Spec.Subdomain != "governingsvc" {
		t.Errorf("identity: labels %v hostname %q subdomain %q", pod.Labels, pod.Spec.Hostname, pod.Spec.Subdomain)
	}
	for name, mutate := range map[string]func(*corev1.Pod){
		"name":      func(p *corev1.Pod) { p.Name = "foo" },
		"namespace": func(p *corev1.Pod) { p.Namespace = "" },
		"label":     func(p *corev1.Pod) { delete(p.Labels, appsv1.StatefulSetPodNameLabel) },
	} {
		p := newStatefulSetPod(set, 1)
		mutate(p)
		if identityMatches(set, p) {
			t.Errorf("identity matches with a wrong %s", name)
		}
	}
}

func TestStorageMatches(t *testing.T) {
	set := newStatefulSet(3)
	pod := newStatefulSetPod(set, 1)
	if !storageMatches(set, pod) {
		t.Error("newly created Pod has an invalid storage")
	}
	if v := pod.Spec.Volumes[0]; v.Name != "datadir" || v.PersistentVolumeClaim.ClaimName != "datadir-foo-1" {
		t.Errorf("claim volume: %+v", v)
	}
	pod.Spec.Volumes = nil
	if storageMatches(set, pod) {
		t.Error("Pod with invalid Volumes has valid storage")
	}
	pod = newStatefulSetPod(set, 1)
	pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName = "foo"
	if storageMatches(set, pod) {
		t.Error("Pod with invalid claim name has valid storage")
	}
	pod = newStatefulSetPod(set, 1)
	pod.Name = "bar"
	if storageMatches(set, pod) {
		t.Error("Pod with invalid ordinal has valid storage")
	}
}

func TestUpdateStorage(t *testing.T) {
	set := newStatefulSet(3)
	pod := newStatefulSetPod(set, 1)
	pod.Spec.Volumes = nil
	updateStorage(set, pod)
	if !storageMatches(set, pod) {
		t.Error("updateStorage did not fix the storage")
	}
}

func TestGetPersistentVolumeClaims(t *testing.T) {
	set := newStatefulSet(1)
	pod := newStatefulSetPod(set, 0)
	// The template's labels merged with the selector's.
	set.Spec.VolumeClaimTemplates[0].Labels = map[string]string{"test": "test"}
	claims := getPersistentVolumeClaims(set, pod)
	c := claims["datadir"]
	if c.Name != "datadir-foo-0" || c.Namespace != "default" || !reflect.DeepEqual(c.Labels, map[string]string{"test": "test", "foo": "bar"}) {
		t.Errorf("claim: %s/%s %v", c.Namespace, c.Name, c.Labels)
	}
	if set.Spec.VolumeClaimTemplates[0].Labels["foo"] != "" {
		t.Error("the template was changed")
	}
}

func TestIsRunningAndReady(t *testing.T) {
	set := newStatefulSet(3)
	pod := newStatefulSetPod(set, 1)
	if isRunningAndReady(pod) {
		t.Error("isRunningAndReady does not respect Pod phase")
	}
	pod.Status.Phase = corev1.PodRunning
	if isRunningAndReady(pod) {
		t.Error("isRunningAndReady does not respect Pod condition")
	}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if !isRunningAndReady(pod) {
		t.Error("Pod should be running and ready")
	}
}

func TestAscendingOrdinal(t *testing.T) {
	set := newStatefulSet(10)
	pods := make([]*corev1.Pod, 10)
	for i, v := range rand.Perm(10) {
		pods[i] = newStatefulSetPod(set, v)
	}
	sort.Sort(ascendingOrdinal(pods))
	if !sort.IsSorted(ascendingOrdinal(pods)) {
		t.Error("ascendingOrdinal fails to sort Pods")
	}
	sort.Sort(descendingOrdinal(pods))
	if getOrdinal(pods[0]) != 9 || getOrdinal(pods[9]) != 0 {
		t.Error("descendingOrdinal fails to sort Pods")
	}
}

func TestNewPodControllerRef(t *testing.T) {
	set := newStatefulSet(1)
	pod := newStatefulSetPod(set, 0)
	ref := metav1.GetControllerOf(&pod.ObjectMeta)
	if ref == nil {
		t.Fatal("No ControllerRef found on new pod")
	}
	if ref.APIVersion != "apps/v1" || ref.Kind != "StatefulSet" || ref.Name != set.Name || ref.UID != set.UID ||
		!*ref.Controller || !*ref.BlockOwnerDeletion {
		t.Errorf("controllerRef: %+v", ref)
	}
}

func TestCreateApplyRevision(t *testing.T) {
	set := newStatefulSet(1)
	set.Status.CollisionCount = new(int32)
	revision, err := newRevision(set, 1, set.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	set.Spec.Template.Spec.Containers[0].Name = "foo"
	set.Annotations = map[string]string{"foo": "bar"}
	restoredSet, err := ApplyRevision(set, revision)
	if err != nil {
		t.Fatal(err)
	}
	restoredRevision, err := newRevision(restoredSet, 2, restoredSet.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	if !history.EqualRevision(revision, restoredRevision) {
		t.Errorf("wanted %v got %v", string(revision.Data.Raw), string(restoredRevision.Data.Raw))
	}
	if restoredRevision.Annotations["foo"] != "bar" {
		t.Errorf("annotations: %v", restoredRevision.Annotations)
	}
	if want := "foo-" + history.HashControllerRevision(revision, set.Status.CollisionCount); revision.Name != want {
		t.Errorf("revision name %s, want %s", revision.Name, want)
	}
}

func TestRollingUpdateApplyRevision(t *testing.T) {
	set := newStatefulSet(1)
	set.Status.CollisionCount = new(int32)
	currentSet := metav1.DeepCopy(set)
	currentRevision, err := newRevision(set, 1, set.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	set.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "foo", Value: "bar"}}
	updateSet := metav1.DeepCopy(set)
	updateRevision, err := newRevision(set, 2, set.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	restoredCurrentSet, err := ApplyRevision(set, currentRevision)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(currentSet.Spec.Template, restoredCurrentSet.Spec.Template) {
		t.Errorf("want %v got %v", currentSet.Spec.Template, restoredCurrentSet.Spec.Template)
	}
	restoredUpdateSet, err := ApplyRevision(set, updateRevision)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(updateSet.Spec.Template, restoredUpdateSet.Spec.Template) {
		t.Errorf("want %v got %v", updateSet.Spec.Template, restoredUpdateSet.Spec.Template)
	}
}

func TestGetStatefulSetMaxUnavailable(t *testing.T) {
	for i, tc := range []struct {
		maxUnavailable         *intstr.IntOrString
		replicaCount           int
		expectedMaxUnavailable int
	}{
		{maxUnavailable: nil, replicaCount: 10, expectedMaxUnavailable: 1},
		{maxUnavailable: ptr(intstr.FromInt(3)), replicaCount: 10, expectedMaxUnavailable: 3},
		{maxUnavailable: ptr(intstr.FromInt(3)), replicaCount: 0, expectedMaxUnavailable: 3},
		{maxUnavailable: ptr(intstr.FromInt(0)), replicaCount: 0, expectedMaxUnavailable: 1},
		{maxUnavailable: ptr(intstr.FromString("10%")), replicaCount: 25, expectedMaxUnavailable: 2},
		{maxUnavailable: ptr(intstr.FromString("100%")), replicaCount: 5, expectedMaxUnavailable: 5},
		{maxUnavailable: ptr(intstr.FromString("50%")), replicaCount: 5, expectedMaxUnavailable: 2},
		{maxUnavailable: ptr(intstr.FromString("10%")), replicaCount: 5, expectedMaxUnavailable: 1},
		{maxUnavailable: ptr(intstr.FromString("1%")), replicaCount: 0, expectedMaxUnavailable: 1},
		{maxUnavailable: ptr(intstr.FromString("0%")), replicaCount: 0, expectedMaxUnavailable: 1},
	} {
		t.Run(fmt.Sprintf("case %d", i), func(t *testing.T) {
			got, err := getStatefulSetMaxUnavailable(tc.maxUnavailable, tc.replicaCount)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.expectedMaxUnavailable {
				t.Errorf("Expected maxUnavailable %v, got %v", tc.expectedMaxUnavailable, got)
			}
		})
	}
}

const (
	retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	del    = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
)

func refTo(meta *metav1.ObjectMeta, kind gvk, isController bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: kind.APIVersion, Kind: kind.Kind, Name: meta.Name, UID: meta.UID, Controller: &isController}
}

// TestClaimOwnerUpToDate is upstream's TestClaimOwnerMatchesSetAndPod:
// every combination of references against what the policy wants.
func TestClaimOwnerUpToDate(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		name                     string
		scaleDownPolicy          appsv1.PersistentVolumeClaimRetentionPolicyType
		setDeletePolicy          appsv1.PersistentVolumeClaimRetentionPolicyType
		needsPodRef, needsSetRef bool
		replicas                 int32
		ordinal                  int
	}{
		{name: "retain", scaleDownPolicy: retain, setDeletePolicy: retain},
		{name: "on SS delete", scaleDownPolicy: retain, setDeletePolicy: del, needsSetRef: true},
		{name: "on scaledown only, condemned", scaleDownPolicy: del, setDeletePolicy: retain, needsPodRef: true, replicas: 2, ordinal: 2},
		{name: "on scaledown only, remains", scaleDownPolicy: del, setDeletePolicy: retain, replicas: 2, ordinal: 1},
		{name: "on both, condemned", scaleDownPolicy: del, setDeletePolicy: del, needsPodRef: true, replicas: 2, ordinal: 2},
		{name: "on both, remains", scaleDownPolicy: del, setDeletePolicy: del, needsSetRef: true, replicas: 2, ordinal: 1},
	} {
		for _, useOtherRefs := range []bool{false, true} {
			for _, setPodRef := range []bool{false, true} {
				for _, setSetRef := range []bool{false, true} {
					pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", tc.ordinal), UID: "pod-123"}}
					set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "stateful-set", UID: "ss-456"}}
					set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
						WhenScaled: tc.scaleDownPolicy, WhenDeleted: tc.setDeletePolicy}
					set.Spec.Replicas = ptr(tc.replicas)
					claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "target-claim"}}
					if setPodRef {
						claim.OwnerReferences = append(claim.OwnerReferences, refTo(&pod.ObjectMeta, podKind, true))
					}
					if setSetRef {
						claim.OwnerReferences = append(claim.OwnerReferences, refTo(&set.ObjectMeta, controllerKind, true))
					}
					if useOtherRefs {
						claim.OwnerReferences = append(claim.OwnerReferences,
							refTo(&metav1.ObjectMeta{Name: "rand1", UID: "rand1-abc"}, podKind, false),
							refTo(&metav1.ObjectMeta{Name: "rand2", UID: "rand2-def"}, podKind, false))
					}
					shouldMatch := setPodRef == tc.needsPodRef && setSetRef == tc.needsSetRef
					if isClaimOwnerUpToDate(log, claim, set, pod) != shouldMatch {
						t.Errorf("Bad match for %s with pod=%v,set=%v,others=%v", tc.name, setPodRef, setSetRef, useOtherRefs)
					}
				}
			}
		}
	}
}

// TestUpdateClaimOwnerRefForSetAndPod is upstream's table of the same name.
func TestUpdateClaimOwnerRefForSetAndPod(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		name                     string
		scaleDownPolicy          appsv1.PersistentVolumeClaimRetentionPolicyType
		setDeletePolicy          appsv1.PersistentVolumeClaimRetentionPolicyType
		condemned                bool
		needsPodRef, needsSetRef bool
	}{
		{name: "retain", scaleDownPolicy: retain, setDeletePolicy: retain},
		{name: "delete with set", scaleDownPolicy: retain, setDeletePolicy: del, needsSetRef: true},
		{name: "delete with scaledown, not condemned", scaleDownPolicy: del, setDeletePolicy: retain},
		{name: "delete on scaledown, condemned", scaleDownPolicy: del, setDeletePolicy: retain, condemned: true, needsPodRef: true},
		{name: "delete on both, not condemned", scaleDownPolicy: del, setDeletePolicy: del, needsSetRef: true},
		{name: "delete on both, condemned", scaleDownPolicy: del, setDeletePolicy: del, condemned: true, needsPodRef: true},
	} {
		for _, hasPodRef := range []bool{true, false} {
			for _, hasSetRef := range []bool{true, false} {
				set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ss", UID: "ss-123"}}
				set.Spec.Replicas = ptr(int32(5))
				set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
					WhenScaled: tc.scaleDownPolicy, WhenDeleted: tc.setDeletePolicy}
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-1", UID: "pod-456"}}
				if tc.condemned {
					pod.Name = "pod-8"
				}
				claim := &corev1.PersistentVolumeClaim{}
				if hasPodRef {
					claim.OwnerReferences = append(claim.OwnerReferences, refTo(&pod.ObjectMeta, podKind, true))
				}
				if hasSetRef {
					claim.OwnerReferences = append(claim.OwnerReferences, refTo(&set.ObjectMeta, controllerKind, true))
				}
				needsUpdate := hasPodRef != tc.needsPodRef || hasSetRef != tc.needsSetRef
				if upToDate := isClaimOwnerUpToDate(log, claim, set, pod); upToDate == needsUpdate {
					t.Errorf("%s hasPodRef=%v hasSetRef=%v: up to date %v", tc.name, hasPodRef, hasSetRef, upToDate)
				}
				updateClaimOwnerRefForSetAndPod(log, claim, set, pod)
				if hasOwnerRef(&claim.ObjectMeta, pod.UID) != tc.needsPodRef {
					t.Errorf("Bad pod ref for %s hasPodRef=%v hasSetRef=%v", tc.name, hasPodRef, hasSetRef)
				}
				if hasOwnerRef(&claim.ObjectMeta, set.UID) != tc.needsSetRef {
					t.Errorf("Bad set ref for %s hasPodRef=%v hasSetRef=%v", tc.name, hasPodRef, hasSetRef)
				}
				if !isClaimOwnerUpToDate(log, claim, set, pod) {
					t.Errorf("%s: not up to date after the update", tc.name)
				}
			}
		}
	}
}

func TestHasStaleOwnerRef(t *testing.T) {
	target := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "Pod", Name: "bob", UID: "123"}, {APIVersion: "v1", Kind: "Pod", Name: "shirley", UID: "456"}}}}
	if hasStaleOwnerRef(target, &metav1.ObjectMeta{Name: "bob", UID: "123"}, podKind) {
		t.Error("ownerA should not be stale")
	}
	if !hasStaleOwnerRef(target, &metav1.ObjectMeta{Name: "shirley", UID: "789"}, podKind) {
		t.Error("ownerB should be stale")
	}
	if hasStaleOwnerRef(target, &metav1.ObjectMeta{Name: "yvonne", UID: "345"}, podKind) {
		t.Error("ownerC should not be stale")
	}
}

// TestNewVersionedStatefulSetPod: below the partition a missing pod is
// recreated at the current revision, at and above it at the update revision.
func TestNewVersionedStatefulSetPod(t *testing.T) {
	current := newStatefulSet(3)
	current.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}
	update := metav1.DeepCopy(current)
	update.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	for ordinal, want := range map[int]string{0: "nginx", 1: "nginx", 2: "nginx:2"} {
		pod := newVersionedStatefulSetPod(current, update, "rev-1", "rev-2", ordinal)
		if got := pod.Spec.Containers[0].Image; got != want {
			t.Errorf("pod %d: image %s, want %s", ordinal, got, want)
		}
		if rev := getPodRevision(pod); (rev == "rev-2") != (want == "nginx:2") {
			t.Errorf("pod %d: revision %s", ordinal, rev)
		}
	}
}

func TestCompleteRollingUpdate(t *testing.T) {
	set := newStatefulSet(3)
	status := &appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3, CurrentReplicas: 1,
		CurrentRevision: "a", UpdateRevision: "b"}
	completeRollingUpdate(set, status)
	if status.CurrentRevision != "b" || status.CurrentReplicas != 3 {
		t.Errorf("not completed: %+v", status)
	}
	status = &appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 2, UpdatedReplicas: 3, CurrentRevision: "a", UpdateRevision: "b"}
	completeRollingUpdate(set, status)
	if status.CurrentRevision != "a" {
		t.Errorf("completed with a pod not ready: %+v", status)
	}
}
