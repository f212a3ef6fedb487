package podautoscaler

import (
	"math"
	"time"

	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/corev1"
)

// NormalizationArg is what normalizing a recommendation with
// spec.behavior needs. Upstream: NormalizationArg.
type NormalizationArg struct {
	Key               string
	ScaleUpBehavior   *autoscalingv2.HPAScalingRules
	ScaleDownBehavior *autoscalingv2.HPAScalingRules
	MinReplicas       int32
	MaxReplicas       int32
	CurrentReplicas   int32
	DesiredReplicas   int32
}

// Upstream's defaults of spec.behavior (the apiserver fills them in;
// these cover rules that reach the controller without them).
var (
	defaultScaleUpRules = autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr[int32](0), SelectPolicy: ptr(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
	defaultScaleDownRules = autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr(autoscalingv2.MaxChangePolicySelect),
		Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
)

func ptr[T any](v T) *T { return &v }

// withDefaults fills the unset fields of rules from def.
func withDefaults(rules *autoscalingv2.HPAScalingRules, def autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	out := def
	if rules != nil {
		out = *rules
		if out.StabilizationWindowSeconds == nil {
			out.StabilizationWindowSeconds = def.StabilizationWindowSeconds
		}
		if out.SelectPolicy == nil {
			out.SelectPolicy = def.SelectPolicy
		}
		if out.Policies == nil {
			out.Policies = def.Policies
		}
	}
	return &out
}

// normalizeDesiredReplicasWithBehaviors stabilizes the recommendation over
// the behavior's windows and limits its rate by the behavior's policies.
func (a *HorizontalController) normalizeDesiredReplicasWithBehaviors(hpa *autoscalingv2.HorizontalPodAutoscaler, key string, currentReplicas, prenormalizedDesiredReplicas, minReplicas int32) int32 {
	a.maybeInitScaleDownStabilizationWindow(hpa)
	arg := NormalizationArg{
		Key:               key,
		ScaleUpBehavior:   withDefaults(hpa.Spec.Behavior.ScaleUp, defaultScaleUpRules),
		ScaleDownBehavior: withDefaults(hpa.Spec.Behavior.ScaleDown, defaultScaleDownRules),
		MinReplicas:       minReplicas,
		MaxReplicas:       hpa.Spec.MaxReplicas,
		CurrentReplicas:   currentReplicas,
		DesiredReplicas:   prenormalizedDesiredReplicas,
	}
	if arg.ScaleDownBehavior.StabilizationWindowSeconds == nil {
		arg.ScaleDownBehavior.StabilizationWindowSeconds = ptr(int32(a.downscaleStabilisationWindow.Seconds()))
	}
	stabilized, reason, message := a.stabilizeRecommendationWithBehaviors(arg)
	arg.DesiredReplicas = stabilized
	if stabilized != prenormalizedDesiredReplicas {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, reason, "%s", message)
	} else {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size")
	}
	desired, reason, message := a.convertDesiredReplicasWithBehaviorRate(arg)
	if desired == stabilized {
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionFalse, reason, "%s", message)
	} else {
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionTrue, reason, "%s", message)
	}
	return desired
}

// maybeInitScaleDownStabilizationWindow: a scaleDown rule without a window
// gets the --horizontal-pod-autoscaler-downscale-stabilization one.
func (a *HorizontalController) maybeInitScaleDownStabilizationWindow(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	b := hpa.Spec.Behavior
	if b != nil && b.ScaleDown != nil && b.ScaleDown.StabilizationWindowSeconds == nil {
		b.ScaleDown.StabilizationWindowSeconds = ptr(int32(a.downscaleStabilisationWindow.Seconds()))
	}
}

