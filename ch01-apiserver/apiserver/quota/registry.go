package quota

import (
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

// Listers are the list functions of the evaluators NewEvaluators makes; a
// nil one lists nothing (the admission plugin measures one object at a time).
type Listers struct {
	Pods                   ListFuncByNamespace[corev1.Pod]
	Services               ListFuncByNamespace[corev1.Service]
	PersistentVolumeClaims ListFuncByNamespace[corev1.PersistentVolumeClaim]
	ConfigMaps             ListFuncByNamespace[corev1.ConfigMap]
	ResourceQuotas         ListFuncByNamespace[corev1.ResourceQuota]
	ReplicationControllers ListFuncByNamespace[corev1.ReplicationController]
	Secrets                ListFuncByNamespace[corev1.Secret]
}

// NewEvaluators are the evaluators of the core kinds: pods, Services and
// claims, and the object counts that keep their legacy name too
// ("configmaps" beside count/configmaps). Every other resource is counted
// by an object count evaluator as count/<resource>.<group>.
func NewEvaluators(l Listers, now func() time.Time) []Evaluator {
	return []Evaluator{
		NewPodEvaluator(l.Pods, now),
		NewServiceEvaluator(l.Services),
		NewPersistentVolumeClaimEvaluator(l.PersistentVolumeClaims),
		NewObjectCountEvaluator("configmaps", l.ConfigMaps, corev1.ResourceConfigMaps),
		NewObjectCountEvaluator("resourcequotas", l.ResourceQuotas, corev1.ResourceQuotas),
		NewObjectCountEvaluator("replicationcontrollers", l.ReplicationControllers, corev1.ResourceReplicationControllers),
		NewObjectCountEvaluator("secrets", l.Secrets, corev1.ResourceSecrets),
	}
}
