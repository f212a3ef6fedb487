package supervisor

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseUnit(t *testing.T) {
	u, err := ParseUnit("kube-apiserver.service", []byte(`# a comment
[Unit]
Description=Kubernetes API Server
Documentation=https://github.com/kubernetes/kubernetes
After=network.target etcd.service
Wants=etcd.service

[Service]
Environment="A=1" B=two
Environment=C="three words"
ExecStart=/usr/local/bin/kube-apiserver \
  --advertise-address=10.240.0.11 \
  --etcd-servers=${ETCD} "--quoted=a b" $EXTRA
Restart=on-failure
RestartSec=5
KillSignal=SIGINT
TimeoutStopSec=1min 30s
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
`))
	if err != nil {
		t.Fatal(err)
	}
	if u.Description != "Kubernetes API Server" || !slices.Equal(u.After, []string{"network.target", "etcd.service"}) ||
		!slices.Equal(u.Wants, []string{"etcd.service"}) || !u.Enabled() {
		t.Errorf("unit section: %+v", u)
	}
	if !slices.Equal(u.Environment, []string{"A=1", "B=two", "C=three words"}) {
		t.Errorf("Environment: %q", u.Environment)
	}
	want := []string{"/usr/local/bin/kube-apiserver", "--advertise-address=10.240.0.11", "--etcd-servers=${ETCD}", "--quoted=a b", "$EXTRA"}
	if len(u.ExecStart) != 1 || !slices.Equal(u.ExecStart[0].Argv, want) {
		t.Errorf("ExecStart: %+v", u.ExecStart)
	}
	if u.Restart != "on-failure" || u.RestartSec != 5*time.Second || u.KillSignal != syscall.SIGINT || u.TimeoutStopSec != 90*time.Second {
		t.Errorf("service section: %+v", u)
	}
	if len(u.Warnings) != 1 || !strings.Contains(u.Warnings[0], "LimitNOFILE") {
		t.Errorf("warnings: %q", u.Warnings)
	}
	got := Expand(u.ExecStart[0].Argv, map[string]string{"ETCD": "https://a:2379", "EXTRA": "--x=1 --y=2"})
	if want := []string{"/usr/local/bin/kube-apiserver", "--advertise-address=10.240.0.11", "--etcd-servers=https://a:2379", "--quoted=a b", "--x=1", "--y=2"}; !slices.Equal(got, want) {
		t.Errorf("Expand: %q", got)
	}
}

func TestParseUnitErrors(t *testing.T) {
	for text, want := range map[string]string{
		"[Service]\n": "no ExecStart=",
		"[Service]\nExecStart=/bin/true\nExecStart=/bin/a\n":  "only allowed for Type=oneshot",
		"[Service]\nExecStart=/bin/sh -c 'unterminated\n":     "unterminated quote",
		"[Service]\nType=forking\nExecStart=/bin/true\n":      "not supported",
		"[Service]\nRestart=sometimes\nExecStart=/bin/true\n": "not supported",
		"[Service]\nRestartSec=soon\nExecStart=/bin/true\n":   "bad time",
		"[Service\nExecStart=/bin/true\n":                     "bad section header",
		"[Service]\njust words\n":                             "not Key=Value",
		"[Service]\nEnvironment=NOVALUE\nExecStart=/bin/true": "not KEY=VALUE",
		strings.Repeat("#", maxUnitFileSize+1):                "larger than",
	} {
		if _, err := ParseUnit("x.service", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.40q: want an error with %q, got %v", text, want, err)
		}
	}
}

func TestParseTimespanAndSignal(t *testing.T) {
	for s, want := range map[string]time.Duration{"5": 5 * time.Second, "100ms": 100 * time.Millisecond, "2min": 2 * time.Minute, "1h 30min": 90 * time.Minute, "0.5s": 500 * time.Millisecond} {
		if got, err := ParseTimespan(s); err != nil || got != want {
			t.Errorf("%q: %v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "-1", "5 years", "1e9"} {
		if _, err := ParseTimespan(s); err == nil {
			t.Errorf("%q: want an error", s)
		}
	}
	for s, want := range map[string]syscall.Signal{"SIGKILL": syscall.SIGKILL, "term": syscall.SIGTERM, "9": syscall.SIGKILL, "STOP": syscall.SIGSTOP} {
		if got, err := ParseSignal(s); err != nil || got != want {
			t.Errorf("%q: %v %v", s, got, err)
		}
	}
	if _, err := ParseSignal("SIGNOPE"); err == nil {
		t.Error("SIGNOPE: want an error")
	}
	if SignalName(syscall.SIGKILL) != "SIGKILL" {
		t.Error(SignalName(syscall.SIGKILL))
	}
}

func FuzzParseUnit(f *testing.F) {
	f.Add([]byte("[Service]\nExecStart=/bin/true \"a b\" \\\n  c\nRestartSec=1min 5s\n"))
	f.Add([]byte("[Unit]\nAfter=a b\n[Service]\nType=oneshot\nExecStart=-/bin/x\nExecStart=/bin/y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseUnit("fuzz.service", data)
	})
}
