// Package podautoscaler is the horizontal pod autoscaler of
// kube-controller-manager ("horizontalpodautoscaling"): every sync period
// (15 s) each HorizontalPodAutoscaler's target is read through its scale
// subresource (any kind that has one: a built-in workload, or a custom
// resource found through discovery, scale.go), the pods its selector picks are measured against the
// autoscaler's metrics, and the target is scaled to the replica count the
// metrics ask for, kept within minReplicas and maxReplicas:
//
//	desired = ceil(current × currentUsage / targetUsage)
//
// Around the target there is a tolerance (10%) inside which nothing
// changes; scale-downs follow the highest recommendation of the last five
// minutes (the stabilization window), and spec.behavior can limit how fast
// the target grows or shrinks (policies of Pods or Percent per period).
// What happened is in the autoscaler's status (currentReplicas,
// desiredReplicas, currentMetrics) and its conditions:
//
//	AbleToScale     the scale could be read (SucceededGetScale) and written (SucceededRescale)
//	ScalingActive   a replica count could be computed from the metrics (ValidMetricFound)
//	ScalingLimited  the count was clamped (TooFewReplicas, TooManyReplicas, ScaleUpLimit)
//
// Resource metrics come from metrics.k8s.io (package metrics): a cluster
// without metrics-server answers nothing there, so an autoscaler shows
// ScalingActive=False FailedGetResourceMetric, Warning events, and
// `kubectl get hpa` TARGETS `cpu: <unknown>/50%` — while minReplicas and
// maxReplicas are still enforced.
//
// Upstream: pkg/controller/podautoscaler (horizontal.go,
// replica_calculator.go).
package podautoscaler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/podautoscaler/metrics"
	"kubik/ch04-controllers/record"
)

// EventSource is the component of the autoscaler's events.
const EventSource = "horizontal-pod-autoscaler"

const (
	scaleUpLimitFactor  = 2.0
	scaleUpLimitMinimum = 4.0
)

