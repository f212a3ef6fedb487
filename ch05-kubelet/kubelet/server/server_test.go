package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// fakeHost is a kubelet with one pod, default/web, whose container web
// runs as c1 and writes its log to logFile.
type fakeHost struct {
	pod      *corev1.Pod
	running  bool // web runs
	logFile  string
	logErr   error // GetContainerLogFile's
	execErr  error // the runtime's Exec answer
	portsErr error // GetPortForward's
}

func (h *fakeHost) GetPods() []*corev1.Pod { return []*corev1.Pod{h.pod} }

func (h *fakeHost) GetPodByName(namespace, name string) (*corev1.Pod, bool) {
	return h.pod, namespace == h.pod.Namespace && name == h.pod.Name
}

func (h *fakeHost) GetContainerLogFile(context.Context, *corev1.Pod, string, bool) (string, func() bool, error) {
	return h.logFile, func() bool { return false }, h.logErr
}

func (h *fakeHost) GetRunningContainerID(_ context.Context, uid, name string) (string, error) {
	if !h.running || name != "web" {
		return "", errors.New(`container not found ("` + name + `")`)
	}
	return "c1", nil
}

func (h *fakeHost) GetExec(context.Context, string, []string, StreamOptions) (string, error) {
	return "", h.execErr
}

func (h *fakeHost) GetAttach(context.Context, string, StreamOptions) (string, error) {
	return "", h.execErr
}

func (h *fakeHost) GetPortForward(context.Context, *corev1.Pod) (string, error) {
	return "", h.portsErr
}

// The answers the kubelet API gives before a stream or a log starts, in
// the order it checks: upstream's codes and words.
func TestServerErrors(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "0.log")
	os.WriteFile(logFile, []byte("2026-11-30T08:00:01Z stdout F hello\n"), 0o644)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}}}}
	for _, tc := range []struct {
		name   string
		host   fakeHost
		method string
		path   string
		code   int
		body   string
	}{
		{"exec: no such pod", fakeHost{}, "POST", "/exec/default/nope/web?command=ls&output=1", 404, "pod does not exist"},
		{"exec: not running", fakeHost{}, "POST", "/exec/default/web/web?command=ls&output=1", 500, `container not found ("web")`},
		{"exec: no streams", fakeHost{running: true}, "POST", "/exec/default/web/web?command=ls", 400, "you must specify at least 1 of stdin, stdout, stderr"},
		// The pods/exec names are not the kubelet's: upstream's apiserver sends input/output/error.
		{"exec: pods/exec names", fakeHost{running: true}, "POST", "/exec/default/web/web?command=ls&stdout=1&stdin=1", 400, "you must specify at least 1 of stdin, stdout, stderr"},
		{"exec: no command", fakeHost{running: true}, "POST", "/exec/default/web/web?output=1", 500, "missing command"},
		{"exec: the runtime's NotFound", fakeHost{running: true, execErr: status.Error(codes.NotFound, "no such container ")},
			"POST", "/exec/default/web/web?command=ls&output=1", 404, "no such container"},
		{"attach: the runtime's error", fakeHost{running: true, execErr: errors.New("boom")}, "POST", "/attach/default/web/web?output=1", 500, "boom"},
		{"portForward: no sandbox", fakeHost{portsErr: status.Errorf(codes.NotFound, "pod not found (%q)", "default/web")},
			"POST", "/portForward/default/web", 404, `pod not found ("default/web")`},
		{"portForward: not an upgrade", fakeHost{}, "POST", "/portForward/default/web", 400, "Upgrade request required"},
		{"logs: bad query", fakeHost{}, "GET", "/containerLogs/default/web/web?tailLines=x", 400, `{"message": "Unable to decode query."}`},
		{"logs: invalid", fakeHost{}, "GET", "/containerLogs/default/web/web?limitBytes=0", 422, `{"message": "Invalid request."}`},
		{"logs: no such pod", fakeHost{}, "GET", "/containerLogs/default/nope/web", 404, `pod "nope" does not exist`},
		{"logs: no such container", fakeHost{}, "GET", "/containerLogs/default/web/db", 404, `container "db" not found in pod "web"`},
		{"logs: the kubelet's error", fakeHost{logErr: errors.New(`container "web" in pod "web" is waiting to start: ContainerCreating`)},
			"GET", "/containerLogs/default/web/web", 400, `container "web" in pod "web" is waiting to start: ContainerCreating`},
		{"logs", fakeHost{logFile: logFile}, "GET", "/containerLogs/default/web/web", 200, "hello\n"},
	} {
		h := tc.host
		h.pod = pod
		s := NewServer(&h, nil, "node-1", nil, slog.New(slog.DiscardHandler))
		w := httptest.NewRecorder()
		s.routes().ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.code || w.Body.String() != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.name, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}
}
