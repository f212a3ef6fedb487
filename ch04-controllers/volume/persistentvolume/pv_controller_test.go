package persistentvolume

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

type fakeRecorder struct {
	mu     sync.Mutex
	events []string
}

func (f *fakeRecorder) Eventf(ref corev1.ObjectReference, eventType, reason, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, ref.Kind+"/"+ref.Name+" "+eventType+" "+reason+" "+fmt.Sprintf(format, args...))
}

func (f *fakeRecorder) has(e string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.events, e)
}

func start(t *testing.T, env *controllertest.Env) *fakeRecorder {
	t.Helper()
	ctrl, err := NewController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	rec := &fakeRecorder{}
	ctrl.recorder, ctrl.runRecorder = rec, nil
	env.Start(t)
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { ctrl.Run(ctx, 1); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return rec
}

func pv(name, size, class string, policy corev1.PersistentVolumeReclaimPolicy, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
		PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data/" + name}},
		AccessModes:                   modes,
		StorageClassName:              class,
		PersistentVolumeReclaimPolicy: policy,
	}}
}

func pvc(name, size string, class *string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes:      modes,
		Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		StorageClassName: class,
	}}
}

func create[T any, PT rest.Object[T]](t *testing.T, env *controllertest.Env, obj *T) *T {
	t.Helper()
	out, err := rest.Create[T, PT](env.Ctx, env.Admin, obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func getPV(t *testing.T, env *controllertest.Env, name string) *corev1.PersistentVolume {
	t.Helper()
	v, err := rest.Get[corev1.PersistentVolume](env.Ctx, env.Admin, "", name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func getPVC(t *testing.T, env *controllertest.Env, name string) *corev1.PersistentVolumeClaim {
	t.Helper()
	c, err := rest.Get[corev1.PersistentVolumeClaim](env.Ctx, env.Admin, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const rwo = corev1.ReadWriteOnce

// A claim binds to the smallest Available volume of its class that fits;
// both sides carry the binding; deleting the claim releases (Retain) or
// deletes (Delete) the volume.
func TestBindAndReclaim(t *testing.T) {
	env := controllertest.New(t)
	manual := "manual"
	create(t, env, pv("big", "10Gi", "manual", corev1.PersistentVolumeReclaimRetain, rwo))
	create(t, env, pv("small", "2Gi", "manual", corev1.PersistentVolumeReclaimRetain, rwo, corev1.ReadOnlyMany))
	create(t, env, pv("tiny", "500Mi", "manual", corev1.PersistentVolumeReclaimRetain, rwo))
	create(t, env, pv("other-class", "1Gi", "fast", corev1.PersistentVolumeReclaimRetain, rwo))
	create(t, env, pv("rox-only", "1Gi", "manual", corev1.PersistentVolumeReclaimRetain, corev1.ReadOnlyMany))
	start(t, env)
	for _, name := range []string{"big", "small", "tiny", "other-class", "rox-only"} {
		controllertest.Eventually(t, name+" Available", func() bool { return getPV(t, env, name).Status.Phase == corev1.VolumeAvailable })
	}
	claim := create(t, env, pvc("data", "1Gi", &manual, rwo))

	controllertest.Eventually(t, "claim Bound", func() bool { return getPVC(t, env, "data").Status.Phase == corev1.ClaimBound })
	c := getPVC(t, env, "data")
	if c.Spec.VolumeName != "small" {
		t.Errorf("bound to %q, want small (the smallest that fits)", c.Spec.VolumeName)
	}
	if c.Annotations[annBindCompleted] != "yes" || c.Annotations[annBoundByController] != "yes" {
		t.Errorf("claim annotations %v", c.Annotations)
	}
	if q := c.Status.Capacity[corev1.ResourceStorage]; q.String() != "2Gi" || !slices.Equal(c.Status.AccessModes, []corev1.PersistentVolumeAccessMode{rwo, corev1.ReadOnlyMany}) {
		t.Errorf("claim status %+v, want the volume's capacity 2Gi and access modes", c.Status)
	}
	controllertest.Eventually(t, "volume Bound", func() bool { return getPV(t, env, "small").Status.Phase == corev1.VolumeBound })
	v := getPV(t, env, "small")
	if r := v.Spec.ClaimRef; r == nil || r.Name != "data" || r.Namespace != "default" || r.UID != claim.UID || r.Kind != "PersistentVolumeClaim" {
		t.Errorf("claimRef %+v", v.Spec.ClaimRef)
	}
	if v.Annotations[annBoundByController] != "yes" || v.Status.LastPhaseTransitionTime == nil {
		t.Errorf("volume annotations %v, lastPhaseTransitionTime %v", v.Annotations, v.Status.LastPhaseTransitionTime)
	}

	// Retain: the volume is Released and stays.
	if err := rest.Delete[corev1.PersistentVolumeClaim](env.Ctx, env.Admin, "default", "data", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "volume Released", func() bool { return getPV(t, env, "small").Status.Phase == corev1.VolumeReleased })

	// Delete: the volume object goes with the claim.
	create(t, env, pv("scratch", "1Gi", "", corev1.PersistentVolumeReclaimDelete, rwo))
	create(t, env, pvc("tmp", "1Gi", nil, rwo))
	controllertest.Eventually(t, "tmp Bound", func() bool { return getPVC(t, env, "tmp").Status.Phase == corev1.ClaimBound })
	if err := rest.Delete[corev1.PersistentVolumeClaim](env.Ctx, env.Admin, "default", "tmp", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "scratch volume deleted", func() bool {
		_, err := rest.Get[corev1.PersistentVolume](env.Ctx, env.Admin, "", "scratch")
		return rest.IsNotFound(err)
	})
}

// No volume fits: the claim stays Pending with upstream's event, and binds
// as soon as a fitting volume appears.
func TestNoMatchingVolume(t *testing.T) {
	env := controllertest.New(t)
	create(t, env, pv("small", "1Gi", "", corev1.PersistentVolumeReclaimRetain, rwo))
	rec := start(t, env)
	create(t, env, pvc("big", "5Gi", nil, rwo))
	controllertest.Eventually(t, "FailedBinding event", func() bool {
		return rec.has("PersistentVolumeClaim/big Normal FailedBinding no persistent volumes available for this claim and no storage class is set")
	})
	if c := getPVC(t, env, "big"); c.Status.Phase != corev1.ClaimPending || c.Spec.VolumeName != "" {
		t.Errorf("claim %+v, want Pending and unbound", c.Status)
	}
	gold := "gold"
	create(t, env, pvc("classy", "1Gi", &gold, rwo))
	controllertest.Eventually(t, "ProvisioningFailed event", func() bool {
		return rec.has(`PersistentVolumeClaim/classy Warning ProvisioningFailed storageclass.storage.k8s.io "gold" not found`)
	})

	create(t, env, pv("large", "8Gi", "", corev1.PersistentVolumeReclaimRetain, rwo))
	controllertest.Eventually(t, "claim bound to the new volume", func() bool { return getPVC(t, env, "big").Spec.VolumeName == "large" })
}

// A volume the user pre-bound to a claim (claimRef with no UID) goes to that
// claim only, without the bound-by-controller annotation on the volume.
func TestPreBoundVolume(t *testing.T) {
	env := controllertest.New(t)
	v := pv("reserved", "1Gi", "", corev1.PersistentVolumeReclaimRetain, rwo)
	v.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "mine"}
	create(t, env, v)
	start(t, env)
	create(t, env, pvc("someone-else", "1Gi", nil, rwo))
	create(t, env, pvc("mine", "1Gi", nil, rwo))
	controllertest.Eventually(t, "mine Bound", func() bool { return getPVC(t, env, "mine").Status.Phase == corev1.ClaimBound })
	if got := getPV(t, env, "reserved"); got.Annotations[annBoundByController] != "" {
		t.Errorf("pre-bound volume got %s", annBoundByController)
	}
	if c := getPVC(t, env, "someone-else"); c.Spec.VolumeName != "" {
		t.Errorf("someone-else bound to %q", c.Spec.VolumeName)
	}
}

func TestFindBestMatchForClaim(t *testing.T) {
	available := func(v *corev1.PersistentVolume) *corev1.PersistentVolume {
		v.Status.Phase = corev1.VolumeAvailable
		return v
	}
	fast := "fast"
	block := corev1.PersistentVolumeBlock
	withLabels := pv("labelled", "1Gi", "", corev1.PersistentVolumeReclaimRetain, rwo)
	withLabels.Labels = map[string]string{"tier": "gold"}
	blockPV := pv("block", "1Gi", "", corev1.PersistentVolumeReclaimRetain, rwo)
	blockPV.Spec.VolumeMode = &block
	pending := pv("pending", "1Gi", "", corev1.PersistentVolumeReclaimRetain, rwo) // not yet Available: skipped
	volumes := []*corev1.PersistentVolume{
		available(pv("a", "3Gi", "", corev1.PersistentVolumeReclaimRetain, rwo)),
		available(pv("b", "2Gi", "", corev1.PersistentVolumeReclaimRetain, rwo)),
		available(pv("c", "1Gi", "fast", corev1.PersistentVolumeReclaimRetain, rwo)),
		available(withLabels), available(blockPV), pending,
	}
	for _, tc := range []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		want  string
	}{
		{"smallest that fits", pvc("x", "1500Mi", nil, rwo), "b"},
		{"class", pvc("x", "1Gi", &fast, rwo), "c"},
		{"access mode missing", pvc("x", "1Gi", nil, corev1.ReadWriteMany), ""},
		{"too big", pvc("x", "4Gi", nil, rwo), ""},
		{"selector", func() *corev1.PersistentVolumeClaim {
			c := pvc("x", "1Gi", nil, rwo)
			c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}
			return c
		}(), "labelled"},
		{"block mode", func() *corev1.PersistentVolumeClaim {
			c := pvc("x", "1Gi", nil, rwo)
			c.Spec.VolumeMode = &block
			return c
		}(), "block"},
	} {
		got := findBestMatchForClaim(volumes, tc.claim)
		name := ""
		if got != nil {
			name = got.Name
		}
		if name != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, name, tc.want)
		}
	}
}
