package corpus

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/legalfuzz/legalfuzz/fuzz/domain"
)

// LoadTree reads every domain's cases found under the roots, in the layouts
// the go and gofuzz export formats write and Go's fuzzing keeps:
// .../<FuzzTarget>/ folders of Go native files (testdata/fuzz/FuzzMMA/,
// the fuzz cache) and .../<domain>/ folders of raw inputs (gofuzz/mma/).
// A root that is itself such a folder counts too. Files outside every such
// folder are not cases and are counted in Ignored. Bad files are reported
// in Problems and the load goes on; cases are deduplicated by ID across
// all folders.
func LoadTree(domains []domain.Domain, roots []string) (Loaded, int) {
	byFolder := map[string]domain.Domain{}
	for _, d := range domains {
		byFolder[d.Name] = d
		byFolder[d.FuzzTarget] = d
	}
	var all Loaded
	ignored := 0
	seen := map[string]bool{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				all.Problems = append(all.Problems, err)
				return nil
			}
			if !e.IsDir() {
				ignored++
				return nil
			}
			d, ok := byFolder[filepath.Base(path)]
			if !ok {
				return nil
			}
			l := Load(d, []string{path})
			for i, c := range l.Cases {
				if seen[c.ID] {
					all.Duplicates++
					continue
				}
				seen[c.ID] = true
				all.Cases = append(all.Cases, c)
				all.Paths = append(all.Paths, l.Paths[i])
			}
			all.Duplicates += l.Duplicates
			all.Problems = append(all.Problems, l.Problems...)
			return filepath.SkipDir
		})
		if err != nil {
			all.Problems = append(all.Problems, fmt.Errorf("%s: %w", root, err))
		}
	}
	return all, ignored
}
