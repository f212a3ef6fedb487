package controller

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

func TestExpectations(t *testing.T) {
	e := NewControllerExpectations()
	now := time.Now()
	e.now = func() time.Time { return now }
	const key = "default/web"
	if !e.SatisfiedExpectations(key) {
		t.Fatal("no expectations set: must be satisfied")
	}
	e.ExpectCreations(key, 3)
	for i := range 3 {
		if e.SatisfiedExpectations(key) {
			t.Fatalf("satisfied after %d of 3 creations observed", i)
		}
		e.CreationObserved(key)
	}
	if !e.SatisfiedExpectations(key) {
		t.Fatal("not satisfied after all 3 creations observed")
	}

	// A creation never observed: satisfied once ExpectationsTimeout passed.
	e.ExpectCreations(key, 1)
	now = now.Add(ExpectationsTimeout - time.Second)
	if e.SatisfiedExpectations(key) {
		t.Fatal("satisfied before the timeout")
	}
	now = now.Add(2 * time.Second)
	if !e.SatisfiedExpectations(key) {
		t.Fatal("not satisfied after the 5-minute timeout")
	}

	// Deletions are counted once per pod key, however often observed.
	u := NewUIDTrackingControllerExpectations(NewControllerExpectations())
	u.ExpectDeletions(key, []string{"default/a", "default/b"})
	u.DeletionObserved(key, "default/a")
	u.DeletionObserved(key, "default/a") // the update with deletionTimestamp, then the delete
	if u.SatisfiedExpectations(key) {
		t.Fatal("satisfied with default/b still expected")
	}
	u.DeletionObserved(key, "default/b")
	if !u.SatisfiedExpectations(key) {
		t.Fatal("not satisfied after both deletions")
	}
	u.DeleteExpectations(key)
	if _, ok := u.GetExpectations(key); ok {
		t.Fatal("expectations left after DeleteExpectations")
	}
}

// pod builds a pod for the ranking tests.
func pod(name, node string, phase corev1.PodPhase, ready bool, readyFor, age time.Duration, restarts int32, now time.Time) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: name, CreationTimestamp: metav1.NewTime(now.Add(-age))},
		Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: phase}}
	if ready {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now.Add(-readyFor))}}
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: restarts}}
	return p
}

// TestActivePodsWithRanks: pods listed in the order a ReplicaSet deletes
// them (upstream's rules, TestSortingActivePodsWithRanks); any shuffle
// sorts back to it.
func TestActivePodsWithRanks(t *testing.T) {
	now := time.Now()
	h := time.Hour
	want := []*corev1.Pod{
		pod("unscheduled", "", corev1.PodPending, false, 0, h, 0, now),
		pod("pending", "n1", corev1.PodPending, false, 0, h, 0, now),
		pod("unknown", "n1", corev1.PodUnknown, false, 0, h, 0, now),
		pod("running-not-ready", "n1", corev1.PodRunning, false, 0, h, 0, now),
		pod("cheap", "n1", corev1.PodRunning, true, h, h, 0, now),
		pod("doubled-up", "n2", corev1.PodRunning, true, h, h, 0, now),
		pod("ready-1m", "n3", corev1.PodRunning, true, time.Minute, h, 0, now),
		pod("ready-1h-restarted", "n3", corev1.PodRunning, true, h, h, 5, now),
		pod("ready-1h-young", "n3", corev1.PodRunning, true, h, 2*h, 0, now),
		pod("ready-1h-old", "n3", corev1.PodRunning, true, h, 100*h, 0, now),
	}
	want[4].Annotations = map[string]string{PodDeletionCost: "-10"}
	rank := map[string]int{"doubled-up": 2}
	for range 20 {
		pods := append([]*corev1.Pod(nil), want...)
		rand.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
		ranks := make([]int, len(pods))
		for i, p := range pods {
			ranks[i] = rank[p.Name]
		}
		sort.Sort(ActivePodsWithRanks{Pods: pods, Rank: ranks, Now: metav1.NewTime(now)})
		if got, w := names(pods), names(want); got != w {
			t.Fatalf("deletion order\n got: %s\nwant: %s", got, w)
		}
	}
}

func names(pods []*corev1.Pod) string {
	var s []string
	for _, p := range pods {
		s = append(s, p.Name)
	}
	return strings.Join(s, " ")
}

