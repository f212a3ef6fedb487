package cloudprovider

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// Factory builds a provider from its configuration file (--cloud-config;
// nil when none was given).
type Factory func(config io.Reader) (Interface, error)

var (
	providersMutex sync.Mutex
	providers      = map[string]Factory{}
)

// RegisterCloudProvider makes the provider name known; a provider's package
// calls it from init. Registering a name twice panics.
func RegisterCloudProvider(name string, cloud Factory) {
	providersMutex.Lock()
	defer providersMutex.Unlock()
	if _, found := providers[name]; found {
		panic(fmt.Sprintf("Cloud provider %q was registered twice", name))
	}
	providers[name] = cloud
}

// Providers lists the registered names.
func Providers() []string {
	providersMutex.Lock()
	defer providersMutex.Unlock()
	var names []string
	for n := range providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// InitCloudProvider builds the provider name from the file configFilePath
// (none when ""), with upstream's messages.
func InitCloudProvider(name string, configFilePath string) (Interface, error) {
	providersMutex.Lock()
	f, found := providers[name]
	providersMutex.Unlock()
	if !found {
		return nil, fmt.Errorf("unknown cloud provider %q", name)
	}
	var config io.Reader
	if configFilePath != "" {
		file, err := os.Open(configFilePath)
		if err != nil {
			return nil, fmt.Errorf("couldn't open cloud provider configuration %s: %w", configFilePath, err)
		}
		defer file.Close()
		config = file
	}
	cloud, err := f(config)
	if err != nil {
		return nil, fmt.Errorf("could not init cloud provider %q: %v", name, err)
	}
	return cloud, nil
}
