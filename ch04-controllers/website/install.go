package website

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/serializer"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
)

// CRDYAML is the CustomResourceDefinition of websites.kubik.io.
//
//go:embed crd.yaml
var CRDYAML []byte

// CRD decodes CRDYAML.
func CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := serializer.YAMLToJSON(CRDYAML)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(data, crd); err != nil {
		return nil, fmt.Errorf("crd.yaml: %w", err)
	}
	return crd, nil
}

// EnsureCRD creates the CustomResourceDefinition unless it exists, and
// waits until the apiserver serves it (condition Established), as an
// operator's installer does before it starts its controller.
func EnsureCRD(ctx context.Context, c *rest.Client, log *slog.Logger) error {
	crd, err := CRD()
	if err != nil {
		return err
	}
	if _, err := rest.Get[apiextensionsv1.CustomResourceDefinition](ctx, c, "", CRDName); rest.IsNotFound(err) {
		if _, err := rest.Create(ctx, c, crd); err != nil && !rest.IsAlreadyExists(err) {
			return fmt.Errorf("create CustomResourceDefinition %s: %w", CRDName, err)
		}
		log.Info("Created CustomResourceDefinition", "name", CRDName)
	} else if err != nil {
		return err
	}
	for {
		got, err := rest.Get[apiextensionsv1.CustomResourceDefinition](ctx, c, "", CRDName)
		if err != nil {
			return err
		}
		if apiextensionsv1.IsCRDConditionTrue(got, apiextensionsv1.Established) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Run is the controller as a program of its own: a client with the
// identity in kubeconfig, the CRD applied, informers shared by this
// controller only, workers until ctx ends.
func Run(ctx context.Context, kubeconfig string, workers int, log *slog.Logger) error {
	cfg, err := rest.BuildConfigFromFlags(kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = ControllerName
	c, err := rest.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := EnsureCRD(ctx, c, log); err != nil {
		return err
	}
	cc := &controller.ControllerContext{Client: c, Informers: controller.NewSharedInformers(c, log), Log: log}
	wc := NewController(cc)
	cc.Informers.Start(ctx)
	wc.Run(ctx, workers)
	return nil
}
