package stress

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/legalfuzz/legalfuzz/coordinator/queue"
	"github.com/legalfuzz/legalfuzz/coordinator/reliability"
)

// child is a legalfuzz child process of the soak.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	code int // exit code once done; -1 when killed by a signal
}

// startChild runs exe with args, its output appended to logPath. The
// kernel kills it when the soak dies.
func startChild(name, exe, logPath string, env []string, args ...string) (*child, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	fmt.Fprintf(logf, "--- %s start %s\n", time.Now().UTC().Format(time.RFC3339), name)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit code says it
		logf.Close()
		c.code = cmd.ProcessState.ExitCode()
		close(c.done)
	}()
	return c, nil
}

// kill SIGKILLs the process and waits for it.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// stop asks the process to finish (SIGTERM), and kills it after grace.
func (c *child) stop(grace time.Duration) {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
		c.kill()
	}
}

// soak runs the campaign, the workers, the kills and the storm until the
// campaign is done, and fills rep's process and storm figures.
func (o *SoakOptions) soak(ctx context.Context, ns *server.Server, users soakUsers, rep *SoakReport) error {
	exe := o.Exe
	url := ns.ClientURL()
	logs := filepath.Join(o.Dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	var userOracle []string // the user oracles, for the campaign's worker and the others
	for _, spec := range o.UserOracles {
		userOracle = append(userOracle, "--oracle", spec)
	}
	workerArgs := func(i int) []string {
		return append([]string{"worker", "--nats", url, "--nats-user", "worker", "--name", fmt.Sprintf("soak-w%d", i),
			"--oracles", strings.Join(o.Oracles, ","), "--fuzz-binary", o.FuzzBinary, "--work-dir", filepath.Join(o.Dir, "workers", fmt.Sprint(i))},
			userOracle...)
	}
	workerEnv := []string{"LEGALFUZZ_NATS_PASSWORD=" + users.worker}
	workers := make([]*child, o.Workers)
	for i := range workers {
		w, err := startChild(fmt.Sprintf("worker %d", i), exe, filepath.Join(logs, fmt.Sprintf("worker-%d.log", i)), workerEnv, workerArgs(i)...)
		if err != nil {
			return err
		}
		workers[i] = w
	}
	if o.Hanging {
		hang, err := o.hangingWorker(exe, logs, workerEnv, workerArgs(len(workers)+1))
		if err != nil {
			return err
		}
		defer func() { rep.HangingWorker = hang() }()
	}
	if o.Liar { // never killed: the soak checks that it is quarantined
		args := append(workerArgs(len(workers)), "--name", Liar, "--lie-one-in", "10")
		liar, err := startChild(Liar, exe, filepath.Join(logs, "liar.log"), workerEnv, args...)
		if err != nil {
			return err
		}
		defer liar.stop(30 * time.Second)
	}
	defer func() {
		for _, w := range workers {
			w.stop(30 * time.Second)
		}
	}()
	campArgs := []string{"campaign", "--nats", url, "--nats-user", "coordinator", "--campaign", Campaign,
		"--duration", o.Duration.String(), "--drain-timeout", o.Drain.String(), "--oracles", strings.Join(o.Oracles, ","),
		"--generator", o.Generator, "--fuzz-binary", o.FuzzBinary, "--out", filepath.Join(o.Dir, "campaign"), "--no-minimize", "--quiet"}
	campArgs = append(campArgs, userOracle...)
	if o.Liar {
		campArgs = append(campArgs, "--keep-all")
	}
	if len(o.Domains) > 0 {
		campArgs = append(campArgs, "--domains", strings.Join(o.Domains, ","))
	}
	startCampaign := func() (*child, error) {
		rep.CampaignStarts++
		fmt.Fprintf(o.Log, "bench soak: campaign start %d\n", rep.CampaignStarts)
		return startChild("campaign", exe, filepath.Join(logs, "campaign.log"), []string{"LEGALFUZZ_NATS_PASSWORD=" + users.coordinator}, campArgs...)
	}
	camp, err := startCampaign()
	if err != nil {
		return err
	}
	defer camp.kill()

	stormCtx, stopStorm := context.WithCancel(ctx)
	defer stopStorm()
	stormDone := make(chan StormCounts, 1)
	go func() { stormDone <- o.storm(stormCtx, ns, users) }()
	start := time.Now()
	killEvery := time.NewTicker(o.KillEvery)
	defer killEvery.Stop()
	resumes := 0
	for done := false; !done; {
		var campaignKill <-chan time.Time // the next campaign kill, evenly spread over the duration
		if rep.CampaignKills < o.CampaignKills {
			at := o.Duration * time.Duration(rep.CampaignKills+1) / time.Duration(o.CampaignKills+1)
			campaignKill = time.After(time.Until(start.Add(at)))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-killEvery.C:
			i := rep.WorkerKills % len(workers)
			workers[i].kill()
			rep.WorkerKills++
			fmt.Fprintf(o.Log, "bench soak: %s SIGKILLed at %s\n", workers[i].name, time.Since(start).Round(time.Second))
			if workers[i], err = startChild(workers[i].name, exe, filepath.Join(logs, fmt.Sprintf("worker-%d.log", i)), workerEnv, workerArgs(i)...); err != nil {
				return err
			}
			rep.WorkerRestarts++
		case <-campaignKill:
			camp.kill()
			rep.CampaignKills++
			rep.CampaignExits = append(rep.CampaignExits, "SIGKILL")
			fmt.Fprintf(o.Log, "bench soak: campaign SIGKILLed at %s\n", time.Since(start).Round(time.Second))
			if camp, err = startCampaign(); err != nil {
				return err
			}
		case <-camp.done:
			rep.CampaignExits = append(rep.CampaignExits, fmt.Sprintf("exit %d", camp.code))
			switch {
			case camp.code == exitOK || camp.code == exitFindings: // done, with or without new findings
				done = true
			case resumes < maxResumes: // a drain timeout with jobs owed: resume
				resumes++
				if camp, err = startCampaign(); err != nil {
					return err
				}
			default: // given up: the audit says what is owed
				fmt.Fprintf(o.Log, "bench soak: the campaign exited %d %d times (see %s)\n", camp.code, resumes+1, filepath.Join(logs, "campaign.log"))
				done = true
			}
		}
	}
	stopStorm()
	rep.Storm = <-stormDone
	rep.Storm.Unread = unread(ctx, url, users)
	return nil
}

// maxResumes bounds the campaign's restarts after it exits 2 on its own.
const maxResumes = 3

// legalfuzz's exit codes (cmd/legalfuzz) that end a campaign for good: it
// ran and found nothing new, or new findings. Any other code is resumed.
const (
	exitOK       = 0
	exitFindings = 1
)

// StormCounts are the storm's figures.
type StormCounts struct {
	Sent             int            `json:"sent"`
	ByKind           map[string]int `json:"by_kind"`
	PublishErrors    int            `json:"publish_errors"`
	JobsAttempted    int            `json:"jobs_attempted"`
	JobsDenied       int            `json:"jobs_denied"`
	Oversized        int            `json:"oversized"`
	OversizedRefused int            `json:"oversized_refused"`
	Unread           int            `json:"unread"`
}

// storm publishes o.Forged messages as the worker user, spread over the
// duration, and o.Oversized over the payload limit on raw connections.
func (o *SoakOptions) storm(ctx context.Context, ns *server.Server, users soakUsers) StormCounts {
	counts := StormCounts{ByKind: map[string]int{}}
	var mu sync.Mutex
	nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo("worker", users.worker), nats.Name("soak-storm"), nats.MaxReconnects(-1),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				mu.Lock()
				counts.JobsDenied++
				mu.Unlock()
			}
		}))
	if err != nil {
		fmt.Fprintln(o.Log, "bench soak: storm:", err)
		return counts
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err == nil {
		err = queue.WaitStreams(ctx, js)
	}
	if err != nil {
		fmt.Fprintln(o.Log, "bench soak: storm:", err)
		return counts
	}
	s := reliability.NewStorm(Campaign, Marker, o.Oracles, "gpu", o.Domains, 1, int(nc.MaxPayload()))
	start := time.Now()
	total := o.Forged + o.Oversized
	for i := 0; i < total && ctx.Err() == nil; i++ {
		// Pace: message i goes out at i/total of the duration.
		if wait := time.Until(start.Add(o.Duration * time.Duration(i) / time.Duration(total))); wait > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
		switch {
		case i%(total/max(o.Oversized, 1)+1) == 0 && counts.Oversized < o.Oversized:
			counts.Oversized++
			if oversizedRefused(ns.Addr().String(), users.worker, queue.ResultSubject(Campaign), 2*int(nc.MaxPayload())) {
				counts.OversizedRefused++
			}
		case i%100 == 50:
			counts.JobsAttempted++
			_ = nc.Publish(queue.JobSubject(o.Oracles[0], "kindword"), []byte(Marker+" forged job"))
		default:
			m := s.Next(i)
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := js.Publish(pctx, m.Subject, m.Data)
			cancel()
			if err != nil {
				counts.PublishErrors++
				continue
			}
			counts.Sent++
			counts.ByKind[m.Kind]++
		}
	}
	_ = nc.Flush()
	time.Sleep(500 * time.Millisecond) // the last permission errors come back asynchronously
	mu.Lock()
	defer mu.Unlock()
	return counts
}

