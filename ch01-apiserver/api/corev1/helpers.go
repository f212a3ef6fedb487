package corev1

import "strconv"

// MatchTaint reports whether two taints have the same key and effect: a node
// cannot carry two such taints (upstream: taint.go).
func (t *Taint) MatchTaint(taintToMatch *Taint) bool {
	return t.Key == taintToMatch.Key && t.Effect == taintToMatch.Effect
}

// ToString renders a taint the way "kubectl taint" takes it: key[=value]:effect.
func (t *Taint) ToString() string {
	switch {
	case t.Effect == "" && t.Value == "":
		return t.Key
	case t.Effect == "":
		return t.Key + "=" + t.Value + ":"
	case t.Value == "":
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// MatchToleration reports whether two tolerations are the same, ignoring tolerationSeconds.
func (t *Toleration) MatchToleration(tolerationToMatch *Toleration) bool {
	return t.Key == tolerationToMatch.Key &&
		t.Effect == tolerationToMatch.Effect &&
		t.Operator == tolerationToMatch.Operator &&
		t.Value == tolerationToMatch.Value
}

// ToleratesTaint reports whether the toleration tolerates the taint (upstream:
// toleration.go). An empty effect matches every effect; an empty key with
// operator Exists matches every taint. The numeric operators Lt and Gt compare
// the values as decimal integers (upstream puts them behind a feature gate).
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	case TolerationOpLt, TolerationOpGt:
		tolerationVal, err1 := strconv.ParseInt(t.Value, 10, 64)
		taintVal, err2 := strconv.ParseInt(taint.Value, 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if t.Operator == TolerationOpLt {
			return taintVal < tolerationVal
		}
		return taintVal > tolerationVal
	}
	return false
}

// EphemeralVolumeClaimName is the name of the PersistentVolumeClaim made
// for pod's ephemeral volume vol: "<pod>-<volume>". Upstream:
// component-helpers/storage/ephemeral.VolumeClaimName.
func EphemeralVolumeClaimName(pod *Pod, vol *Volume) string {
	return pod.Name + "-" + vol.Name
}