// Options are the controller's flags (upstream's defaults in Defaults).
type Options struct {
	SyncPeriod                    time.Duration // --horizontal-pod-autoscaler-sync-period
	Tolerance                     float64       // --horizontal-pod-autoscaler-tolerance
	DownscaleStabilisationWindow  time.Duration // --horizontal-pod-autoscaler-downscale-stabilization
	CPUInitializationPeriod       time.Duration // --horizontal-pod-autoscaler-cpu-initialization-period
	DelayOfInitialReadinessStatus time.Duration // --horizontal-pod-autoscaler-initial-readiness-delay
	// MetricsClient reads pod metrics; nil: the resource metrics API.
	MetricsClient metrics.MetricsClient
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// Defaults are upstream's flag defaults.
var Defaults = Options{SyncPeriod: 15 * time.Second, Tolerance: 0.1, DownscaleStabilisationWindow: 5 * time.Minute,
	CPUInitializationPeriod: 5 * time.Minute, DelayOfInitialReadinessStatus: 30 * time.Second}

type timestampedRecommendation struct {
	recommendation int32
	timestamp      time.Time
}

type timestampedScaleEvent struct {
	replicaChange int32 // absolute value, non-negative
	timestamp     time.Time
	outdated      bool
}

// HorizontalController is upstream's HorizontalController.
type HorizontalController struct {
	client      *rest.Client
	scaleMapper *scaleMapper
	hpas        *cache.Informer[autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2.HorizontalPodAutoscaler]
	pods        *cache.Informer[corev1.Pod, *corev1.Pod]
	replicaCalc *ReplicaCalculator
	recorder    *record.Recorder
	queue       *workqueue.RateLimitingQueue[string]
	log         *slog.Logger
	now         func() time.Time

	resyncPeriod                 time.Duration
	downscaleStabilisationWindow time.Duration
	tolerance                    float64

	mu sync.Mutex
	// recommendations: the last recommendations of each autoscaler, for
	// the stabilization window; scaleUpEvents/scaleDownEvents: its recent
	// changes, for spec.behavior's policies.
	recommendations map[string][]timestampedRecommendation
	scaleUpEvents   map[string][]timestampedScaleEvent
	scaleDownEvents map[string][]timestampedScaleEvent
	// hpaSelectors: the pod selector of each autoscaler's target, as last
	// read (Nothing until then), to find pods two autoscalers control.
	hpaSelectors map[string]selection.LabelSelector
}

// NewHorizontalController asks for the HPA and Pod informers.
func NewHorizontalController(cc *controller.ControllerContext, opts Options) (*HorizontalController, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", "horizontal-pod-autoscaler-controller")
	if opts.SyncPeriod == 0 && opts.Tolerance == 0 && opts.DownscaleStabilisationWindow == 0 &&
		opts.CPUInitializationPeriod == 0 && opts.DelayOfInitialReadinessStatus == 0 {
		// Not set from flags at all: upstream's defaults.
		mc, now := opts.MetricsClient, opts.Now
		opts = Defaults
		opts.MetricsClient, opts.Now = mc, now
	}
	if opts.SyncPeriod <= 0 {
		opts.SyncPeriod = Defaults.SyncPeriod
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MetricsClient == nil {
		opts.MetricsClient = metrics.NewRESTMetricsClient(cc.Client)
	}
	a := &HorizontalController{client: cc.Client, scaleMapper: &scaleMapper{client: cc.Client}, log: log, now: opts.Now,
		hpas:                         controller.InformerFor[autoscalingv2.HorizontalPodAutoscaler](cc.Informers),
		pods:                         controller.InformerFor[corev1.Pod](cc.Informers),
		recorder:                     record.NewRecorder(cc.Client, EventSource, log),
		queue:                        workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		resyncPeriod:                 opts.SyncPeriod,
		downscaleStabilisationWindow: opts.DownscaleStabilisationWindow,
		tolerance:                    opts.Tolerance,
		recommendations:              map[string][]timestampedRecommendation{},
		scaleUpEvents:                map[string][]timestampedScaleEvent{},
		scaleDownEvents:              map[string][]timestampedScaleEvent{},
		hpaSelectors:                 map[string]selection.LabelSelector{},
	}
	a.replicaCalc = NewReplicaCalculator(opts.MetricsClient, a.listPods, opts.CPUInitializationPeriod, opts.DelayOfInitialReadinessStatus)
	a.replicaCalc.now = opts.Now
	a.hpas.AddEventHandler(cache.ResourceEventHandlerFuncs[autoscalingv2.HorizontalPodAutoscaler]{
		AddFunc: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			a.mu.Lock()
			a.hpaSelectors[h.Namespace+"/"+h.Name] = selection.Nothing()
			a.mu.Unlock()
			a.enqueueHPA(h)
		},
		UpdateFunc: func(_, cur *autoscalingv2.HorizontalPodAutoscaler) { a.enqueueHPA(cur) },
		DeleteFunc: func(h *autoscalingv2.HorizontalPodAutoscaler) {
			a.mu.Lock()
			delete(a.hpaSelectors, h.Namespace+"/"+h.Name)
			a.mu.Unlock()
			a.queue.Add(h.Namespace + "/" + h.Name)
		},
	})
	return a, nil
}

// enqueueHPA puts an autoscaler in the queue one sync period from now: a
// key already waiting keeps its earlier time, so every autoscaler is
// reconciled once per period however often it changes.
func (a *HorizontalController) enqueueHPA(h *autoscalingv2.HorizontalPodAutoscaler) {
	a.queue.AddAfter(h.Namespace+"/"+h.Name, a.resyncPeriod)
}

func (a *HorizontalController) listPods(namespace string, sel selection.LabelSelector) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range a.pods.GetStore().List() {
		if p.Namespace == namespace && sel.Matches(p.Labels) {
			out = append(out, p)
		}
	}
	return out
}

// Run waits for the caches and runs workers until ctx ends.
func (a *HorizontalController) Run(ctx context.Context, workers int) {
	go a.recorder.Run(ctx)
	defer a.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx, a.hpas.HasSynced, a.pods.HasSynced) {
		return
	}
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for a.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	a.queue.ShutDown()
	wg.Wait()
}

