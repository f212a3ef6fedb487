package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
)

// ResolveContainerPort is a port by number, or by the name of one of the
// container's ports (upstream's probe.ResolveContainerPort).
func ResolveContainerPort(param intstr.IntOrString, c *corev1.Container) (int, error) {
	port := -1
	var err error
	switch param.Type {
	case intstr.Int:
		port = int(param.IntVal)
	case intstr.String:
		if port, err = findPortByName(c, param.StrVal); err != nil {
			// Last ditch effort - maybe it was an int stored as string?
			if port, err = strconv.Atoi(param.StrVal); err != nil {
				return port, err
			}
		}
	default:
		return port, fmt.Errorf("intOrString had no kind: %+v", param)
	}
	if port > 0 && port < 65536 {
		return port, nil
	}
	return port, fmt.Errorf("invalid port number: %v", port)
}

func findPortByName(c *corev1.Container, name string) (int, error) {
	for _, p := range c.Ports {
		if p.Name == name {
			return int(p.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("port %s not found", name)
}

// NewRequestForHTTPGetAction is the GET an httpGet probe or hook sends:
// scheme (default http), host (default the pod's IP), the port resolved,
// the path, the user's headers, and User-Agent kube-<purpose>/1.35 unless
// the user set one (upstream's httpprobe.NewRequestForHTTPGetAction).
func NewRequestForHTTPGetAction(ctx context.Context, g *corev1.HTTPGetAction, c *corev1.Container, podIP, purpose string) (*http.Request, error) {
	scheme := strings.ToLower(string(g.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	host := g.Host
	if host == "" {
		host = podIP
	}
	port, err := ResolveContainerPort(g.Port, c)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(g.Path)
	if err != nil {
		u = &url.URL{Path: g.Path}
	}
	u.Scheme, u.Host = scheme, net.JoinHostPort(host, strconv.Itoa(port))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	headers := http.Header{}
	for _, h := range g.HTTPHeaders {
		headers.Add(h.Name, h.Value)
	}
	if _, ok := headers["User-Agent"]; !ok {
		headers.Set("User-Agent", "kube-"+purpose+"/"+userAgentVersion)
	}
	if _, ok := headers["Accept"]; !ok {
		headers.Set("Accept", "*/*")
	} else if headers.Get("Accept") == "" {
		headers.Del("Accept")
	}
	req.Header = headers
	req.Host = headers.Get("Host")
	return req, nil
}

// NewHTTPClient GETs through dial, without keep-alives or proxies,
// trusting any certificate (the kubelet cannot verify a pod's), following
// redirects only on the same host. A timeout of 0 means none (lifecycle
// hooks).
func NewHTTPClient(dial DialFunc, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			TLSClientConfig:    &tls.Config{InsecureSkipVerify: true},
			DisableKeepAlives:  true,
			DisableCompression: true, // no Accept-Encoding header
			Proxy:              http.ProxyURL(nil),
			DialContext:        dial.dial,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Hostname() != via[0].URL.Hostname() {
				return http.ErrUseLastResponse
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}
}

// DoHTTPProbe sends req: a status 200-299 succeeds, 300-399 (a redirect
// not followed) succeeds with a warning, anything else fails with
// upstream's words (pkg/probe/http.DoHTTPProbe).
func DoHTTPProbe(req *http.Request, c *http.Client) (Result, string, error) {
	res, err := c.Do(req)
	if err != nil {
		return Failure, err.Error(), nil
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxRespBodyLength))
	if err != nil {
		return Failure, "", err
	}
	body := string(b)
	if res.StatusCode >= http.StatusOK && res.StatusCode < http.StatusBadRequest {
		if res.StatusCode >= http.StatusMultipleChoices {
			return Warning, "Probe terminated redirects, Response body: " + body, nil
		}
		return Success, body, nil
	}
	return Failure, fmt.Sprintf("HTTP probe failed with statuscode: %d", res.StatusCode), nil
}
