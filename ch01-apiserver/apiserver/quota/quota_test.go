package quota

import (
	"errors"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func requirements(requests, limits corev1.ResourceList) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: requests, Limits: limits}
}

func TestResourceListArithmetic(t *testing.T) {
	a, b := list("cpu", "1", "memory", "1Gi"), list("cpu", "500m", "pods", "2")
	if got := Add(a, b); !Equals(got, list("cpu", "1500m", "memory", "1Gi", "pods", "2")) {
		t.Errorf("Add: %v", got)
	}
	if got := Subtract(a, b); !Equals(got, list("cpu", "500m", "memory", "1Gi", "pods", "-2")) {
		t.Errorf("Subtract: %v", got)
	}
	if !Equals(a, list("cpu", "1", "memory", "1Gi")) {
		t.Errorf("Add or Subtract changed its argument: %v", a)
	}
	if got := Mask(a, []corev1.ResourceName{"memory", "pods"}); !Equals(got, list("memory", "1Gi")) {
		t.Errorf("Mask: %v", got)
	}
	if Equals(a, list("cpu", "1")) || Equals(a, list("cpu", "1", "memory", "2Gi")) || !Equals(a, list("memory", "1024Mi", "cpu", "1000m")) {
		t.Error("Equals")
	}
	if !IsZero(list("cpu", "0", "pods", "0")) || IsZero(list("cpu", "0", "pods", "1")) || !IsZero(nil) {
		t.Error("IsZero")
	}
	if got := RemoveZeros(list("cpu", "0", "pods", "1")); !Equals(got, list("pods", "1")) {
		t.Errorf("RemoveZeros: %v", got)
	}
	ok, exceeded := LessThanOrEqual(list("cpu", "2", "memory", "1Gi", "secrets", "9"), list("cpu", "1", "memory", "1Gi", "pods", "1"))
	if ok || len(exceeded) != 1 || exceeded[0] != "cpu" {
		t.Errorf("LessThanOrEqual: %v %v", ok, exceeded)
	}
	if got := Intersection([]corev1.ResourceName{"pods", "cpu", "cpu", "memory"}, []corev1.ResourceName{"memory", "cpu"}); len(got) != 2 || got[0] != "cpu" || got[1] != "memory" {
		t.Errorf("Intersection: %v", got)
	}
}

