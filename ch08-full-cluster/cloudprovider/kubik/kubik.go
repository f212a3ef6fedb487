package kubik

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"kubik/ch08-full-cluster/cloudprovider"
)

// ProviderName is --cloud-provider's value and the provider IDs' scheme.
const ProviderName = "kubik"

// resyncPeriod: how often the balancer's namespace is programmed again
// from the records, repairing what was lost or changed by hand.
const resyncPeriod = 30 * time.Second

func init() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(config io.Reader) (cloudprovider.Interface, error) {
		cfg, err := ParseConfig(config)
		if err != nil {
			return nil, err
		}
		return New(cfg, slog.Default())
	})
}

// Cloud is the provider: the balancer's namespace, the records, and the
// machines.
type Cloud struct {
	cfg      *Config
	p        *parsed
	log      *slog.Logger
	balancer *balancer
	records  stateFile
	health   *healthChecker

	// mu serializes changes in this process (the file lock does across
	// processes); lastRuleset is the table last applied.
	mu          sync.Mutex
	lastRuleset string
}

var (
	_ cloudprovider.Interface    = (*Cloud)(nil)
	_ cloudprovider.LoadBalancer = (*Cloud)(nil)
	_ cloudprovider.Routes       = (*Cloud)(nil)
	_ cloudprovider.InstancesV2  = (*Cloud)(nil)
)

// New is the provider of a checked configuration (ParseConfig).
func New(cfg *Config, log *slog.Logger) (*Cloud, error) {
	if err := cfg.complete(); err != nil {
		return nil, err
	}
	p, err := cfg.parse()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "kubik-cloud")
	return &Cloud{cfg: cfg, p: p, log: log, balancer: &balancer{cfg: cfg, p: p, log: log},
		records: stateFile{cfg.Balancer.StateFile}, health: newHealthChecker()}, nil
}

// SetLogger replaces the logger (the binary's, once flags are parsed).
func (c *Cloud) SetLogger(log *slog.Logger) {
	c.log = log.With("component", "kubik-cloud")
	c.balancer.log = c.log
}

// Initialize programs the balancer's namespace from the records (making
// it if needed), then again every 30 s, and starts the health checks,
// until ctx ends.
func (c *Cloud) Initialize(ctx context.Context) {
	if err := c.Resync(); err != nil {
		c.log.Error("programming the balancer", "err", err)
	}
	go c.runHealthChecks(ctx)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(resyncPeriod):
			}
			if err := c.Resync(); err != nil {
				c.log.Error("programming the balancer", "err", err)
			}
		}
	}()
}

// Resync programs the balancer's namespace from the records.
func (c *Cloud) Resync() error {
	_, err := c.change(func(*state) (bool, error) { return false, nil })
	return err
}

// change runs f on the records (see stateFile.update) and programs the
// balancer from the result.
func (c *Cloud) change(f func(st *state) (bool, error)) (*state, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var programErr error
	st, err := c.records.update(func(st *state) (bool, error) {
		changed, err := f(st)
		if err != nil {
			return false, err
		}
		// Programmed under the lock: two managers never program in turns
		// from different records.
		c.lastRuleset, programErr = c.balancer.program(st, c.lastRuleset, c.health.healthy)
		return changed, nil
	})
	if err != nil {
		return nil, err
	}
	return st, programErr
}

// Teardown removes the balancer's namespace and the records: the cloud's
// resources of this configuration are gone.
func (c *Cloud) Teardown() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.balancer.teardown()
	c.records.remove()
	c.lastRuleset = ""
	return err
}

func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID: every record carries the cluster name it was made for.
func (c *Cloud) HasClusterID() bool { return true }

func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c, true }
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool)   { return c, true }
func (c *Cloud) Routes() (cloudprovider.Routes, bool)             { return c, true }
