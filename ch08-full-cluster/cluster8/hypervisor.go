package cluster8

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The hypervisor: `up` made the fabric, so only it can plug a machine in
// or pull it out. It serves, on DATA_DIR/hypervisor.sock,
//
//	GET  /v1/machines                 each machine and whether it runs
//	POST /v1/machines/{name}/poweroff everything in it killed, its namespace removed
//	POST /v1/machines/{name}/poweron  its namespace made again, its files written, booted
//
// which `ch08-full-cluster poweroff|poweron MACHINE` and the drills use,
// as `virsh destroy` and `virsh start` are for a VM.

// MachineState is a machine as the hypervisor sees it.
type MachineState struct {
	Name    string `json:"name"`
	Role    string `json:"role"`
	IP      string `json:"ip"`
	Running bool   `json:"running"`
}

func hypervisorSocket(dataDir string) string { return filepath.Join(dataDir, "hypervisor.sock") }

// ServeHypervisor serves the hypervisor's API until ctx ends.
func (c *Cluster) ServeHypervisor(ctx context.Context) error {
	sock := hypervisorSocket(c.DataDir)
	if len(sock) > 107 {
		return fmt.Errorf("%s: too long for a unix socket: use a shorter --data-dir", sock)
	}
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/machines", func(w http.ResponseWriter, r *http.Request) {
		var out []MachineState
		c.mu.Lock()
		for _, m := range c.Topology.Machines {
			mm, ok := c.machines[m.Name]
			out = append(out, MachineState{Name: m.Name, Role: string(m.Role), IP: m.IP.String(), Running: ok && mm.running()})
		}
		c.mu.Unlock()
		json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("POST /v1/machines/{name}/{action}", func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch r.PathValue("action") {
		case "poweroff":
			err = c.powerOff(r.PathValue("name"))
		case "poweron":
			err = c.powerOn(r.PathValue("name"))
		default:
			err = fmt.Errorf("unknown action %q", r.PathValue("action"))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err = srv.Serve(ln)
	os.Remove(sock)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Hypervisor asks the `up` process of dataDir to act on a machine:
// "poweroff" or "poweron".
func Hypervisor(ctx context.Context, dataDir, machine, action string) error {
	sock := hypervisorSocket(dataDir)
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://hypervisor/v1/machines/"+machine+"/"+action, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("the cluster's process does not answer at %s (is `up` running?): %w", sock, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", action, machine, strings.TrimSpace(string(body)))
	}
	return nil
}
