// Package live lets a command read a store that a running campaign holds
// open. bbolt locks the file for its one writer, so a reader used to wait
// and give up ("still locked after 5s"). The campaign serves consistent
// snapshots of its store (Store.Snapshot, one read transaction, while it
// writes on) on its loopback status server and says where in a file beside
// the store; Open, finding the store locked, fetches one and reads that.
package live

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/legalfuzz/legalfuzz/coordinator/store"
)

// Path is the file beside the store at dbPath that says where its
// campaign serves snapshots.
func Path(dbPath string) string { return dbPath + ".live" }

// advert is the file's content. The token keeps the snapshot to those who
// may read the file (0600, beside the store): the status server may listen
// beyond loopback (--status-addr) for metrics.
type advert struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// Server serves snapshots of a store at GET with its token.
type Server struct {
	store *store.Store
	token string
}

// NewServer returns the snapshot server of s, with a fresh token.
func NewServer(s *store.Store) (*Server, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("snapshot token: %w", err)
	}
	return &Server{store: s, token: hex.EncodeToString(b)}, nil
}

// ServeHTTP writes a snapshot of the store.
func (v *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+v.token {
		http.Error(w, "a snapshot needs the token in "+Path("STORE"), http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := v.store.Snapshot(w); err != nil {
		// The status line is sent: a short body is what the reader sees,
		// and bbolt refuses the truncated file.
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// Advertise writes the file that tells readers of the store at dbPath to
// fetch snapshots from url; remove deletes it, as the campaign ends.
func (v *Server) Advertise(dbPath, url string) (remove func(), err error) {
	data, err := json.Marshal(advert{URL: url, Token: v.token, PID: os.Getpid()})
	if err != nil {
		return nil, err
	}
	path := Path(dbPath)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("advertise snapshots: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// Open opens the store at path read-only. While a campaign holds it and
// advertises snapshots, Open reads a snapshot of it instead of waiting,
// and note says so in a line for the user; with no advert, or when the
// campaign does not answer (it died, leaving its file), Open waits up to
// wait for the lock as store.OpenStoreReadOnly does.
func Open(path string, wait time.Duration) (s *store.Store, note string, err error) {
	data, err := os.ReadFile(Path(path))
	if err != nil {
		s, err := store.OpenStoreReadOnly(path, wait)
		return s, "", err
	}
	s, err = store.OpenStoreReadOnly(path, min(wait, 100*time.Millisecond))
	if !errors.Is(err, store.ErrLocked) {
		return s, "", err
	}
	var ad advert
	if err := json.Unmarshal(data, &ad); err != nil {
		return nil, "", fmt.Errorf("%s: %w", Path(path), err)
	}
	s, err = snapshot(ad)
	if err != nil {
		s, err2 := store.OpenStoreReadOnly(path, wait)
		return s, "", errors.Join(err2, fmt.Errorf("no snapshot from the campaign (process %d) either: %w", ad.PID, err))
	}
	return s, fmt.Sprintf("reading a snapshot of %s taken now: a campaign (process %d) is running on it", path, ad.PID), nil
}

// snapshot fetches a snapshot into a temporary file and opens it. The file
// is removed once open: the open store keeps it until closed.
func snapshot(ad advert) (*store.Store, error) {
	req, err := http.NewRequest(http.MethodGet, ad.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+ad.Token)
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("%s: %s: %s", ad.URL, resp.Status, msg)
	}
	f, err := os.CreateTemp("", "legalfuzz-snapshot-*.db")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = io.Copy(f, resp.Body)
	if err := errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("fetch a snapshot: %w", err)
	}
	return store.OpenStoreReadOnly(f.Name(), time.Second)
}
