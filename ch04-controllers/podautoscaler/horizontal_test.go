package podautoscaler

import (
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/controllertest"
)

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}}}
}

func cpuHPA(name string, min, max, utilization int32) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: name},
			MinReplicas:    &min, MaxReplicas: max,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &utilization}}}}}}
}

type hpaEnv struct {
	*controllertest.Env
	a *HorizontalController
}

func newHPAEnv(t *testing.T, opts Options) *hpaEnv {
	env := controllertest.New(t)
	a, err := NewHorizontalController(env.CC, opts)
	if err != nil {
		t.Fatal(err)
	}
	go a.recorder.Run(env.Ctx)
	env.Start(t)
	return &hpaEnv{env, a}
}

// create makes the fixtures and waits for the HPA in the cache.
func (e *hpaEnv) create(t *testing.T, d *appsv1.Deployment, h *autoscalingv2.HorizontalPodAutoscaler) {
	t.Helper()
	if _, err := rest.Create(e.Ctx, e.Admin, d); err != nil {
		t.Fatal(err)
	}
	created, err := rest.Create(e.Ctx, e.Admin, h)
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached(t, h.Name, created.ResourceVersion)
}

func (e *hpaEnv) waitCached(t *testing.T, name, rv string) {
	t.Helper()
	controllertest.Eventually(t, "hpa cached", func() bool {
		x, ok := e.a.hpas.GetStore().Get("default", name)
		return ok && x.ResourceVersion >= rv && len(x.ResourceVersion) >= len(rv)
	})
}

func (e *hpaEnv) sync(t *testing.T, name string) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	t.Helper()
	_, err := e.a.reconcileKey(e.Ctx, "default/"+name)
	h, gerr := rest.Get[autoscalingv2.HorizontalPodAutoscaler](e.Ctx, e.Admin, "default", name)
	if gerr != nil {
		t.Fatal(gerr)
	}
	e.waitCached(t, name, h.ResourceVersion)
	return h, err
}

func wantCondition(t *testing.T, h *autoscalingv2.HorizontalPodAutoscaler, typ autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, message string) {
	t.Helper()
	c := condition(h, typ)
	if c == nil || c.Status != status || c.Reason != reason || c.Message != message {
		t.Errorf("condition %s: %+v\nwant %s %s %q", typ, c, status, reason, message)
	}
}

func waitEvent(t *testing.T, e *hpaEnv, reason, message string) {
	t.Helper()
	controllertest.Eventually(t, "event "+reason, func() bool {
		list, err := rest.List[corev1.Event](e.Ctx, e.Admin, "default", rest.ListOptions{})
		if err != nil {
			return false
		}
		for _, ev := range list.Items {
			if ev.Reason == reason && ev.Message == message && ev.Source.Component == EventSource &&
				ev.InvolvedObject.Kind == "HorizontalPodAutoscaler" {
				return true
			}
		}
		return false
	})
}

