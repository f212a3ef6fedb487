package job

import (
	"slices"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// TestAdoptionAndRelease: a Job with a manual selector adopts a matching
// orphan (ownerReference and tracking finalizer added, one pod fewer
// created) and releases a pod relabelled out of its selector (both
// removed), as upstream's PodControllerRefManager.
func TestAdoptionAndRelease(t *testing.T) {
	f := setup(t)
	_, err := rest.Create(f.Ctx, f.Admin, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "default", Labels: map[string]string{"app": "batch"}},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "orphan in cache", func() bool { _, ok := f.c.pods.GetStore().Get("default", "orphan"); return ok })
	manual := true
	j := newJob("batch", 2, 2, 6)
	j.Spec.ManualSelector = &manual
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "batch"}}
	j.Spec.Template.Labels = map[string]string{"app": "batch"}
	j = f.create(t, j)

	got := f.sync(t, "batch")
	f.ExpectWrites(t, "patch pods default/orphan", "create pods default", statusUpdate("batch"))
	adopted, _ := rest.Get[corev1.Pod](f.Ctx, f.Admin, "default", "orphan")
	ref := metav1.GetControllerOf(&adopted.ObjectMeta)
	if ref == nil || ref.UID != j.UID || ref.Kind != "Job" || !slices.Contains(adopted.Finalizers, batchv1.JobTrackingFinalizer) {
		t.Fatalf("adopted pod: owners %+v, finalizers %v", adopted.OwnerReferences, adopted.Finalizers)
	}
	if got.Status.Active != 2 {
		t.Errorf("active %d, want 2 (the orphan and one new pod)", got.Status.Active)
	}

	patch := []byte(`{"metadata":{"labels":{"app":"other"}}}`)
	if _, err := rest.Patch[corev1.Pod](f.Ctx, f.Admin, "default", "orphan", rest.MergePatchType, patch, ""); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "relabelled pod in cache", func() bool {
		p, _ := f.c.pods.GetStore().Get("default", "orphan")
		return p.Labels["app"] == "other"
	})
	f.sync(t, "batch")
	var writes []string
	for _, a := range f.Actions.Writes() {
		writes = append(writes, a.String())
	}
	if !slices.Contains(writes, "patch pods default/orphan") || !slices.Contains(writes, "create pods default") {
		t.Errorf("writes %s: want the release of orphan and a replacement", strings.Join(writes, "; "))
	}
	released, _ := rest.Get[corev1.Pod](f.Ctx, f.Admin, "default", "orphan")
	if len(released.OwnerReferences) != 0 || slices.Contains(released.Finalizers, batchv1.JobTrackingFinalizer) {
		t.Errorf("released pod: owners %+v, finalizers %v", released.OwnerReferences, released.Finalizers)
	}
}
