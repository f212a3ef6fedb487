package deployment

// The arithmetic of rollouts: maxSurge and maxUnavailable, how far the
// new ReplicaSet may grow, proportional scaling, and which ReplicaSet is
// the new one. Upstream: pkg/controller/deployment/util/deployment_util.go.

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
)

// GetScaledValueFromIntOrPercent resolves 3 or "25%" against total,
// rounding a percentage up or down. Upstream: intstr's function.
func GetScaledValueFromIntOrPercent(v *intstr.IntOrString, total int, roundUp bool) (int, error) {
	if v == nil {
		return 0, errors.New("nil value for IntOrString")
	}
	if v.Type == intstr.Int {
		return int(v.IntVal), nil
	}
	s, ok := strings.CutSuffix(v.StrVal, "%")
	if !ok {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid type: string is not a percentage")
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", v.StrVal, err)
	}
	if roundUp {
		return int(math.Ceil(float64(n) * float64(total) / 100)), nil
	}
	return int(math.Floor(float64(n) * float64(total) / 100)), nil
}

// ResolveFenceposts turns maxSurge and maxUnavailable into numbers of pods
// for desired replicas: surge rounds up, unavailability down (so "25%" of 3
// is a surge of 1 and 0 unavailable). If both come out 0, unavailable is 1:
// a rollout must be able to move.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (int32, int32, error) {
	zero := intstr.FromInt(0)
	if maxSurge == nil {
		maxSurge = &zero
	}
	if maxUnavailable == nil {
		maxUnavailable = &zero
	}
	surge, err := GetScaledValueFromIntOrPercent(maxSurge, int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	unavailable, err := GetScaledValueFromIntOrPercent(maxUnavailable, int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int32(surge), int32(unavailable), nil
}

// IsRollingUpdate: the strategy is RollingUpdate.
func IsRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

func rollingParams(d *appsv1.Deployment) (surge, unavailable *intstr.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	return nil, nil
}

// MaxUnavailable is how many of the desired pods may be unavailable during
// a rolling update (never more than replicas).
func MaxUnavailable(d *appsv1.Deployment) int32 {
	if !IsRollingUpdate(d) || *d.Spec.Replicas == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, maxUnavailable, _ := ResolveFenceposts(s, u, *d.Spec.Replicas)
	return min(maxUnavailable, *d.Spec.Replicas)
}

// MaxSurge is how many pods above replicas a rolling update may run.
func MaxSurge(d *appsv1.Deployment) int32 {
	if !IsRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	maxSurge, _, _ := ResolveFenceposts(s, u, *d.Spec.Replicas)
	return maxSurge
}

// NewRSNewReplicas is the size the new ReplicaSet may grow to now:
// RollingUpdate — up to replicas+maxSurge pods in all, never more than
// replicas in the new one; Recreate — replicas at once.
func NewRSNewReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		s, _ := rollingParams(d)
		zero := intstr.FromInt(0)
		if s == nil {
			s = &zero
		}
		maxSurge, err := GetScaledValueFromIntOrPercent(s, int(*d.Spec.Replicas), true)
		if err != nil {
			return 0, err
		}
		current := GetReplicaCountForReplicaSets(allRSs)
		maxTotal := *d.Spec.Replicas + int32(maxSurge)
		if current >= maxTotal {
			return *newRS.Spec.Replicas, nil // cannot scale up
		}
		up := min(maxTotal-current, *d.Spec.Replicas-*newRS.Spec.Replicas)
		return *newRS.Spec.Replicas + up, nil
	case appsv1.RecreateDeploymentStrategyType:
		return *d.Spec.Replicas, nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

// IsSaturated: the new ReplicaSet has all the desired pods, available.
func IsSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, ok := getIntAnnotation(rs, appsv1.DesiredReplicasAnnotation)
	return ok && *rs.Spec.Replicas == *d.Spec.Replicas && desired == *d.Spec.Replicas &&
		rs.Status.AvailableReplicas == *d.Spec.Replicas
}

func sum(rss []*appsv1.ReplicaSet, f func(*appsv1.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(rs)
		}
	}
	return n
}

