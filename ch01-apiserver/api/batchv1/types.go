// Package batchv1 holds the batch/v1 kinds: Job and CronJob.
//
// Upstream: k8s.io/api/batch/v1. Field names, JSON names, protobuf field
// numbers and strategic-merge-patch tags are upstream's. The alpha
// spec.scheduling field (workload-aware scheduling) is not modelled.
package batchv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

const labelPrefix = "batch.kubernetes.io/"

// Labels, annotations and finalizers the Job and CronJob controllers use.
const (
	// CronJobScheduledTimestampAnnotation records on a Job the time its CronJob scheduled it.
	CronJobScheduledTimestampAnnotation = labelPrefix + "cronjob-scheduled-timestamp"
	// JobCompletionIndexAnnotation holds the index of a pod of an Indexed Job.
	JobCompletionIndexAnnotation = labelPrefix + "job-completion-index"
	// JobTrackingFinalizer keeps a pod until the Job controller has counted it.
	JobTrackingFinalizer = labelPrefix + "job-tracking"
	// JobNameLabel labels a Job's pods with the Job's name.
	JobNameLabel = labelPrefix + "job-name"
	// ControllerUidLabel labels a Job's pods with the Job's UID.
	ControllerUidLabel = labelPrefix + "controller-uid"
	// LegacyJobNameLabel is the unprefixed job-name label, still set for compatibility.
	LegacyJobNameLabel = "job-name"
	// LegacyControllerUidLabel is the unprefixed controller-uid label, still set for compatibility.
	LegacyControllerUidLabel = "controller-uid"
	// JobIndexFailureCountAnnotation counts the failures of an index (backoffLimitPerIndex).
	JobIndexFailureCountAnnotation = labelPrefix + "job-index-failure-count"
	// JobIndexIgnoredFailureCountAnnotation counts the ignored failures of an index.
	JobIndexIgnoredFailureCountAnnotation = labelPrefix + "job-index-ignored-failure-count"
	// JobControllerName is the value of spec.managedBy meaning the built-in controller.
	JobControllerName = "kubernetes.io/job-controller"
)

// ---- Job ----

// Job runs pods until a number of them complete successfully.
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the Job.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current status of the Job.
	Status JobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// JobList is a list of Jobs.
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []Job `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CompletionMode says how pod completions of a Job are tracked.
type CompletionMode string

const (
	// NonIndexedCompletion: the Job is complete after .spec.completions successful pods.
	NonIndexedCompletion CompletionMode = "NonIndexed"
	// IndexedCompletion: every index 0..completions-1 must succeed once.
	IndexedCompletion CompletionMode = "Indexed"
)

// PodFailurePolicyAction is what happens when a pod failure matches a rule.
type PodFailurePolicyAction string

const (
	// PodFailurePolicyActionFailJob fails the whole Job.
	PodFailurePolicyActionFailJob PodFailurePolicyAction = "FailJob"
	// PodFailurePolicyActionFailIndex fails the pod's index (backoffLimitPerIndex).
	PodFailurePolicyActionFailIndex PodFailurePolicyAction = "FailIndex"
	// PodFailurePolicyActionIgnore does not count the failure against the backoff limit.
	PodFailurePolicyActionIgnore PodFailurePolicyAction = "Ignore"
	// PodFailurePolicyActionCount counts the failure as usual.
	PodFailurePolicyActionCount PodFailurePolicyAction = "Count"
)

// PodFailurePolicyOnExitCodesOperator is "In" or "NotIn".
type PodFailurePolicyOnExitCodesOperator string

const (
	PodFailurePolicyOnExitCodesOpIn    PodFailurePolicyOnExitCodesOperator = "In"
	PodFailurePolicyOnExitCodesOpNotIn PodFailurePolicyOnExitCodesOperator = "NotIn"
)

// PodReplacementPolicy says when a failed pod gets a replacement.
type PodReplacementPolicy string

const (
	// TerminatingOrFailed replaces a pod as soon as it is terminating or failed.
	TerminatingOrFailed PodReplacementPolicy = "TerminatingOrFailed"
	// Failed waits until a terminating pod has fully terminated.
	Failed PodReplacementPolicy = "Failed"
)

// PodFailurePolicyOnExitCodesRequirement matches failed pods by container exit codes.
type PodFailurePolicyOnExitCodesRequirement struct {
	// ContainerName restricts the check to one container.
	ContainerName *string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	// Operator is "In" or "NotIn".
	Operator PodFailurePolicyOnExitCodesOperator `json:"operator" protobuf:"bytes,2,req,name=operator"`
	// Values are the exit codes.
	Values []int32 `json:"values" protobuf:"varint,3,rep,name=values"`
}

// PodFailurePolicyOnPodConditionsPattern matches failed pods by a pod condition.
type PodFailurePolicyOnPodConditionsPattern struct {
	// Type is the pod condition type, e.g. "DisruptionTarget".
	Type corev1.PodConditionType `json:"type" protobuf:"bytes,1,req,name=type"`
	// Status is the required status of the condition.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,req,name=status"`
}

