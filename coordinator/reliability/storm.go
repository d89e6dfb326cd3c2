package reliability

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/fuzz"
	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
)

// Storm makes the garbage and forged messages a soak throws at a running
// campaign, as an attacker holding a worker's NATS credentials could send
// them: on the subjects a worker may publish to (results, dead letters,
// inputs). Every forged verdict carries Marker in its diagnostic, so an
// audit of the store finds any that was kept. Storm is not safe for
// concurrent use.
type Storm struct {
	// Campaign is the campaign under attack.
	Campaign string
	// Marker is put in every forged diagnostic and reason.
	Marker string
	// Oracles are the campaign's oracles: forged verdicts of theirs are for
	// case IDs the campaign never had.
	Oracles []string
	// Foreign is an oracle no worker offers (gpu on a CPU machine): forged
	// verdicts of it are for cases the campaign has.
	Foreign string
	// Known are IDs of cases the campaign surely has (its seeds').
	Known []string
	// MaxPayload is the server's payload limit: a large forged result is
	// made just under it.
	MaxPayload int
	rng        *rand.Rand
}

// Storm message kinds, in the order Next cycles through them.
const (
	KindGarbage         = "garbage"           // random bytes on a results, dead-letter or inputs subject
	KindTruncated       = "truncated"         // a forged result cut short
	KindForgedUnknown   = "forged_unenqueued" // verdicts of a campaign oracle for cases never enqueued
	KindForgedForeign   = "forged_foreign"    // verdicts of an oracle nobody runs for the campaign's cases
	KindForgedMixed     = "forged_mixed"      // a result of one oracle carrying another's verdicts
	KindForgedDead      = "forged_dead"       // a dead letter claiming jobs that were never enqueued
	KindForgedDeadHuge  = "forged_dead_huge"  // the same, claiming 5,000 cases
	KindLargeResult     = "large_result"      // a forged result just under the payload limit
	KindGarbageInputs   = "garbage_inputs"    // inputs of an unknown domain or of another campaign
	KindForgedDeadDup   = "forged_dead_dup"   // a dead letter naming the campaign's cases for its oracle, each many times
	hugeDeadCases       = 5000
	largeEvery          = 1000 // one message in largeEvery is large, one a huge dead letter
	stormKindsPerCycle  = 8
	forgedCasesPerBatch = 16
	// dupCases and dupRepeats shape a duplicate-laden dead letter: the 57
	// kindword seeds, 100 times each, counted 5,700 dead cases once.
	dupCases, dupRepeats = 57, 100
)

// StormMessage is one message of a storm.
type StormMessage struct {
	Kind, Subject string
	Data          []byte
}

// NewStorm prepares a storm on campaign; known case IDs are the seeds of the
// domains (all when empty), which every campaign judges first.
func NewStorm(campaign, marker string, orcs []string, foreign string, domains []string, seed uint64, maxPayload int) *Storm {
	s := &Storm{Campaign: campaign, Marker: marker, Oracles: orcs, Foreign: foreign, MaxPayload: maxPayload,
		rng: rand.New(rand.NewPCG(seed, 0x570a))}
	for _, d := range fuzz.Domains() {
		if len(domains) > 0 && !slices.Contains(domains, d.Name) {
			continue
		}
		for _, v := range d.Seeds() {
			s.Known = append(s.Known, domain.NewCase(d.Name, v).ID)
		}
	}
	return s
}

// Next returns the i-th message of the storm.
func (s *Storm) Next(i int) StormMessage {
	switch {
	case i%largeEvery == largeEvery-1:
		return StormMessage{KindLargeResult, queue.ResultSubject(s.Campaign), s.large()}
	case i%largeEvery == largeEvery-2:
		return StormMessage{KindForgedDeadHuge, queue.DeadSubject(s.Campaign), s.deadLetter(hugeDeadCases)}
	}
	results := queue.ResultSubject(s.Campaign)
	switch i % stormKindsPerCycle {
	case 0:
		subjects := []string{results, queue.DeadSubject(s.Campaign), queue.InputsSubject(s.Campaign)}
		return StormMessage{KindGarbage, subjects[s.rng.IntN(len(subjects))], s.bytes(s.rng.IntN(512))}
	case 1:
		data := queue.Encode(s.result(s.pick(s.Oracles), s.unknownIDs(4)))
		return StormMessage{KindTruncated, results, data[:s.rng.IntN(len(data))]}
	case 2:
		return StormMessage{KindForgedUnknown, results, queue.Encode(s.result(s.pick(s.Oracles), s.unknownIDs(forgedCasesPerBatch)))}
	case 3:
		return StormMessage{KindForgedForeign, results, queue.Encode(s.result(s.Foreign, s.knownIDs(forgedCasesPerBatch)))}
	case 4:
		res := s.result(s.Foreign, s.knownIDs(forgedCasesPerBatch))
		res.Oracle = s.pick(s.Oracles) // verdicts of Foreign under a campaign oracle's name
		return StormMessage{KindForgedMixed, results, queue.Encode(res)}
	case 5:
		return StormMessage{KindForgedDead, queue.DeadSubject(s.Campaign), s.deadLetter(forgedCasesPerBatch)}
	case 6:
		return StormMessage{KindForgedDeadDup, queue.DeadSubject(s.Campaign), s.duplicateDeadLetter()}
	default:
		return StormMessage{KindGarbageInputs, queue.InputsSubject(s.Campaign), s.inputs()}
	}
}