// processNextWorkItem reconciles one autoscaler and, unless it is gone,
// puts it back for the next period — after an error too: the autoscaler
// retries at its own pace, not with back-off.
func (a *HorizontalController) processNextWorkItem(ctx context.Context) bool {
	key, quit := a.queue.Get()
	if quit {
		return false
	}
	defer a.queue.Done(key)
	deleted, err := a.reconcileKey(ctx, key)
	if err != nil && ctx.Err() == nil {
		a.log.Warn("sync failed", "horizontalPodAutoscaler", key, "err", err)
	}
	if !deleted {
		a.queue.AddAfter(key, a.resyncPeriod)
	}
	return true
}

func (a *HorizontalController) reconcileKey(ctx context.Context, key string) (deleted bool, err error) {
	namespace, name := cache.SplitMetaNamespaceKey(key)
	hpa, ok := a.hpas.GetStore().Get(namespace, name)
	if !ok {
		a.mu.Lock()
		delete(a.recommendations, key)
		delete(a.scaleUpEvents, key)
		delete(a.scaleDownEvents, key)
		a.mu.Unlock()
		return true, nil
	}
	return false, a.reconcileAutoscaler(ctx, hpa, key)
}

func (a *HorizontalController) event(hpa *autoscalingv2.HorizontalPodAutoscaler, eventType, reason, format string, args ...any) {
	a.recorder.Eventf(record.RefFor(&hpa.ObjectMeta, "autoscaling/v2", "HorizontalPodAutoscaler"), eventType, reason, format, args...)
}

// reconcileAutoscaler is one sync of one autoscaler: read the scale,
// compute the desired replicas, write the scale, write the status.
func (a *HorizontalController) reconcileAutoscaler(ctx context.Context, shared *autoscalingv2.HorizontalPodAutoscaler, key string) (retErr error) {
	hpa := deepCopy(shared)
	hpaStatusOriginal := deepCopy(&autoscalingv2.HorizontalPodAutoscaler{Status: shared.Status}).Status
	reference := fmt.Sprintf("%s/%s/%s", hpa.Spec.ScaleTargetRef.Kind, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name)

	scale, targetResource, err := a.getScale(ctx, hpa)
	if err != nil {
		a.event(hpa, corev1.EventTypeWarning, "FailedGetScale", "%s", err.Error())
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: %v", err)
		if err := a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa); err != nil {
			a.log.Warn("status update failed", "horizontalPodAutoscaler", key, "err", err)
		}
		return fmt.Errorf("failed to query scale subresource for %s: %v", reference, err)
	}
	setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	currentReplicas := scale.Spec.Replicas
	a.recordInitialRecommendation(currentReplicas, key)

	var metricStatuses []autoscalingv2.MetricStatus
	desiredReplicas := int32(0)
	rescaleReason := ""
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	rescale := true
	switch {
	case currentReplicas == 0 && minReplicas != 0:
		// Scaled to zero by hand: autoscaling is off until scaled up.
		desiredReplicas = 0
		rescale = false
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
	case currentReplicas > hpa.Spec.MaxReplicas:
		rescaleReason = "Current number of replicas above Spec.MaxReplicas"
		desiredReplicas = hpa.Spec.MaxReplicas
	case currentReplicas < minReplicas:
		rescaleReason = "Current number of replicas below Spec.MinReplicas"
		desiredReplicas = minReplicas
	default:
		metricDesiredReplicas, metricName, statuses, err := a.computeReplicasForMetrics(ctx, hpa, scale, hpa.Spec.Metrics)
		metricStatuses = statuses
		if err != nil && metricDesiredReplicas == -1 {
			a.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses)
			if err := a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa); err != nil {
				a.log.Warn("status update failed", "horizontalPodAutoscaler", key, "err", err)
			}
			a.event(hpa, corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", err.Error())
			return fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %v", reference, err)
		}
		if err != nil {
			// Some metrics failed, but not enough to stop scaling up.
			retErr = err
		}
		rescaleMetric := ""
		if metricDesiredReplicas > desiredReplicas {
			desiredReplicas = metricDesiredReplicas
			rescaleMetric = metricName
		}
		if desiredReplicas > currentReplicas {
			rescaleReason = fmt.Sprintf("%s above target", rescaleMetric)
		}
		if desiredReplicas < currentReplicas {
			rescaleReason = "All metrics below target"
		}
		if hpa.Spec.Behavior == nil {
			desiredReplicas = a.normalizeDesiredReplicas(hpa, key, currentReplicas, desiredReplicas, minReplicas)
		} else {
			desiredReplicas = a.normalizeDesiredReplicasWithBehaviors(hpa, key, currentReplicas, desiredReplicas, minReplicas)
		}
		rescale = desiredReplicas != currentReplicas
	}

	if rescale {
		scale.Spec.Replicas = desiredReplicas
		if err := a.updateScale(ctx, targetResource, hpa.Namespace, scale); err != nil {
			a.event(hpa, corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desiredReplicas, rescaleReason, err.Error())
			setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: %v", err)
			a.setCurrentReplicasAndMetricsInStatus(hpa, currentReplicas, metricStatuses)
			if err := a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa); err != nil {
				a.log.Warn("status update failed", "horizontalPodAutoscaler", key, "err", err)
			}
			return fmt.Errorf("failed to rescale %s: %v", reference, err)
		}
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to %d", desiredReplicas)
		a.event(hpa, corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desiredReplicas, rescaleReason)
		a.storeScaleEvent(hpa.Spec.Behavior, key, currentReplicas, desiredReplicas)
		a.log.Info("Successfully rescaled", "horizontalPodAutoscaler", key, "currentReplicas", currentReplicas,
			"desiredReplicas", desiredReplicas, "reason", rescaleReason)
	} else {
		desiredReplicas = currentReplicas
	}
	a.setStatus(hpa, currentReplicas, desiredReplicas, metricStatuses, rescale)
	if err := a.updateStatusIfNeeded(ctx, &hpaStatusOriginal, hpa); err != nil {
		return err
	}
	return retErr
}

