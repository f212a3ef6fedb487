package supervisor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// machine writes units into a fresh root and runs a supervisor on it
// until the test ends.
func machine(t *testing.T, units map[string]string) (root string, c *Client) {
	t.Helper()
	root = t.TempDir()
	dir := Config{Root: root}.UnitDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range units {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.ReplaceAll(text, "ROOT", root)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Config{Root: root}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	c = NewClient(root)
	testenv.Eventually(t, "the control socket", time.Minute, func() (string, bool) {
		_, err := c.List(context.Background())
		return fmt.Sprint(err), err == nil
	})
	return root, c
}

func status(t *testing.T, c *Client, unit string) Status {
	t.Helper()
	st, err := c.Status(context.Background(), unit)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func waitFor(t *testing.T, c *Client, unit, what string, ok func(Status) bool) Status {
	t.Helper()
	var st Status
	testenv.Eventually(t, unit+" "+what, time.Minute, func() (string, bool) {
		st = status(t, c, unit)
		return fmt.Sprintf("%+v", st), ok(st)
	})
	return st
}

// TestBootOrderAndStates: units start in their After= order (a oneshot
// before the service that needs its file), a disabled unit stays down,
// Environment= reaches the process, the log holds its output.
func TestBootOrderAndStates(t *testing.T) {
	root, c := machine(t, map[string]string{
		"prepare.service": `[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'sleep 0.3; echo ready > ROOT/ready'
[Install]
WantedBy=multi-user.target
`,
		"app.service": `[Unit]
Description=The app
After=prepare.service
Requires=prepare.service
[Service]
Environment=GREETING=hello
ExecStart=/bin/sh -c 'cat ROOT/ready && echo $GREETING && exec sleep 1000'
[Install]
WantedBy=multi-user.target
`,
		"manual.service": "[Service]\nExecStart=/bin/sleep 1000\n",
	})
	st := waitFor(t, c, "app", "running", Status.Running)
	if st.MainPID == 0 || st.Description != "The app" {
		t.Errorf("app: %+v", st)
	}
	if p := status(t, c, "prepare"); p.ActiveState != Active || p.SubState != SubExited {
		t.Errorf("prepare: %+v", p)
	}
	if m := status(t, c, "manual"); m.ActiveState != Inactive || m.Enabled {
		t.Errorf("manual: %+v", m)
	}
	testenv.Eventually(t, "app's log", time.Minute, func() (string, bool) {
		b, _ := os.ReadFile(filepath.Join(root, "var", "log", "app.log"))
		return string(b), strings.Contains(string(b), "ready\nhello\n") && strings.Contains(string(b), `msg="Started app.service"`)
	})
	if _, err := c.Status(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "Unit nope.service could not be found.") {
		t.Errorf("unknown unit: %v", err)
	}
}

// TestRestartPolicy: Restart=on-failure restarts a unit that fails or is
// killed, not one that is stopped; start brings it back; a unit that
// exits 0 under on-failure stays down; Restart=no shows failed.
func TestRestartPolicy(t *testing.T) {
	_, c := machine(t, map[string]string{
		"crashy.service": `[Service]
ExecStart=/bin/sleep 1000
Restart=on-failure
RestartSec=200ms
[Install]
WantedBy=multi-user.target
`,
		"once.service": "[Service]\nExecStart=/bin/true\nRestart=on-failure\n[Install]\nWantedBy=multi-user.target\n",
		"bad.service":  "[Service]\nExecStart=/bin/false\n[Install]\nWantedBy=multi-user.target\n",
	})
	ctx := context.Background()
	first := waitFor(t, c, "crashy", "running", Status.Running)
	if err := c.Kill(ctx, "crashy", "SIGKILL"); err != nil {
		t.Fatal(err)
	}
	again := waitFor(t, c, "crashy", "restarted", func(s Status) bool { return s.Running() && s.MainPID != first.MainPID })
	if again.Restarts != 1 || again.Result != "signal (SIGKILL)" {
		t.Errorf("after kill -9: %+v", again)
	}
	if err := c.Stop(ctx, "crashy"); err != nil {
		t.Fatal(err)
	}
	if st := status(t, c, "crashy"); st.ActiveState != Inactive || st.MainPID != 0 {
		t.Errorf("after stop: %+v", st)
	}
	if syscall.Kill(again.MainPID, 0) == nil {
		t.Errorf("pid %d still runs after stop", again.MainPID)
	}
	if err := c.Start(ctx, "crashy"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "crashy", "running after start", Status.Running)
	waitFor(t, c, "once", "done", func(s Status) bool { return s.ActiveState == Inactive && s.Result == "success" })
	st := waitFor(t, c, "bad", "failed", func(s Status) bool { return s.ActiveState == Failed })
	if st.Result != "exit-code (status=1)" {
		t.Errorf("bad: %+v", st)
	}
}

// TestShutdownStopsEverything: the supervisor stops every unit in the
// reverse order when it ends, SIGKILL after TimeoutStopSec for a unit
// that ignores its KillSignal; no process of theirs is left.
func TestShutdownStopsEverything(t *testing.T) {
	root := t.TempDir()
	dir := Config{Root: root}.UnitDir()
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "stubborn.service"), []byte(`[Service]
ExecStart=/bin/sh -c 'trap "" TERM; while true; do sleep 0.1; done'
TimeoutStopSec=1s
[Install]
WantedBy=multi-user.target
`), 0o644)
	os.WriteFile(filepath.Join(dir, "nice.service"), []byte("[Unit]\nAfter=stubborn.service\n[Service]\nExecStart=/bin/sleep 1000\n[Install]\nWantedBy=multi-user.target\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Config{Root: root}) }()
	defer func() { cancel(); <-done }()
	c := NewClient(root)
	var pids []int
	for _, u := range []string{"stubborn", "nice"} {
		testenv.Eventually(t, u, time.Minute, func() (string, bool) {
			st, err := c.Status(context.Background(), u)
			if err == nil && st.Running() {
				pids = append(pids, st.MainPID)
			}
			return fmt.Sprint(st, err), err == nil && st.Running()
		})
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("pid %d survived the shutdown", pid)
		}
	}
	log, _ := os.ReadFile(filepath.Join(root, "var", "log", "stubborn.log"))
	if !strings.Contains(string(log), "stop timed out; killing") {
		t.Errorf("stubborn.log:\n%s", log)
	}
}
