package hollownode

import (
	"slices"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// simulatedExit says whether the pod's first container would exit on its
// own, and with which code. Its command line (command, then args) must be
// one of
//
//	true | /bin/true                  exit code 0
//	false | /bin/false                exit code 1
//	sh -c "exit N" | /bin/sh -c "exit N"   exit code N (0..255)
//	sh -c true | sh -c false          0 | 1
//
// (`kubectl create job x --image=busybox -- sh -c "exit 0"` sends the
// third). A container that exits 0 finishes the pod under restartPolicy
// Never or OnFailure; a non-zero code fails it under Never (under
// OnFailure a kubelet would restart the container in place: here it keeps
// running). Any other command runs forever.
func simulatedExit(p *corev1.Pod) (int32, bool) {
	if len(p.Spec.Containers) == 0 {
		return 0, false
	}
	c := p.Spec.Containers[0]
	code, ok := exitCode(slices.Concat(c.Command, c.Args))
	if !ok {
		return 0, false
	}
	switch p.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return code, true
	case corev1.RestartPolicyOnFailure:
		return 0, code == 0
	}
	return 0, false
}

// exitCode is the exit code of a command line the hollow node knows to
// end (see simulatedExit).
func exitCode(argv []string) (int32, bool) {
	switch len(argv) {
	case 1:
		return builtinExit(argv[0])
	case 3:
		if (argv[0] != "sh" && argv[0] != "/bin/sh") || argv[1] != "-c" {
			return 0, false
		}
		script := strings.TrimSpace(argv[2])
		if code, ok := builtinExit(script); ok {
			return code, true
		}
		if script == "exit" {
			return 0, true // the status of the last command: none ran
		}
		word, n, found := strings.Cut(script, " ")
		if word != "exit" || !found {
			return 0, false
		}
		code, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil || code < 0 || code > 255 {
			return 0, false
		}
		return int32(code), true
	}
	return 0, false
}

func builtinExit(cmd string) (int32, bool) {
	switch cmd {
	case "true", "/bin/true":
		return 0, true
	case "false", "/bin/false":
		return 1, true
	}
	return 0, false
}