// computeReplicasForMetrics computes the replica count of every metric and
// takes the largest. When every metric failed, or some failed and the
// others would scale down, the first failure's condition is set and -1
// returned with the error.
func (a *HorizontalController) computeReplicasForMetrics(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, scale *Scale, metricSpecs []autoscalingv2.MetricSpec) (replicas int32, metric string, statuses []autoscalingv2.MetricStatus, err error) {
	selector, err := a.validateAndParseSelector(hpa, scale.Status.Selector)
	if err != nil {
		return -1, "", nil, err
	}
	specReplicas := scale.Spec.Replicas
	statuses = make([]autoscalingv2.MetricStatus, len(metricSpecs))
	invalidMetricsCount := 0
	var invalidMetricError error
	var invalidMetricCondition autoscalingv2.HorizontalPodAutoscalerCondition
	for i, spec := range metricSpecs {
		proposal, name, condition, err := a.computeReplicasForMetric(ctx, hpa, spec, specReplicas, selector, &statuses[i])
		if err != nil {
			if invalidMetricsCount <= 0 {
				invalidMetricCondition = condition
				invalidMetricError = err
			}
			invalidMetricsCount++
			continue
		}
		if replicas == 0 || proposal > replicas {
			replicas = proposal
			metric = name
		}
	}
	if invalidMetricError != nil {
		invalidMetricError = fmt.Errorf("invalid metrics (%v invalid out of %v), first error is: %v", invalidMetricsCount, len(metricSpecs), invalidMetricError)
	}
	if invalidMetricsCount >= len(metricSpecs) || (invalidMetricsCount > 0 && replicas < specReplicas) {
		if invalidMetricCondition.Type != "" { // none for an autoscaler without metrics
			setCondition(hpa, invalidMetricCondition.Type, invalidMetricCondition.Status, invalidMetricCondition.Reason, "%s", invalidMetricCondition.Message)
		}
		if invalidMetricError == nil {
			invalidMetricError = fmt.Errorf("no metrics to compute a replica count from")
		}
		return -1, "", statuses, invalidMetricError
	}
	setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", "the HPA was able to successfully calculate a replica count from %s", metric)
	return replicas, metric, statuses, invalidMetricError
}

