// Package surface reads an LLVM installation's op surfaces (fuzz/opsurface)
// from its own TableGen sources: it runs the installation's llvm-tblgen
// --dump-json on the .td file that defines a dialect's ops, and keeps the
// dump, trimmed to the records those ops reach, in the cache, so that a
// later process reads the surface without running the tool.
package surface

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/legalfuzz/legalfuzz/fuzz/opsurface"
	"github.com/legalfuzz/legalfuzz/internal/clip"
	"github.com/legalfuzz/legalfuzz/oracles/batch"
	"github.com/legalfuzz/legalfuzz/oracles/toolchain"
)

// Source is a dialect and the .td file, below an installation's include
// folder, that defines its ops.
type Source struct {
	Dialect string
	File    string
}

// Sources are the dialects legalfuzz reads, in the order it shows them.
var Sources = []Source{
	{Dialect: "nvvm", File: "mlir/Dialect/LLVMIR/NVVMOps.td"},
	{Dialect: "nvgpu", File: "mlir/Dialect/NVGPU/IR/NVGPUOps.td"},
}

// Tool is the TableGen driver an installation brings beside its tools.
const Tool = "llvm-tblgen"

// Timeout bounds one run of llvm-tblgen (NVVMOps.td takes half a second).
var Timeout = 2 * time.Minute

// ErrNoSources says the installation has no TableGen sources for the
// dialect: no include folder with its .td file, or no llvm-tblgen.
var ErrNoSources = errors.New("no TableGen sources (make oracles installs them beside each private LLVM root)")

// Include is the installation's include folder: beside its bin/.
func Include(in toolchain.Installation) string { return filepath.Join(filepath.Dir(in.Dir), "include") }

// Has reports whether the installation has the source's TableGen sources:
// its .td file and llvm-tblgen (a cached dump aside, Read needs both).
func Has(in toolchain.Installation, src Source) bool {
	if _, err := os.Stat(filepath.Join(Include(in), src.File)); err != nil {
		return false
	}
	_, err := os.Stat(in.Path(Tool))
	return err == nil
}

// Read returns the installation's surface of the source's dialect, from
// the cache when an earlier process dumped the same sources.
func Read(ctx context.Context, in toolchain.Installation, src Source) (opsurface.Surface, error) {
	td := filepath.Join(Include(in), src.File)
	tdInfo, err := os.Stat(td)
	if err != nil {
		return opsurface.Surface{}, fmt.Errorf("%s: %w", src.Dialect, ErrNoSources)
	}
	tblgen := in.Path(Tool)
	toolInfo, err := os.Stat(tblgen)
	if err != nil {
		return opsurface.Surface{}, fmt.Errorf("%s: %w", src.Dialect, ErrNoSources)
	}
	path := cachePath(in, src, tdInfo, toolInfo)
	dump, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			slog.Debug("surface cache unreadable", "path", path, "err", err)
		}
		if dump, err = dumpTrimmed(ctx, tblgen, Include(in), td, src.Dialect); err != nil {
			return opsurface.Surface{}, fmt.Errorf("%s of LLVM %s: %w", src.Dialect, in.Label, err)
		}
		store(path, dump)
	}
	rs, err := opsurface.ReadRecords(dump)
	if err != nil {
		return opsurface.Surface{}, fmt.Errorf("%s of LLVM %s (%s): %w", src.Dialect, in.Label, path, err)
	}
	return opsurface.Read(rs, src.Dialect)
}

// dumpTrimmed runs llvm-tblgen --dump-json on the .td file (its includes
// found below include) and trims the dump to the dialect's ops.
func dumpTrimmed(ctx context.Context, tblgen, include, td, dialect string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tblgen, "--dump-json", "-I", include, td)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s --dump-json %s: %w: %s", tblgen, td, err, clip.Text(stderr.String()))
	}
	rs, err := opsurface.ReadRecords(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s --dump-json %s: %w", tblgen, td, err)
	}
	roots := opsurface.DialectRecords(rs, dialect)
	if len(roots) == 0 {
		return nil, fmt.Errorf("%s defines no op of dialect %q", td, dialect)
	}
	return rs.Trim(roots)
}

// cachePath names the cached dump: by installation, dialect, and what
// changes when the sources do (the tool's version and the paths, sizes and
// times of the .td file and of llvm-tblgen).
func cachePath(in toolchain.Installation, src Source, td, tool fs.FileInfo) string {
	dir := batch.CacheDir()
	if dir == "" {
		return ""
	}
	h := sha256.New()
	for _, s := range []string{in.Version, in.Dir, src.File, strconv.FormatInt(td.Size(), 10), td.ModTime().UTC().String(),
		strconv.FormatInt(tool.Size(), 10), tool.ModTime().UTC().String()} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return filepath.Join(dir, "tablegen-"+in.Label+"-"+src.Dialect+"-"+hex.EncodeToString(h.Sum(nil)[:8])+".json")
}

// store writes the cache file whole (a temporary file renamed), so that a
// reader never sees part of one; a cache that cannot be written only costs
// the tool's run again.
func store(path string, data []byte) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		slog.Debug("surface cache not written", "path", path, "err", err)
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp.*")
	if err != nil {
		slog.Debug("surface cache not written", "path", path, "err", err)
		return
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		slog.Debug("surface cache not written", "path", path, "err", err)
		return
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		slog.Debug("surface cache not written", "path", path, "err", err)
	}
}
