package servicecidrs

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/app"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

// The walk of the Kubernetes task "Extend Service IP Ranges": a range
// that is full, a ServiceCIDR added to extend it, then deleted while
// Services still hold addresses of it, and gone once they are deleted.
func TestExtendServiceIPRange(t *testing.T) {
	// 10.96.0.0/29: addresses .1 to .6, .1 the kubernetes Service's.
	env := controllertest.NewWithOptions(t, func(o *app.Options) { o.ServiceClusterIPRange = "10.96.0.0/29" })
	c, err := NewController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c.now = func() time.Time { return now }
	env.Start(t)

	service := func(name, clusterIP string) (*corev1.Service, error) {
		return rest.Create(env.Ctx, env.Admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.ServiceSpec{ClusterIP: clusterIP, Ports: []corev1.ServicePort{{Port: 80}}}})
	}
	for _, name := range []string{"test-1", "test-2", "test-3", "test-4", "test-5"} {
		if _, err := service(name, ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err = service("test-6", "")
	if st := statusOf(err); st == nil || st.Code != 500 || st.Message != "Internal error occurred: failed to allocate a serviceIP: range is full" {
		t.Fatalf("a Service beyond the range: %v", err)
	}

	// A ServiceCIDR extends it: the controller protects it and sets it Ready.
	if _, err := rest.Create(env.Ctx, env.Admin, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "newcidr1"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/24"}}}); err != nil {
		t.Fatal(err)
	}
	sync := func(want ...string) time.Duration {
		t.Helper()
		env.ClearActions()
		requeue, err := c.sync(env.Ctx, "newcidr1")
		if err != nil {
			t.Fatal(err)
		}
		env.ExpectWrites(t, want...)
		return requeue
	}
	cached := func(what string, f func(*networkingv1.ServiceCIDR) bool) {
		t.Helper()
		controllertest.Eventually(t, what, func() bool {
			sc, ok := c.serviceCIDRs.GetStore().Get("", "newcidr1")
			return ok && f(sc)
		})
	}
	cached("the new ServiceCIDR cached", func(*networkingv1.ServiceCIDR) bool { return true })
	sync("patch servicecidrs newcidr1", "patch servicecidrs/status newcidr1")
	sc, err := rest.Get[networkingv1.ServiceCIDR](env.Ctx, env.Admin, "", "newcidr1")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sc.Finalizers, ","); got != ServiceCIDRProtectionFinalizer {
		t.Errorf("finalizers %q", got)
	}
	expectReady(t, sc, metav1.Condition{Type: "Ready", Status: "True", Message: "Kubernetes Service CIDR is ready", LastTransitionTime: metav1.NewTime(now)})
	cached("the ready ServiceCIDR cached", func(sc *networkingv1.ServiceCIDR) bool { return len(sc.Status.Conditions) == 1 })
	sync() // nothing more to do

	// New Services get addresses of the new range.
	var extended []string
	for _, name := range []string{"test-6", "test-7", "test-8"} {
		s, err := service(name, "")
		if err != nil {
			t.Fatal(err)
		}
		if ip, err := netip.ParseAddr(s.Spec.ClusterIP); err != nil || !netip.MustParsePrefix("10.96.0.0/24").Contains(ip) ||
			netip.MustParsePrefix("10.96.0.0/29").Contains(ip) {
			t.Errorf("%s: ClusterIP %s, want one of 10.96.0.8-254", name, s.Spec.ClusterIP)
		}
		extended = append(extended, name)
	}

	// Deleted while those Services hold its addresses: it stays, not Ready.
	if err := rest.Delete[networkingv1.ServiceCIDR](env.Ctx, env.Admin, "", "newcidr1", nil); err != nil {
		t.Fatal(err)
	}
	cached("the deletion cached", func(sc *networkingv1.ServiceCIDR) bool { return sc.DeletionTimestamp != nil })
	controllertest.Eventually(t, "the addresses cached", func() bool { return len(c.ipAddresses.GetStore().List()) == 9 })
	sync("patch servicecidrs/status newcidr1")
	sc, err = rest.Get[networkingv1.ServiceCIDR](env.Ctx, env.Admin, "", "newcidr1")
	if err != nil {
		t.Fatal(err)
	}
	expectReady(t, sc, metav1.Condition{Type: "Ready", Status: "False", Reason: "Terminating",
		Message:            "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR",
		LastTransitionTime: metav1.NewTime(now)})
	// The apiserver no longer allocates from a ServiceCIDR being deleted.
	_, err = service("test-9", "10.96.0.200")
	if st := statusOf(err); st == nil || st.Message != `Service "test-9" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.200"]: failed to allocate IP 10.96.0.200: the provided network does not match the current range` {
		t.Errorf("a ClusterIP of the range being deleted: %v", err)
	}

	// The Services go: the finalizer goes once the grace period has passed.
	for _, name := range extended {
		if err := rest.Delete[corev1.Service](env.Ctx, env.Admin, "default", name, nil); err != nil {
			t.Fatal(err)
		}
	}
	controllertest.Eventually(t, "the addresses released", func() bool { return len(c.ipAddresses.GetStore().List()) == 6 })
	cached("the Terminating condition cached", func(sc *networkingv1.ServiceCIDR) bool {
		return len(sc.Status.Conditions) == 1 && sc.Status.Conditions[0].Status == "False"
	})
	now = sc.DeletionTimestamp.Add(DeletionGracePeriod - 3*time.Second)
	if requeue := sync(); requeue != 3*time.Second {
		t.Errorf("within the grace period: requeue after %v, want 3s", requeue)
	}
	now = sc.DeletionTimestamp.Add(DeletionGracePeriod)
	sync("patch servicecidrs newcidr1")
	if _, err := rest.Get[networkingv1.ServiceCIDR](env.Ctx, env.Admin, "", "newcidr1"); !rest.IsNotFound(err) {
		t.Errorf("after the finalizer: %v", err)
	}
}