// validateAndParseSelector parses the target's selector (scale's
// status.selector): a target without one cannot be autoscaled.
func (a *HorizontalController) validateAndParseSelector(hpa *autoscalingv2.HorizontalPodAutoscaler, selector string) (selection.LabelSelector, error) {
	if selector == "" {
		errMsg := "selector is required"
		a.event(hpa, corev1.EventTypeWarning, "SelectorRequired", "%s", errMsg)
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector")
		return selection.LabelSelector{}, fmt.Errorf("%s", errMsg)
	}
	parsed, err := selection.ParseLabelSelector(selector)
	if err != nil {
		errMsg := fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		a.event(hpa, corev1.EventTypeWarning, "InvalidSelector", "%s", errMsg)
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", "%s", errMsg)
		return selection.LabelSelector{}, fmt.Errorf("%s", errMsg)
	}
	key := hpa.Namespace + "/" + hpa.Name
	a.mu.Lock()
	if _, ok := a.hpaSelectors[key]; ok {
		a.hpaSelectors[key] = parsed
	}
	a.mu.Unlock()
	if selecting := a.hpasControllingPodsUnderSelector(a.listPods(hpa.Namespace, parsed)); len(selecting) > 1 {
		errMsg := fmt.Sprintf("pods by selector %v are controlled by multiple HPAs: %v", selector, selecting)
		a.event(hpa, corev1.EventTypeWarning, "AmbiguousSelector", "%s", errMsg)
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "AmbiguousSelector", "%s", errMsg)
		return selection.LabelSelector{}, fmt.Errorf("%s", errMsg)
	}
	return parsed, nil
}

