package kubik

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"kubik/ch01-apiserver/api/corev1"
)

// state is the cloud's records, what a cloud keeps in its database: the
// balancers and the routes. The balancer's namespace is programmed from
// it, so a namespace lost (a reboot, a cleanup) comes back as it was, with
// the same addresses. It is a JSON file, changed under an exclusive lock
// (flock) so that two managers — an old leader finishing, a new one
// starting — never interleave.
type state struct {
	LoadBalancers map[string]*loadBalancerRecord `json:"loadBalancers,omitempty"`
	Routes        map[string]*routeRecord        `json:"routes,omitempty"`
}

// loadBalancerRecord is one balancer: an address and, per Service port,
// where its traffic goes.
type loadBalancerRecord struct {
	Name    string `json:"name"`
	Cluster string `json:"cluster"`
	// Service is namespace/name, UID the Service's (the name derives from it).
	Service string   `json:"service"`
	UID     string   `json:"uid"`
	IP      string   `json:"ip"`
	Ports   []lbPort `json:"ports"`
	// SourceRanges limit the clients (empty: everyone).
	SourceRanges []string `json:"sourceRanges,omitempty"`
	// HealthCheckNodePort is the Service's, for externalTrafficPolicy: Local.
	HealthCheckNodePort int32     `json:"healthCheckNodePort,omitempty"`
	Backends            []backend `json:"backends"`
}

type lbPort struct {
	Name     string          `json:"name,omitempty"`
	Protocol corev1.Protocol `json:"protocol"`
	Port     int32           `json:"port"`
	NodePort int32           `json:"nodePort"`
}

// backend is a node the balancer sends to.
type backend struct {
	Node string `json:"node"`
	IP   string `json:"ip"`
}

// routeRecord is a route of the cloud's route table.
type routeRecord struct {
	Name        string               `json:"name"`
	Cluster     string               `json:"cluster"`
	Node        string               `json:"node"`
	Destination string               `json:"destination"`
	NextHop     string               `json:"nextHop"`
	Addresses   []corev1.NodeAddress `json:"addresses,omitempty"`
}

// maxStateSize bounds the records file.
const maxStateSize = 16 << 20

// stateFile is the records on disk.
type stateFile struct{ path string }

// update runs f on the records under the file's lock and saves them if f
// returns changed. f's error aborts without saving.
func (s stateFile) update(f func(st *state) (changed bool, err error)) (*state, error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("locking %s: %w", s.path, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	changed, err := f(st)
	if err != nil || !changed {
		return st, err
	}
	return st, s.write(st)
}

// read loads the records; no file is no records. A file that does not
// parse is an error, never an empty cloud.
func (s stateFile) read() (*state, error) {
	st := &state{}
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		st.init()
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", s.path, maxStateSize)
	}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	st.init()
	return st, nil
}

func (st *state) init() {
	if st.LoadBalancers == nil {
		st.LoadBalancers = map[string]*loadBalancerRecord{}
	}
	if st.Routes == nil {
		st.Routes = map[string]*routeRecord{}
	}
}

// write replaces the file atomically (a new file renamed over it).
func (s stateFile) write(st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

// remove deletes the file and its lock.
func (s stateFile) remove() {
	os.Remove(s.path)
	os.Remove(s.path + ".lock")
	os.Remove(s.path + ".tmp")
}