func TestQuotaV1Pod(t *testing.T) {
	now := time.Now()
	grace := int64(30)
	for _, tc := range []struct {
		name string
		pod  corev1.Pod
		want bool
	}{
		{"running", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}, true},
		{"succeeded", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, false},
		{"failed", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, false},
		{"terminating within its grace period", corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			DeletionTimestamp: &metav1.Time{Time: now.Add(-10 * time.Second)}, DeletionGracePeriodSeconds: &grace}}, true},
		{"stuck terminating past its grace period", corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			DeletionTimestamp: &metav1.Time{Time: now.Add(-time.Minute)}, DeletionGracePeriodSeconds: &grace}}, false},
	} {
		if got := QuotaV1Pod(&tc.pod, now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Upstream's TestPodEvaluatorUsage, a few of its cases.
func TestPodUsageFunc(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	for _, tc := range []struct {
		name string
		pod  corev1.Pod
		want corev1.ResourceList
	}{
		{"init container CPU", corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Resources: requirements(list("cpu", "1m"), list("cpu", "2m"))}}}},
			list("requests.cpu", "1m", "limits.cpu", "2m", "pods", "1", "count/pods", "1", "cpu", "1m")},
		{"init container and sidecar: the larger", corev1.Pod{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Resources: requirements(list("memory", "1Gi"), nil)},
				{RestartPolicy: &always, Resources: requirements(list("memory", "100Mi"), nil)}},
			Containers: []corev1.Container{{Resources: requirements(list("memory", "200Mi"), nil)}}}},
			list("requests.memory", "1Gi", "memory", "1Gi", "pods", "1", "count/pods", "1")},
		{"extended resource and hugepages", corev1.Pod{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Resources: requirements(list("example.com/dongle", "3", "hugepages-2Mi", "4Mi"), nil)}}}},
			list("requests.example.com/dongle", "3", "hugepages-2Mi", "4Mi", "requests.hugepages-2Mi", "4Mi", "pods", "1", "count/pods", "1")},
		{"terminal pod: its count only", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Resources: requirements(list("cpu", "1"), nil)}}}},
			list("count/pods", "1")},
		// The overhead is added to the requests, and to the limits only of
		// what is limited.
		{"pod overhead", corev1.Pod{Spec: corev1.PodSpec{Overhead: list("cpu", "250m", "memory", "120Mi"),
			Containers: []corev1.Container{{Resources: requirements(list("cpu", "1", "memory", "1Gi"), list("cpu", "2"))}}}},
			list("requests.cpu", "1250m", "cpu", "1250m", "requests.memory", "1144Mi", "memory", "1144Mi", "limits.cpu", "2250m",
				"pods", "1", "count/pods", "1")},
		{"pod-level resources replace the containers'", corev1.Pod{Spec: corev1.PodSpec{
			Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "2"), Limits: list("cpu", "4")},
			Containers: []corev1.Container{{Resources: requirements(list("cpu", "1", "memory", "1Gi"), nil)}}}},
			list("requests.cpu", "2", "cpu", "2", "limits.cpu", "4", "requests.memory", "1Gi", "memory", "1Gi", "pods", "1", "count/pods", "1")},
	} {
		if got := PodUsageFunc(&tc.pod, time.Now()); !Equals(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPodMatchingResources(t *testing.T) {
	e := NewPodEvaluator(nil, time.Now)
	in := []corev1.ResourceName{"pods", "count/pods", "cpu", "limits.memory", "requests.ephemeral-storage", "hugepages-2Mi",
		"requests.hugepages-1Gi", "requests.example.com/dongle", "example.com/dongle", "services", "count/configmaps", "requests.storage"}
	got := e.MatchingResources(in)
	want := []corev1.ResourceName{"pods", "count/pods", "cpu", "limits.memory", "requests.ephemeral-storage", "hugepages-2Mi",
		"requests.hugepages-1Gi", "requests.example.com/dongle"}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}

func TestPodMatchesScopeFunc(t *testing.T) {
	deadline := int64(30)
	plain := &corev1.Pod{}
	guaranteed := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: requirements(list("cpu", "1", "memory", "1Gi"), list("cpu", "1", "memory", "1Gi"))}}}}
	terminating := &corev1.Pod{Spec: corev1.PodSpec{ActiveDeadlineSeconds: &deadline}}
	high := &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: "high"}}
	low := &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: "low"}}
	crossNamespace := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1,
			PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "zone", NamespaceSelector: &metav1.LabelSelector{}}}}}}}}
	scope := func(name corev1.ResourceQuotaScope, op corev1.ScopeSelectorOperator, values ...string) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: name, Operator: op, Values: values}
	}
	for _, tc := range []struct {
		name string
		sel  corev1.ScopedResourceSelectorRequirement
		pod  *corev1.Pod
		want bool
	}{
		{"Terminating, no deadline", scope(corev1.ResourceQuotaScopeTerminating, corev1.ScopeSelectorOpExists), plain, false},
		{"Terminating", scope(corev1.ResourceQuotaScopeTerminating, corev1.ScopeSelectorOpExists), terminating, true},
		{"NotTerminating", scope(corev1.ResourceQuotaScopeNotTerminating, corev1.ScopeSelectorOpExists), plain, true},
		{"BestEffort", scope(corev1.ResourceQuotaScopeBestEffort, corev1.ScopeSelectorOpExists), plain, true},
		{"BestEffort, guaranteed", scope(corev1.ResourceQuotaScopeBestEffort, corev1.ScopeSelectorOpExists), guaranteed, false},
		{"NotBestEffort", scope(corev1.ResourceQuotaScopeNotBestEffort, corev1.ScopeSelectorOpExists), guaranteed, true},
		{"PriorityClass Exists", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpExists), high, true},
		{"PriorityClass Exists, no class", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpExists), plain, false},
		{"PriorityClass In", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpIn, "high"), high, true},
		{"PriorityClass In, other class", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpIn, "high"), low, false},
		{"PriorityClass In, no class", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpIn, "high"), plain, false},
		{"PriorityClass NotIn", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpNotIn, "high"), low, true},
		{"PriorityClass NotIn, no class", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpNotIn, "high"), plain, true},
		{"PriorityClass DoesNotExist, no class", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpDoesNotExist), plain, true},
		{"PriorityClass DoesNotExist", scope(corev1.ResourceQuotaScopePriorityClass, corev1.ScopeSelectorOpDoesNotExist), high, false},
		{"CrossNamespacePodAffinity", scope(corev1.ResourceQuotaScopeCrossNamespacePodAffinity, corev1.ScopeSelectorOpExists), crossNamespace, true},
		{"CrossNamespacePodAffinity, none", scope(corev1.ResourceQuotaScopeCrossNamespacePodAffinity, corev1.ScopeSelectorOpExists), plain, false},
	} {
		if got := podMatchesScopeFunc(tc.sel, tc.pod); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Upstream's TestPodEvaluatorConstraints: with cpu or memory quota'd every
// container says how much it needs.
func TestPodConstraints(t *testing.T) {
	e := NewPodEvaluator(nil, time.Now)
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: requirements(list("memory", "1Gi"), nil)}},
		Containers:     []corev1.Container{{Name: "b", Resources: requirements(list("cpu", "1"), nil)}, {Name: "a"}}}}
	err := e.Constraints([]corev1.ResourceName{"requests.cpu", "limits.memory", "requests.storage", "pods"}, pod)
	want := "must specify limits.memory for: a,b,init; requests.cpu for: a,init"
	if err == nil || err.Error() != want {
		t.Errorf("%v, want %q", err, want)
	}
	if err := e.Constraints([]corev1.ResourceName{"requests.ephemeral-storage", "pods"}, pod); err != nil {
		t.Errorf("no cpu or memory restricted: %v", err)
	}
}

