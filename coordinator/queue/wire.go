// Package queue is legalfuzz's use of NATS JetStream: the wire messages that
// coordinator and workers exchange, the streams and consumers that carry
// them, and an embedded server for single-machine campaigns.
package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/legalfuzz/legalfuzz/oracles"
)

// Version is the wire format version every message carries.
const Version = 1

// WireCase is one case on the wire: its ID and canonical bytes.
type WireCase struct {
	ID   string `json:"id"`
	Data []byte `json:"data"`
}

// Job asks one oracle to judge a batch of cases of one domain.
type Job struct {
	V        int        `json:"v"`
	Campaign string     `json:"campaign"`
	Batch    string     `json:"batch"`
	Oracle   string     `json:"oracle"`
	Domain   string     `json:"domain"`
	Cases    []WireCase `json:"cases"`
	// Check, when set, names the spot check this job is: the cases another
	// worker judged, judged again (see coordinator/rejudge.go).
	Check string `json:"check,omitempty"`
	// NotBy names the workers that must not judge the job: the worker a
	// check checks, and the quarantined ones. A worker named here gives the
	// job back for another.
	NotBy []string `json:"not_by,omitempty"`
}

// BadCase is a case of a job that could not be decoded: reported, not judged.
type BadCase struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// Result carries one job's verdicts back to the coordinator.
type Result struct {
	V        int               `json:"v"`
	Campaign string            `json:"campaign"`
	Batch    string            `json:"batch"`
	Worker   string            `json:"worker"`
	Oracle   string            `json:"oracle"`
	Domain   string            `json:"domain"`
	Verdicts []oracles.Verdict `json:"verdicts"`
	Bad      []BadCase         `json:"bad,omitempty"`
	// Elapsed is the time the oracle spent on the batch.
	Elapsed time.Duration `json:"elapsed"`
	// Check is the job's Check: the result answers a spot check.
	Check string `json:"check,omitempty"`
}

// Inputs are new fuzz inputs (raw fuzz bytes) for the coordinator to decode,
// deduplicate and fan out.
type Inputs struct {
	V        int      `json:"v"`
	Campaign string   `json:"campaign"`
	Domain   string   `json:"domain"`
	Source   string   `json:"source"` // e.g. "fuzz:FuzzKindWord", "seed", "import"
	Inputs   [][]byte `json:"inputs"`
}

// FuzzJob asks a fuzz worker to run one domain's fuzz target for a while.
type FuzzJob struct {
	V        int           `json:"v"`
	Campaign string        `json:"campaign"`
	Domain   string        `json:"domain"`
	Target   string        `json:"target"`
	Slice    time.Duration `json:"slice"`
}

// DeadLetter reports a message a worker could not process.
type DeadLetter struct {
	V        int    `json:"v"`
	Campaign string `json:"campaign"`
	Worker   string `json:"worker"`
	Subject  string `json:"subject"`
	Reason   string `json:"reason"`
	Data     []byte `json:"data"`
}

// Capability is what a worker advertises: its oracles and whether it fuzzes.
type Capability struct {
	V       int              `json:"v"`
	Worker  string           `json:"worker"`
	Host    string           `json:"host"`
	Oracles []oracles.Status `json:"oracles"`
	Fuzz    bool             `json:"fuzz"`
	Seen    time.Time        `json:"seen"`
	// Fault says why the worker cannot work (a NATS permission its user
	// lacks); empty when it can. A campaign stops on it, naming it, rather
	// than wait for results that cannot come.
	Fault string `json:"fault,omitempty"`
	// Urgent says the worker reads the urgent lane (UrgentSubject) beside
	// its jobs; a Remote panel sends there only when every live worker of
	// an oracle does, so an older worker never leaves a job unread.
	Urgent bool `json:"urgent,omitempty"`
}

// Encode marshals a message; our own types always marshal.
func Encode(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("queue: marshal %T: %v", v, err)) // a bug of ours, not input
	}
	return data
}

// ErrGarbage marks a message that is not a valid legalfuzz message.
var ErrGarbage = errors.New("garbage message")

// Decode parses a message strictly: unknown fields, trailing data or another
// wire version are garbage.
func Decode[T any](data []byte) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, fmt.Errorf("%w: %v", ErrGarbage, err)
	}
	if dec.More() {
		return v, fmt.Errorf("%w: trailing data", ErrGarbage)
	}
	var hdr struct {
		V int `json:"v"`
	}
	if err := json.Unmarshal(data, &hdr); err != nil || hdr.V != Version {
		return v, fmt.Errorf("%w: wire version %d, want %d", ErrGarbage, hdr.V, Version)
	}
	return v, nil
}

// Subjects. Oracle names go into subject tokens, sanitized.
const (
	SubjectJobs     = "jobs"
	SubjectUrgent   = "urgent"
	SubjectFuzz     = "fuzz"
	SubjectResults  = "results"
	SubjectDead     = "deadletters"
	SubjectInputs   = "inputs"
	streamJobs      = "LF_JOBS"
	streamResults   = "LF_RESULTS"
	streamInputs    = "LF_INPUTS"
	kvWorkers       = "LF_WORKERS"
	heartbeatPeriod = 5 * time.Second
)

var unsafeToken = regexp.MustCompile(`[^A-Za-z0-9_:/-]`)

// token makes a name safe as one subject token.
func token(name string) string { return unsafeToken.ReplaceAllString(name, "_") }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// consumerName makes a durable consumer name (no dots, slashes or spaces).
func consumerName(prefix, name string) string {
	return prefix + "-" + unsafeName.ReplaceAllString(name, "_")
}

// JobSubject is where jobs for an oracle and domain go.
func JobSubject(oracle, domain string) string {
	return SubjectJobs + "." + token(oracle) + "." + token(domain)
}

// UrgentSubject is the urgent lane for an oracle and domain: a
// minimizer's candidates and a night's replays, which a worker judges
// beside the job in hand rather than behind the campaign's queue.
func UrgentSubject(oracle, domain string) string {
	return SubjectUrgent + "." + token(oracle) + "." + token(domain)
}

// FuzzSubject is where fuzz slices for a domain go.
func FuzzSubject(domain string) string { return SubjectFuzz + "." + token(domain) }

// ResultSubject is where a campaign's results go.
func ResultSubject(campaign string) string { return SubjectResults + "." + token(campaign) }

// UnknownCampaign is the campaign token of dead letters for messages whose
// campaign could not be read (garbage jobs): DeadSubject(UnknownCampaign).
const UnknownCampaign = "_unknown"

// DeadSubject is where a campaign's dead letters go.
func DeadSubject(campaign string) string { return SubjectDead + "." + token(campaign) }

// InputsSubject is where a campaign's new inputs go.
func InputsSubject(campaign string) string { return SubjectInputs + "." + token(campaign) }

// SplitResult encodes a result as one message, or as several results for
// parts of its verdicts when one would exceed maxPayload bytes. The case
// errors and the elapsed time go with the first part; a part is split until
// it fits or holds one verdict.
func SplitResult(res Result, maxPayload int64) [][]byte {
	data := Encode(res)
	if int64(len(data)) <= maxPayload || len(res.Verdicts) <= 1 {
		return [][]byte{data}
	}
	half := len(res.Verdicts) / 2
	first, second := res, res
	first.Verdicts, second.Verdicts = res.Verdicts[:half], res.Verdicts[half:]
	second.Bad, second.Elapsed = nil, 0
	return append(SplitResult(first, maxPayload), SplitResult(second, maxPayload)...)
}