// No metrics API (metrics.k8s.io is not served): minReplicas still raises
// the target, and then the autoscaler reports what a real cluster
// reports: ScalingActive=False FailedGetResourceMetric, its events.
func TestMinReplicasWithoutMetricsAPI(t *testing.T) {
	e := newHPAEnv(t, Options{})
	e.create(t, deployment("web", 1), cpuHPA("web", 3, 10, 50))

	e.ClearActions()
	h, err := e.sync(t, "web")
	if err != nil {
		t.Fatal(err)
	}
	e.ExpectWrites(t, "update deployments/scale default/web", "update horizontalpodautoscalers/status default/web")
	d, _ := rest.Get[appsv1.Deployment](e.Ctx, e.Admin, "default", "web")
	if *d.Spec.Replicas != 3 {
		t.Errorf("replicas %d, want 3", *d.Spec.Replicas)
	}
	if h.Status.CurrentReplicas != 1 || h.Status.DesiredReplicas != 3 || h.Status.LastScaleTime == nil {
		t.Errorf("status %+v", h.Status)
	}
	wantCondition(t, h, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to 3")
	waitEvent(t, e, "SuccessfulRescale", "New size: 3; reason: Current number of replicas below Spec.MinReplicas")

	e.ClearActions()
	h, err = e.sync(t, "web")
	const cause = "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"
	if err == nil || !strings.Contains(err.Error(), cause) {
		t.Fatalf("error %v", err)
	}
	e.ExpectWrites(t, "update horizontalpodautoscalers/status default/web")
	wantCondition(t, h, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	wantCondition(t, h, autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric", "the HPA was unable to compute the replica count: "+cause)
	if h.Status.CurrentReplicas != 3 || h.Status.DesiredReplicas != 3 || len(h.Status.CurrentMetrics) != 1 || h.Status.CurrentMetrics[0].Type != "" {
		t.Errorf("status %+v", h.Status)
	}
	waitEvent(t, e, "FailedGetResourceMetric", cause)
	waitEvent(t, e, "FailedComputeMetricsReplicas", "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: "+cause)

	// Nothing changed: the next sync writes nothing.
	e.ClearActions()
	if _, err := e.sync(t, "web"); err == nil {
		t.Fatal("no error")
	}
	e.ExpectWrites(t)
}

// Above maxReplicas the target is lowered to it.
func TestMaxReplicasLowersReplicas(t *testing.T) {
	e := newHPAEnv(t, Options{})
	e.create(t, deployment("big", 8), cpuHPA("big", 1, 5, 50))
	e.ClearActions()
	h, err := e.sync(t, "big")
	if err != nil {
		t.Fatal(err)
	}
	e.ExpectWrites(t, "update deployments/scale default/big", "update horizontalpodautoscalers/status default/big")
	d, _ := rest.Get[appsv1.Deployment](e.Ctx, e.Admin, "default", "big")
	if *d.Spec.Replicas != 5 || h.Status.DesiredReplicas != 5 {
		t.Errorf("replicas %d desired %d, want 5", *d.Spec.Replicas, h.Status.DesiredReplicas)
	}
	waitEvent(t, e, "SuccessfulRescale", "New size: 5; reason: Current number of replicas above Spec.MaxReplicas")
}

// With metrics (a fake metrics API): the replica count follows the
// pods' utilization, and ScalingActive=True ValidMetricFound.
func TestScaleUpOnMetrics(t *testing.T) {
	mc := &fakeMetricsClient{levels: map[string]int64{}}
	e := newHPAEnv(t, Options{MetricsClient: mc})
	e.create(t, deployment("api", 2), cpuHPA("api", 1, 10, 50))
	// Two running, ready pods of the target at 100% of their 100m request.
	for _, name := range []string{"api-a", "api-b"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "api"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
		created, err := rest.Create(e.Ctx, e.Admin, p)
		if err != nil {
			t.Fatal(err)
		}
		start := metav1.NewTime(created.CreationTimestamp.Add(-time.Hour))
		created.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start}}}
		if _, err := rest.UpdateStatus(e.Ctx, e.Admin, created); err != nil {
			t.Fatal(err)
		}
		mc.levels[name] = 100
	}
	controllertest.Eventually(t, "pods cached", func() bool {
		n := 0
		for _, p := range e.a.pods.GetStore().List() {
			if p.Status.Phase == corev1.PodRunning {
				n++
			}
		}
		return n == 2
	})
	e.ClearActions()
	h, err := e.sync(t, "api")
	if err != nil {
		t.Fatal(err)
	}
	e.ExpectWrites(t, "update deployments/scale default/api", "update horizontalpodautoscalers/status default/api")
	d, _ := rest.Get[appsv1.Deployment](e.Ctx, e.Admin, "default", "api")
	if *d.Spec.Replicas != 4 {
		t.Errorf("replicas %d, want 4", *d.Spec.Replicas)
	}
	wantCondition(t, h, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)")
	wantCondition(t, h, autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range")
	if m := h.Status.CurrentMetrics; len(m) != 1 || m[0].Resource == nil || m[0].Resource.Current.AverageUtilization == nil || *m[0].Resource.Current.AverageUtilization != 100 {
		t.Errorf("currentMetrics %+v", m)
	}
	waitEvent(t, e, "SuccessfulRescale", "New size: 4; reason: cpu resource utilization (percentage of request) above target")
}

// A target that does not exist: AbleToScale=False FailedGetScale.
func TestMissingTarget(t *testing.T) {
	e := newHPAEnv(t, Options{})
	created, err := rest.Create(e.Ctx, e.Admin, cpuHPA("ghost", 1, 3, 50))
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached(t, "ghost", created.ResourceVersion)
	h, err := e.sync(t, "ghost")
	if err == nil {
		t.Fatal("no error")
	}
	wantCondition(t, h, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
		`the HPA controller was unable to get the target's current scale: deployments.apps "ghost" not found`)
	waitEvent(t, e, "FailedGetScale", `deployments.apps "ghost" not found`)
}

// Upstream's TestZeroReplicas: a target scaled to zero by hand is left
// alone, ScalingActive=False ScalingDisabled.
func TestZeroReplicas(t *testing.T) {
	e := newHPAEnv(t, Options{})
	e.create(t, deployment("off", 0), cpuHPA("off", 3, 5, 50))
	e.ClearActions()
	h, err := e.sync(t, "off")
	if err != nil {
		t.Fatal(err)
	}
	e.ExpectWrites(t, "update horizontalpodautoscalers/status default/off")
	wantCondition(t, h, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	wantCondition(t, h, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
	if h.Status.CurrentReplicas != 0 || h.Status.DesiredReplicas != 0 || h.Status.LastScaleTime != nil {
		t.Errorf("status %+v", h.Status)
	}
}

// Within the tolerance nothing is written but the status.
func TestWithinTolerance(t *testing.T) {
	mc := &fakeMetricsClient{levels: map[string]int64{}}
	e := newHPAEnv(t, Options{MetricsClient: mc})
	e.create(t, deployment("calm", 1), cpuHPA("calm", 1, 10, 50))
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "calm-a", Namespace: "default", Labels: map[string]string{"app": "calm"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
	created, err := rest.Create(e.Ctx, e.Admin, p)
	if err != nil {
		t.Fatal(err)
	}
	start := metav1.NewTime(created.CreationTimestamp.Add(-time.Hour))
	created.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start}}}
	if _, err := rest.UpdateStatus(e.Ctx, e.Admin, created); err != nil {
		t.Fatal(err)
	}
	mc.levels["calm-a"] = 53 // 53% of the request, target 50%: ratio 1.06
	controllertest.Eventually(t, "pod cached", func() bool {
		x, ok := e.a.pods.GetStore().Get("default", "calm-a")
		return ok && x.Status.Phase == corev1.PodRunning
	})
	e.ClearActions()
	h, err := e.sync(t, "calm")
	if err != nil {
		t.Fatal(err)
	}
	e.ExpectWrites(t, "update horizontalpodautoscalers/status default/calm")
	if h.Status.DesiredReplicas != 1 || h.Status.LastScaleTime != nil {
		t.Errorf("status %+v", h.Status)
	}
	wantCondition(t, h, autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
}

// Upstream's TestMultipleHPAs: two autoscalers whose targets select the
// same pods — neither scales, ScalingActive=False AmbiguousSelector.
func TestAmbiguousSelector(t *testing.T) {
	e := newHPAEnv(t, Options{})
	e.create(t, deployment("shared", 1), cpuHPA("shared", 1, 5, 50))
	second := cpuHPA("second", 1, 5, 50)
	second.Spec.ScaleTargetRef.Name = "shared"
	created, err := rest.Create(e.Ctx, e.Admin, second)
	if err != nil {
		t.Fatal(err)
	}
	e.waitCached(t, "second", created.ResourceVersion)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "shared-a", Namespace: "default", Labels: map[string]string{"app": "shared"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := rest.Create(e.Ctx, e.Admin, p); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, "pod cached", func() bool { _, ok := e.a.pods.GetStore().Get("default", "shared-a"); return ok })
	e.sync(t, "shared") // learns the first autoscaler's selector
	h, err := e.sync(t, "second")
	const msg = "pods by selector app=shared are controlled by multiple HPAs: [default/second default/shared]"
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v", err)
	}
	wantCondition(t, h, autoscalingv2.ScalingActive, corev1.ConditionFalse, "AmbiguousSelector", msg)
}
