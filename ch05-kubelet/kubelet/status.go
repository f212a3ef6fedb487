package kubelet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch05-kubelet/kubelet/prober"
)

// What the kubelet observed of a pod in the runtime: the input of
// podStatus, which is pure so that it can be tested without containers.

// containerState is a CRI container's state.
type containerState int

const (
	stateCreated containerState = iota
	stateRunning
	stateExited
	stateUnknown
)

// observedContainer is one CRI container (one attempt of a spec container).
type observedContainer struct {
	ID, Name        string
	Image           string // as the runtime names it, e.g. docker.io/library/busybox:latest
	ImageRef        string // the image ID
	Attempt         uint32 // 0 for the first start, +1 per restart: the restartCount
	State           containerState
	CreatedAt       time.Time
	StartedAt       time.Time
	FinishedAt      time.Time
	ExitCode        int32
	Reason, Message string
}

// waiting is why a container is not running, set by the sync loop
// (ErrImagePull, ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError ...).
type waiting struct{ Reason, Message string }

// observedPod is a pod as the runtime sees it.
type observedPod struct {
	SandboxReady bool
	PodIP        string
	// Containers by spec name, newest attempt first.
	Containers map[string][]observedContainer
	Waiting    map[string]waiting
	// Probed is what the startup and readiness probes say of each running
	// container, by container ID (prober.Manager.Probed). A running
	// container not in it (no probes) is started and ready.
	Probed map[string]prober.ProbedContainer
}

// latest is the newest attempt of container name, if any.
func (o observedPod) latest(name string) (observedContainer, bool) {
	if cs := o.Containers[name]; len(cs) > 0 {
		return cs[0], true
	}
	return observedContainer{}, false
}

// running maps the names of pod's containers whose newest attempt runs
// to its ID.
func (o observedPod) running(pod *corev1.Pod) map[string]string {
	out := map[string]string{}
	for _, c := range pod.Spec.Containers {
		if cur, ok := o.latest(c.Name); ok && cur.State == stateRunning {
			out[c.Name] = cur.ID
		}
	}
	return out
}

// initDone reports whether every init container exited 0, in order.
func (o observedPod) initDone(pod *corev1.Pod) bool {
	for _, c := range pod.Spec.InitContainers {
		l, ok := o.latest(c.Name)
		if !ok || l.State != stateExited || l.ExitCode != 0 {
			return false
		}
	}
	return true
}

const containerIDPrefix = "containerd://"

// containerStatus converts the newest attempts of one spec container.
func containerStatus(spec corev1.Container, obs observedPod, defaultWaiting string) corev1.ContainerStatus {
	cs := corev1.ContainerStatus{Name: spec.Name, Image: NormalizeImage(spec.Image)}
	started := false
	cs.Started = &started
	attempts := obs.Containers[spec.Name]
	if len(attempts) == 0 {
		w := waiting{Reason: defaultWaiting}
		if ow, ok := obs.Waiting[spec.Name]; ok {
			w = ow
		}
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}
		return cs
	}
	cur := attempts[0]
	cs.RestartCount = int32(cur.Attempt)
	cs.Image, cs.ImageID, cs.ContainerID = cur.Image, cur.ImageRef, containerIDPrefix+cur.ID
	switch cur.State {
	case stateRunning:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(cur.StartedAt)}
		cs.Ready, started = true, true
		if p, ok := obs.Probed[cur.ID]; ok {
			cs.Ready, started = p.Ready, p.Started
		}
	case stateExited:
		cs.State.Terminated = terminated(cur)
	default:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}
	}
	// A restart pending (back-off, image): the container waits, the exit
	// it restarts from is the last state.
	if w, ok := obs.Waiting[spec.Name]; ok && cur.State == stateExited {
		cs.LastTerminationState.Terminated = cs.State.Terminated
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}}
	} else if len(attempts) > 1 && attempts[1].State == stateExited {
		cs.LastTerminationState.Terminated = terminated(attempts[1])
	}
	return cs
}

func terminated(c observedContainer) *corev1.ContainerStateTerminated {
	reason := c.Reason
	if reason == "" {
		reason = "Error"
		if c.ExitCode == 0 {
			reason = "Completed"
		}
	}
	return &corev1.ContainerStateTerminated{ExitCode: c.ExitCode, Reason: reason, Message: c.Message,
		StartedAt: metav1.NewTime(c.StartedAt), FinishedAt: metav1.NewTime(c.FinishedAt), ContainerID: containerIDPrefix + c.ID}
}