// PodFailurePolicyRule is one rule: an action and what it matches.
type PodFailurePolicyRule struct {
	// Action is taken when the rule matches.
	Action PodFailurePolicyAction `json:"action" protobuf:"bytes,1,req,name=action"`
	// OnExitCodes matches by container exit codes.
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty" protobuf:"bytes,2,opt,name=onExitCodes"`
	// OnPodConditions matches by pod conditions.
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty" protobuf:"bytes,3,opt,name=onPodConditions"`
}

// PodFailurePolicy decides what a pod failure means for its Job.
type PodFailurePolicy struct {
	// Rules are evaluated in order; the first match wins.
	Rules []PodFailurePolicyRule `json:"rules" protobuf:"bytes,1,opt,name=rules"`
}

// SuccessPolicy lets a Job succeed before all its completions are done.
type SuccessPolicy struct {
	// Rules: the Job succeeds when any rule is satisfied.
	Rules []SuccessPolicyRule `json:"rules" protobuf:"bytes,1,opt,name=rules"`
}

// SuccessPolicyRule is one success condition of an Indexed Job.
type SuccessPolicyRule struct {
	// SucceededIndexes is a set of indexes such as "1,3-5".
	SucceededIndexes *string `json:"succeededIndexes,omitempty" protobuf:"bytes,1,opt,name=succeededIndexes"`
	// SucceededCount is how many of those indexes must succeed.
	SucceededCount *int32 `json:"succeededCount,omitempty" protobuf:"varint,2,opt,name=succeededCount"`
}

