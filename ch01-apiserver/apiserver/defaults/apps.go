package defaults

import (
	"math"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
)

// setDefaultsDeployment is SetDefaults_Deployment of apps/v1: one replica, a
// RollingUpdate strategy with 25% max unavailable and 25% max surge, 10 old
// ReplicaSets kept and a 600 s progress deadline.
func setDefaultsDeployment(d *appsv1.Deployment) {
	spec := &d.Spec
	if spec.Replicas == nil {
		spec.Replicas = ptrTo(int32(1))
	}
	s := &spec.Strategy
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if s.RollingUpdate.MaxUnavailable == nil {
			s.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromString("25%"))
		}
		if s.RollingUpdate.MaxSurge == nil {
			s.RollingUpdate.MaxSurge = ptrTo(intstr.FromString("25%"))
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptrTo(int32(10))
	}
	if spec.ProgressDeadlineSeconds == nil {
		spec.ProgressDeadlineSeconds = ptrTo(int32(600))
	}
	setDefaultsPodTemplateSpec(&spec.Template)
}

// setDefaultsReplicaSet is SetDefaults_ReplicaSet: one replica.
func setDefaultsReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptrTo(int32(1))
	}
	setDefaultsPodTemplateSpec(&rs.Spec.Template)
}

// setDefaultsDaemonSet is SetDefaults_DaemonSet: RollingUpdate one node at a
// time (maxUnavailable 1, maxSurge 0), 10 old revisions kept.
func setDefaultsDaemonSet(ds *appsv1.DaemonSet) {
	s := &ds.Spec.UpdateStrategy
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if s.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if s.RollingUpdate.MaxUnavailable == nil {
			s.RollingUpdate.MaxUnavailable = ptrTo(intstr.FromInt(1))
		}
		if s.RollingUpdate.MaxSurge == nil {
			s.RollingUpdate.MaxSurge = ptrTo(intstr.FromInt(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = ptrTo(int32(10))
	}
	setDefaultsPodTemplateSpec(&ds.Spec.Template)
}

// setDefaultsStatefulSet is SetDefaults_StatefulSet: OrderedReady pods, a
// RollingUpdate with partition 0, PVCs retained on delete and scale-down, one
// replica, 10 old revisions. The volume claim templates are defaulted like PVCs
// (so they show status.phase Pending).
func setDefaultsStatefulSet(ss *appsv1.StatefulSet) {
	spec := &ss.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if spec.UpdateStrategy.RollingUpdate == nil {
			spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if ru := spec.UpdateStrategy.RollingUpdate; spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		ru != nil && ru.Partition == nil {
		ru.Partition = ptrTo(int32(0))
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if p := spec.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p := spec.PersistentVolumeClaimRetentionPolicy; p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.Replicas == nil {
		spec.Replicas = ptrTo(int32(1))
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptrTo(int32(10))
	}
	setDefaultsPodTemplateSpec(&spec.Template)
	for i := range spec.VolumeClaimTemplates {
		setDefaultsPersistentVolumeClaim(&spec.VolumeClaimTemplates[i])
	}
}

// setDefaultsJob is SetDefaults_Job of batch/v1. Completions and parallelism
// both default to 1 only when both are unset (a work queue sets parallelism
// alone); six retries, or effectively unlimited ones with a per-index limit;
// pods are replaced once terminating or failed, or only once failed when a pod
// failure policy is set.
func setDefaultsJob(job *batchv1.Job) {
	spec := &job.Spec
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptrTo(int32(1))
		spec.Parallelism = ptrTo(int32(1))
	}
	if spec.Parallelism == nil {
		spec.Parallelism = ptrTo(int32(1))
	}
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptrTo(int32(math.MaxInt32))
		} else {
			spec.BackoffLimit = ptrTo(int32(6))
		}
	}
	if labels := spec.Template.Labels; labels != nil && len(job.Labels) == 0 {
		job.Labels = labels
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptrTo(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = ptrTo(false)
	}
	if spec.PodReplacementPolicy == nil {
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptrTo(batchv1.Failed)
		} else {
			spec.PodReplacementPolicy = ptrTo(batchv1.TerminatingOrFailed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = ptrTo(false)
	}
	setDefaultsPodFailurePolicy(spec.PodFailurePolicy)
	setDefaultsPodTemplateSpec(&spec.Template)
}

// setDefaultsPodFailurePolicy is SetDefaults_PodFailurePolicyOnPodConditionsPattern
// for every pattern of every rule: a pattern without a status matches the
// condition being True.
func setDefaultsPodFailurePolicy(p *batchv1.PodFailurePolicy) {
	if p == nil {
		return
	}
	for _, rule := range p.Rules {
		for i := range rule.OnPodConditions {
			if rule.OnPodConditions[i].Status == "" {
				rule.OnPodConditions[i].Status = corev1.ConditionTrue
			}
		}
	}
}

// setDefaultsCronJob is SetDefaults_CronJob: concurrent runs allowed, not
// suspended, 3 successful and 1 failed Job kept. The Job template is
// defaulted like a Job's spec.
func setDefaultsCronJob(cj *batchv1.CronJob) {
	spec := &cj.Spec
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if spec.Suspend == nil {
		spec.Suspend = ptrTo(false)
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		spec.SuccessfulJobsHistoryLimit = ptrTo(int32(3))
	}
	if spec.FailedJobsHistoryLimit == nil {
		spec.FailedJobsHistoryLimit = ptrTo(int32(1))
	}
	// The generated defaulter walks into the template's JobSpec (its pod
	// failure policy) and PodSpec, but SetDefaults_Job itself runs only on Jobs.
	setDefaultsPodFailurePolicy(spec.JobTemplate.Spec.PodFailurePolicy)
	setDefaultsPodTemplateSpec(&spec.JobTemplate.Spec.Template)
}