// hpasControllingPodsUnderSelector lists the autoscalers (namespace/name,
// sorted) whose targets' selectors pick any of pods.
func (a *HorizontalController) hpasControllingPodsUnderSelector(pods []*corev1.Pod) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for key, sel := range a.hpaSelectors {
		ns, _ := cache.SplitMetaNamespaceKey(key)
		for _, p := range pods {
			if p.Namespace == ns && sel.Matches(p.Labels) {
				out = append(out, key)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// computeReplicasForMetric is the replica count of one metric. Resource
// and ContainerResource metrics are read from the resource metrics API;
// Pods, Object and External metrics need a custom or external metrics
// API, which this cluster does not serve.
func (a *HorizontalController) computeReplicasForMetric(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, spec autoscalingv2.MetricSpec, specReplicas int32, selector selection.LabelSelector, status *autoscalingv2.MetricStatus) (int32, string, autoscalingv2.HorizontalPodAutoscalerCondition, error) {
	tolerances := a.tolerancesFor(hpa)
	switch spec.Type {
	case autoscalingv2.ResourceMetricSourceType:
		if spec.Resource == nil {
			break
		}
		replicas, name, err := a.computeStatusForResourceMetricGeneric(ctx, hpa, specReplicas, spec.Resource.Target, spec.Resource.Name, "", selector, tolerances, status, autoscalingv2.ResourceMetricSourceType)
		if err != nil {
			condition := a.getUnableComputeReplicaCountCondition(hpa, "FailedGetResourceMetric", err)
			return 0, "", condition, fmt.Errorf("failed to get %s resource metric value: %v", spec.Resource.Name, err)
		}
		return replicas, name, autoscalingv2.HorizontalPodAutoscalerCondition{}, nil
	case autoscalingv2.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			break
		}
		cr := spec.ContainerResource
		replicas, name, err := a.computeStatusForResourceMetricGeneric(ctx, hpa, specReplicas, cr.Target, cr.Name, cr.Container, selector, tolerances, status, autoscalingv2.ContainerResourceMetricSourceType)
		if err != nil {
			condition := a.getUnableComputeReplicaCountCondition(hpa, "FailedGetContainerResourceMetric", err)
			return 0, "", condition, fmt.Errorf("failed to get %s container metric value: %v", cr.Container, err)
		}
		return replicas, name, autoscalingv2.HorizontalPodAutoscalerCondition{}, nil
	case autoscalingv2.PodsMetricSourceType, autoscalingv2.ObjectMetricSourceType:
		// Served by a custom metrics adapter; none is registered here.
		reason, what, name := "FailedGetPodsMetric", "pods", ""
		if spec.Pods != nil {
			name = spec.Pods.Metric.Name
		}
		if spec.Type == autoscalingv2.ObjectMetricSourceType {
			reason, what = "FailedGetObjectMetric", "object"
			if spec.Object != nil {
				name = spec.Object.Metric.Name
			}
		}
		err := fmt.Errorf("unable to get metric %s: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered", name)
		condition := a.getUnableComputeReplicaCountCondition(hpa, reason, err)
		return 0, "", condition, fmt.Errorf("failed to get %s metric value: %v", what, err)
	case autoscalingv2.ExternalMetricSourceType:
		name := ""
		if spec.External != nil {
			name = spec.External.Metric.Name
		}
		err := fmt.Errorf("unable to get external metric %s/%s: unable to fetch metrics from external metrics API: no external metrics API (external.metrics.k8s.io) registered", hpa.Namespace, name)
		condition := a.getUnableComputeReplicaCountCondition(hpa, "FailedGetExternalMetric", err)
		return 0, "", condition, fmt.Errorf("failed to get %s external metric value: %v", name, err)
	}
	err := fmt.Errorf("unknown metric source type %q", string(spec.Type))
	condition := a.getUnableComputeReplicaCountCondition(hpa, "InvalidMetricSourceType", err)
	return 0, "", condition, err
}

// computeStatusForResourceMetricGeneric computes the replica count of a
// resource metric against an average value or an average utilization
// target, and fills its status.
func (a *HorizontalController) computeStatusForResourceMetricGeneric(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, currentReplicas int32, target autoscalingv2.MetricTarget, resourceName corev1.ResourceName, container string, selector selection.LabelSelector, tolerances Tolerances, status *autoscalingv2.MetricStatus, sourceType autoscalingv2.MetricSourceType) (int32, string, error) {
	setStatus := func(current autoscalingv2.MetricValueStatus) {
		*status = autoscalingv2.MetricStatus{Type: sourceType}
		if sourceType == autoscalingv2.ContainerResourceMetricSourceType {
			status.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: resourceName, Container: container, Current: current}
		} else {
			status.Resource = &autoscalingv2.ResourceMetricStatus{Name: resourceName, Current: current}
		}
	}
	if target.AverageValue != nil {
		replicas, raw, _, err := a.replicaCalc.GetRawResourceReplicas(ctx, currentReplicas, target.AverageValue.MilliValue(), resourceName, tolerances, hpa.Namespace, selector, container)
		if err != nil {
			return 0, "", fmt.Errorf("failed to get %s usage: %v", resourceName, err)
		}
		setStatus(autoscalingv2.MetricValueStatus{AverageValue: milliQuantity(raw)})
		return replicas, fmt.Sprintf("%s resource", resourceName), nil
	}
	if target.AverageUtilization == nil {
		return 0, "", fmt.Errorf("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
	}
	replicas, percentage, raw, _, err := a.replicaCalc.GetResourceReplicas(ctx, currentReplicas, *target.AverageUtilization, resourceName, tolerances, hpa.Namespace, selector, container)
	if err != nil {
		return 0, "", fmt.Errorf("failed to get %s utilization: %v", resourceName, err)
	}
	setStatus(autoscalingv2.MetricValueStatus{AverageUtilization: &percentage, AverageValue: milliQuantity(raw)})
	if sourceType == autoscalingv2.ContainerResourceMetricSourceType {
		return replicas, fmt.Sprintf("%s container resource utilization (percentage of request)", resourceName), nil
	}
	return replicas, fmt.Sprintf("%s resource utilization (percentage of request)", resourceName), nil
}

// getUnableComputeReplicaCountCondition records a Warning event of reason
// and returns the ScalingActive=False condition that goes with it.
func (a *HorizontalController) getUnableComputeReplicaCountCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, reason string, err error) autoscalingv2.HorizontalPodAutoscalerCondition {
	a.event(hpa, corev1.EventTypeWarning, reason, "%s", err.Error())
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse,
		Reason: reason, Message: fmt.Sprintf("the HPA was unable to compute the replica count: %v", err)}
}

