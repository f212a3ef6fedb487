package ephemeral

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

func ephemeralPod(name string) *corev1.Pod {
	sc := "standard"
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"type": "scratch"}},
					Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						StorageClassName: &sc,
						Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}}}}}
}

func setup(t *testing.T) (*controllertest.Env, *Controller) {
	env := controllertest.New(t)
	ec, err := NewController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	go ec.recorder.Run(env.Ctx)
	env.Start(t)
	return env, ec
}

func createPod(t *testing.T, env *controllertest.Env, ec *Controller, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	created, err := rest.Create(env.Ctx, env.Admin, p)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "pod cached", func() bool { _, ok := ec.pods.GetStore().Get("default", p.Name); return ok })
	return created
}

// The claim <pod>-<volume> is made from the template, owned by the pod; a
// second sync finds it and writes nothing.
func TestCreatesClaim(t *testing.T) {
	env, ec := setup(t)
	pod := createPod(t, env, ec, ephemeralPod("web"))
	env.ClearActions()
	if err := ec.syncHandler(env.Ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t, "create persistentvolumeclaims default/web-scratch")
	pvc, err := rest.Get[corev1.PersistentVolumeClaim](env.Ctx, env.Admin, "default", "web-scratch")
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.GetControllerOf(&pvc.ObjectMeta)
	if ref == nil || ref.Kind != "Pod" || ref.Name != "web" || ref.UID != pod.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("owner %+v", pvc.OwnerReferences)
	}
	if pvc.Labels["type"] != "scratch" || pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName != "standard" {
		t.Errorf("claim %+v", pvc)
	}
	controllertest.Eventually(t, "claim cached", func() bool { _, ok := ec.pvcs.GetStore().Get("default", "web-scratch"); return ok })
	env.ClearActions()
	if err := ec.syncHandler(env.Ctx, "default/web"); err != nil {
		t.Fatal(err)
	}
	env.ExpectWrites(t)
}

// A claim of that name the pod does not own is not used: an error and a
// FailedBinding event.
func TestForeignClaim(t *testing.T) {
	env, ec := setup(t)
	foreign := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "db-scratch", Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if _, err := rest.Create(env.Ctx, env.Admin, foreign); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "claim cached", func() bool { _, ok := ec.pvcs.GetStore().Get("default", "db-scratch"); return ok })
	createPod(t, env, ec, ephemeralPod("db"))
	env.ClearActions()
	err := ec.syncHandler(env.Ctx, "default/db")
	if err == nil || err.Error() != "pod default/db, ephemeral volume scratch: PVC default/db-scratch was not created for pod default/db (pod is not owner)" {
		t.Fatalf("error %v", err)
	}
	env.ExpectWrites(t)
	controllertest.Eventually(t, "FailedBinding event", func() bool {
		list, err := rest.List[corev1.Event](env.Ctx, env.Admin, "default", rest.ListOptions{})
		if err != nil {
			return false
		}
		for _, e := range list.Items {
			if e.Reason == FailedBinding && e.Type == corev1.EventTypeWarning && e.Source.Component == EventSource &&
				e.Message == "ephemeral volume scratch: PVC default/db-scratch was not created for pod default/db (pod is not owner)" {
				return true
			}
		}
		return false
	})
}
