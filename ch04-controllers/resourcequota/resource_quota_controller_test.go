package resourcequota

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/apiserver/quota"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/internal/controllertest"
)

func resources(cpu, memory string) corev1.ResourceList {
	out := corev1.ResourceList{}
	if cpu != "" {
		out[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		out[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return out
}

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// testPods are upstream's newTestPods (requests 100m and 1Gi: NotBestEffort)
// or newBestEffortTestPods: two running, one failed.
func testPods(bestEffort bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range []struct {
		name  string
		phase corev1.PodPhase
	}{{"pod-running", corev1.PodRunning}, {"pod-running-2", corev1.PodRunning}, {"pod-failed", corev1.PodFailed}} {
		c := corev1.Container{Name: "ctr", Image: "image"}
		if !bestEffort {
			c.Resources.Requests = resources("100m", "1Gi")
		}
		out = append(out, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{c}}, Status: corev1.PodStatus{Phase: p.phase}})
	}
	return out
}

type testEnv struct {
	*controllertest.Env
	c *Controller
}

func newTestEnv(t *testing.T) *testEnv {
	env := controllertest.New(t)
	c := newController(env.CC, Options{}, workqueue.NewFakeClock(time.Now()))
	env.Start(t)
	c.monitor.Run(env.Ctx)
	return &testEnv{env, c}
}

// namespace creates ns with pods (their phase set as a kubelet would).
func (e *testEnv) namespace(t *testing.T, ns string, pods []*corev1.Pod) {
	t.Helper()
	if _, err := rest.Create(e.Ctx, e.Admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		p = metav1.DeepCopy(p)
		p.Namespace = ns
		phase := p.Status.Phase
		created, err := rest.Create(e.Ctx, e.Admin, p)
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Phase = phase
		if _, err := rest.UpdateStatus(e.Ctx, e.Admin, created); err != nil {
			t.Fatal(err)
		}
	}
	e.cached(t, ns, len(pods))
}

// cached waits until the pod cache shows ns's n pods as the API has them.
func (e *testEnv) cached(t *testing.T, ns string, n int) {
	t.Helper()
	l, err := rest.List[corev1.Pod](e.Ctx, e.Admin, ns, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "pods cached", func() bool {
		got, _ := e.c.listPods(ns)
		if len(got) != n || len(l.Items) != n {
			return false
		}
		rv := map[string]string{}
		for _, p := range got {
			rv[p.Name] = p.ResourceVersion
		}
		for _, p := range l.Items {
			if rv[p.Name] != p.ResourceVersion {
				return false
			}
		}
		return true
	})
}

// sync creates the quota (or takes the existing one), waits for the
// cache, syncs it and returns its status.
func (e *testEnv) sync(t *testing.T, q *corev1.ResourceQuota) corev1.ResourceQuotaStatus {
	t.Helper()
	cur, err := rest.Get[corev1.ResourceQuota](e.Ctx, e.Admin, q.Namespace, q.Name)
	if rest.IsNotFound(err) {
		cur, err = rest.Create(e.Ctx, e.Admin, q)
	}
	if err != nil {
		t.Fatal(err)
	}
	var cached *corev1.ResourceQuota
	controllertest.Eventually(t, "quota cached", func() bool {
		var ok bool
		cached, ok = e.c.rqs.GetStore().Get(q.Namespace, q.Name)
		return ok && cached.ResourceVersion == cur.ResourceVersion
	})
	e.ClearActions()
	if err := e.c.syncResourceQuota(e.Ctx, cached); err != nil {
		t.Fatal(err)
	}
	cur, err = rest.Get[corev1.ResourceQuota](e.Ctx, e.Admin, q.Namespace, q.Name)
	if err != nil {
		t.Fatal(err)
	}
	return cur.Status
}

// Upstream's TestSyncResourceQuota cases that do not inject errors.
func TestSyncResourceQuota(t *testing.T) {
	e := newTestEnv(t)
	for i, tc := range []struct {
		name       string
		bestEffort bool
		spec       corev1.ResourceQuotaSpec
		wantUsed   corev1.ResourceList
	}{
		// (Upstream's case also names cpu and memory, which validation
		// refuses for a BestEffort quota.)
		{"non-matching-best-effort-scoped-quota", false,
			corev1.ResourceQuotaSpec{Hard: list("pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}},
			list("pods", "0")},
		{"matching-best-effort-scoped-quota", true,
			corev1.ResourceQuotaSpec{Hard: list("pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}},
			list("pods", "2")},
		{"non-matching-not-best-effort-scoped-quota", true,
			corev1.ResourceQuotaSpec{Hard: list("cpu", "3", "memory", "100Gi", "pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotBestEffort}},
			list("cpu", "0", "memory", "0", "pods", "0")},
		{"matching-not-best-effort-scoped-quota", false,
			corev1.ResourceQuotaSpec{Hard: list("cpu", "3", "memory", "100Gi", "pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotBestEffort}},
			list("cpu", "200m", "memory", "2Gi", "pods", "2")},
		{"quota-without-scopes", false,
			corev1.ResourceQuotaSpec{Hard: list("cpu", "3", "memory", "100Gi", "pods", "5", "count/pods", "10")},
			list("cpu", "200m", "memory", "2Gi", "pods", "2", "count/pods", "3")},
		{"terminating-scope-counts-no-pod-without-a-deadline", false,
			corev1.ResourceQuotaSpec{Hard: list("pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating}},
			list("pods", "0")},
		{"not-terminating-scope", false,
			corev1.ResourceQuotaSpec{Hard: list("pods", "5", "requests.cpu", "1"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating}},
			list("pods", "2", "requests.cpu", "200m")},
		{"scoped-quota-counts-no-other-kind", false,
			corev1.ResourceQuotaSpec{Hard: list("pods", "5", "count/configmaps", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating}},
			list("pods", "2", "count/configmaps", "0")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := fmt.Sprintf("testing-%d", i)
			e.namespace(t, ns, testPods(tc.bestEffort))
			st := e.sync(t, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "quota", Namespace: ns}, Spec: tc.spec})
			e.ExpectWrites(t, "update resourcequotas/status "+ns+"/quota")
			if !quota.Equals(st.Hard, tc.spec.Hard) || !quota.Equals(st.Used, tc.wantUsed) {
				t.Errorf("status hard %v used %v, want used %v", st.Hard, st.Used, tc.wantUsed)
			}
			// Nothing changed: nothing written.
			e.sync(t, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "quota", Namespace: ns}})
			e.ExpectWrites(t)
		})
	}
}

func TestPriorityClassScopeSelector(t *testing.T) {
	e := newTestEnv(t)
	if _, err := rest.Create(e.Ctx, e.Admin, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}); err != nil {
		t.Fatal(err)
	}
	pods := testPods(false)
	pods[0].Spec.PriorityClassName = "high"
	e.namespace(t, "prio", pods)
	for _, tc := range []struct {
		name     string
		op       corev1.ScopeSelectorOperator
		values   []string
		wantPods string
	}{
		{"in", corev1.ScopeSelectorOpIn, []string{"high"}, "1"},
		{"not-in", corev1.ScopeSelectorOpNotIn, []string{"high"}, "1"}, // pod-running-2: no class
		{"exists", corev1.ScopeSelectorOpExists, nil, "1"},
		{"does-not-exist", corev1.ScopeSelectorOpDoesNotExist, nil, "1"}, // pod-running-2: no class
	} {
		q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: tc.name, Namespace: "prio"},
			Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "10"), ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
				{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: tc.op, Values: tc.values}}}}}
		if st := e.sync(t, q); !quota.Equals(st.Used, list("pods", tc.wantPods)) {
			t.Errorf("%s: used %v, want pods=%s", tc.name, st.Used, tc.wantPods)
		}
	}
}

