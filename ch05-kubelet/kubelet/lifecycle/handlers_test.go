package lifecycle

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch05-kubelet/kubelet/probe"
)

// hookServer on loopback stands in for the pod: the runner's nil DialFunc
// dials from where the test runs. It answers 500 to anything.
func hookServer(t *testing.T) (host string, port int, seen chan http.Header) {
	t.Helper()
	seen = make(chan http.Header, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port, _ = strconv.Atoi(u.Port())
	return u.Hostname(), port, seen
}

func TestLifecycleHooks(t *testing.T) {
	host, port, seen := hookServer(t)
	var ran []string
	hr := &HandlerRunner{runner: func(_ context.Context, id string, cmd []string, timeout time.Duration) ([]byte, error) {
		ran = append(ran, id+": "+strings.Join(cmd, " "))
		if cmd[0] == "false" {
			return []byte("boom"), &probe.CodeExitError{Code: 1, Err: errors.New("command 'false' exited with 1: boom")}
		}
		return nil, nil
	}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}}
	c := &corev1.Container{Name: "web"}

	if msg, err := hr.Run(context.Background(), pod, c, "c1", host, &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}); err != nil || msg != "" {
		t.Errorf("exec true: %q %v", msg, err)
	}
	msg, err := hr.Run(context.Background(), pod, c, "c1", host, &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"false"}}})
	want := `Exec lifecycle hook ([false]) for Container "web" in Pod "p_default(u)" failed - error: command 'false' exited with 1: boom, message: "boom"`
	if err == nil || msg != want {
		t.Errorf("exec false:\n got %q\nwant %q", msg, want)
	}
	if len(ran) != 2 || ran[0] != "c1: true" {
		t.Errorf("commands run: %q", ran)
	}

	// An HTTP hook fails only when the request does: a 500 is fine.
	if msg, err := hr.Run(context.Background(), pod, c, "c1", host, &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/broken", Port: intstr.FromInt(port)}}); err != nil || msg != "" {
		t.Errorf("http hook: %q %v", msg, err)
	}
	if h := <-seen; h.Get("User-Agent") != "kube-lifecycle/1.35" {
		t.Errorf("hook User-Agent %q", h.Get("User-Agent"))
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()
	msg, err = hr.Run(context.Background(), pod, c, "c1", "127.0.0.1", &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/bye", Port: intstr.FromInt(closed)}})
	if err == nil || !strings.HasPrefix(msg, `HTTP lifecycle hook (/bye) for Container "web" in Pod "p_default(u)" failed - error: Get "http://127.0.0.1:`) {
		t.Errorf("http hook to a closed port: %q %v", msg, err)
	}
}
