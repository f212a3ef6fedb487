package proxy

import (
	"net"
	"strconv"
)

// Endpoint is what a proxier needs to know about one endpoint of a
// Service port.
type Endpoint interface {
	// String is "ip:port".
	String() string
	IP() string
	Port() int
	// IsLocal: the endpoint runs on this node (its nodeName is ours).
	IsLocal() bool
	// IsReady: conditions.ready (nil means true).
	IsReady() bool
	// IsServing: conditions.serving (nil means true).
	IsServing() bool
	// IsTerminating: conditions.terminating (nil means false).
	IsTerminating() bool
	// ZoneHints and NodeHints are the topology hints, nil without hints.
	ZoneHints() map[string]bool
	NodeHints() map[string]bool
}

// BaseEndpointInfo is the Endpoint every proxier starts from.
type BaseEndpointInfo struct {
	ip          string
	port        int
	endpoint    string // "ip:port"
	isLocal     bool
	ready       bool
	serving     bool
	terminating bool
	zoneHints   map[string]bool
	nodeHints   map[string]bool
}

var _ Endpoint = &BaseEndpointInfo{}

func (info *BaseEndpointInfo) String() string             { return info.endpoint }
func (info *BaseEndpointInfo) IP() string                 { return info.ip }
func (info *BaseEndpointInfo) Port() int                  { return info.port }
func (info *BaseEndpointInfo) IsLocal() bool              { return info.isLocal }
func (info *BaseEndpointInfo) IsReady() bool              { return info.ready }
func (info *BaseEndpointInfo) IsServing() bool            { return info.serving }
func (info *BaseEndpointInfo) IsTerminating() bool        { return info.terminating }
func (info *BaseEndpointInfo) ZoneHints() map[string]bool { return info.zoneHints }
func (info *BaseEndpointInfo) NodeHints() map[string]bool { return info.nodeHints }

// NewBaseEndpointInfo builds an endpoint (also used by tests).
func NewBaseEndpointInfo(ip string, port int, isLocal, ready, serving, terminating bool, zoneHints, nodeHints map[string]bool) *BaseEndpointInfo {
	return &BaseEndpointInfo{
		ip:          ip,
		port:        port,
		endpoint:    net.JoinHostPort(ip, strconv.Itoa(port)),
		isLocal:     isLocal,
		ready:       ready,
		serving:     serving,
		terminating: terminating,
		zoneHints:   zoneHints,
		nodeHints:   nodeHints,
	}
}
