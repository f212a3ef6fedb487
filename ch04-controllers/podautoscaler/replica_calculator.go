package podautoscaler

import (
	"context"
	"fmt"
	"math"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch04-controllers/podautoscaler/metrics"
)

// Tolerances are how far below and above 1.0 the ratio of current to
// target usage may be before the autoscaler acts (0.1: within 0.9–1.1
// nothing changes). Upstream: Tolerances.
type Tolerances struct {
	ScaleDown, ScaleUp float64
}

func (t Tolerances) isWithin(usageRatio float64) bool {
	return (1.0-t.ScaleDown) <= usageRatio && usageRatio <= (1.0+t.ScaleUp)
}

// PodLister lists the pods of a namespace a selector picks (the pod
// informer's cache).
type PodLister func(namespace string, selector selection.LabelSelector) []*corev1.Pod

// ReplicaCalculator turns the pods' metrics into a replica count.
// Upstream: ReplicaCalculator.
type ReplicaCalculator struct {
	metricsClient metrics.MetricsClient
	podLister     PodLister
	// cpuInitializationPeriod: a pod started less than this ago whose
	// readiness changed within the metric's window is counted unready;
	// delayOfInitialReadinessStatus: a pod not yet ready this long after
	// it started is counted unready (it has never been ready).
	cpuInitializationPeriod       time.Duration
	delayOfInitialReadinessStatus time.Duration
	now                           func() time.Time
}

// NewReplicaCalculator is upstream's NewReplicaCalculator.
func NewReplicaCalculator(metricsClient metrics.MetricsClient, podLister PodLister, cpuInitializationPeriod, delayOfInitialReadinessStatus time.Duration) *ReplicaCalculator {
	return &ReplicaCalculator{metricsClient: metricsClient, podLister: podLister,
		cpuInitializationPeriod: cpuInitializationPeriod, delayOfInitialReadinessStatus: delayOfInitialReadinessStatus, now: time.Now}
}

// GetResourceReplicas calculates the desired replica count from the pods'
// utilization of resource (percent of their requests) and the target.
func (c *ReplicaCalculator) GetResourceReplicas(ctx context.Context, currentReplicas int32, targetUtilization int32, resource corev1.ResourceName, tolerances Tolerances, namespace string, selector selection.LabelSelector, container string) (replicaCount int32, utilization int32, rawUtilization int64, timestamp time.Time, err error) {
	podMetrics, timestamp, err := c.metricsClient.GetResourceMetric(ctx, resource, namespace, selector, container)
	if err != nil {
		return 0, 0, 0, time.Time{}, fmt.Errorf("unable to get metrics for resource %s: %v", resource, err)
	}
	podList := c.podLister(namespace, selector)
	if len(podList) == 0 {
		return 0, 0, 0, time.Time{}, fmt.Errorf("no pods returned by selector while calculating replica count")
	}
	readyPodCount, unreadyPods, missingPods, ignoredPods := groupPods(podList, podMetrics, resource, c.cpuInitializationPeriod, c.delayOfInitialReadinessStatus, c.now())
	removeMetricsForPods(podMetrics, ignoredPods)
	removeMetricsForPods(podMetrics, unreadyPods)
	if len(podMetrics) == 0 {
		return 0, 0, 0, time.Time{}, fmt.Errorf("did not receive metrics for targeted pods (pods might be unready)")
	}
	requests, err := calculatePodRequests(podList, container, resource)
	if err != nil {
		return 0, 0, 0, time.Time{}, err
	}
	usageRatio, utilization, rawUtilization, err := metrics.GetResourceUtilizationRatio(podMetrics, requests, targetUtilization)
	if err != nil {
		return 0, 0, 0, time.Time{}, err
	}

	scaleUpWithUnready := len(unreadyPods) > 0 && usageRatio > 1.0
	if !scaleUpWithUnready && len(missingPods) == 0 {
		if tolerances.isWithin(usageRatio) {
			return currentReplicas, utilization, rawUtilization, timestamp, nil
		}
		return int32(math.Ceil(usageRatio * float64(readyPodCount))), utilization, rawUtilization, timestamp, nil
	}

	// Missing pods: on a scale-down they count as using their whole
	// request (or the target, above 100%), on a scale-up as using nothing.
	if len(missingPods) > 0 {
		if usageRatio < 1.0 {
			fallback := int64(max(100, targetUtilization))
			for name := range missingPods {
				podMetrics[name] = metrics.PodMetric{Value: requests[name] * fallback / 100}
			}
		} else if usageRatio > 1.0 {
			for name := range missingPods {
				podMetrics[name] = metrics.PodMetric{Value: 0}
			}
		}
	}
	// Unready pods on a scale-up count as using nothing.
	if scaleUpWithUnready {
		for name := range unreadyPods {
			podMetrics[name] = metrics.PodMetric{Value: 0}
		}
	}
	newUsageRatio, _, _, err := metrics.GetResourceUtilizationRatio(podMetrics, requests, targetUtilization)
	if err != nil {
		return 0, utilization, rawUtilization, time.Time{}, err
	}
	// Too small a change, or the assumptions reversed the direction.
	if tolerances.isWithin(newUsageRatio) || (usageRatio < 1.0 && newUsageRatio > 1.0) || (usageRatio > 1.0 && newUsageRatio < 1.0) {
		return currentReplicas, utilization, rawUtilization, timestamp, nil
	}
	newReplicas := int32(math.Ceil(newUsageRatio * float64(len(podMetrics))))
	if (newUsageRatio < 1.0 && newReplicas > currentReplicas) || (newUsageRatio > 1.0 && newReplicas < currentReplicas) {
		return currentReplicas, utilization, rawUtilization, timestamp, nil
	}
	return newReplicas, utilization, rawUtilization, timestamp, nil
}