// tolerancesFor is the tolerance flag, overridden by the autoscaler's
// spec.behavior.scaleUp/scaleDown.tolerance where set.
func (a *HorizontalController) tolerancesFor(hpa *autoscalingv2.HorizontalPodAutoscaler) Tolerances {
	t := Tolerances{ScaleDown: a.tolerance, ScaleUp: a.tolerance}
	if b := hpa.Spec.Behavior; b != nil {
		if b.ScaleDown != nil && b.ScaleDown.Tolerance != nil {
			t.ScaleDown = float64(b.ScaleDown.Tolerance.MilliValue()) / 1000
		}
		if b.ScaleUp != nil && b.ScaleUp.Tolerance != nil {
			t.ScaleUp = float64(b.ScaleUp.Tolerance.MilliValue()) / 1000
		}
	}
	return t
}

func milliQuantity(v int64) *resource.Quantity {
	return resource.NewMilliQuantity(v, resource.DecimalSI)
}

// recordInitialRecommendation starts the stabilization window with the
// current replica count.
func (a *HorizontalController) recordInitialRecommendation(currentReplicas int32, key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.recommendations[key] == nil {
		a.recommendations[key] = []timestampedRecommendation{{currentReplicas, a.now()}}
	}
}

// normalizeDesiredReplicas applies the downscale stabilization window and
// the min/max bounds (and the doubling limit of a scale-up) to the
// metrics' recommendation, for an autoscaler without spec.behavior.
func (a *HorizontalController) normalizeDesiredReplicas(hpa *autoscalingv2.HorizontalPodAutoscaler, key string, currentReplicas, prenormalizedDesiredReplicas, minReplicas int32) int32 {
	stabilized := a.stabilizeRecommendation(key, prenormalizedDesiredReplicas)
	if stabilized != prenormalizedDesiredReplicas {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation")
	} else {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
	}
	desired, reason, message := convertDesiredReplicasWithRules(currentReplicas, stabilized, minReplicas, hpa.Spec.MaxReplicas)
	if desired == stabilized {
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionFalse, reason, "%s", message)
	} else {
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionTrue, reason, "%s", message)
	}
	return desired
}

// stabilizeRecommendation returns the highest recommendation within the
// downscale stabilization window and records this one (in place of one
// that fell out of the window).
func (a *HorizontalController) stabilizeRecommendation(key string, prenormalizedDesiredReplicas int32) int32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	maxRecommendation := prenormalizedDesiredReplicas
	foundOldSample, oldSampleIndex := false, 0
	cutoff := a.now().Add(-a.downscaleStabilisationWindow)
	for i, rec := range a.recommendations[key] {
		if rec.timestamp.Before(cutoff) {
			foundOldSample, oldSampleIndex = true, i
		} else if rec.recommendation > maxRecommendation {
			maxRecommendation = rec.recommendation
		}
	}
	rec := timestampedRecommendation{prenormalizedDesiredReplicas, a.now()}
	if foundOldSample {
		a.recommendations[key][oldSampleIndex] = rec
	} else {
		a.recommendations[key] = append(a.recommendations[key], rec)
	}
	return maxRecommendation
}

