package job

import (
	"fmt"
	"kubik/ch01-apiserver/api/metav1"
	"slices"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
)

// Indexed completion mode: every index 0..completions-1 must succeed once.
// Each pod carries its index in the annotation and label
// batch.kubernetes.io/job-completion-index, the environment variable
// JOB_COMPLETION_INDEX and the hostname "<job>-<index>"; the succeeded
// indexes are written as intervals in status.completedIndexes ("0-2,5").
// Upstream: indexed_job_utils.go (backoffLimitPerIndex is not implemented).

const unknownCompletionIndex = -1

func isIndexedJob(j *batchv1.Job) bool {
	return j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
}

// getCompletionIndex reads a pod's index, or unknownCompletionIndex.
func getCompletionIndex(p *corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return unknownCompletionIndex
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return unknownCompletionIndex
	}
	return i
}

// parseIndexesFromString parses "0-2,5" (indexes below completions only).
func parseIndexesFromString(s string, completions int) map[int]bool {
	out := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil {
			continue
		}
		for i := a; i <= b && i < completions; i++ {
			out[i] = true
		}
	}
	return out
}

// formatIndexes writes indexes as sorted intervals: {0,1,2,5} -> "0-2,5".
func formatIndexes(set map[int]bool) string {
	var idx []int
	for i := range set {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(idx[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// succeededIndexes: the indexes already in status plus those of succeeded pods.
func (jc *syncJobCtx) succeededIndexes() map[int]bool {
	completions := int(*jc.job.Spec.Completions)
	set := parseIndexesFromString(jc.job.Status.CompletedIndexes, completions)
	for _, p := range jc.pods {
		if ix := getCompletionIndex(p); p.Status.Phase == corev1.PodSucceeded && ix != unknownCompletionIndex && ix < completions {
			set[ix] = true
		}
	}
	return set
}

// indexesToCreate is the lowest indexes that neither succeeded nor have an
// active pod, at most n of them.
func (jc *syncJobCtx) indexesToCreate(n int) []int {
	done := jc.succeededIndexes()
	for _, p := range jc.active {
		if ix := getCompletionIndex(p); ix != unknownCompletionIndex {
			done[ix] = true
		}
	}
	var out []int
	for i := 0; i < int(*jc.job.Spec.Completions) && len(out) < n; i++ {
		if !done[i] {
			out = append(out, i)
		}
	}
	return out
}

// indexedPodTemplate is the template of the pod of index ix. Upstream:
// addCompletionIndexAnnotation, addCompletionIndexEnvVariables, podGenerateNameWithIndex.
func indexedPodTemplate(job *batchv1.Job, tmpl *corev1.PodTemplateSpec, ix int) *corev1.PodTemplateSpec {
	t := metav1.DeepCopy(tmpl)
	v := strconv.Itoa(ix)
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Annotations[batchv1.JobCompletionIndexAnnotation] = v
	t.Labels[batchv1.JobCompletionIndexAnnotation] = v
	if t.Spec.Hostname == "" {
		t.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, ix)
	}
	env := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: fmt.Sprintf("metadata.labels['%s']", batchv1.JobCompletionIndexAnnotation)}}}
	for i := range t.Spec.InitContainers {
		t.Spec.InitContainers[i].Env = append(t.Spec.InitContainers[i].Env, env)
	}
	for i := range t.Spec.Containers {
		t.Spec.Containers[i].Env = append(t.Spec.Containers[i].Env, env)
	}
	return t
}