// GetRawResourceReplicas calculates the desired replica count from the
// pods' average usage of resource (milli-units) and a target average.
func (c *ReplicaCalculator) GetRawResourceReplicas(ctx context.Context, currentReplicas int32, targetUsage int64, resource corev1.ResourceName, tolerances Tolerances, namespace string, selector selection.LabelSelector, container string) (replicaCount int32, usage int64, timestamp time.Time, err error) {
	podMetrics, timestamp, err := c.metricsClient.GetResourceMetric(ctx, resource, namespace, selector, container)
	if err != nil {
		return 0, 0, time.Time{}, fmt.Errorf("unable to get metrics for resource %s: %v", resource, err)
	}
	replicaCount, usage, err = c.calcPlainMetricReplicas(podMetrics, currentReplicas, targetUsage, tolerances, namespace, selector, resource)
	return replicaCount, usage, timestamp, err
}

// calcPlainMetricReplicas is GetResourceReplicas for a per-pod average.
func (c *ReplicaCalculator) calcPlainMetricReplicas(podMetrics metrics.PodMetricsInfo, currentReplicas int32, targetUsage int64, tolerances Tolerances, namespace string, selector selection.LabelSelector, resource corev1.ResourceName) (replicaCount int32, usage int64, err error) {
	podList := c.podLister(namespace, selector)
	if len(podList) == 0 {
		return 0, 0, fmt.Errorf("no pods returned by selector while calculating replica count")
	}
	readyPodCount, unreadyPods, missingPods, ignoredPods := groupPods(podList, podMetrics, resource, c.cpuInitializationPeriod, c.delayOfInitialReadinessStatus, c.now())
	removeMetricsForPods(podMetrics, ignoredPods)
	removeMetricsForPods(podMetrics, unreadyPods)
	if len(podMetrics) == 0 {
		return 0, 0, fmt.Errorf("did not receive metrics for targeted pods (pods might be unready)")
	}
	usageRatio, usage := metrics.GetMetricUsageRatio(podMetrics, targetUsage)
	scaleUpWithUnready := len(unreadyPods) > 0 && usageRatio > 1.0
	if !scaleUpWithUnready && len(missingPods) == 0 {
		if tolerances.isWithin(usageRatio) {
			return currentReplicas, usage, nil
		}
		return int32(math.Ceil(usageRatio * float64(readyPodCount))), usage, nil
	}
	if len(missingPods) > 0 {
		v := int64(0) // scale-up: missing pods use nothing
		if usageRatio < 1.0 {
			v = targetUsage // scale-down: missing pods are at the target
		}
		for name := range missingPods {
			podMetrics[name] = metrics.PodMetric{Value: v}
		}
	}
	if scaleUpWithUnready {
		for name := range unreadyPods {
			podMetrics[name] = metrics.PodMetric{Value: 0}
		}
	}
	newUsageRatio, _ := metrics.GetMetricUsageRatio(podMetrics, targetUsage)
	if tolerances.isWithin(newUsageRatio) || (usageRatio < 1.0 && newUsageRatio > 1.0) || (usageRatio > 1.0 && newUsageRatio < 1.0) {
		return currentReplicas, usage, nil
	}
	newReplicas := int32(math.Ceil(newUsageRatio * float64(len(podMetrics))))
	if (newUsageRatio < 1.0 && newReplicas > currentReplicas) || (newUsageRatio > 1.0 && newReplicas < currentReplicas) {
		return currentReplicas, usage, nil
	}
	return newReplicas, usage, nil
}

