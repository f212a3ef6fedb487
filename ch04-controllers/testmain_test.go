package main_test

import (
	"testing"

	"kubik/internal/testenv"
)

// TestMain removes the chapter binaries the tests built.
func TestMain(m *testing.M) { testenv.Main(m) }