func TestServiceUsageFunc(t *testing.T) {
	no := false
	ports := []corev1.ServicePort{{Port: 80}, {Port: 81, NodePort: 30081}}
	for _, tc := range []struct {
		name string
		spec corev1.ServiceSpec
		want corev1.ResourceList
	}{
		{"ClusterIP", corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports},
			list("count/services", "1", "services", "1", "services.loadbalancers", "0", "services.nodeports", "0")},
		{"NodePort", corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: ports},
			list("count/services", "1", "services", "1", "services.loadbalancers", "0", "services.nodeports", "2")},
		{"LoadBalancer", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports},
			list("count/services", "1", "services", "1", "services.loadbalancers", "1", "services.nodeports", "2")},
		{"LoadBalancer without node ports allocated", corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports, AllocateLoadBalancerNodePorts: &no},
			list("count/services", "1", "services", "1", "services.loadbalancers", "1", "services.nodeports", "1")},
	} {
		if got := ServiceUsageFunc(&corev1.Service{Spec: tc.spec}); !Equals(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPersistentVolumeClaimUsageFunc(t *testing.T) {
	gold, fast := "gold", "fast"
	claim := func(class *string, annotation string, request, allocated string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class}}
		if annotation != "" {
			pvc.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: annotation}
		}
		if request != "" {
			pvc.Spec.Resources.Requests = list("storage", request)
		}
		if allocated != "" {
			pvc.Status.AllocatedResources = list("storage", allocated)
		}
		return pvc
	}
	for _, tc := range []struct {
		name string
		pvc  *corev1.PersistentVolumeClaim
		want corev1.ResourceList
	}{
		{"no class", claim(nil, "", "10Gi", ""),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "10Gi")},
		{"class", claim(&gold, "", "10Gi", ""),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "10Gi",
				"gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1", "gold.storageclass.storage.k8s.io/requests.storage", "10Gi")},
		{"the beta annotation wins", claim(&gold, fast, "1Gi", ""),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "1Gi",
				"fast.storageclass.storage.k8s.io/persistentvolumeclaims", "1", "fast.storageclass.storage.k8s.io/requests.storage", "1Gi")},
		{"allocated larger than requested", claim(nil, "", "1Gi", "2Gi"),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "2Gi")},
		{"allocated smaller than requested", claim(nil, "", "2Gi", "1Gi"),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "2Gi")},
		{"no request: no storage", claim(nil, "", "", "2Gi"),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1")},
		{"rounded up to whole bytes", claim(nil, "", "1500m", ""),
			list("persistentvolumeclaims", "1", "count/persistentvolumeclaims", "1", "requests.storage", "2")},
	} {
		if got := PersistentVolumeClaimUsageFunc(tc.pvc); !Equals(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPersistentVolumeClaimScopes(t *testing.T) {
	silver := "silver"
	withClass := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeAttributesClassName: &silver}}
	without := &corev1.PersistentVolumeClaim{}
	vac := func(op corev1.ScopeSelectorOperator, values ...string) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopeVolumeAttributesClass, Operator: op, Values: values}
	}
	for _, tc := range []struct {
		name string
		sel  corev1.ScopedResourceSelectorRequirement
		pvc  *corev1.PersistentVolumeClaim
		want bool
	}{
		{"Exists", vac(corev1.ScopeSelectorOpExists), withClass, true},
		{"Exists, no class", vac(corev1.ScopeSelectorOpExists), without, false},
		{"In", vac(corev1.ScopeSelectorOpIn, "silver"), withClass, true},
		{"NotIn, no class", vac(corev1.ScopeSelectorOpNotIn, "silver"), without, true},
		{"DoesNotExist, no class", vac(corev1.ScopeSelectorOpDoesNotExist), without, true},
		{"a pod scope", corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopeBestEffort, Operator: corev1.ScopeSelectorOpExists}, without, false},
	} {
		if got := pvcMatchesScopeFunc(tc.sel, tc.pvc); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Matches: a quota matches an object whose evaluator computes one of its
// hard names, and only if the object matches every scope; no scope selects
// an object count.
func TestMatches(t *testing.T) {
	pods := NewPodEvaluator(nil, time.Now)
	configMaps := NewObjectCountEvaluator[corev1.ConfigMap]("configmaps", nil, corev1.ResourceConfigMaps)
	quotaOf := func(hard corev1.ResourceList, scopes ...corev1.ResourceQuotaScope) *corev1.ResourceQuota {
		return &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: hard, Scopes: scopes}, Status: corev1.ResourceQuotaStatus{Hard: hard}}
	}
	pod, cm := &corev1.Pod{}, &corev1.ConfigMap{}
	for _, tc := range []struct {
		name string
		e    Evaluator
		q    *corev1.ResourceQuota
		item any
		want bool
	}{
		{"pods quota, pod", pods, quotaOf(list("pods", "1")), pod, true},
		{"configmaps quota, pod", pods, quotaOf(list("configmaps", "1")), pod, false},
		{"BestEffort quota, best-effort pod", pods, quotaOf(list("pods", "1"), corev1.ResourceQuotaScopeBestEffort), pod, true},
		{"NotBestEffort quota, best-effort pod", pods, quotaOf(list("pods", "1"), corev1.ResourceQuotaScopeNotBestEffort), pod, false},
		{"configmaps quota, configmap", configMaps, quotaOf(list("configmaps", "1")), cm, true},
		{"count/configmaps quota, configmap", configMaps, quotaOf(list("count/configmaps", "1")), cm, true},
		{"scoped quota, configmap", configMaps, quotaOf(list("count/configmaps", "1"), corev1.ResourceQuotaScopeNotTerminating), cm, false},
	} {
		got, err := tc.e.Matches(tc.q, tc.item)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := pods.Usage(cm); err == nil || !strings.Contains(err.Error(), "expected *corev1.Pod") {
		t.Errorf("a ConfigMap measured as a pod: %v", err)
	}
}

