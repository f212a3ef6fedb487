package util

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Sysctl reads and writes /proc/sys (of the caller's network namespace for
// net.* keys). Upstream: k8s.io/component-helpers/node/util/sysctl.
type Sysctl interface {
	GetSysctl(name string) (int, error)
	SetSysctl(name string, value int) error
}

// ProcSysctl is the real Sysctl; names are paths below /proc/sys
// ("net/ipv4/conf/all/route_localnet").
type ProcSysctl struct{}

func (ProcSysctl) GetSysctl(name string) (int, error) {
	data, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

func (ProcSysctl) SetSysctl(name string, value int) error {
	return os.WriteFile("/proc/sys/"+name, []byte(strconv.Itoa(value)), 0o640)
}

// EnsureSysctl sets name to value unless it already is.
func EnsureSysctl(s Sysctl, name string, value int) error {
	if old, _ := s.GetSysctl(name); old != value {
		if err := s.SetSysctl(name, value); err != nil {
			return fmt.Errorf("can't set sysctl %s to %d: %v", name, value, err)
		}
	}
	return nil
}
