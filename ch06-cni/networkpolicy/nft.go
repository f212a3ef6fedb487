package networkpolicy

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Apply runs script with `nft -f -` in the process's network namespace:
// the kernel applies it as one transaction, all or nothing.
func Apply(ctx context.Context, script string) error {
	cmd := exec.CommandContext(ctx, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := stderr.String()
		if len(msg) > 2000 {
			msg = msg[:2000] + "..."
		}
		return fmt.Errorf("nft -f: %w: %s", err, strings.TrimSpace(msg))
	}
	return nil
}