// CalculateUsage sums the namespace's objects for the names of hard the
// evaluators compute, each name present; a list that fails is an error.
func TestCalculateUsage(t *testing.T) {
	pods := []*corev1.Pod{
		{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: requirements(list("cpu", "100m"), nil)}}}},
		{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: requirements(list("cpu", "200m"), nil)}}}},
		{Status: corev1.PodStatus{Phase: corev1.PodFailed}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: requirements(list("cpu", "1"), nil)}}}},
	}
	evaluators := NewEvaluators(Listers{
		Pods: func(ns string) ([]*corev1.Pod, error) { return pods, nil },
		ConfigMaps: func(ns string) ([]*corev1.ConfigMap, error) {
			return []*corev1.ConfigMap{{}, {}}, nil
		},
		Secrets: func(ns string) ([]*corev1.Secret, error) { return nil, errors.New("secrets not yet synced") },
	}, time.Now)
	// No list function (an admission evaluator): an error, the other
	// names measured.
	used, err := CalculateUsage("ns", nil, list("services", "3", "configmaps", "5"), evaluators, nil)
	if !errors.Is(err, errNoLister) || !Equals(used, list("configmaps", "2")) {
		t.Errorf("services without a list: used %v, err %v", used, err)
	}
	hard := list("pods", "10", "count/pods", "10", "requests.cpu", "4", "configmaps", "5")
	used, err = CalculateUsage("ns", nil, hard, evaluators, nil)
	if want := list("pods", "2", "count/pods", "3", "requests.cpu", "300m", "configmaps", "2"); err != nil || !Equals(used, want) {
		t.Errorf("used %v (%v), want %v", used, err, want)
	}
	used, err = CalculateUsage("ns", []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotBestEffort}, hard, evaluators, nil)
	if want := list("pods", "2", "count/pods", "3", "requests.cpu", "300m", "configmaps", "0"); err != nil || !Equals(used, want) {
		t.Errorf("scoped: used %v (%v), want %v", used, err, want)
	}
	used, err = CalculateUsage("ns", nil, list("secrets", "1", "pods", "5"), evaluators, nil)
	if err == nil || !Equals(used, list("pods", "2")) {
		t.Errorf("secrets not listed: used %v, err %v", used, err)
	}
}
