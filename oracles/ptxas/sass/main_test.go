package sass

import (
	"os"
	"testing"

	"github.com/legalfuzz/legalfuzz/oracles/batch/batchtest"
)

func TestMain(m *testing.M) { os.Exit(batchtest.Main(m)) }
