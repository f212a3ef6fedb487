package patch

import (
	"encoding/json"
	"errors"
	"reflect"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation"
)

// The migration from client-side apply to server-side apply, upstream's
// lastAppliedManager and lastAppliedUpdater
// (k8s.io/apimachinery/pkg/util/managedfields/internal).
//
// Client-side apply (kubectl apply without --server-side) keeps what it
// applied in the last-applied-configuration annotation and writes with
// ordinary patches, so managedFields credit the fields to an Update manager
// (kubectl-client-side-apply). The first server-side apply of a changed
// value would then conflict with that manager. For kubectl's default
// server-side manager the apiserver takes the annotation as proof that the
// fields were applied: conflicts on fields the annotation holds with the
// value the object still has are not conflicts. After every such apply the
// annotation is rewritten to the configuration just applied, so a later
// client-side apply computes its three-way patch from the right base.

// LastAppliedConfigAnnotation is where client-side apply keeps the
// configuration it applied last.
const LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// lastAppliedFieldManager is the only manager whose applies migrate: the
// default of kubectl apply --server-side. Another --field-manager opts out.
const lastAppliedFieldManager = "kubectl"

// lastAppliedManagerApply is upstream's lastAppliedManager.Apply: apply, and
// when the only conflicts are with fields the last-applied annotation
// proves were applied, apply again with force.
func lastAppliedManagerApply(live, applied []byte, t reflect.Type, manager string, force bool, now metav1.Time) ([]byte, error) {
	out, err := structuredApply(live, applied, t, manager, force, now)
	var conflicts *Conflicts
	if err == nil || !errors.As(err, &conflicts) {
		return out, err
	}
	allowed, ok := allowedConflictsFromLastApplied(live, t)
	if !ok {
		return nil, err
	}
	var remaining Conflicts
	for _, c := range *conflicts {
		if !allowed[c.path.key()] {
			remaining = append(remaining, c)
		}
	}
	if len(remaining) > 0 {
		return nil, &remaining
	}
	return structuredApply(live, applied, t, manager, true, now)
}

// allowedConflictsFromLastApplied is the field set of the last-applied
// annotation of live, less the fields whose value in live is no longer the
// one last applied (someone else changed them since: those stay conflicts).
// ok is false when live has no usable annotation.
func allowedConflictsFromLastApplied(live []byte, t reflect.Type) (fieldSet, bool) {
	if live == nil {
		return nil, false
	}
	lv, err := decode(live)
	if err != nil {
		return nil, false
	}
	liveMap, ok := lv.(map[string]any)
	if !ok {
		return nil, false
	}
	lastApplied := annotationOf(liveMap, LastAppliedConfigAnnotation)
	if lastApplied == "" {
		return nil, false
	}
	av, err := decode([]byte(lastApplied))
	if err != nil {
		return nil, false
	}
	appliedMap, ok := av.(map[string]any)
	if !ok {
		return nil, false
	}
	liveNodes := flatten(liveMap, t)
	allowed := fieldSet{}
	for k, n := range flatten(appliedMap, t) {
		l, inLive := liveNodes[k]
		if !inLive || (n.member && !n.structural && !equal(n.value, l.value)) {
			continue // removed or modified since it was applied
		}
		allowed[k] = true
	}
	return allowed, true
}

// updateLastApplied is upstream's lastAppliedUpdater.Apply: when the result
// of kubectl's server-side apply carries the annotation, it is set to the
// configuration just applied (without the annotation itself), or dropped if
// it would push the annotations over their size limit.
func updateLastApplied(obj, applied []byte) ([]byte, error) {
	ov, err := decode(obj)
	if err != nil {
		return nil, err
	}
	objMap, ok := ov.(map[string]any)
	if !ok || annotationOf(objMap, LastAppliedConfigAnnotation) == "" {
		return obj, nil
	}
	value, err := buildLastApplied(applied)
	if err != nil {
		return nil, err
	}
	meta := objMap["metadata"].(map[string]any) // annotationOf found it
	annotations := meta["annotations"].(map[string]any)
	annotations[LastAppliedConfigAnnotation] = value
	if annotationsSize(annotations) > validation.TotalAnnotationSizeLimitB {
		delete(annotations, LastAppliedConfigAnnotation)
	}
	return json.Marshal(objMap)
}

// buildLastApplied encodes the applied configuration as the annotation's
// value, as upstream's unstructured JSON encoder does (keys sorted, one
// trailing newline), leaving out the annotation itself.
func buildLastApplied(applied []byte) (string, error) {
	av, err := decode(applied)
	if err != nil {
		return "", err
	}
	appliedMap, ok := av.(map[string]any)
	if !ok {
		return "", ErrBadJSONDocument
	}
	if meta, ok := appliedMap["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
		if annotations, ok := meta["annotations"].(map[string]any); ok {
			delete(annotations, LastAppliedConfigAnnotation)
		}
	}
	b, err := json.Marshal(appliedMap)
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

// annotationOf is the string value of one annotation of a generic object.
func annotationOf(obj map[string]any, key string) string {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	s, _ := annotations[key].(string)
	return s
}

// annotationsSize counts as upstream's ValidateAnnotationsSize: keys and
// values.
func annotationsSize(annotations map[string]any) int {
	total := 0
	for k, v := range annotations {
		s, _ := v.(string)
		total += len(k) + len(s)
	}
	return total
}