// JobSpec describes how a Job will look.
type JobSpec struct {
	// Parallelism is the maximum number of pods running at once (defaults to 1).
	Parallelism *int32 `json:"parallelism,omitempty" protobuf:"varint,1,opt,name=parallelism"`
	// Completions is the number of successful pods needed (defaults to 1 for NonIndexed).
	Completions *int32 `json:"completions,omitempty" protobuf:"varint,2,opt,name=completions"`
	// ActiveDeadlineSeconds limits how long the Job may run.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,3,opt,name=activeDeadlineSeconds"`
	// PodFailurePolicy decides how pod failures are handled.
	PodFailurePolicy *PodFailurePolicy `json:"podFailurePolicy,omitempty" protobuf:"bytes,11,opt,name=podFailurePolicy"`
	// SuccessPolicy decides when an Indexed Job succeeds early.
	SuccessPolicy *SuccessPolicy `json:"successPolicy,omitempty" protobuf:"bytes,16,opt,name=successPolicy"`
	// BackoffLimit is the number of retries before the Job fails (defaults to 6).
	BackoffLimit *int32 `json:"backoffLimit,omitempty" protobuf:"varint,7,opt,name=backoffLimit"`
	// BackoffLimitPerIndex is the number of retries per index of an Indexed Job.
	BackoffLimitPerIndex *int32 `json:"backoffLimitPerIndex,omitempty" protobuf:"varint,12,opt,name=backoffLimitPerIndex"`
	// MaxFailedIndexes fails the Job once this many indexes have failed.
	MaxFailedIndexes *int32 `json:"maxFailedIndexes,omitempty" protobuf:"varint,13,opt,name=maxFailedIndexes"`
	// Selector selects the Job's pods; normally generated from the Job's UID.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// ManualSelector lets the user set the selector instead.
	ManualSelector *bool `json:"manualSelector,omitempty" protobuf:"varint,5,opt,name=manualSelector"`
	// Template describes the pods; restartPolicy must be Never or OnFailure.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,6,opt,name=template"`
	// TTLSecondsAfterFinished deletes the Job this long after it finishes.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty" protobuf:"varint,8,opt,name=ttlSecondsAfterFinished"`
	// CompletionMode is "NonIndexed" (the default) or "Indexed".
	CompletionMode *CompletionMode `json:"completionMode,omitempty" protobuf:"bytes,9,opt,name=completionMode,casttype=CompletionMode"`
	// Suspend stops the Job from creating pods and deletes running ones.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,10,opt,name=suspend"`
	// PodReplacementPolicy says when failed pods are replaced.
	PodReplacementPolicy *PodReplacementPolicy `json:"podReplacementPolicy,omitempty" protobuf:"bytes,14,opt,name=podReplacementPolicy,casttype=podReplacementPolicy"`
	// ManagedBy names the controller that syncs the Job (defaults to the built-in one).
	ManagedBy *string `json:"managedBy,omitempty" protobuf:"bytes,15,opt,name=managedBy"`
}

// JobStatus is the current state of a Job.
type JobStatus struct {
	// Conditions are the latest observations of the Job's state.
	Conditions []JobCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
	// StartTime is when the controller started processing the Job.
	StartTime *metav1.Time `json:"startTime,omitempty" protobuf:"bytes,2,opt,name=startTime"`
	// CompletionTime is when the Job completed successfully.
	CompletionTime *metav1.Time `json:"completionTime,omitempty" protobuf:"bytes,3,opt,name=completionTime"`
	// Active is the number of pending and running pods.
	Active int32 `json:"active,omitempty" protobuf:"varint,4,opt,name=active"`
	// Succeeded is the number of pods that succeeded.
	Succeeded int32 `json:"succeeded,omitempty" protobuf:"varint,5,opt,name=succeeded"`
	// Failed is the number of pods that failed.
	Failed int32 `json:"failed,omitempty" protobuf:"varint,6,opt,name=failed"`
	// Terminating is the number of pods being terminated.
	Terminating *int32 `json:"terminating,omitempty" protobuf:"varint,11,opt,name=terminating"`
	// CompletedIndexes lists the succeeded indexes of an Indexed Job, e.g. "1,3-5".
	CompletedIndexes string `json:"completedIndexes,omitempty" protobuf:"bytes,7,opt,name=completedIndexes"`
	// FailedIndexes lists the failed indexes (backoffLimitPerIndex).
	FailedIndexes *string `json:"failedIndexes,omitempty" protobuf:"bytes,10,opt,name=failedIndexes"`
	// UncountedTerminatedPods holds finished pods not yet counted in the status.
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty" protobuf:"bytes,8,opt,name=uncountedTerminatedPods"`
	// Ready is the number of active pods with a Ready condition.
	Ready *int32 `json:"ready,omitempty" protobuf:"varint,9,opt,name=ready"`
}

// UncountedTerminatedPods holds the UIDs of finished pods not yet counted.
type UncountedTerminatedPods struct {
	// Succeeded are the UIDs of succeeded pods.
	Succeeded []string `json:"succeeded,omitempty" protobuf:"bytes,1,rep,name=succeeded,casttype=k8s.io/apimachinery/pkg/types.UID"`
	// Failed are the UIDs of failed pods.
	Failed []string `json:"failed,omitempty" protobuf:"bytes,2,rep,name=failed,casttype=k8s.io/apimachinery/pkg/types.UID"`
}

// JobConditionType names a Job condition.
type JobConditionType string