// oversizedRefused publishes size bytes on a raw client connection, as a
// client that ignores the server's limit would, and reports whether the
// server refused them with a payload violation.
func oversizedRefused(addr, password, subject string, size int) bool {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil { // the server's INFO
		return false
	}
	connect, _ := json.Marshal(map[string]any{"user": "worker", "pass": password, "verbose": false, "pedantic": false})
	if _, err := fmt.Fprintf(c, "CONNECT %s\r\nPUB %s %d\r\n", connect, subject, size); err != nil {
		return false
	}
	go func() { _, _ = c.Write(make([]byte, size)) }() // the server may stop reading at the header
	for range 4 {
		line, err := r.ReadString('\n')
		if strings.Contains(line, "Maximum Payload") {
			return true
		}
		if err != nil {
			return false
		}
	}
	return false
}

// unread counts the messages left on the results and inputs streams: storm
// messages the campaign ended before reading.
func unread(ctx context.Context, url string, users soakUsers) int {
	nc, err := nats.Connect(url, nats.UserInfo("coordinator", users.coordinator))
	if err != nil {
		return -1
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return -1
	}
	n := 0
	for _, name := range []string{"LF_RESULTS", "LF_INPUTS"} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return -1
		}
		n += int(s.CachedInfo().State.Msgs)
	}
	return n
}