// stabilizeRecommendationWithBehaviors keeps the recommendation between
// the lowest one of the scale-up window and the highest one of the
// scale-down window, and records this one.
func (a *HorizontalController) stabilizeRecommendationWithBehaviors(args NormalizationArg) (int32, string, string) {
	now := a.now()
	foundOldSample, oldSampleIndex := false, 0
	upRecommendation := args.DesiredReplicas
	upCutoff := now.Add(-secondsDuration(*args.ScaleUpBehavior.StabilizationWindowSeconds))
	downRecommendation := args.DesiredReplicas
	downCutoff := now.Add(-secondsDuration(*args.ScaleDownBehavior.StabilizationWindowSeconds))
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, rec := range a.recommendations[args.Key] {
		if rec.timestamp.After(upCutoff) {
			upRecommendation = min(rec.recommendation, upRecommendation)
		}
		if rec.timestamp.After(downCutoff) {
			downRecommendation = max(rec.recommendation, downRecommendation)
		}
		if rec.timestamp.Before(upCutoff) && rec.timestamp.Before(downCutoff) {
			foundOldSample, oldSampleIndex = true, i
		}
	}
	recommendation := args.CurrentReplicas
	if recommendation < upRecommendation {
		recommendation = upRecommendation
	}
	if recommendation > downRecommendation {
		recommendation = downRecommendation
	}
	rec := timestampedRecommendation{args.DesiredReplicas, now}
	if foundOldSample {
		a.recommendations[args.Key][oldSampleIndex] = rec
	} else {
		a.recommendations[args.Key] = append(a.recommendations[args.Key], rec)
	}
	if args.DesiredReplicas >= args.CurrentReplicas {
		return recommendation, "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"
	}
	return recommendation, "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
}

// convertDesiredReplicasWithBehaviorRate clamps the recommendation by the
// rate the policies allow and by the min/max bounds.
func (a *HorizontalController) convertDesiredReplicasWithBehaviorRate(args NormalizationArg) (int32, string, string) {
	var reason, message string
	a.mu.Lock()
	up, down := a.scaleUpEvents[args.Key], a.scaleDownEvents[args.Key]
	a.mu.Unlock()
	now := a.now()
	if args.DesiredReplicas > args.CurrentReplicas {
		scaleUpLimit := calculateScaleUpLimitWithScalingRules(args.CurrentReplicas, up, down, args.ScaleUpBehavior, now)
		if scaleUpLimit < args.CurrentReplicas {
			// No further scale-up until the recent events age out.
			scaleUpLimit = args.CurrentReplicas
		}
		maximumAllowedReplicas := args.MaxReplicas
		if maximumAllowedReplicas > scaleUpLimit {
			maximumAllowedReplicas = scaleUpLimit
			reason, message = "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"
		} else {
			reason, message = "TooManyReplicas", "the desired replica count is more than the maximum replica count"
		}
		if args.DesiredReplicas > maximumAllowedReplicas {
			return maximumAllowedReplicas, reason, message
		}
	} else if args.DesiredReplicas < args.CurrentReplicas {
		scaleDownLimit := calculateScaleDownLimitWithBehaviors(args.CurrentReplicas, up, down, args.ScaleDownBehavior, now)
		if scaleDownLimit > args.CurrentReplicas {
			scaleDownLimit = args.CurrentReplicas
		}
		minimumAllowedReplicas := args.MinReplicas
		if minimumAllowedReplicas < scaleDownLimit {
			minimumAllowedReplicas = scaleDownLimit
			reason, message = "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"
		} else {
			reason, message = "TooFewReplicas", "the desired replica count is less than the minimum replica count"
		}
		if args.DesiredReplicas < minimumAllowedReplicas {
			return minimumAllowedReplicas, reason, message
		}
	}
	return args.DesiredReplicas, "DesiredWithinRange", "the desired count is within the acceptable range"
}

// getReplicasChangePerPeriod sums the changes within the last periodSeconds.
func getReplicasChangePerPeriod(periodSeconds int32, scaleEvents []timestampedScaleEvent, now time.Time) int32 {
	cutoff := now.Add(-secondsDuration(periodSeconds))
	var replicas int32
	for _, rec := range scaleEvents {
		if rec.timestamp.After(cutoff) {
			replicas += rec.replicaChange
		}
	}
	return replicas
}