// convertDesiredReplicasWithRules clamps desired between the minimum and
// the smaller of the maximum and the scale-up limit, and says which bound
// (if any) applied.
func convertDesiredReplicasWithRules(currentReplicas, desiredReplicas, hpaMinReplicas, hpaMaxReplicas int32) (int32, string, string) {
	var maximumAllowedReplicas int32
	var possibleLimitingCondition, possibleLimitingReason string
	minimumAllowedReplicas := hpaMinReplicas
	// A bogus usage report must not multiply the replicas at once.
	scaleUpLimit := calculateScaleUpLimit(currentReplicas)
	if hpaMaxReplicas > scaleUpLimit {
		maximumAllowedReplicas = scaleUpLimit
		possibleLimitingCondition = "ScaleUpLimit"
		possibleLimitingReason = "the desired replica count is increasing faster than the maximum scale rate"
	} else {
		maximumAllowedReplicas = hpaMaxReplicas
		possibleLimitingCondition = "TooManyReplicas"
		possibleLimitingReason = "the desired replica count is more than the maximum replica count"
	}
	if desiredReplicas < minimumAllowedReplicas {
		return minimumAllowedReplicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
	} else if desiredReplicas > maximumAllowedReplicas {
		return maximumAllowedReplicas, possibleLimitingCondition, possibleLimitingReason
	}
	return desiredReplicas, "DesiredWithinRange", "the desired count is within the acceptable range"
}

func calculateScaleUpLimit(currentReplicas int32) int32 {
	return int32(math.Max(scaleUpLimitFactor*float64(currentReplicas), scaleUpLimitMinimum))
}

// setCurrentReplicasAndMetricsInStatus sets the status without a rescale.
func (a *HorizontalController) setCurrentReplicasAndMetricsInStatus(hpa *autoscalingv2.HorizontalPodAutoscaler, currentReplicas int32, metricStatuses []autoscalingv2.MetricStatus) {
	a.setStatus(hpa, currentReplicas, hpa.Status.DesiredReplicas, metricStatuses, false)
}

// setStatus fills the status; a rescale sets lastScaleTime.
func (a *HorizontalController) setStatus(hpa *autoscalingv2.HorizontalPodAutoscaler, currentReplicas, desiredReplicas int32, metricStatuses []autoscalingv2.MetricStatus, rescale bool) {
	hpa.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		CurrentReplicas: currentReplicas,
		DesiredReplicas: desiredReplicas,
		LastScaleTime:   hpa.Status.LastScaleTime,
		CurrentMetrics:  metricStatuses,
		Conditions:      hpa.Status.Conditions,
	}
	if rescale {
		now := metav1.NewTime(a.now())
		hpa.Status.LastScaleTime = &now
	}
}

// updateStatusIfNeeded writes the status when it changed.
func (a *HorizontalController) updateStatusIfNeeded(ctx context.Context, oldStatus *autoscalingv2.HorizontalPodAutoscalerStatus, hpa *autoscalingv2.HorizontalPodAutoscaler) error {
	// Compared as JSON: quantities equal in value may differ in form.
	before, _ := json.Marshal(oldStatus)
	after, _ := json.Marshal(&hpa.Status)
	if bytes.Equal(before, after) {
		return nil
	}
	if _, err := rest.UpdateStatus(ctx, a.client, hpa); err != nil {
		a.event(hpa, corev1.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		return fmt.Errorf("failed to update status for %s: %v", hpa.Name, err)
	}
	return nil
}

// setCondition sets the condition of type, keeping its lastTransitionTime
// when the status did not change.
func setCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, conditionType autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, message string, args ...any) {
	hpa.Status.Conditions = setConditionInList(hpa.Status.Conditions, conditionType, status, reason, message, args...)
}

func setConditionInList(inputList []autoscalingv2.HorizontalPodAutoscalerCondition, conditionType autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, message string, args ...any) []autoscalingv2.HorizontalPodAutoscalerCondition {
	resList := inputList
	var existing *autoscalingv2.HorizontalPodAutoscalerCondition
	for i, c := range resList {
		if c.Type == conditionType {
			existing = &resList[i]
			break
		}
	}
	if existing == nil {
		resList = append(resList, autoscalingv2.HorizontalPodAutoscalerCondition{Type: conditionType})
		existing = &resList[len(resList)-1]
	}
	if existing.Status != status {
		existing.LastTransitionTime = metav1.Now()
	}
	existing.Status = status
	existing.Reason = reason
	existing.Message = fmt.Sprintf(message, args...)
	return resList
}
