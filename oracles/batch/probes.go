package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// CacheDirEnv names the environment variable that overrides where probe
// answers are kept on disk; tests point it at a t.TempDir().
const CacheDirEnv = "LEGALFUZZ_CACHE_DIR"

// CacheDir is where probe answers are kept: $LEGALFUZZ_CACHE_DIR, else
// legalfuzz/probes under the user's cache directory; "" when there is none
// (the answers are then kept in memory only).
func CacheDir() string {
	if d := os.Getenv(CacheDirEnv); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "legalfuzz", "probes")
}

// Probes keeps one tool's answers to per-target probes (an empty module
// compiled for a target, a module header checked), in memory for the life of
// the process and on disk across campaigns. The file is keyed by the tool's
// name, version and path, so a new release, or a fake tool in a test, never
// reads another's answers. A cache that cannot be read or written only
// costs the probes again.
type Probes struct {
	mu      sync.Mutex
	path    string // "" keeps the answers in memory only
	m       map[string]json.RawMessage
	dirty   bool // m holds answers the file does not
	history *History
}

// History is the tool's verdicts rule by rule, kept with its probes.
func (p *Probes) History() *History { return p.history }

// unsafeName matches what may not stand in a cache file name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// OpenProbes returns the probe cache of one tool (name, version, path) in
// CacheDir(), loading what an earlier process stored there.
func OpenProbes(name, version, path string) *Probes {
	p := open(name, version, path)
	p.history = loadHistory(p)
	return p
}

// open loads the probe answers of one tool.
func open(name, version, path string) *Probes {
	p := &Probes{m: map[string]json.RawMessage{}}
	dir := CacheDir()
	if dir == "" {
		return p
	}
	key := unsafeName.ReplaceAllString(name+"-"+version+"-"+path, "_")
	p.path = filepath.Join(dir, key+".json")
	data, err := os.ReadFile(p.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Debug("probe cache unreadable", "path", p.path, "err", err)
		}
		return p
	}
	if err := json.Unmarshal(data, &p.m); err != nil {
		slog.Debug("probe cache damaged, starting afresh", "path", p.path, "err", err)
		p.m = map[string]json.RawMessage{}
	}
	return p
}

// Get reads the answer kept under key into v; ok is false when there is
// none (or it no longer decodes).
func (p *Probes) Get(key string, v any) bool {
	p.mu.Lock()
	raw, ok := p.m[key]
	p.mu.Unlock()
	return ok && json.Unmarshal(raw, v) == nil
}

// Put keeps v under key in memory; Save writes it to disk.
func (p *Probes) Put(key string, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		slog.Debug("probe answer not kept", "key", key, "err", err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[key] = raw
	p.dirty = true
}

// Save writes the answers Put since the last Save to disk, once for many
// probes: a cold tool probes a hundred targets in one Judge, and writing
// the whole file after each cost more than the probes' own parsing.
func (p *Probes) Save() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.dirty || p.path == "" {
		return
	}
	p.dirty = false
	if err := p.save(); err != nil {
		slog.Debug("probe cache not written", "path", p.path, "err", err)
	}
}

// save writes the cache atomically: a temporary file renamed over it, so a
// concurrent reader never sees half a file.
func (p *Probes) save() error {
	data, err := json.Marshal(p.m)
	if err != nil {
		return fmt.Errorf("probe cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return fmt.Errorf("probe cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p.path), ".probes-*")
	if err != nil {
		return fmt.Errorf("probe cache: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("probe cache: %w", err)
	}
	if err := os.Rename(f.Name(), p.path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("probe cache: %w", err)
	}
	return nil
}

// LazyProbes opens a tool's probe cache on first use: an oracle made as a
// struct literal, or before a test points CacheDirEnv at its own
// directory, still finds the right one. The zero value is ready.
type LazyProbes struct {
	once sync.Once
	p    *Probes
}

// Open returns the probe cache of the tool (name, version, path), opening
// it on the first call; later calls return the same one.
func (l *LazyProbes) Open(name, version, path string) *Probes {
	l.once.Do(func() { l.p = OpenProbes(name, version, path) })
	return l.p
}
