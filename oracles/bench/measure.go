package bench

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
	"github.com/legalfuzz/legalfuzz/oracles"
	"github.com/legalfuzz/legalfuzz/oracles/tool"
	"golang.org/x/sync/errgroup"
)

// Timing is one mode's single timed run.
type Timing struct {
	// Seconds is the wall-clock time of the run.
	Seconds float64 `json:"seconds"`
	// CasesPerS is cases judged (or, for a bare run, cases in the files run)
	// per wall-clock second.
	CasesPerS float64 `json:"cases_per_s"`
	// Invocations counts the tool processes started, probes included.
	Invocations int64 `json:"invocations"`
	// ToolCPUSeconds is the user+system CPU time of those processes;
	// HarnessCPUSeconds is legalfuzz's own (rendering, parsing, GC).
	ToolCPUSeconds    float64 `json:"tool_cpu_seconds"`
	HarnessCPUSeconds float64 `json:"harness_cpu_seconds"`
}

// cpu is the run's CPU time, tools and harness together.
func (t Timing) cpu() float64 { return t.ToolCPUSeconds + t.HarnessCPUSeconds }

// stopwatch measures wall clock, process starts and CPU time from start to
// stop.
type stopwatch struct {
	t0            time.Time
	runs0         int64
	self0, child0 time.Duration
}

func start() stopwatch {
	return stopwatch{t0: time.Now(), runs0: tool.Started(), self0: cpu(syscall.RUSAGE_SELF), child0: cpu(syscall.RUSAGE_CHILDREN)}
}

func (s stopwatch) stop(cases int) Timing {
	wall := time.Since(s.t0)
	t := Timing{
		Seconds:           round(wall.Seconds(), 4),
		Invocations:       tool.Started() - s.runs0,
		ToolCPUSeconds:    round((cpu(syscall.RUSAGE_CHILDREN) - s.child0).Seconds(), 4),
		HarnessCPUSeconds: round((cpu(syscall.RUSAGE_SELF) - s.self0).Seconds(), 4),
	}
	if wall > 0 {
		t.CasesPerS = round(float64(cases)/wall.Seconds(), 2)
	}
	return t
}

// cpu is the user+system time of who (RUSAGE_SELF or RUSAGE_CHILDREN, the
// latter counting reaped children only).
func cpu(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timeJudge judges cases once with o and times it.
func timeJudge(ctx context.Context, o oracles.Oracle, cases []domain.Case) (Timing, []oracles.Verdict, error) {
	sw := start()
	vs, err := o.Judge(ctx, cases)
	if err != nil {
		return Timing{}, nil, fmt.Errorf("bench: %s: %w", o.Name(), err)
	}
	return sw.stop(len(cases)), vs, nil
}

// timeBare runs the commands, as many at once as the batch engine runs
// (GOMAXPROCS), and times them. The tools' verdicts are not read: a failing
// run is as good as a clean one here.
func timeBare(ctx context.Context, cmds []command, cases int, timeout time.Duration) (Timing, error) {
	sw := start()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, c := range cmds {
		g.Go(func() error {
			if _, err := c.tool.Run(gctx, timeout, c.stdin, c.args...); err != nil {
				return fmt.Errorf("bench: bare run: %w", err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Timing{}, err
	}
	return sw.stop(cases), nil
}

// Machine describes where the benchmark ran.
type Machine struct {
	// Cores is the number of logical CPUs; GOMAXPROCS is how many Go used.
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPU        string `json:"cpu"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	Go         string `json:"go"`
	// LoadAverage is /proc/loadavg's 1, 5 and 15 minute figures when the
	// run started: other work on the machine slows every mode.
	LoadAverage []float64 `json:"load_average"`
}

// ThisMachine describes the machine a benchmark runs on, now: every bench
// report records it, so ratios are read against the load they ran under.
func ThisMachine() Machine {
	return Machine{Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), CPU: cpuModel(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, Go: runtime.Version(), LoadAverage: loadAverage()}
}

// loadAverage reads /proc/loadavg, or returns an empty list where there is
// none.
func loadAverage() []float64 {
	out := []float64{}
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return out
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return out
	}
	for _, f := range fields[:3] {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return []float64{}
		}
		out = append(out, x)
	}
	return out
}

// cpuModel reads the first "model name" of /proc/cpuinfo, or "" where there
// is none.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}