// calculateScaleUpLimitWithScalingRules is the most replicas the scale-up
// policies allow now: each policy from the replicas at the start of its
// period, the largest (Max) or smallest (Min) proposal.
func calculateScaleUpLimitWithScalingRules(currentReplicas int32, scaleUpEvents, scaleDownEvents []timestampedScaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time) int32 {
	var result int32
	var selectPolicyFn func(int32, int32) int32
	switch selectPolicy(rules) {
	case autoscalingv2.DisabledPolicySelect:
		return currentReplicas
	case autoscalingv2.MinChangePolicySelect:
		result, selectPolicyFn = math.MaxInt32, minInt32
	default:
		result, selectPolicyFn = math.MinInt32, maxInt32
	}
	for _, policy := range rules.Policies {
		added := getReplicasChangePerPeriod(policy.PeriodSeconds, scaleUpEvents, now)
		deleted := getReplicasChangePerPeriod(policy.PeriodSeconds, scaleDownEvents, now)
		periodStartReplicas := currentReplicas - added + deleted
		var proposed int32
		switch policy.Type {
		case autoscalingv2.PodsScalingPolicy:
			proposed = periodStartReplicas + policy.Value
		case autoscalingv2.PercentScalingPolicy:
			// Rounded up, or a small target would never grow.
			proposed = int32(math.Ceil(float64(periodStartReplicas) * (1 + float64(policy.Value)/100)))
		}
		result = selectPolicyFn(result, proposed)
	}
	return result
}

// calculateScaleDownLimitWithBehaviors is the fewest replicas the
// scale-down policies allow now.
func calculateScaleDownLimitWithBehaviors(currentReplicas int32, scaleUpEvents, scaleDownEvents []timestampedScaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time) int32 {
	var result int32
	var selectPolicyFn func(int32, int32) int32
	switch selectPolicy(rules) {
	case autoscalingv2.DisabledPolicySelect:
		return currentReplicas
	case autoscalingv2.MinChangePolicySelect:
		result, selectPolicyFn = math.MinInt32, maxInt32
	default:
		result, selectPolicyFn = math.MaxInt32, minInt32
	}
	for _, policy := range rules.Policies {
		added := getReplicasChangePerPeriod(policy.PeriodSeconds, scaleUpEvents, now)
		deleted := getReplicasChangePerPeriod(policy.PeriodSeconds, scaleDownEvents, now)
		periodStartReplicas := currentReplicas - added + deleted
		var proposed int32
		switch policy.Type {
		case autoscalingv2.PodsScalingPolicy:
			proposed = periodStartReplicas - policy.Value
		case autoscalingv2.PercentScalingPolicy:
			proposed = int32(float64(periodStartReplicas) * (1 - float64(policy.Value)/100))
		}
		result = selectPolicyFn(result, proposed)
	}
	return result
}

func selectPolicy(rules *autoscalingv2.HPAScalingRules) autoscalingv2.ScalingPolicySelect {
	if rules.SelectPolicy == nil {
		return autoscalingv2.MaxChangePolicySelect
	}
	return *rules.SelectPolicy
}

func minInt32(a, b int32) int32 { return min(a, b) }
func maxInt32(a, b int32) int32 { return max(a, b) }

func secondsDuration(s int32) time.Duration { return time.Duration(s) * time.Second }

// storeScaleEvent records a rescale for the behavior's policies, reusing
// an entry older than the longest policy period.
func (a *HorizontalController) storeScaleEvent(behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, key string, prevReplicas, newReplicas int32) {
	if behavior == nil {
		return // the events are only read by behavior's policies
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	events, rules, change := a.scaleUpEvents, withDefaults(behavior.ScaleUp, defaultScaleUpRules), newReplicas-prevReplicas
	if newReplicas <= prevReplicas {
		events, rules, change = a.scaleDownEvents, withDefaults(behavior.ScaleDown, defaultScaleDownRules), prevReplicas-newReplicas
	}
	longestPolicyPeriod := getLongestPolicyPeriod(rules)
	list := events[key]
	markScaleEventsOutdated(list, longestPolicyPeriod, now)
	e := timestampedScaleEvent{replicaChange: change, timestamp: now}
	for i, old := range list {
		if old.outdated {
			list[i] = e
			return
		}
	}
	events[key] = append(list, e)
}

func getLongestPolicyPeriod(rules *autoscalingv2.HPAScalingRules) int32 {
	var longest int32
	for _, p := range rules.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return longest
}

func markScaleEventsOutdated(events []timestampedScaleEvent, longestPolicyPeriod int32, now time.Time) {
	cutoff := now.Add(-secondsDuration(longestPolicyPeriod))
	for i, e := range events {
		if e.timestamp.Before(cutoff) {
			events[i].outdated = true
		}
	}
}
