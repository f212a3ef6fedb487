package vacprotection

import (
	"context"
	"slices"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

func vac(name string) *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		DriverName: "csi.example.com", Parameters: map[string]string{"iops": "3000"}}
}

func pvc(name string, vacName *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes:               []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:                 corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		VolumeAttributesClassName: vacName,
	}}
}

func pv(name, vacName string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		Capacity:                  corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		PersistentVolumeSource:    corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: name}},
		AccessModes:               []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		VolumeAttributesClassName: &vacName,
	}}
}

// must(f())(t) is f's value, or the test fails with its error.
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// Upstream's table (vac_protection_controller_test.go): which classes keep
// the finalizer, which lose it, which get it.
func TestProcessVAC(t *testing.T) {
	env := controllertest.New(t)
	c := must(NewVACProtectionController(env.CC))(t)
	env.Start(t)
	ctx, admin := env.Ctx, env.Admin
	inCache := func(what string, f func() bool) { controllertest.Eventually(t, what, f) }
	cached := func(name string) *storagev1.VolumeAttributesClass {
		v, _ := c.vacInformer.GetStore().Get("", name)
		return v
	}
	deleteVAC := func(name string) {
		if err := rest.Delete[storagev1.VolumeAttributesClass](ctx, admin, "", name, nil); err != nil {
			t.Fatal(err)
		}
		inCache(name+" deleting", func() bool { v := cached(name); return v != nil && v.DeletionTimestamp != nil })
	}
	ptr := func(s string) *string { return &s }

	for _, tc := range []struct {
		name  string
		setup func(vacName string) // after the class exists
		// deleted: the class is being deleted when processVAC runs.
		deleted   bool
		wantWrite bool
		wantGone  bool
	}{
		{name: "vac-without-finalizer-gets-it", setup: func(n string) {
			v := *cached(n) // a copy: the cache's objects are read-only
			v.Finalizers = nil
			must(rest.Update(ctx, admin, &v))(t)
			inCache(n+" without finalizer", func() bool { return len(cached(n).Finalizers) == 0 })
		}, wantWrite: true},
		{name: "vac-with-finalizer-unchanged", wantWrite: false},
		{name: "deleted-vac-unused-loses-finalizer", deleted: true, wantWrite: true, wantGone: true},
		{name: "deleted-vac-used-by-pvc-spec", setup: func(n string) {
			p := must(rest.Create(ctx, admin, pvc(n, ptr(n))))(t)
			inCache(n+" pvc", func() bool { return len(c.pvcInformer.GetStore().ByIndex(vacNameKeyIndex, p.Name)) == 1 })
		}, deleted: true},
		{name: "deleted-vac-used-by-pvc-status-current", setup: func(n string) {
			p := must(rest.Create(ctx, admin, pvc(n, nil)))(t)
			p.Status.CurrentVolumeAttributesClassName = ptr(n)
			must(rest.UpdateStatus(ctx, admin, p))(t)
			inCache(n+" pvc", func() bool { return len(c.pvcInformer.GetStore().ByIndex(vacNameKeyIndex, n)) == 1 })
		}, deleted: true},
		{name: "deleted-vac-used-by-pvc-status-target", setup: func(n string) {
			p := must(rest.Create(ctx, admin, pvc(n, nil)))(t)
			p.Status.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: n, Status: corev1.PersistentVolumeClaimModifyVolumeInProgress}
			must(rest.UpdateStatus(ctx, admin, p))(t)
			inCache(n+" pvc", func() bool { return len(c.pvcInformer.GetStore().ByIndex(vacNameKeyIndex, n)) == 1 })
		}, deleted: true},
		{name: "deleted-vac-used-by-pv", setup: func(n string) {
			must(rest.Create(ctx, admin, pv(n, n)))(t)
			inCache(n+" pv", func() bool { return len(c.pvInformer.GetStore().ByIndex(vacNameKeyIndex, n)) == 1 })
		}, deleted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.name
			created := must(rest.Create(ctx, admin, vac(n)))(t)
			if !slices.Equal(created.Finalizers, []string{storagev1.VACProtectionFinalizer}) {
				t.Fatalf("the apiserver gave the class finalizers %v", created.Finalizers)
			}
			inCache(n, func() bool { return cached(n) != nil })
			if tc.setup != nil {
				tc.setup(n)
			}
			if tc.deleted {
				deleteVAC(n)
			}
			env.ClearActions()
			if err := c.processVAC(ctx, n); err != nil {
				t.Fatal(err)
			}
			if tc.wantWrite {
				env.ExpectWrites(t, "update volumeattributesclasses "+n)
			} else {
				env.ExpectWrites(t)
			}
			_, err := rest.Get[storagev1.VolumeAttributesClass](ctx, admin, "", n)
			if gone := rest.IsNotFound(err); gone != tc.wantGone {
				t.Errorf("class gone = %v (err %v), want %v", gone, err, tc.wantGone)
			}
		})
	}
}

func TestGetPVCReferencedVACNames(t *testing.T) {
	a, b := "a", "b"
	p := pvc("x", &a)
	p.Status.CurrentVolumeAttributesClassName = &a
	p.Status.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: b}
	if got := getPVCReferencedVACNames(p); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("got %v, want [a b]", got)
	}
	if got := getPVCReferencedVACNames(pvc("y", nil)); len(got) != 0 {
		t.Errorf("got %v, want none", got)
	}
}

// Run end to end: a class in use is kept until its last claim goes.
func TestControllerReleasesWhenClaimGoes(t *testing.T) {
	env := controllertest.New(t)
	c := must(NewVACProtectionController(env.CC))(t)
	env.Start(t)
	ctx, admin := env.Ctx, env.Admin
	done := make(chan struct{})
	runCtx, cancel := context.WithCancel(ctx)
	go func() { c.Run(runCtx, 1); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	name := "gold"
	must(rest.Create(ctx, admin, vac(name)))(t)
	must(rest.Create(ctx, admin, pvc("data", &name)))(t)
	controllertest.Eventually(t, "claim in cache", func() bool {
		return len(c.pvcInformer.GetStore().ByIndex(vacNameKeyIndex, name)) == 1
	})
	if err := rest.Delete[storagev1.VolumeAttributesClass](ctx, admin, "", name, nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the class being deleted, finalizer kept", func() bool {
		v, err := rest.Get[storagev1.VolumeAttributesClass](ctx, admin, "", name)
		return err == nil && v.DeletionTimestamp != nil && slices.Contains(v.Finalizers, storagev1.VACProtectionFinalizer)
	})
	if err := rest.Delete[corev1.PersistentVolumeClaim](ctx, admin, "default", "data", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the class deleted", func() bool {
		_, err := rest.Get[storagev1.VolumeAttributesClass](ctx, admin, "", name)
		return rest.IsNotFound(err)
	})
}