// The object counts: the core kinds known from the start, and
// count/deployments.apps found through discovery.
func TestObjectCounts(t *testing.T) {
	e := newTestEnv(t)
	e.namespace(t, "counts", nil)
	ctx := e.Ctx
	for _, name := range []string{"a", "b"} {
		if _, err := rest.Create(ctx, e.Admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "counts"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rest.Create(ctx, e.Admin, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "counts"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.Create(ctx, e.Admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "np", Namespace: "counts"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"a": "b"}, Ports: []corev1.ServicePort{{Name: "a", Port: 80}, {Name: "b", Port: 81}}}}); err != nil {
		t.Fatal(err)
	}
	class := "fast"
	if _, err := rest.Create(ctx, e.Admin, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "counts"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: list("storage", "1Gi")}}}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	if _, err := rest.Create(ctx, e.Admin, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "counts"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}); err != nil {
		t.Fatal(err)
	}
	hard := list("configmaps", "10", "count/configmaps", "10", "count/secrets", "10", "services", "10", "services.nodeports", "10",
		"services.loadbalancers", "1", "persistentvolumeclaims", "5", "requests.storage", "10Gi", "fast.storageclass.storage.k8s.io/requests.storage", "5Gi",
		"count/deployments.apps", "3", "count/resourcequotas", "2")
	want := list("configmaps", "2", "count/configmaps", "2", "count/secrets", "1", "services", "1", "services.nodeports", "2",
		"services.loadbalancers", "0", "persistentvolumeclaims", "1", "requests.storage", "1Gi", "fast.storageclass.storage.k8s.io/requests.storage", "1Gi",
		"count/deployments.apps", "1", "count/resourcequotas", "1")
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "objects", Namespace: "counts"}, Spec: corev1.ResourceQuotaSpec{Hard: hard}}
	var st corev1.ResourceQuotaStatus
	controllertest.Eventually(t, "every count measured", func() bool {
		cur, err := rest.Get[corev1.ResourceQuota](ctx, e.Admin, "counts", "objects")
		if rest.IsNotFound(err) {
			cur, err = rest.Create(ctx, e.Admin, q)
		}
		if err != nil {
			return false
		}
		cached, ok := e.c.rqs.GetStore().Get("counts", "objects")
		if !ok || cached.ResourceVersion != cur.ResourceVersion {
			return false
		}
		// The first syncs wait for the caches (and the new deployments informer).
		if err := e.c.syncResourceQuota(ctx, cached); err != nil {
			return false
		}
		cur, _ = rest.Get[corev1.ResourceQuota](ctx, e.Admin, "counts", "objects")
		st = cur.Status
		return quota.Equals(st.Used, want)
	})
	if !quota.Equals(st.Hard, hard) {
		t.Errorf("hard %v", st.Hard)
	}
}

// Replenishment: running, the controller follows the pods of the
// namespace — a pod deleted gives its share back.
func TestReplenishment(t *testing.T) {
	e := newTestEnv(t)
	e.namespace(t, "replenish", testPods(false))
	ctx, cancel := context.WithCancel(e.Ctx)
	defer cancel()
	go e.c.Run(ctx, 1)
	if _, err := rest.Create(e.Ctx, e.Admin, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "replenish"},
		Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "5", "requests.memory", "10Gi")}}); err != nil {
		t.Fatal(err)
	}
	used := func(want corev1.ResourceList) {
		t.Helper()
		controllertest.Eventually(t, fmt.Sprintf("used %v", want), func() bool {
			q, err := rest.Get[corev1.ResourceQuota](e.Ctx, e.Admin, "replenish", "q")
			return err == nil && quota.Equals(q.Status.Used, want)
		})
	}
	used(list("pods", "2", "requests.memory", "2Gi"))
	if err := rest.Delete[corev1.Pod](e.Ctx, e.Admin, "replenish", "pod-running", &metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	used(list("pods", "1", "requests.memory", "1Gi"))
}