type podSet map[string]struct{}

// groupPods sorts the pods: ready ones with a metric are counted; pending
// and (for cpu) not-yet-ready ones are unready; pods without a metric are
// missing; deleted and failed pods are ignored.
func groupPods(pods []*corev1.Pod, podMetrics metrics.PodMetricsInfo, resource corev1.ResourceName, cpuInitializationPeriod, delayOfInitialReadinessStatus time.Duration, now time.Time) (readyPodCount int, unreadyPods, missingPods, ignoredPods podSet) {
	unreadyPods, missingPods, ignoredPods = podSet{}, podSet{}, podSet{}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodFailed {
			ignoredPods[pod.Name] = struct{}{}
			continue
		}
		if pod.Status.Phase == corev1.PodPending {
			unreadyPods[pod.Name] = struct{}{}
			continue
		}
		metric, found := podMetrics[pod.Name]
		if !found {
			missingPods[pod.Name] = struct{}{}
			continue
		}
		if resource == corev1.ResourceCPU {
			var unready bool
			condition := podReadyCondition(pod)
			if condition == nil || pod.Status.StartTime == nil {
				unready = true
			} else if pod.Status.StartTime.Add(cpuInitializationPeriod).After(now) {
				// Still initializing: unready, or the metric's window does
				// not start after the last readiness change.
				unready = condition.Status == corev1.ConditionFalse || metric.Timestamp.Before(condition.LastTransitionTime.Add(metric.Window))
			} else {
				// Unready and never ready since it started.
				unready = condition.Status == corev1.ConditionFalse && pod.Status.StartTime.Add(delayOfInitialReadinessStatus).After(condition.LastTransitionTime.Time)
			}
			if unready {
				unreadyPods[pod.Name] = struct{}{}
				continue
			}
		}
		readyPodCount++
	}
	return readyPodCount, unreadyPods, missingPods, ignoredPods
}

func podReadyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// calculatePodRequests sums each pod's requests of resource over its
// containers and restartable (sidecar) init containers, or over the one
// container named; a container without a request is an error.
func calculatePodRequests(pods []*corev1.Pod, container string, resource corev1.ResourceName) (map[string]int64, error) {
	requests := make(map[string]int64, len(pods))
	for _, pod := range pods {
		podSum := int64(0)
		containers := append([]corev1.Container{}, pod.Spec.Containers...)
		for _, c := range pod.Spec.InitContainers {
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				containers = append(containers, c)
			}
		}
		for _, c := range containers {
			if container != "" && container != c.Name {
				continue
			}
			req, ok := c.Resources.Requests[resource]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, pod.Name)
			}
			podSum += req.MilliValue()
		}
		requests[pod.Name] = podSum
	}
	return requests, nil
}

func removeMetricsForPods(podMetrics metrics.PodMetricsInfo, pods podSet) {
	for name := range pods {
		delete(podMetrics, name)
	}
}