// hangingWorker starts a worker given a toolchain whose tools hang even on
// --version: it must refuse to start, naming the tool, within the probe
// limits, while the campaign goes on. The function returned says how it
// ended.
func (o *SoakOptions) hangingWorker(exe, logs string, env, args []string) (func() string, error) {
	dir, err := hangingToolchain(filepath.Join(o.Dir, "hang"))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	w, err := startChild("soak-hang", exe, filepath.Join(logs, "hang.log"), env, append(args, "--name", "soak-hang", "--toolchain", "hang="+dir)...)
	if err != nil {
		return nil, err
	}
	ended := make(chan time.Duration, 1)
	go func() { <-w.done; ended <- time.Since(start) }()
	return func() string {
		select {
		case took := <-ended:
			return fmt.Sprintf("exit %d after %s", w.code, took.Round(time.Second))
		default:
			w.kill()
			return "still running at the end of the soak: killed"
		}
	}, nil
}

// hangingToolchain writes a toolchain folder whose LLVM tools hang even on
// --version: the probe limits must make them unavailable, not the campaign
// hang.
func hangingToolchain(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, tool := range []string{"llc", "llvm-mc", "mlir-opt", "mlir-translate"} {
		if err := os.WriteFile(filepath.Join(dir, tool), []byte("#!/bin/sh\nexec sleep 3600\n"), 0o755); err != nil {
			return "", err
		}
	}
	return dir, nil
}