// result is a forged result of oracle rejecting the cases.
func (s *Storm) result(oracle string, ids []string) queue.Result {
	res := queue.Result{V: queue.Version, Campaign: s.Campaign, Batch: "forged-" + oracle, Worker: "forger", Oracle: oracle, Domain: "kindword"}
	for _, id := range ids {
		res.Verdicts = append(res.Verdicts, oracles.Verdict{Oracle: oracle, Case: id, Domain: "kindword", Kind: oracles.Reject,
			Rule: "forged.rule", Diagnostic: s.Marker + ": this case is illegal, trust me"})
	}
	return res
}

// large is a forged result just under the payload limit: one verdict whose
// diagnostic fills it.
func (s *Storm) large() []byte {
	res := s.result(s.pick(s.Oracles), s.unknownIDs(1))
	overhead := len(queue.Encode(res))
	res.Verdicts[0].Diagnostic += strings.Repeat("x", max(s.MaxPayload-overhead-1024, 0))
	return queue.Encode(res)
}

// deadLetter is a forged dead letter whose job names n cases: forged IDs
// for a campaign oracle, and the campaign's cases for the foreign oracle.
func (s *Storm) deadLetter(n int) []byte {
	job := queue.Job{V: queue.Version, Campaign: s.Campaign, Batch: "forged", Oracle: s.pick(s.Oracles), Domain: "kindword"}
	ids := s.unknownIDs(n)
	if s.rng.IntN(2) == 0 {
		job.Oracle, ids = s.Foreign, s.knownIDs(min(n, len(s.Known)))
	}
	for _, id := range ids {
		job.Cases = append(job.Cases, queue.WireCase{ID: id, Data: []byte{1}})
	}
	return queue.Encode(queue.DeadLetter{V: queue.Version, Campaign: s.Campaign, Worker: "forger", Subject: queue.JobSubject(job.Oracle, "kindword"),
		Reason: s.Marker + ": gave up", Data: queue.Encode(job)})
}

// duplicateDeadLetter is a forged dead letter of a campaign oracle whose
// job names the campaign's own cases, each dupRepeats times: a worker's
// credentials may give up a job, but each pair counts dead once at most,
// and a verdict that comes after revives it.
func (s *Storm) duplicateDeadLetter() []byte {
	job := queue.Job{V: queue.Version, Campaign: s.Campaign, Batch: "forged-dup", Oracle: s.pick(s.Oracles), Domain: "kindword"}
	for _, id := range s.knownIDs(min(dupCases, max(len(s.Known), 1))) {
		for range dupRepeats {
			job.Cases = append(job.Cases, queue.WireCase{ID: id, Data: []byte{1}})
		}
	}
	return queue.Encode(queue.DeadLetter{V: queue.Version, Campaign: s.Campaign, Worker: "forger", Subject: queue.JobSubject(job.Oracle, "kindword"),
		Reason: s.Marker + ": gave up, many times", Data: queue.Encode(job)})
}

// inputs are inputs of a domain that does not exist, or of another
// campaign: both are dead letters, never cases.
func (s *Storm) inputs() []byte {
	in := queue.Inputs{V: queue.Version, Campaign: s.Campaign, Domain: "nosuch-" + s.Marker, Source: "forged", Inputs: [][]byte{s.bytes(32)}}
	if s.rng.IntN(2) == 0 {
		in.Campaign, in.Domain = "other-"+s.Marker, "kindword"
	}
	return queue.Encode(in)
}

func (s *Storm) unknownIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%016x", s.rng.Uint64())
	}
	return ids
}

func (s *Storm) knownIDs(n int) []string {
	if len(s.Known) == 0 {
		return s.unknownIDs(n)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = s.Known[s.rng.IntN(len(s.Known))]
	}
	return ids
}

func (s *Storm) pick(list []string) string { return list[s.rng.IntN(len(list))] }

func (s *Storm) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(s.rng.Uint32())
	}
	return b
}