// statusOf is the Status of a failed request (nil for another error).
func statusOf(err error) *metav1.Status {
	var st *rest.StatusError
	if !errors.As(err, &st) {
		return nil
	}
	return &st.ErrStatus
}

// expectReady: sc's only condition is want.
func expectReady(t *testing.T, sc *networkingv1.ServiceCIDR, want metav1.Condition) {
	t.Helper()
	if len(sc.Status.Conditions) != 1 {
		t.Fatalf("conditions %+v, want %+v", sc.Status.Conditions, want)
	}
	got := sc.Status.Conditions[0]
	if got.Type != want.Type || got.Status != want.Status || got.Reason != want.Reason || got.Message != want.Message ||
		!got.LastTransitionTime.Equal(want.LastTransitionTime.Time) {
		t.Errorf("condition %+v, want %+v", got, want)
	}
}

// A ServiceCIDR inside another may go at once, though an address is in
// it: the outer one still holds the address.
func TestDeleteContainedServiceCIDR(t *testing.T) {
	env := controllertest.New(t)
	c, err := NewController(env.CC)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(t)
	for name, cidr := range map[string]string{"outer": "10.250.0.0/24", "inner": "10.250.0.0/28"} {
		if _, err := rest.Create(env.Ctx, env.Admin, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name,
			Finalizers: []string{ServiceCIDRProtectionFinalizer}}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{cidr}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rest.Create(env.Ctx, env.Admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "pinned", Namespace: "default"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.250.0.5", Ports: []corev1.ServicePort{{Port: 80}}}}); err != nil {
		t.Fatal(err)
	}
	if err := rest.Delete[networkingv1.ServiceCIDR](env.Ctx, env.Admin, "", "inner", nil); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "the deletion and the address cached", func() bool {
		inner, ok := c.serviceCIDRs.GetStore().Get("", "inner")
		_, cached := c.ipAddresses.GetStore().Get("", "10.250.0.5")
		return ok && cached && inner.DeletionTimestamp != nil
	})
	env.ClearActions()
	requeue, err := c.sync(env.Ctx, "inner")
	if err != nil || requeue <= 0 || requeue > DeletionGracePeriod {
		t.Errorf("inner, deleted: requeue after %v (%v), want the rest of the grace period", requeue, err)
	}
	env.ExpectWrites(t) // not blocked: no Terminating condition
	inner, _ := c.serviceCIDRs.GetStore().Get("", "inner")
	if !c.canDelete(inner) {
		t.Error("inner: blocked, though outer contains it")
	}
}
