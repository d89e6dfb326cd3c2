package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Format is one report format: its name on the command line, its file in
// the output folder, and its writer.
type Format struct {
	Name, File string
	Write      func(io.Writer, *Report) error
}

// Formats are the report formats, in the order they are written.
var Formats = []Format{
	{"html", "report.html", WriteHTML},
	{"md", "report.md", WriteMarkdown},
	{"json", "report.json", WriteJSON},
	{"junit", "report.junit.xml", WriteJUnit},
}

// ParseFormats checks a list of format names ("html", "md", "json", "junit")
// and returns them without duplicates; an empty list means all.
func ParseFormats(names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" || slices.Contains(out, n) {
			continue
		}
		if !slices.ContainsFunc(Formats, func(f Format) bool { return f.Name == n }) {
			return nil, fmt.Errorf("unknown report format %q (want html, md, json or junit)", n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		for _, f := range Formats {
			out = append(out, f.Name)
		}
	}
	return out, nil
}

// WriteFiles writes the report in each format into dir (created if needed)
// and returns the paths written. Each file is written to a temporary name and
// renamed, so a reader never sees half a report.
func WriteFiles(dir string, r *Report, formats []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range Formats {
		if !slices.Contains(formats, f.Name) {
			continue
		}
		path := filepath.Join(dir, f.File)
		if err := writeFile(path, func(w io.Writer) error { return f.Write(w, r) }); err != nil {
			return paths, fmt.Errorf("write %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