// GetReplicaCountForReplicaSets sums spec.replicas.
func GetReplicaCountForReplicaSets(rss []*appsv1.ReplicaSet) int32 {
	return sum(rss, func(rs *appsv1.ReplicaSet) int32 { return *rs.Spec.Replicas })
}

// GetActualReplicaCountForReplicaSets sums status.replicas.
func GetActualReplicaCountForReplicaSets(rss []*appsv1.ReplicaSet) int32 {
	return sum(rss, func(rs *appsv1.ReplicaSet) int32 { return rs.Status.Replicas })
}

// GetReadyReplicaCountForReplicaSets sums status.readyReplicas.
func GetReadyReplicaCountForReplicaSets(rss []*appsv1.ReplicaSet) int32 {
	return sum(rss, func(rs *appsv1.ReplicaSet) int32 { return rs.Status.ReadyReplicas })
}

// GetAvailableReplicaCountForReplicaSets sums status.availableReplicas.
func GetAvailableReplicaCountForReplicaSets(rss []*appsv1.ReplicaSet) int32 {
	return sum(rss, func(rs *appsv1.ReplicaSet) int32 { return rs.Status.AvailableReplicas })
}

// GetTerminatingReplicaCountForReplicaSets sums status.terminatingReplicas;
// nil if some ReplicaSet does not report it (yet).
func GetTerminatingReplicaCountForReplicaSets(rss []*appsv1.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

// FilterActiveReplicaSets are those with spec.replicas > 0.
func FilterActiveReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && *rs.Spec.Replicas > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// EqualIgnoreHash compares two pod templates ignoring the pod-template-hash
// label (a ReplicaSet's template carries it, the Deployment's does not).
func EqualIgnoreHash(t1, t2 *corev1.PodTemplateSpec) bool {
	enc := func(t *corev1.PodTemplateSpec) string {
		c := *t
		c.Labels = maps.Clone(t.Labels)
		delete(c.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		if len(c.Labels) == 0 {
			c.Labels = nil
		}
		b, _ := json.Marshal(c)
		return string(b)
	}
	return enc(t1) == enc(t2)
}

// FindNewReplicaSet is the oldest ReplicaSet whose template is the
// Deployment's.
func FindNewReplicaSet(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sort.Sort(ReplicaSetsByCreationTimestamp(rsList))
	for _, rs := range rsList {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// FindOldReplicaSets returns the old ReplicaSets that still have pods, and
// all old ReplicaSets.
func FindOldReplicaSets(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (required, all []*appsv1.ReplicaSet) {
	newRS := FindNewReplicaSet(d, rsList)
	for _, rs := range rsList {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		all = append(all, rs)
		if *rs.Spec.Replicas != 0 {
			required = append(required, rs)
		}
	}
	return required, all
}

// FindActiveOrLatest: the only ReplicaSet with pods, or the newest one if
// none has any; nil if several have pods (scale them proportionally).
func FindActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sort.Sort(sort.Reverse(ReplicaSetsByCreationTimestamp(oldRSs)))
	all := FilterActiveReplicaSets(append(oldRSs, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return all[0]
	}
	return nil
}

// GetProportion is rs's share of deploymentReplicasToAdd when a Deployment
// is scaled in the middle of a rollout, bounded by what is left to add.
func GetProportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, deploymentReplicasToAdd, deploymentReplicasAdded int32) int32 {
	if rs == nil || *rs.Spec.Replicas == 0 || deploymentReplicasToAdd == 0 || deploymentReplicasToAdd == deploymentReplicasAdded {
		return 0
	}
	fraction := getReplicaSetFraction(rs, d)
	allowed := deploymentReplicasToAdd - deploymentReplicasAdded
	if deploymentReplicasToAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

func getReplicaSetFraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if *d.Spec.Replicas == 0 {
		return -*rs.Spec.Replicas
	}
	deploymentMaxReplicas := *d.Spec.Replicas + MaxSurge(d)
	before, ok := getIntAnnotation(rs, appsv1.MaxReplicasAnnotation)
	if !ok || before == 0 {
		// Scaled by hand, or annotation lost: use the current size.
		before = d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	newSize := float64(*rs.Spec.Replicas*deploymentMaxReplicas) / float64(before)
	return int32(math.Round(newSize)) - *rs.Spec.Replicas
}
