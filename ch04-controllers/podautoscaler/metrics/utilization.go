package metrics

import "fmt"

// GetResourceUtilizationRatio takes the pods' usage and requests (both
// milli-units) and the target utilization (percent of request) and
// returns the ratio of current to target utilization, the current
// utilization, and the average raw usage per pod.
func GetResourceUtilizationRatio(metrics PodMetricsInfo, requests map[string]int64, targetUtilization int32) (utilizationRatio float64, currentUtilization int32, rawAverageValue int64, err error) {
	metricsTotal, requestsTotal := int64(0), int64(0)
	numEntries := 0
	for podName, metric := range metrics {
		request, ok := requests[podName]
		if !ok {
			// Missing requests are checked elsewhere: a metric without one
			// is extraneous.
			continue
		}
		metricsTotal += metric.Value
		requestsTotal += request
		numEntries++
	}
	// The requests and the metrics may not share a single pod.
	if requestsTotal == 0 {
		return 0, 0, 0, fmt.Errorf("no metrics returned matched known pods")
	}
	currentUtilization = int32((metricsTotal * 100) / requestsTotal)
	return float64(currentUtilization) / float64(targetUtilization), currentUtilization, metricsTotal / int64(numEntries), nil
}

// GetMetricUsageRatio returns the ratio of the pods' average usage to
// targetUsage, and that average.
func GetMetricUsageRatio(metrics PodMetricsInfo, targetUsage int64) (usageRatio float64, currentUsage int64) {
	metricsTotal := int64(0)
	for _, metric := range metrics {
		metricsTotal += metric.Value
	}
	currentUsage = metricsTotal / int64(len(metrics))
	return float64(currentUsage) / float64(targetUsage), currentUsage
}