const (
	// JobSuspended means the Job is suspended.
	JobSuspended JobConditionType = "Suspended"
	// JobComplete means the Job has completed.
	JobComplete JobConditionType = "Complete"
	// JobFailed means the Job has failed.
	JobFailed JobConditionType = "Failed"
	// JobFailureTarget means the Job is about to fail (its pods are being terminated).
	JobFailureTarget JobConditionType = "FailureTarget"
	// JobSuccessCriteriaMet means the Job is about to succeed (its pods are being terminated).
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
)

// Reasons of the Job conditions.
const (
	JobReasonPodFailurePolicy         string = "PodFailurePolicy"
	JobReasonBackoffLimitExceeded     string = "BackoffLimitExceeded"
	JobReasonDeadlineExceeded         string = "DeadlineExceeded"
	JobReasonMaxFailedIndexesExceeded string = "MaxFailedIndexesExceeded"
	JobReasonFailedIndexes            string = "FailedIndexes"
	JobReasonSuccessPolicy            string = "SuccessPolicy"
	JobReasonCompletionsReached       string = "CompletionsReached"
)

// JobCondition describes the state of a Job at a certain point.
type JobCondition struct {
	// Type of the condition.
	Type JobConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=JobConditionType"`
	// Status is "True", "False" or "Unknown".
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/api/core/v1.ConditionStatus"`
	// LastProbeTime is the last time the condition was checked.
	LastProbeTime metav1.Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is the last time the status changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a machine-readable CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// ---- CronJob ----

// JobTemplateSpec is the Job a CronJob creates.
type JobTemplateSpec struct {
	// ObjectMeta is copied to the created Jobs.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the spec of the created Jobs.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// CronJob creates Jobs on a schedule.
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behavior of the CronJob.
	Spec CronJobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current status of the CronJob.
	Status CronJobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CronJobList is a list of CronJobs.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []CronJob `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CronJobSpec describes the schedule and the Job of a CronJob.
type CronJobSpec struct {
	// Schedule is in cron format, e.g. "*/5 * * * *".
	Schedule string `json:"schedule" protobuf:"bytes,1,opt,name=schedule"`
	// TimeZone is the IANA time zone of the schedule (defaults to the controller's).
	TimeZone *string `json:"timeZone,omitempty" protobuf:"bytes,8,opt,name=timeZone"`
	// StartingDeadlineSeconds: a run missed by more than this is skipped.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty" protobuf:"varint,2,opt,name=startingDeadlineSeconds"`
	// ConcurrencyPolicy is "Allow" (the default), "Forbid" or "Replace".
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty" protobuf:"bytes,3,opt,name=concurrencyPolicy,casttype=ConcurrencyPolicy"`
	// Suspend stops future runs.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,4,opt,name=suspend"`
	// JobTemplate is the Job created at every run.
	JobTemplate JobTemplateSpec `json:"jobTemplate" protobuf:"bytes,5,opt,name=jobTemplate"`
	// SuccessfulJobsHistoryLimit is how many finished Jobs to keep (defaults to 3).
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty" protobuf:"varint,6,opt,name=successfulJobsHistoryLimit"`
	// FailedJobsHistoryLimit is how many failed Jobs to keep (defaults to 1).
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty" protobuf:"varint,7,opt,name=failedJobsHistoryLimit"`
}

// ConcurrencyPolicy says what to do when a run is due while the previous one still runs.
type ConcurrencyPolicy string

const (
	// AllowConcurrent runs Jobs concurrently.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips the new run.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the running Job and starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobStatus is the current state of a CronJob.
type CronJobStatus struct {
	// Active points to the Jobs currently running.
	Active []corev1.ObjectReference `json:"active,omitempty" protobuf:"bytes,1,rep,name=active"`
	// LastScheduleTime is the last time a Job was scheduled.
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty" protobuf:"bytes,4,opt,name=lastScheduleTime"`
	// LastSuccessfulTime is the last time a Job completed successfully.
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty" protobuf:"bytes,5,opt,name=lastSuccessfulTime"`
}
