package coordinator

import (
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// HighBatches exports the pacing bound for the tests of package
// coordinator_test.
const HighBatches = highBatches

// CommitFetched handles fetched results as handleResults does once they
// passed its checks: commits as one transaction, acks, and dead letters.
func CommitFetched(c *Coordinator, ms []jetstream.Msg, commits []store.Commit) {
	var dead letters
	c.commitAndAck(ms, commits, &dead)
	c.recordDead(&dead)
}
