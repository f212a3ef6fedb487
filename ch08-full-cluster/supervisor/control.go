package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// The control API, HTTP over the unix socket Config.Socket (what D-Bus is
// to systemctl):
//
//	GET  /v1/units                 every unit's Status
//	GET  /v1/units/{unit}          one unit's Status
//	POST /v1/units/{unit}/start    (also stop, restart): returns when done
//	POST /v1/units/{unit}/kill?signal=SIGKILL

// maxSocketPath is the longest path a unix socket may have.
const maxSocketPath = 107

// Serve serves the control API on cfg.Socket until ctx ends.
func (s *Supervisor) Serve(ctx context.Context) error {
	sock := s.cfg.Socket()
	if len(sock) > maxSocketPath {
		return fmt.Errorf("control socket %s: longer than %d bytes (a unix socket's limit): use a shorter root", sock, maxSocketPath)
	}
	if err := os.MkdirAll(s.cfg.RunDir(), 0o755); err != nil {
		return err
	}
	os.Remove(sock) // a previous run's
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/units", func(w http.ResponseWriter, r *http.Request) { reply(w, s.Status(), nil) })
	mux.HandleFunc("GET /v1/units/{unit}", func(w http.ResponseWriter, r *http.Request) {
		st, err := s.UnitStatus(r.PathValue("unit"))
		reply(w, st, err)
	})
	mux.HandleFunc("POST /v1/units/{unit}/{action}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("unit")
		var err error
		switch r.PathValue("action") {
		case "start":
			err = s.Start(name)
		case "stop":
			err = s.Stop(name)
		case "restart":
			err = s.Restart(name)
		case "kill":
			sig, perr := ParseSignal(r.URL.Query().Get("signal"))
			if perr != nil {
				http.Error(w, perr.Error(), http.StatusBadRequest)
				return
			}
			err = s.Kill(name, sig)
		default:
			http.Error(w, "unknown action "+r.PathValue("action"), http.StatusNotFound)
			return
		}
		if err != nil {
			reply(w, nil, err)
			return
		}
		st, err := s.UnitStatus(name)
		reply(w, st, err)
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

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		code := http.StatusInternalServerError
		if strings.Contains(err.Error(), "could not be found") {
			code = http.StatusNotFound
		}
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	json.NewEncoder(w).Encode(v)
}

// Client talks to a machine's supervisor.
type Client struct {
	Socket string
	http   *http.Client
}

// NewClient is a client of the supervisor whose root is root.
func NewClient(root string) *Client {
	sock := Config{Root: root}.Socket()
	return &Client{Socket: sock, http: &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}}}}
}

// maxReply bounds an answer of the control API.
const maxReply = 4 << 20

func (c *Client) do(ctx context.Context, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://supervisor"+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("the supervisor does not answer at %s (is the machine up?): %w", c.Socket, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

// List is every unit's status.
func (c *Client) List(ctx context.Context) ([]Status, error) {
	var out []Status
	return out, c.do(ctx, http.MethodGet, "/v1/units", &out)
}

// Status is one unit's status.
func (c *Client) Status(ctx context.Context, unit string) (Status, error) {
	var out Status
	return out, c.do(ctx, http.MethodGet, "/v1/units/"+UnitName(unit), &out)
}

// Start, Stop and Restart run a job on a unit and return when it is done.
func (c *Client) Start(ctx context.Context, unit string) error   { return c.job(ctx, unit, "start") }
func (c *Client) Stop(ctx context.Context, unit string) error    { return c.job(ctx, unit, "stop") }
func (c *Client) Restart(ctx context.Context, unit string) error { return c.job(ctx, unit, "restart") }

func (c *Client) job(ctx context.Context, unit, action string) error {
	return c.do(ctx, http.MethodPost, "/v1/units/"+UnitName(unit)+"/"+action, nil)
}

// Kill sends sig to a unit's processes.
func (c *Client) Kill(ctx context.Context, unit, sig string) error {
	return c.do(ctx, http.MethodPost, "/v1/units/"+UnitName(unit)+"/kill?signal="+sig, nil)
}