// podStatus computes the pod's status as upstream's kubelet does
// (generateAPIPodStatus, getPhase and the condition generators of
// pkg/kubelet/status): container statuses, phase, the conditions
// PodReadyToStartContainers, Initialized, ContainersReady, Ready and the
// scheduler's PodScheduled, pod and host IPs.
func podStatus(pod *corev1.Pod, obs observedPod, hostIP string, now metav1.Time) corev1.PodStatus {
	st := corev1.PodStatus{QOSClass: pod.Status.QOSClass, StartTime: pod.Status.StartTime}
	if st.StartTime == nil {
		st.StartTime = &now
	}
	st.HostIP, st.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	if obs.PodIP != "" {
		st.PodIP, st.PodIPs = obs.PodIP, []corev1.PodIP{{IP: obs.PodIP}}
	}
	initDone := obs.initDone(pod)
	for _, c := range pod.Spec.InitContainers {
		st.InitContainerStatuses = append(st.InitContainerStatuses, containerStatus(c, obs, "PodInitializing"))
	}
	def := "ContainerCreating"
	if !initDone {
		def = "PodInitializing"
	}
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, containerStatus(c, obs, def))
	}
	st.EphemeralContainerStatuses = ephemeralContainerStatuses(pod, obs)
	st.Phase = podPhase(pod, st, initDone)
	st.Conditions = podConditions(pod, st, obs, initDone, now)
	return st
}

// podPhase is upstream's getPhase for pods without sidecars.
func podPhase(pod *corev1.Pod, st corev1.PodStatus, initDone bool) corev1.PodPhase {
	policy := pod.Spec.RestartPolicy
	if !initDone {
		for _, cs := range st.InitContainerStatuses {
			failed := (cs.State.Terminated != nil && cs.State.Terminated.ExitCode != 0) ||
				(cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil && cs.LastTerminationState.Terminated.ExitCode != 0)
			if failed && policy == corev1.RestartPolicyNever {
				return corev1.PodFailed
			}
		}
		return corev1.PodPending
	}
	var running, waiting, stopped, succeeded int
	for _, cs := range st.ContainerStatuses {
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped > 0:
		switch {
		case policy == corev1.RestartPolicyAlways:
			return corev1.PodRunning // restarting
		case stopped == succeeded:
			return corev1.PodSucceeded
		case policy == corev1.RestartPolicyNever:
			return corev1.PodFailed
		default:
			return corev1.PodRunning // OnFailure: restarting
		}
	}
	return corev1.PodPending
}

// podConditions keeps each condition's lastTransitionTime while its status
// stays the same.
func podConditions(pod *corev1.Pod, st corev1.PodStatus, obs observedPod, initDone bool, now metav1.Time) []corev1.PodCondition {
	old := map[corev1.PodConditionType]corev1.PodCondition{}
	for _, c := range pod.Status.Conditions {
		old[c.Type] = c
	}
	cond := func(t corev1.PodConditionType, ok bool, reason, msg string) corev1.PodCondition {
		s := corev1.ConditionFalse
		if ok {
			s, reason, msg = corev1.ConditionTrue, "", ""
		}
		c := corev1.PodCondition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: now}
		if o, found := old[t]; found && o.Status == s {
			c.LastTransitionTime = o.LastTransitionTime
		}
		return c
	}
	terminal := st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed

	var incompleteInit []string
	for _, cs := range st.InitContainerStatuses {
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
			incompleteInit = append(incompleteInit, cs.Name)
		}
	}
	var unready []string
	for _, cs := range st.ContainerStatuses {
		if !cs.Ready {
			unready = append(unready, cs.Name)
		}
	}
	readyReason, readyMsg := "ContainersNotReady", fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
	if st.Phase == corev1.PodSucceeded {
		readyReason, readyMsg = "PodCompleted", ""
	}
	conds := []corev1.PodCondition{
		cond(corev1.PodReadyToStartContainers, obs.SandboxReady && !terminal, "", ""),
		cond(corev1.PodInitialized, initDone || len(pod.Spec.InitContainers) == 0,
			"ContainersNotInitialized", fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(incompleteInit, " "))),
		cond(corev1.PodReady, len(unready) == 0 && !terminal, readyReason, readyMsg),
		cond(corev1.ContainersReady, len(unready) == 0 && !terminal, readyReason, readyMsg),
	}
	if st.Phase == corev1.PodSucceeded { // initialized for good
		conds[1] = cond(corev1.PodInitialized, true, "", "")
		conds[1].Reason = "PodCompleted"
	}
	if c, ok := old[corev1.PodScheduled]; ok {
		conds = append(conds, c)
	}
	// Any other condition (e.g. DisruptionTarget) is someone else's: keep it.
	for _, c := range pod.Status.Conditions {
		if !slices.ContainsFunc(conds, func(n corev1.PodCondition) bool { return n.Type == c.Type }) {
			conds = append(conds, c)
		}
	}
	return conds
}
