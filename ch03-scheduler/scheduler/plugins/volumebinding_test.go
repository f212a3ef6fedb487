package plugins

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// TestVolumeBinding: upstream's reasons for claims that are missing, going,
// lost or not bound yet (PreFilter), and for volumes a node cannot use
// (Filter).
func TestVolumeBinding(t *testing.T) {
	now := metav1.Now()
	str := func(s string) *string { return &s }
	wffc, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	claims := map[string]*corev1.PersistentVolumeClaim{}
	claim := func(name string, mutate func(*corev1.PersistentVolumeClaim)) {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		mutate(c)
		claims[name] = c
	}
	bound := func(pv string) func(*corev1.PersistentVolumeClaim) {
		return func(c *corev1.PersistentVolumeClaim) {
			c.Spec.VolumeName = pv
			c.Annotations = map[string]string{annBindCompleted: "yes"}
			c.Status.Phase = corev1.ClaimBound
		}
	}
	claim("unbound", func(*corev1.PersistentVolumeClaim) {})
	claim("unbound-immediate-class", func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = str("fast") })
	claim("unbound-wffc", func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = str("local") })
	claim("prebound", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeName = "pv-any" })
	claim("deleting", func(c *corev1.PersistentVolumeClaim) { bound("pv-any")(c); c.DeletionTimestamp = &now })
	claim("lost", func(c *corev1.PersistentVolumeClaim) {
		c.Spec.VolumeName = "pv-gone"
		c.Status.Phase = corev1.ClaimLost
	})
	claim("on-any", bound("pv-any"))
	claim("on-local", bound("pv-local-n1"))
	claim("on-missing", bound("pv-missing"))
	volumes := map[string]*corev1.PersistentVolume{
		"pv-any": {ObjectMeta: metav1.ObjectMeta{Name: "pv-any"}},
		"pv-local-n1": {ObjectMeta: metav1.ObjectMeta{Name: "pv-local-n1"}, Spec: corev1.PersistentVolumeSpec{
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: "In", Values: []string{"n1"}}}}}}}}},
	}
	classes := map[string]*storagev1.StorageClass{
		"fast":  {ObjectMeta: metav1.ObjectMeta{Name: "fast"}, VolumeBindingMode: &immediate},
		"local": {ObjectMeta: metav1.ObjectMeta{Name: "local"}, VolumeBindingMode: &wffc},
	}
	pl := VolumeBinding{Listers: &VolumeListers{
		Claim:        func(_, name string) (*corev1.PersistentVolumeClaim, bool) { c, ok := claims[name]; return c, ok },
		Volume:       func(name string) (*corev1.PersistentVolume, bool) { v, ok := volumes[name]; return v, ok },
		StorageClass: func(name string) (*storagev1.StorageClass, bool) { c, ok := classes[name]; return c, ok },
	}}
	n1 := framework.NewNodeInfo(node("n1", map[string]string{"kubernetes.io/hostname": "n1"}, "4", "8Gi"))
	n2 := framework.NewNodeInfo(node("n2", map[string]string{"kubernetes.io/hostname": "n2"}, "4", "8Gi"))

	for _, tc := range []struct {
		name         string
		volumes      []corev1.Volume
		preFilter    framework.Code
		preFilterMsg string
		onN1, onN2   string // Filter's message; "" passes
	}{
		{name: "no claims", volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			preFilter: framework.Skip},
		{name: "missing claim", volumes: pvcVolumes("nope"), preFilter: framework.UnschedulableAndUnresolvable,
			preFilterMsg: `persistentvolumeclaim "nope" not found`},
		{name: "ephemeral claim not created yet", volumes: []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}},
			preFilter: framework.UnschedulableAndUnresolvable, preFilterMsg: `waiting for ephemeral volume controller to create the persistentvolumeclaim "web-scratch"`},
		{name: "claim being deleted", volumes: pvcVolumes("deleting"), preFilter: framework.UnschedulableAndUnresolvable,
			preFilterMsg: `persistentvolumeclaim "deleting" is being deleted`},
		{name: "lost claim", volumes: pvcVolumes("lost"), preFilter: framework.UnschedulableAndUnresolvable,
			preFilterMsg: `persistentvolumeclaim "lost" bound to non-existent persistentvolume "pv-gone"`},
		{name: "unbound, no class", volumes: pvcVolumes("on-any", "unbound"), preFilter: framework.UnschedulableAndUnresolvable,
			preFilterMsg: "pod has unbound immediate PersistentVolumeClaims"},
		{name: "unbound, Immediate class", volumes: pvcVolumes("unbound-immediate-class"), preFilter: framework.UnschedulableAndUnresolvable,
			preFilterMsg: "pod has unbound immediate PersistentVolumeClaims"},
		{name: "prebound, binding not completed", volumes: pvcVolumes("prebound"), preFilter: framework.UnschedulableAndUnresolvable,
			preFilterMsg: "pod has unbound immediate PersistentVolumeClaims"},
		{name: "unbound, WaitForFirstConsumer: left alone", volumes: pvcVolumes("unbound-wffc"), preFilter: framework.Skip},
		{name: "bound, volume anywhere", volumes: pvcVolumes("on-any"), preFilter: framework.Success},
		{name: "bound, local volume on n1", volumes: pvcVolumes("on-any", "on-local"), preFilter: framework.Success,
			onN2: errReasonNodeConflict},
		{name: "bound to a volume not seen", volumes: pvcVolumes("on-missing", "on-local"), preFilter: framework.Success,
			onN1: errReasonPVNotExist, onN2: errReasonPVNotExist + ", " + errReasonNodeConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.PodSpec{Volumes: tc.volumes}}
			state := framework.NewCycleState()
			st := pl.PreFilter(t.Context(), state, pod, nil)
			if st.Code() != tc.preFilter || st.Message() != tc.preFilterMsg {
				t.Fatalf("PreFilter: %v %q, want %v %q", st.Code(), st.Message(), tc.preFilter, tc.preFilterMsg)
			}
			if !st.IsSuccess() {
				return
			}
			for _, c := range []struct {
				n    *framework.NodeInfo
				want string
			}{{n1, tc.onN1}, {n2, tc.onN2}} {
				st := pl.Filter(t.Context(), state, pod, c.n)
				if st.Message() != c.want || (c.want != "" && st.Code() != framework.UnschedulableAndUnresolvable) {
					t.Errorf("Filter on %s: %v %q, want %q", c.n.Name(), st.Code(), st.Message(), c.want)
				}
			}
		})
	}
}

func pvcVolumes(claims ...string) []corev1.Volume {
	var vols []corev1.Volume
	for _, c := range claims {
		vols = append(vols, corev1.Volume{Name: c, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
	}
	return vols
}