// TestLogarithmicScaleDown: pods ready for 10 and 12 minutes are in the
// same power-of-two bucket: the UID decides, not the exact time.
func TestLogarithmicScaleDown(t *testing.T) {
	now := time.Now()
	a := pod("b-uid", "n", corev1.PodRunning, true, 10*time.Minute, time.Hour, 0, now)
	b := pod("a-uid", "n", corev1.PodRunning, true, 12*time.Minute, time.Hour, 0, now)
	s := ActivePodsWithRanks{Pods: []*corev1.Pod{a, b}, Rank: []int{0, 0}, Now: metav1.NewTime(now)}
	if s.Less(0, 1) || !s.Less(1, 0) {
		t.Error("same age bucket: the lower UID must go first")
	}
	// Without Now (ActivePods) the newer ready time goes first.
	if !(ActivePods{a, b}).Less(0, 1) {
		t.Error("ActivePods: the pod ready for less time must go first")
	}
}

func TestGetPodFromTemplate(t *testing.T) {
	tmpl := &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"},
			Finalizers: []string{"example.com/f"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
	}
	owner := &metav1.ObjectMeta{Name: "web-abc", Namespace: "default", UID: "uid-1"}
	ref := NewControllerRef(owner, "apps/v1", "ReplicaSet")
	p, err := GetPodFromTemplate(tmpl, owner, &ref)
	if err != nil {
		t.Fatal(err)
	}
	if p.GenerateName != "web-abc-" || p.Namespace != "default" || p.Labels["app"] != "web" || p.Annotations["a"] != "b" ||
		len(p.Finalizers) != 1 || p.Spec.Containers[0].Image != "nginx" {
		t.Errorf("pod: %+v", p.ObjectMeta)
	}
	if len(p.OwnerReferences) != 1 {
		t.Fatalf("ownerReferences: %+v", p.OwnerReferences)
	}
	r := p.OwnerReferences[0]
	if r.APIVersion != "apps/v1" || r.Kind != "ReplicaSet" || r.Name != "web-abc" || r.UID != "uid-1" ||
		r.Controller == nil || !*r.Controller || r.BlockOwnerDeletion == nil || !*r.BlockOwnerDeletion {
		t.Errorf("ownerReference: %+v", r)
	}
	p.Labels["app"] = "changed"
	if tmpl.Labels["app"] != "web" {
		t.Error("the pod shares its labels map with the template")
	}
	if _, err := GetPodFromTemplate(&corev1.PodTemplateSpec{}, owner, &ref); err == nil {
		t.Error("a template without labels must be refused")
	}
}

func TestComputeHash(t *testing.T) {
	tmpl := func(labels map[string]string, image string) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}}}
	}
	a := ComputeHash(tmpl(map[string]string{"app": "web", "tier": "front"}, "nginx"), nil)
	// The same template built again (maps iterate in another order): the same hash.
	for range 10 {
		if b := ComputeHash(tmpl(map[string]string{"tier": "front", "app": "web"}, "nginx"), nil); b != a {
			t.Fatalf("unstable hash: %s then %s", a, b)
		}
	}
	// A golden value: the encoding must not change between versions, or every
	// Deployment would roll out again after an upgrade.
	if a != "5457d867cc" {
		t.Errorf("ComputeHash changed: %s", a)
	}
	if b := ComputeHash(tmpl(map[string]string{"app": "web", "tier": "front"}, "nginx:1.27"), nil); b == a {
		t.Error("a different image gave the same hash")
	}
	one := int32(1)
	if b := ComputeHash(tmpl(map[string]string{"app": "web", "tier": "front"}, "nginx"), &one); b == a {
		t.Error("collisionCount did not change the hash")
	}
	for _, c := range a {
		if !strings.ContainsRune(alphanums, c) {
			t.Errorf("hash %q has %q, not in rand.SafeEncodeString's alphabet", a, c)
		}
	}
}

func TestSafeEncodeString(t *testing.T) {
	// Upstream apimachinery's rand.SafeEncodeString maps "0".."9" (bytes
	// 48..57) to alphanums[48%27..57%27].
	if got := SafeEncodeString("0123456789"); got != "456789bcdf" {
		t.Errorf("SafeEncodeString: %s", got)
	}
}
